"""Registration rules of the Tool Args Schema subset (``pedelec.schema.check``, DESIGN §3).

``REJECTED`` is the rule table as data: one row per rule with the schema that breaks it, the
JSON pointer and keyword in ``details`` and the whole message. ``ACCEPTED`` holds the edge cases
that must pass (``1``, ``1.0``, names that look like keywords, ...). Hypothesis then feeds
generated garbage and generated valid schemas through the checker.
"""

from __future__ import annotations

import copy
import enum
import json
import math
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, strategies as st
from jsonschema import Draft202012Validator

from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.limits import MAX_SCHEMA_DEPTH
from pedelec.schema.check import _check_node as check_node, check_schema
from pedelec.schema.keywords import SUBSET
from pedelec.schema.patterns import pattern_problem

TOOL = "update_counter"
TYPES = '"string", "number", "integer", "boolean", "array", "object"'
PLAIN = (
    "a schema holds only plain JSON: dicts with str keys, lists, str, int, finite float, bool "
    "and None"
)
ROOT_FIX = (
    "a tool's arguments are always an object "
    '(a tool without arguments uses {"type": "object", "properties": {}})'
)
ALLOWED = {
    "string": "description, default, examples, enum, minLength, maxLength, pattern",
    "number": "description, default, examples, enum, minimum, maximum",
    "integer": "description, default, examples, enum, minimum, maximum",
    "boolean": "description, default, examples, enum",
    "array": "description, default, examples, items, minItems, maxItems, uniqueItems",
    "object": "description, default, examples, properties, required",
    "oneOf": "description, default, examples",
}
GENERIC_FIX = "remove it or check the value in your handler"
REUSE = (
    "write the node in place instead (to reuse a node, assign it to a Python constant and use "
    "the constant wherever it is needed)"
)
P = "/properties/x"


def prop(node: Any) -> dict[str, Any]:
    """A root schema with ``node`` as property ``x`` (so pointers start with ``/properties/x``)."""
    return {"type": "object", "properties": {"x": node}}


def msg(where: str, clause: str) -> str:
    return f"Invalid schema at {where}: {clause}."


def unsupported(keyword: str, kind: str, fix: str = GENERIC_FIX) -> str:
    return (
        f'"{keyword}" is not supported in a Tool Args Schema {kind} node '
        f"(allowed: {ALLOWED[kind]}); {fix}"
    )


def not_node(got: str) -> str:
    return (
        f'expected a schema node (an object with "type" or "oneOf"), got {got}; '
        'use e.g. {"type": "string"}'
    )


def needs_type(suggested: str) -> str:
    return f'a schema node needs "type" (one of {TYPES}) or "oneOf"; add "type": "{suggested}"'


def count_clause(keyword: str, got: str) -> str:
    return f'"{keyword}" must be a non-negative integer, got {got}; use a whole number, 0 or more'


def number_clause(keyword: str, got: str) -> str:
    return f'"{keyword}" must be a number, got {got}; use a number such as 0'


def cyclic_schema() -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    schema["properties"]["self"] = schema
    return schema


def cyclic_list() -> list[Any]:
    items: list[Any] = []
    items.append(items)
    return items


def chain(depth: int, via: str) -> dict[str, Any]:
    """A root object whose nodes nest ``depth`` levels (the root is level 1) through ``via``."""
    node: dict[str, Any] = {"type": "string", "default": "deepest"}
    for _ in range(depth - 1 if via == "properties" else depth - 2):
        if via == "items":
            node = {"type": "array", "items": node}
        elif via == "oneOf":
            node = {"oneOf": [node]}
        else:
            node = {"type": "object", "properties": {"a": node}}
    return {"type": "object", "properties": {"a": node}} if via != "properties" else node


def chain_pointer(depth: int, via: str) -> str:
    """The pointer of the first node deeper than ``depth`` in ``chain(n, via)``, n > depth."""
    step = {"items": "/items", "oneOf": "/oneOf/0", "properties": "/properties/a"}[via]
    if via == "properties":
        return step * depth
    return "/properties/a" + step * (depth - 1)


#: Every length/count keyword with a node it belongs to.
COUNT_KEYWORDS: list[tuple[str, dict[str, Any]]] = [
    ("minLength", {"type": "string"}),
    ("maxLength", {"type": "string"}),
    ("minItems", {"type": "array", "items": {"type": "string"}}),
    ("maxItems", {"type": "array", "items": {"type": "string"}}),
]

DEEP = (
    f"the schema is nested too deeply (more than {MAX_SCHEMA_DEPTH} levels of nodes); "
    "flatten it or split the tool"
)

# fmt: off
REJECTED = [
    # --- the root ----------------------------------------------------------------------------
    pytest.param([], "", None, msg("the root", f'the root must be {{"type": "object", ...}}, got array []; {ROOT_FIX}'), id="root-array"),
    pytest.param(None, "", None, msg("the root", f'the root must be {{"type": "object", ...}}, got null; {ROOT_FIX}'), id="root-null"),
    pytest.param({"type": "string"}, "/type", "type", msg("/type", f'the root must be {{"type": "object", ...}}, got "type": "string"; {ROOT_FIX}'), id="root-string-node"),
    pytest.param({"oneOf": [{"type": "object"}]}, "", "type", msg("the root", f'the root must be {{"type": "object", ...}}, got a node without "type"; {ROOT_FIX}'), id="root-oneOf"),
    # --- node shape --------------------------------------------------------------------------
    pytest.param(prop("string"), P, None, msg(P, not_node('string "string"')), id="node-not-object"),
    pytest.param(prop({"type": "array", "items": [{"type": "string"}]}), P + "/items", None, msg(P + "/items", not_node('array [{"type":"string"}]')), id="node-items-list"),
    pytest.param(prop({}), P, "type", msg(P, needs_type("string")), id="node-empty"),
    pytest.param(prop({"properties": {}, "description": "d"}), P, "type", msg(P, needs_type("object")), id="node-no-type-properties"),
    pytest.param(prop({"description": "d", "minimum": 0}), P, "type", msg(P, needs_type("number")), id="node-no-type-minimum"),
    pytest.param(prop({"items": {"type": "string"}}), P, "type", msg(P, needs_type("array")), id="node-no-type-items"),
    pytest.param(prop({"enum": ["a"]}), P, "type", msg(P, needs_type("string")), id="node-no-type-enum"),
    pytest.param(prop({"type": "string", "oneOf": [{"type": "string"}]}), P + "/oneOf", "oneOf", msg(P + "/oneOf", '"oneOf" cannot stand beside "type" in one node; remove "type" here and give each "oneOf" alternative its own "type"'), id="type-beside-oneOf"),
    pytest.param(prop({"type": "int"}), P + "/type", "type", msg(P + "/type", f'"type" must be one of {TYPES}, got string "int"; use one of these names'), id="type-unknown"),
    pytest.param(prop({"type": ["string", "null"]}), P + "/type", "type", msg(P + "/type", f'"type" must be one of {TYPES}, got array ["string","null"]; use "oneOf" with one node per type'), id="type-list"),
    pytest.param(prop({"type": "null"}), P + "/type", "type", msg(P + "/type", f'"type" must be one of {TYPES}, got string "null"; the subset has no null type; to let a value be missing, leave its property out of "required"'), id="type-null"),
    pytest.param(prop({"type": 1}), P + "/type", "type", msg(P + "/type", f'"type" must be one of {TYPES}, got integer 1; use one of these names'), id="type-not-string"),
    # --- keywords outside the subset ---------------------------------------------------------
    pytest.param(prop({"$ref": "#/$defs/point"}), P + "/$ref", "$ref", msg(P + "/$ref", f'"$ref" is not supported in a Tool Args Schema; {REUSE}'), id="ref"),
    pytest.param({"type": "object", "$defs": {}}, "/$defs", "$defs", msg("/$defs", unsupported("$defs", "object", REUSE)), id="defs"),
    pytest.param({"type": "object", "properties": {}, "additionalProperties": False}, "/additionalProperties", "additionalProperties", msg("/additionalProperties", unsupported("additionalProperties", "object", "remove it (to reject undeclared arguments, use Session(reject_unknown_args=True))")), id="additionalProperties"),
    pytest.param(prop({"type": "string", "format": "uuid"}), P + "/format", "format", msg(P + "/format", unsupported("format", "string")), id="format"),
    pytest.param(prop({"anyOf": [{"type": "string"}]}), P + "/anyOf", "anyOf", msg(P + "/anyOf", '"anyOf" is not supported in a Tool Args Schema; use "oneOf" with alternatives that cannot match the same value'), id="anyOf"),
    pytest.param(prop({"type": "object", "allOf": []}), P + "/allOf", "allOf", msg(P + "/allOf", unsupported("allOf", "object", 'merge the parts into one node, or use "oneOf" for alternatives')), id="allOf"),
    pytest.param(prop({"type": "number", "exclusiveMinimum": 0}), P + "/exclusiveMinimum", "exclusiveMinimum", msg(P + "/exclusiveMinimum", unsupported("exclusiveMinimum", "number", 'use "minimum" (inclusive) instead')), id="exclusiveMinimum"),
    pytest.param(prop({"type": "integer", "exclusiveMaximum": 9}), P + "/exclusiveMaximum", "exclusiveMaximum", msg(P + "/exclusiveMaximum", unsupported("exclusiveMaximum", "integer", 'use "maximum" (inclusive) instead')), id="exclusiveMaximum"),
    pytest.param(prop({"type": "integer", "multipleOf": 2}), P + "/multipleOf", "multipleOf", msg(P + "/multipleOf", unsupported("multipleOf", "integer")), id="multipleOf"),
    pytest.param(prop({"type": "string", "const": "a"}), P + "/const", "const", msg(P + "/const", unsupported("const", "string", 'use "enum" with a single value on a string, number, integer or boolean node')), id="const"),
    pytest.param({"type": "object", "title": "Args"}, "/title", "title", msg("/title", unsupported("title", "object", 'put the text in "description"')), id="title"),
    pytest.param(prop({"type": "boolean", "x-widget": "toggle"}), P + "/x-widget", "x-widget", msg(P + "/x-widget", unsupported("x-widget", "boolean")), id="custom-keyword"),
    pytest.param(prop({"oneOf": [{"type": "string"}], "minLength": 1}), P + "/minLength", "minLength", msg(P + "/minLength", unsupported("minLength", "oneOf")), id="oneOf-sibling"),
    pytest.param(prop({"type": "integer", "minLength": 1}), P + "/minLength", "minLength", msg(P + "/minLength", unsupported("minLength", "integer")), id="minLength-on-integer"),
    pytest.param(prop({"type": "number", "pattern": "a"}), P + "/pattern", "pattern", msg(P + "/pattern", unsupported("pattern", "number")), id="pattern-on-number"),
    pytest.param(prop({"type": "string", "uniqueItems": True}), P + "/uniqueItems", "uniqueItems", msg(P + "/uniqueItems", unsupported("uniqueItems", "string")), id="uniqueItems-on-string"),
    pytest.param(prop({"type": "object", "items": {"type": "string"}}), P + "/items", "items", msg(P + "/items", unsupported("items", "object")), id="items-on-object"),
    pytest.param(prop({"type": "object", "enum": [{}]}), P + "/enum", "enum", msg(P + "/enum", unsupported("enum", "object")), id="enum-on-object"),
    pytest.param(prop({"type": "array", "items": {"type": "string"}, "properties": {}}), P + "/properties", "properties", msg(P + "/properties", unsupported("properties", "array")), id="properties-on-array"),
    pytest.param(prop({"type": "array", "items": {"type": "string"}, "required": []}), P + "/required", "required", msg(P + "/required", unsupported("required", "array")), id="required-on-array"),
    # --- description, default, examples ------------------------------------------------------
    pytest.param(prop({"type": "string", "description": ["a"]}), P + "/description", "description", msg(P + "/description", '"description" must be a string, got array ["a"]; write it as text'), id="description-not-string"),
    pytest.param(prop({"type": "string", "examples": "en"}), P + "/examples", "examples", msg(P + "/examples", '"examples" must be an array of example values, got string "en"; wrap the example in an array: ["en"]'), id="examples-not-list"),
    pytest.param(prop({"type": "integer", "default": "1"}), P + "/default", "default", msg(P + "/default", '"default" is not valid for its own node (expected integer, got string "1"); fix the default or remove it'), id="default-wrong-type"),
    pytest.param(prop({"type": "integer", "default": True}), P + "/default", "default", msg(P + "/default", '"default" is not valid for its own node (expected integer, got boolean true); fix the default or remove it'), id="default-true-for-integer"),
    pytest.param(prop({"type": "integer", "minimum": 0, "default": -1}), P + "/default", "default", msg(P + "/default", '"default" is not valid for its own node (must be >= 0, got -1); fix the default or remove it'), id="default-below-minimum"),
    pytest.param(prop({"type": "object", "properties": {"a": {"type": "integer"}}, "default": {"a": 1.5}}), P + "/default", "default", msg(P + "/default", '"default" is not valid for its own node (at /a: expected integer, got number 1.5); fix the default or remove it'), id="default-nested"),
    pytest.param(prop({"type": "array", "items": {"type": "string"}, "uniqueItems": True, "default": ["a", "a"]}), P + "/default", "default", msg(P + "/default", '"default" is not valid for its own node (at /1: duplicate of item 0); fix the default or remove it'), id="default-duplicate-items"),
    pytest.param(prop({"oneOf": [{"type": "integer"}, {"type": "number"}], "default": 1}), P + "/default", "default", msg(P + "/default", '"default" is not valid for its own node (matches alternatives 1, 2 of 2; it must match exactly one); fix the default or remove it'), id="default-oneOf"),
    pytest.param(prop({"type": "string", "enum": ["en", "de"], "examples": ["en", "fr"]}), P + "/examples/1", "examples", msg(P + "/examples/1", '"examples" entry 1 is not valid for its own node (must be one of "en", "de"; got "fr"); fix the example or remove it'), id="examples-entry-invalid"),
    pytest.param(prop({"type": "array", "items": {"type": "integer"}, "examples": [[1], [1, "2"]]}), P + "/examples/1", "examples", msg(P + "/examples/1", '"examples" entry 1 is not valid for its own node (at /1: expected integer, got string "2"); fix the example or remove it'), id="examples-entry-nested"),
    # --- enum --------------------------------------------------------------------------------
    pytest.param(prop({"type": "string", "enum": "a"}), P + "/enum", "enum", msg(P + "/enum", '"enum" must be a non-empty array of string values, got string "a"; list the allowed values, or remove "enum"'), id="enum-not-list"),
    pytest.param(prop({"type": "number", "enum": []}), P + "/enum", "enum", msg(P + "/enum", '"enum" must be a non-empty array of number values, got array []; list the allowed values, or remove "enum"'), id="enum-empty"),
    pytest.param(prop({"type": "string", "enum": ["a", 1]}), P + "/enum/1", "enum", msg(P + "/enum/1", '"enum" entry 1 must be a string like its node, got integer 1; fix the entry or the node\'s "type"'), id="enum-string-member-integer"),
    pytest.param(prop({"type": "string", "enum": [None]}), P + "/enum/0", "enum", msg(P + "/enum/0", '"enum" entry 0 must be a string like its node, got null; fix the entry or the node\'s "type"'), id="enum-string-member-null"),
    pytest.param(prop({"type": "number", "enum": [1, True]}), P + "/enum/1", "enum", msg(P + "/enum/1", '"enum" entry 1 must be a number like its node, got boolean true; fix the entry or the node\'s "type"'), id="enum-number-member-true"),
    pytest.param(prop({"type": "number", "enum": ["1"]}), P + "/enum/0", "enum", msg(P + "/enum/0", '"enum" entry 0 must be a number like its node, got string "1"; fix the entry or the node\'s "type"'), id="enum-number-member-string"),
    pytest.param(prop({"type": "integer", "enum": [1, 1.5]}), P + "/enum/1", "enum", msg(P + "/enum/1", '"enum" entry 1 must be an integer like its node, got number 1.5; fix the entry or the node\'s "type"'), id="enum-integer-member-fraction"),
    pytest.param(prop({"type": "integer", "enum": [True]}), P + "/enum/0", "enum", msg(P + "/enum/0", '"enum" entry 0 must be an integer like its node, got boolean true; fix the entry or the node\'s "type"'), id="enum-integer-member-true"),
    pytest.param(prop({"type": "boolean", "enum": [True, 0]}), P + "/enum/1", "enum", msg(P + "/enum/1", '"enum" entry 1 must be a boolean like its node, got integer 0; fix the entry or the node\'s "type"'), id="enum-boolean-member-zero"),
    pytest.param(prop({"type": "string", "enum": ["a", "b", "a"]}), P + "/enum/2", "enum", msg(P + "/enum/2", '"enum" entry 2 ("a") repeats entry 0; list each value once'), id="enum-duplicate-string"),
    pytest.param(prop({"type": "number", "enum": [1, 1.0]}), P + "/enum/1", "enum", msg(P + "/enum/1", '"enum" entry 1 (1.0) repeats entry 0; list each value once'), id="enum-duplicate-1-1.0"),
    pytest.param(prop({"type": "integer", "enum": [2.0, 3, 2]}), P + "/enum/2", "enum", msg(P + "/enum/2", '"enum" entry 2 (2) repeats entry 0; list each value once'), id="enum-duplicate-2.0-2"),
    pytest.param(prop({"type": "boolean", "enum": [True, False, True]}), P + "/enum/2", "enum", msg(P + "/enum/2", '"enum" entry 2 (true) repeats entry 0; list each value once'), id="enum-duplicate-boolean"),
    # The lower index is reported: a wrong member before a repeat, a repeat before a wrong member.
    pytest.param(prop({"type": "number", "enum": [1, "x", 1]}), P + "/enum/1", "enum", msg(P + "/enum/1", '"enum" entry 1 must be a number like its node, got string "x"; fix the entry or the node\'s "type"'), id="enum-member-before-repeat"),
    pytest.param(prop({"type": "number", "enum": [1, 1.0, "x"]}), P + "/enum/1", "enum", msg(P + "/enum/1", '"enum" entry 1 (1.0) repeats entry 0; list each value once'), id="enum-repeat-before-member"),
    pytest.param(prop({"type": "number", "enum": ["x", "x"]}), P + "/enum/0", "enum", msg(P + "/enum/0", '"enum" entry 0 must be a number like its node, got string "x"; fix the entry or the node\'s "type"'), id="enum-member-repeated"),
    # An unhashable entry sends the search for repeats past its set-based shortcut.
    pytest.param(prop({"type": "string", "enum": ["a", "a", ["b"]]}), P + "/enum/1", "enum", msg(P + "/enum/1", '"enum" entry 1 ("a") repeats entry 0; list each value once'), id="enum-repeat-before-unhashable"),
    pytest.param(prop({"type": "string", "enum": ["a", {"b": 1}, "a"]}), P + "/enum/1", "enum", msg(P + "/enum/1", '"enum" entry 1 must be a string like its node, got object {"b":1}; fix the entry or the node\'s "type"'), id="enum-unhashable-member"),
    # --- lengths and counts: non-negative integers (True is not one, 2.0 is) ----------------
    *[
        pytest.param(prop({**node, keyword: value}), f"{P}/{keyword}", keyword, msg(f"{P}/{keyword}", count_clause(keyword, got)), id=f"{keyword}-{got}")
        for keyword, node in COUNT_KEYWORDS
        for value, got in [
            (True, "boolean true"),
            (False, "boolean false"),
            (-1, "integer -1"),
            (-1.0, "number -1.0"),
            (1.5, "number 1.5"),
            ("1", 'string "1"'),
            (None, "null"),
        ]
    ],
    # --- minimum / maximum: numbers (True is not one) ----------------------------------------
    *[
        pytest.param(prop({"type": kind, keyword: value}), f"{P}/{keyword}", keyword, msg(f"{P}/{keyword}", number_clause(keyword, got)), id=f"{kind}-{keyword}-{got}")
        for kind in ("number", "integer")
        for keyword in ("minimum", "maximum")
        for value, got in [(True, "boolean true"), ("0", 'string "0"'), (None, "null"), ([0], "array [0]")]
    ],
    # --- uniqueItems: a boolean (1 is not one) -----------------------------------------------
    *[
        pytest.param(prop({"type": "array", "items": {"type": "string"}, "uniqueItems": value}), P + "/uniqueItems", "uniqueItems", msg(P + "/uniqueItems", f'"uniqueItems" must be true or false, got {got}; use true or false'), id=f"uniqueItems-{got}")
        for value, got in [(1, "integer 1"), (1.0, "number 1.0"), (0, "integer 0"), ("true", 'string "true"'), (None, "null")]
    ],
    # --- lower bound above upper bound ---------------------------------------------------------
    pytest.param(prop({"type": "string", "minLength": 5, "maxLength": 2}), P + "/minLength", "minLength", msg(P + "/minLength", '"minLength" (5) is greater than "maxLength" (2), so nothing can match; lower "minLength" or raise "maxLength"'), id="minLength-above-maxLength"),
    pytest.param(prop({"type": "string", "maxLength": 2.0, "minLength": 3.0}), P + "/minLength", "minLength", msg(P + "/minLength", '"minLength" (3.0) is greater than "maxLength" (2.0), so nothing can match; lower "minLength" or raise "maxLength"'), id="minLength-above-maxLength-floats"),
    pytest.param(prop({"type": "array", "items": {"type": "string"}, "minItems": 3, "maxItems": 1}), P + "/minItems", "minItems", msg(P + "/minItems", '"minItems" (3) is greater than "maxItems" (1), so nothing can match; lower "minItems" or raise "maxItems"'), id="minItems-above-maxItems"),
    pytest.param(prop({"type": "integer", "minimum": 10, "maximum": 5}), P + "/minimum", "minimum", msg(P + "/minimum", '"minimum" (10) is greater than "maximum" (5), so nothing can match; lower "minimum" or raise "maximum"'), id="minimum-above-maximum"),
    pytest.param(prop({"type": "number", "minimum": 1, "maximum": 0.5}), P + "/minimum", "minimum", msg(P + "/minimum", '"minimum" (1) is greater than "maximum" (0.5), so nothing can match; lower "minimum" or raise "maximum"'), id="minimum-above-fractional-maximum"),
    pytest.param(prop({"type": "number", "minimum": 1, "maximum": True}), P + "/maximum", "maximum", msg(P + "/maximum", number_clause("maximum", "boolean true")), id="maximum-true-beside-minimum"),
    # --- pattern -----------------------------------------------------------------------------
    pytest.param(prop({"type": "string", "pattern": 1}), P + "/pattern", "pattern", msg(P + "/pattern", '"pattern" must be a string holding a regular expression, got integer 1; write the pattern as text'), id="pattern-not-string"),
    *[
        pytest.param(prop({"type": "string", "pattern": pattern}), P + "/pattern", "pattern", msg(P + "/pattern", str(pattern_problem(pattern))), id=f"pattern-{pattern}")
        for pattern in [r"^(a+)\1$", r"(a*)\1", "[a-", r"(?P<name>x)", r"\Z", "(?i)a"]
    ],
    # --- array -------------------------------------------------------------------------------
    pytest.param(prop({"type": "array", "minItems": 1}), P, "items", msg(P, 'an array node needs "items", the node every item must match; add e.g. "items": {"type": "string"}'), id="array-without-items"),
    pytest.param(prop({"type": "array", "items": {"type": "string", "minLength": -1}}), P + "/items/minLength", "minLength", msg(P + "/items/minLength", count_clause("minLength", "integer -1")), id="items-node-invalid"),
    # --- object ------------------------------------------------------------------------------
    pytest.param(prop({"type": "object", "properties": [{"type": "string"}]}), P + "/properties", "properties", msg(P + "/properties", '"properties" must be an object mapping each property name to its node, got array [{"type":"string"}]; use e.g. {"name": {"type": "string"}}'), id="properties-not-object"),
    pytest.param({"type": "object", "required": ["a"], "properties": []}, "/properties", "properties", msg("/properties", '"properties" must be an object mapping each property name to its node, got array []; use e.g. {"name": {"type": "string"}}'), id="properties-not-object-after-required"),
    pytest.param(prop({"type": "object", "properties": {"a": True}}), P + "/properties/a", None, msg(P + "/properties/a", not_node("boolean true")), id="property-node-not-object"),
    pytest.param({"type": "object", "properties": {"a/b~c": {"type": "strin"}}}, "/properties/a~1b~0c/type", "type", msg("/properties/a~1b~0c/type", f'"type" must be one of {TYPES}, got string "strin"; use one of these names'), id="property-name-escaped"),
    pytest.param({"type": "object", "properties": {}, "required": "a"}, "/required", "required", msg("/required", '"required" must be an array of property names, got string "a"; use e.g. ["name"]'), id="required-not-list"),
    pytest.param({"type": "object", "properties": {}, "required": [1]}, "/required/0", "required", msg("/required/0", '"required" entry 0 must be a property name (a string), got integer 1; use the name as text'), id="required-entry-not-string"),
    pytest.param({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "a"]}, "/required/1", "required", msg("/required/1", '"required" entry 1 repeats "a" (entry 0); list each name once'), id="required-duplicate"),
    pytest.param({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "b"]}, "/required/1", "required", msg("/required/1", '"required" names "b", which "properties" does not define; define it in "properties" or remove it from "required"'), id="required-undefined"),
    pytest.param({"type": "object", "required": ["a"]}, "/required/0", "required", msg("/required/0", '"required" names "a", which "properties" does not define; define it in "properties" or remove it from "required"'), id="required-without-properties"),
    # --- oneOf -------------------------------------------------------------------------------
    pytest.param(prop({"oneOf": {"type": "string"}}), P + "/oneOf", "oneOf", msg(P + "/oneOf", '"oneOf" must be a non-empty array of nodes, got object {"type":"string"}; list the alternatives, e.g. [{"type": "string"}, {"type": "integer"}]'), id="oneOf-not-list"),
    pytest.param(prop({"oneOf": []}), P + "/oneOf", "oneOf", msg(P + "/oneOf", '"oneOf" must be a non-empty array of nodes, got array []; list the alternatives, e.g. [{"type": "string"}, {"type": "integer"}]'), id="oneOf-empty"),
    pytest.param(prop({"oneOf": [{"type": "string"}, "integer"]}), P + "/oneOf/1", None, msg(P + "/oneOf/1", not_node('string "integer"')), id="oneOf-member-not-object"),
    pytest.param(prop({"oneOf": [{"type": "string"}, {"type": "integer", "minimum": "0"}]}), P + "/oneOf/1/minimum", "minimum", msg(P + "/oneOf/1/minimum", number_clause("minimum", 'string "0"')), id="oneOf-member-invalid"),
    # --- not plain JSON ----------------------------------------------------------------------
    pytest.param(prop({"type": "string", "default": {"a"}}), P + "/default", "default", msg(P + "/default", f"set is not a JSON type (use a list); {PLAIN}"), id="set-in-default"),
    pytest.param(prop({"type": "string", "enum": ("a", "b")}), P + "/enum", "enum", msg(P + "/enum", f"tuple is not a JSON type (use a list); {PLAIN}"), id="tuple-enum"),
    pytest.param(prop({"type": "string", "enum": ["a", frozenset()]}), P + "/enum/1", "enum", msg(P + "/enum/1", f"frozenset is not a JSON type (use a list); {PLAIN}"), id="frozenset-in-enum"),
    pytest.param(prop({"type": "number", "minimum": math.nan}), P + "/minimum", "minimum", msg(P + "/minimum", f"NaN is not a JSON number (numbers must be finite); {PLAIN}"), id="nan-minimum"),
    pytest.param(prop({"type": "number", "maximum": math.inf}), P + "/maximum", "maximum", msg(P + "/maximum", f"Infinity is not a JSON number (numbers must be finite); {PLAIN}"), id="infinity-maximum"),
    pytest.param(prop({"type": "number", "enum": [-math.inf]}), P + "/enum/0", "enum", msg(P + "/enum/0", f"-Infinity is not a JSON number (numbers must be finite); {PLAIN}"), id="minus-infinity-enum"),
    pytest.param(prop({"type": "string", "description": b"text"}), P + "/description", "description", msg(P + "/description", f"bytes is not a JSON type (decode it to a str); {PLAIN}"), id="bytes-description"),
    pytest.param(prop(lambda args: args), P, None, msg(P, f"function is not a JSON type; {PLAIN}"), id="function-node"),
    pytest.param(prop(object()), P, None, msg(P, f"object is not a JSON type; {PLAIN}"), id="object-node"),
    pytest.param(prop({"type": "array", "items": {1, 2}}), P + "/items", None, msg(P + "/items", f"set is not a JSON type (use a list); {PLAIN}"), id="set-items"),
    pytest.param(prop({"oneOf": ({"type": "string"},)}), P + "/oneOf", "oneOf", msg(P + "/oneOf", f"tuple is not a JSON type (use a list); {PLAIN}"), id="tuple-oneOf"),
    pytest.param(prop({"oneOf": [{"type": "number", "minimum": math.nan}]}), P + "/oneOf/0/minimum", "minimum", msg(P + "/oneOf/0/minimum", f"NaN is not a JSON number (numbers must be finite); {PLAIN}"), id="nan-in-oneOf-member"),
    pytest.param(prop({"type": "string", 1: "x"}), P, None, msg(P, f"object key 1 (integer) is not a string; {PLAIN}"), id="non-string-key-in-node"),
    pytest.param({"type": "object", "properties": {1: {"type": "string"}}}, "/properties", "properties", msg("/properties", f"object key 1 (integer) is not a string; {PLAIN}"), id="non-string-property-name"),
    pytest.param(cyclic_schema(), "/properties/self", None, msg("/properties/self", f"circular reference (a container contains itself); {PLAIN}"), id="cycle-node"),
    pytest.param(prop({"type": "array", "items": {"type": "string"}, "default": cyclic_list()}), P + "/default/0", "default", msg(P + "/default/0", f"circular reference (a container contains itself); {PLAIN}"), id="cycle-in-default"),
    pytest.param({"a", "b"}, "", None, msg("the root", f"set is not a JSON type (use a list); {PLAIN}"), id="set-root"),
    # --- depth -------------------------------------------------------------------------------
    *[
        pytest.param(chain(depth, via), chain_pointer(MAX_SCHEMA_DEPTH, via), None, msg(chain_pointer(MAX_SCHEMA_DEPTH, via), DEEP), id=f"too-deep-{via}-{depth}")
        for via in ("items", "oneOf", "properties")
        for depth in (MAX_SCHEMA_DEPTH + 1, 10_000)
    ],
]
# fmt: on


@pytest.mark.parametrize("tool", [None, TOOL])
@pytest.mark.parametrize(("schema", "where", "keyword", "message"), REJECTED)
def test_rejected(
    schema: Any, where: str, keyword: str | None, message: str, tool: str | None
) -> None:
    with pytest.raises(PedelecError) as caught:
        check_schema(schema, tool=tool)

    error = caught.value
    assert error.code == INVALID_INPUT
    if tool is None:
        assert error.message == message
        assert error.details == {"pointer": where, "keyword": keyword}
    else:
        assert error.message == message.replace(
            "Invalid schema at", f'Invalid schema for tool "{TOOL}" at', 1
        )
        assert error.details == {"pointer": where, "keyword": keyword, "tool": TOOL}


def test_rejected_table_covers_every_keyword_of_the_subset() -> None:
    # A keyword added to SUBSET without a rejection row here fails this test.
    ids = " ".join(str(row.id) for row in REJECTED)
    for kind, rules in SUBSET.items():
        for keyword in rules.keywords:
            assert keyword in ids, (kind, keyword)


class Kind(enum.StrEnum):
    OBJECT = "object"
    INTEGER = "integer"


class Size(enum.IntEnum):
    SMALL = 1


# fmt: off
ACCEPTED = [
    pytest.param({"type": "object"}, id="bare-object"),
    pytest.param({"type": "object", "properties": {}, "required": []}, id="no-arguments"),
    pytest.param({"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}, id="required-before-properties"),
    pytest.param({"type": "object", "properties": {"type": {"type": "string"}, "$ref": {"type": "string"}, "default": {"type": "string"}, "properties": {"type": "object"}}}, id="keyword-like-property-names"),
    pytest.param({"type": "object", "properties": {"": {"type": "string"}, "a/b": {"type": "string"}}, "required": ["", "a/b"]}, id="odd-property-names"),
    pytest.param({"type": "object", "description": ""}, id="empty-description"),
    # 1, 1.0 and big numbers in every numeric keyword.
    *[
        pytest.param(prop({**node, keyword: value}), id=f"{keyword}-{value!r}")
        for keyword, node in COUNT_KEYWORDS
        for value in (0, 1, 1.0, 0.0, 2**70)
    ],
    *[
        pytest.param(prop({"type": kind, keyword: value}), id=f"{kind}-{keyword}-{value!r}")
        for kind in ("number", "integer")
        for keyword in ("minimum", "maximum")
        for value in (0, 1, 1.0, -1, 1.5, -(10**30), 1e300)
    ],
    pytest.param(prop({"type": "string", "minLength": 3, "maxLength": 3.0}), id="minLength-equals-maxLength"),
    pytest.param(prop({"type": "number", "minimum": 1, "maximum": 1.0}), id="minimum-equals-maximum"),
    pytest.param(prop({"type": "integer", "minimum": 0.5, "maximum": 1}), id="fractional-bounds-on-integer"),
    pytest.param(prop({"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2}), id="minItems-equals-maxItems"),
    pytest.param(prop({"type": "array", "items": {"type": "string"}, "uniqueItems": False}), id="uniqueItems-false"),
    pytest.param(prop({"type": "integer", "enum": [1, 2.0, -3, 2**70]}), id="integer-enum-with-2.0"),
    pytest.param(prop({"type": "number", "enum": [1, 1.5, 0]}), id="number-enum"),
    pytest.param(prop({"type": "boolean", "enum": [True, False]}), id="boolean-enum"),
    pytest.param(prop({"type": "string", "enum": ["1", "1.0", "true"]}), id="string-enum-looks-numeric"),
    pytest.param(prop({"type": "integer", "default": 1.0, "examples": [1, 2.0]}), id="integer-default-1.0"),
    pytest.param(prop({"type": "boolean", "default": False, "examples": []}), id="boolean-default-empty-examples"),
    pytest.param(prop({"type": "string", "pattern": "^[a-z]+$", "default": "abc"}), id="pattern-with-default"),
    pytest.param(prop({"oneOf": [{"type": "string"}, {"type": "integer"}], "default": 1, "description": "d"}), id="oneOf-with-default"),
    pytest.param(prop({"type": "object", "default": {"extra": [[[[]]]]}}), id="object-default-with-undeclared-property"),
    pytest.param(prop({"type": "array", "items": {"type": "object"}, "uniqueItems": True, "default": [{"a": [1]}, {"a": [1.5]}]}), id="unique-default"),
    *[pytest.param(chain(MAX_SCHEMA_DEPTH, via), id=f"deepest-allowed-{via}") for via in ("items", "oneOf", "properties")],
]
# fmt: on


@pytest.mark.parametrize("schema", ACCEPTED)
def test_accepted(schema: dict[str, Any]) -> None:
    clone = check_schema(schema, tool=TOOL)

    assert clone == schema
    # Same JSON types too: 1.0 stays a float, True stays a bool, nothing is normalised.
    assert json.dumps(clone) == json.dumps(schema)


def test_enum_members_become_plain_json() -> None:
    schema = {
        "type": Kind.OBJECT,
        "properties": OrderedDict(n={"type": Kind.INTEGER, "enum": [Size.SMALL]}),
    }

    clone = check_schema(schema)

    assert clone == {"type": "object", "properties": {"n": {"type": "integer", "enum": [1]}}}
    assert type(clone["type"]) is str
    assert type(clone["properties"]) is dict
    assert type(clone["properties"]["n"]["enum"][0]) is int


CASES = json.loads(
    (Path(__file__).parent / "conformance" / "cases.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("schema", [case["schema"] for case in CASES], ids=[c["id"] for c in CASES])
def test_every_conformance_schema_passes(schema: dict[str, Any]) -> None:
    assert check_schema(schema) == schema


# The argument schemas of the two tools of the TypeScript SDK's "Shape Rain" demo, as that app
# declares them (see /work/shared/upstream/README.md of the project brief).
SHAPE_RAIN: dict[str, dict[str, Any]] = json.loads(
    """
{"spawn_basic_shapes":{"type":"object","required":["items"],"properties":{"items":{"type":"array",
"minItems":1,"maxItems":8,"items":{"type":"object","required":["shape"],"properties":{"shape":{
"type":"string","enum":["circle","square","rectangle","triangle","pentagon","hexagon","star",
"capsule"],"description":"Supported basic shape type."},"count":{"type":"integer","minimum":1,
"maximum":12,"default":1,"description":"Number of shapes to spawn for this item."},"color":{"type":
"string","description":"Simple color name or #RRGGBB hex color.","default":"blue"},"style":{"type":
"string","description":"Optional visual style hint. The first version uses it only as a fallback color string."},
"size":{"oneOf":[{"type":"string","enum":["small","medium","large"]},{"type":"number","minimum":8,
"maximum":40}],"description":"Shape size. Numeric values are preferred; use 12-24 by default, with 16 for small decorative shapes, 18 for normal shapes, 20 for emphasis, and 22-24 for main visual shapes. Use medium, large, or numeric sizes above 24 only when explicitly requested.",
"default":18},"xHint":{"type":"number","minimum":0,"maximum":1,"description":"Optional horizontal spawn hint from 0 left to 1 right."}}}}}},
"spawn_closed_polygons":{"type":"object","required":["items"],"properties":{"items":{"type":"array",
"minItems":1,"maxItems":6,"items":{"type":"object","properties":{"preset":{"type":"string","enum":
["heart","shield","droplet"],"description":"Built-in polygon preset. Do not provide outer when using preset."},
"outer":{"type":"array","minItems":3,"maxItems":64,"description":"Outer contour points in continuous order. The contour is implicitly closed; do not repeat the first point.",
"items":{"type":"object","required":["x","y"],"properties":{"x":{"type":"integer","minimum":-100,
"maximum":100,"description":"Point x coordinate in normalized polygon space."},"y":{"type":"integer",
"minimum":-100,"maximum":100,"description":"Point y coordinate in normalized polygon space."}}}},
"holes":{"type":"array","description":"Optional hole contours. Each hole must stay inside outer and not overlap other holes.",
"items":{"type":"array","minItems":3,"maxItems":64,"items":{"type":"object","required":["x","y"],
"properties":{"x":{"type":"integer","minimum":-100,"maximum":100,"description":"Point x coordinate in normalized polygon space."},
"y":{"type":"integer","minimum":-100,"maximum":100,"description":"Point y coordinate in normalized polygon space."}}}}},
"name":{"type":"string","description":"Short semantic name such as crystal_shard, lightning, leaf, or ring."},
"color":{"type":"string","description":"Simple color name or #RRGGBB hex color."},"size":{"oneOf":[
{"type":"string","enum":["small","medium","large"]},{"type":"number","minimum":8,"maximum":40}],
"description":"Polygon size. Numeric values are preferred; use 12-24 by default, with 16 for small decorative shapes, 18 for normal shapes, 20 for emphasis, and 22-24 for main visual shapes. Use medium, large, or numeric sizes above 24 only when explicitly requested.",
"default":18},"count":{"type":"integer","minimum":1,"maximum":8,"default":1,"description":
"Number of polygons to spawn for this item."},"xHint":{"type":"number","minimum":0,"maximum":1,
"description":"Optional horizontal spawn hint from 0 left to 1 right."}}}}}}}
"""
)


@pytest.mark.parametrize("tool", sorted(SHAPE_RAIN))
def test_shape_rain_schemas_pass(tool: str) -> None:
    assert check_schema(SHAPE_RAIN[tool], tool=tool) == SHAPE_RAIN[tool]


def test_the_older_shape_rain_tools_json_is_rejected() -> None:
    # The demo's older tools.json carried additionalProperties: false, outside the subset.
    schema = copy.deepcopy(SHAPE_RAIN["spawn_basic_shapes"])
    schema["properties"]["items"]["items"]["additionalProperties"] = False

    with pytest.raises(PedelecError) as caught:
        check_schema(schema, tool="spawn_basic_shapes")

    assert caught.value.details == {
        "pointer": "/properties/items/items/additionalProperties",
        "keyword": "additionalProperties",
        "tool": "spawn_basic_shapes",
    }


def _containers(value: Any) -> list[Any]:
    out: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            out.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            out.append(item)
            stack.extend(item)
    return out


def test_clone_shares_no_container_with_the_input() -> None:
    schema = copy.deepcopy(SHAPE_RAIN["spawn_closed_polygons"])

    clone = check_schema(schema)

    assert clone == schema
    assert {id(c) for c in _containers(clone)}.isdisjoint(id(c) for c in _containers(schema))


def test_changing_the_input_afterwards_does_not_change_the_clone() -> None:
    schema = copy.deepcopy(SHAPE_RAIN["spawn_basic_shapes"])
    clone = check_schema(schema)
    item = schema["properties"]["items"]["items"]

    item["properties"]["shape"]["enum"].append("blob")
    item["properties"]["count"]["maximum"] = 1000
    item["required"].clear()
    schema["properties"]["extra"] = {"type": "string"}

    assert clone == SHAPE_RAIN["spawn_basic_shapes"]


def test_changing_the_clone_does_not_change_the_input() -> None:
    schema = copy.deepcopy(SHAPE_RAIN["spawn_basic_shapes"])
    clone = check_schema(schema)

    clone["properties"]["items"]["items"]["properties"]["size"]["oneOf"].pop()
    clone["required"].append("more")

    assert schema == SHAPE_RAIN["spawn_basic_shapes"]


def test_default_is_never_inserted() -> None:
    schema = prop({"type": "object", "properties": {"n": {"type": "integer", "default": 1}}})

    clone = check_schema(schema)

    assert clone == prop({"type": "object", "properties": {"n": {"type": "integer", "default": 1}}})


@pytest.mark.parametrize(
    "node",
    [
        {"type": "string", "minLength": 1},
        {"type": "integer", "enum": [1, 2]},
        {"type": "boolean"},
        {"type": "array", "items": {"type": "number"}},
        {"oneOf": [{"type": "string"}, {"type": "integer"}], "default": "a"},
        {"type": "object", "properties": {"a": {"type": "string"}}},
    ],
)
def test_check_node_accepts_any_node_kind(node: dict[str, Any]) -> None:
    clone = check_node(node)

    assert clone == node
    assert clone is not node


def test_check_node_pointers_start_at_the_node() -> None:
    with pytest.raises(PedelecError) as caught:
        check_node({"type": "array", "items": {"type": "string", "maxLength": -2}}, tool="t")

    assert caught.value.code == INVALID_INPUT
    assert caught.value.message == (
        'Invalid schema for tool "t" at /items/maxLength: "maxLength" must be a non-negative '
        "integer, got integer -2; use a whole number, 0 or more."
    )
    assert caught.value.details == {
        "pointer": "/items/maxLength",
        "keyword": "maxLength",
        "tool": "t",
    }


def test_check_node_reports_a_bad_node_at_the_root() -> None:
    with pytest.raises(PedelecError) as caught:
        check_node([{"type": "string"}])

    assert caught.value.message == msg("the root", not_node('array [{"type":"string"}]'))
    assert caught.value.details == {"pointer": "", "keyword": None}


def test_the_first_problem_in_document_order_is_reported() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "object", "properties": {"b": {"type": "string", "minLength": -1}}},
            "c": {"type": "string", "format": "date"},
        },
        "title": "late",
    }

    with pytest.raises(PedelecError) as caught:
        check_schema(schema)

    # "title" is a keyword of the root, so it is seen before the nodes below the root.
    assert caught.value.details == {"pointer": "/title", "keyword": "title"}
    del schema["title"]
    with pytest.raises(PedelecError) as caught:
        check_schema(schema)
    assert caught.value.details == {
        "pointer": "/properties/a/properties/b/minLength",
        "keyword": "minLength",
    }


def test_default_is_checked_only_after_the_whole_structure() -> None:
    # The default is wrong, but the structural problem deeper down is the one reported.
    schema = prop({"type": "integer", "default": "one"})
    schema["properties"]["y"] = {"type": "string", "format": "date"}

    with pytest.raises(PedelecError) as caught:
        check_schema(schema)

    assert caught.value.details == {"pointer": "/properties/y/format", "keyword": "format"}


# --- hypothesis ---------------------------------------------------------------------------------

KEYWORDS = sorted({keyword for kind in SUBSET.values() for keyword in kind.keywords} | {"type"})
NON_JSON = st.sampled_from(
    [math.nan, math.inf, -math.inf, (), (1,), frozenset(), b"x", bytearray(b"x"), object(), len, 1j]
) | st.sets(st.integers(), max_size=2)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=4)
    | st.sampled_from([0, 1, 1.0, -1, True, False, "string", "object", "array", "(a+)+", "[a-"])
    | st.sampled_from([*SUBSET, "null", "int"])
)
KEYS = st.sampled_from([*KEYWORDS, "$ref", "format", "title", "a", "b"]) | st.text(max_size=3)


def garbage(leaves: st.SearchStrategy[Any], keys: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Nested lists and dicts of ``leaves``, many of them shaped like schema nodes."""
    return st.recursive(
        leaves,
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(keys, inner, max_size=5)
            | st.one_of(
                [
                    st.fixed_dictionaries(
                        {"type": st.just(kind)} if kind != "oneOf" else {},
                        optional={keyword: inner for keyword in rules.keywords},
                    )
                    for kind, rules in SUBSET.items()
                ]
            )
        ),
        max_leaves=40,
    )


def _assert_checked_or_rejected(value: Any, check: Any) -> None:
    try:
        clone = check(value, tool="t")
    except PedelecError as error:
        assert error.code == INVALID_INPUT
        assert error.message.startswith('Invalid schema for tool "t" at ')
        assert error.message.endswith(".")
        assert set(error.details) == {"pointer", "keyword", "tool"}
        assert isinstance(error.details["pointer"], str)
        assert error.details["keyword"] is None or isinstance(error.details["keyword"], str)
    else:
        assert clone == value
        # Independent oracle: whatever the subset accepts is a valid Draft 2020-12 schema.
        Draft202012Validator.check_schema(clone)


@given(garbage(SCALARS, KEYS))
def test_json_garbage_is_checked_or_rejected_never_crashes(value: Any) -> None:
    _assert_checked_or_rejected(value, check_node)
    _assert_checked_or_rejected({"type": "object", "properties": {"x": value}}, check_schema)


@given(garbage(SCALARS | NON_JSON, KEYS | st.integers(0, 3) | st.sampled_from([None, (1,)])))
def test_non_json_garbage_is_rejected_never_crashes(value: Any) -> None:
    _assert_checked_or_rejected({"type": "object", "properties": {"x": value}}, check_schema)


def valid_nodes() -> st.SearchStrategy[dict[str, Any]]:
    counts = st.integers(0, 5) | st.integers(0, 5).map(float)
    numbers = st.integers(-5, 5) | st.floats(-5, 5, allow_nan=False)

    def bounded(draw: Any, node: dict[str, Any], lower: str, upper: str, values: Any) -> None:
        low, high = draw(st.none() | values), draw(st.none() | values)
        if low is not None and high is not None and low > high:
            low, high = high, low
        if low is not None:
            node[lower] = low
        if high is not None:
            node[upper] = high

    @st.composite
    def string(draw: Any) -> dict[str, Any]:
        node: dict[str, Any] = {"type": "string"}
        bounded(draw, node, "minLength", "maxLength", counts)
        if draw(st.booleans()):
            node["enum"] = draw(st.lists(st.text(max_size=3), min_size=1, max_size=4, unique=True))
        if draw(st.booleans()):
            node["pattern"] = draw(st.sampled_from(["^[a-z]+$", "a", "^\\d{3}$", "[A-Z]"]))
        return node

    @st.composite
    def number(draw: Any) -> dict[str, Any]:
        node: dict[str, Any] = {"type": draw(st.sampled_from(["number", "integer"]))}
        bounded(draw, node, "minimum", "maximum", numbers)
        if draw(st.booleans()):
            node["enum"] = draw(st.lists(st.integers(-9, 9), min_size=1, max_size=4, unique=True))
        return node

    def described(node: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
        return st.just(node) | st.text(max_size=5).map(lambda text: {**node, "description": text})

    leaves = (string() | number() | st.just({"type": "boolean"})).flatmap(described)

    @st.composite
    def array(draw: Any, inner: Any) -> dict[str, Any]:
        node: dict[str, Any] = {"type": "array", "items": draw(inner)}
        bounded(draw, node, "minItems", "maxItems", counts)
        if draw(st.booleans()):
            node["uniqueItems"] = draw(st.booleans())
        return node

    @st.composite
    def obj(draw: Any, inner: Any) -> dict[str, Any]:
        properties = draw(st.dictionaries(st.text(max_size=3), inner, max_size=4))
        required = (
            draw(st.lists(st.sampled_from(sorted(properties)), unique=True)) if properties else []
        )
        return {"type": "object", "properties": properties, "required": required}

    return st.recursive(
        leaves,
        lambda inner: (
            array(inner)
            | obj(inner)
            | st.lists(inner, min_size=1, max_size=3).map(lambda branches: {"oneOf": branches})
        ),
        max_leaves=20,
    )


@given(valid_nodes())
def test_valid_schemas_pass_unchanged(node: dict[str, Any]) -> None:
    assert check_node(node) == node
    schema = {"type": "object", "properties": {"x": node}, "required": ["x"]}
    assert check_schema(schema) == schema


@pytest.mark.parametrize(
    ("schema", "pointer", "keyword", "reason"),
    [
        (
            {"type": "object", "properties": {"n": {"type": "integer", "maximum": 10**5000}}},
            "/properties/n/maximum",
            "maximum",
            "an integer with more than 4300 digits, more than Python writes as text "
            "(sys.get_int_max_str_digits())",
        ),
        (
            {"type": "object", "properties": {"s": {"type": "string", "description": "a\ud800"}}},
            "/properties/s/description",
            "description",
            "the string holds a lone surrogate (U+D800), which UTF-8 cannot encode",
        ),
    ],
    ids=["huge-int", "lone-surrogate"],
)
def test_a_schema_no_json_text_can_carry_is_refused_with_its_pointer(
    schema: Any, pointer: str, keyword: str, reason: str
) -> None:
    """Issue 11 finding 4: such a schema raised ValueError at registration (or failed later, on
    its way to the model); it is INVALID_INPUT naming the value, by every way in."""
    from pedelec import compile_schema

    message = f"Invalid schema at {pointer}: {reason}; the schema cannot be sent as JSON."
    for declare in (check_schema, compile_schema):
        with pytest.raises(PedelecError) as caught:
            declare(schema)
        assert (caught.value.code, caught.value.message, caught.value.details) == (
            INVALID_INPUT,
            message,
            {"pointer": pointer, "keyword": keyword},
        )
