"""INVALID_INPUT messages as documentation: the full text of one message per registration rule.

A developer who breaks a rule reads one of these messages at start-up, so each one must name the
tool, say where the problem is (the JSON pointer of the bad keyword, for schema rules) and say how
to fix it. The table below is the catalogue: one representative case per rule, with the message
written out in full. ``tests/test_schema_check.py`` covers every variant of each rule; this file
is the one to read (and to update consciously) when a message changes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

from pedelec import Session, define_tool
from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.schema import check_schema

TOOL = "search"
DEEP_POINTER = "/properties/q" + "/items" * 63


def prop(node: Any) -> dict[str, Any]:
    """A root schema whose property ``q`` is ``node``."""
    return {"type": "object", "properties": {"q": node}}


def cyclic() -> dict[str, Any]:
    node: dict[str, Any] = {"type": "object"}
    node["properties"] = {"q": node}
    return node


def nested(levels: int) -> dict[str, Any]:
    """Property ``q`` is an array of arrays ... ``levels`` deep (the root adds one more level)."""
    node: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        node = {"type": "array", "items": node}
    return prop(node)


# --- schema rules: check_schema(schema, tool="search") ------------------------------------------

SCHEMA_RULES = [
    pytest.param(
        prop({"type": "string", "format": "email"}),
        "/properties/q/format",
        "format",
        'Invalid schema for tool "search" at /properties/q/format: "format" is not supported in a Tool Args Schema string node (allowed: description, default, examples, enum, minLength, maxLength, pattern); remove it or check the value in your handler.',
        id="keyword-outside-the-subset",
    ),
    pytest.param(
        prop({"$ref": "#/$defs/query"}),
        "/properties/q/$ref",
        "$ref",
        'Invalid schema for tool "search" at /properties/q/$ref: "$ref" is not supported in a Tool Args Schema; write the node in place instead (to reuse a node, assign it to a Python constant and use the constant wherever it is needed).',
        id="ref-and-defs",
    ),
    pytest.param(
        {"type": "object", "additionalProperties": False},
        "/additionalProperties",
        "additionalProperties",
        'Invalid schema for tool "search" at /additionalProperties: "additionalProperties" is not supported in a Tool Args Schema object node (allowed: description, default, examples, properties, required); remove it (to reject undeclared arguments, use Session(reject_unknown_args=True)).',
        id="additional-properties",
    ),
    pytest.param(
        prop({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
        "/properties/q/anyOf",
        "anyOf",
        'Invalid schema for tool "search" at /properties/q/anyOf: "anyOf" is not supported in a Tool Args Schema; use "oneOf" with alternatives that cannot match the same value.',
        id="any-of",
    ),
    pytest.param(
        prop({"type": "integer", "exclusiveMinimum": 0}),
        "/properties/q/exclusiveMinimum",
        "exclusiveMinimum",
        'Invalid schema for tool "search" at /properties/q/exclusiveMinimum: "exclusiveMinimum" is not supported in a Tool Args Schema integer node (allowed: description, default, examples, enum, minimum, maximum); use "minimum" (inclusive) instead.',
        id="exclusive-minimum",
    ),
    pytest.param(
        prop({"type": "string", "const": "a"}),
        "/properties/q/const",
        "const",
        'Invalid schema for tool "search" at /properties/q/const: "const" is not supported in a Tool Args Schema string node (allowed: description, default, examples, enum, minLength, maxLength, pattern); use "enum" with a single value on a string, number, integer or boolean node.',
        id="const",
    ),
    pytest.param(
        prop({"type": "string", "x-order": 1}),
        "/properties/q/x-order",
        "x-order",
        'Invalid schema for tool "search" at /properties/q/x-order: "x-order" is not supported in a Tool Args Schema string node (allowed: description, default, examples, enum, minLength, maxLength, pattern); remove it or check the value in your handler.',
        id="custom-keyword",
    ),
    pytest.param(
        prop({"type": "integer", "minimum": True}),
        "/properties/q/minimum",
        "minimum",
        'Invalid schema for tool "search" at /properties/q/minimum: "minimum" must be a number, got boolean true; use a number such as 0.',
        id="bound-of-the-wrong-type",
    ),
    pytest.param(
        prop({"type": "string", "minLength": -1}),
        "/properties/q/minLength",
        "minLength",
        'Invalid schema for tool "search" at /properties/q/minLength: "minLength" must be a non-negative integer, got integer -1; use a whole number, 0 or more.',
        id="negative-length",
    ),
    pytest.param(
        prop({"type": "array", "items": {"type": "string"}, "uniqueItems": "yes"}),
        "/properties/q/uniqueItems",
        "uniqueItems",
        'Invalid schema for tool "search" at /properties/q/uniqueItems: "uniqueItems" must be true or false, got string "yes"; use true or false.',
        id="unique-items-not-boolean",
    ),
    pytest.param(
        prop({"type": "string", "enum": "a"}),
        "/properties/q/enum",
        "enum",
        'Invalid schema for tool "search" at /properties/q/enum: "enum" must be a non-empty array of string values, got string "a"; list the allowed values, or remove "enum".',
        id="enum-not-a-list",
    ),
    pytest.param(
        prop({"type": "string", "enum": []}),
        "/properties/q/enum",
        "enum",
        'Invalid schema for tool "search" at /properties/q/enum: "enum" must be a non-empty array of string values, got array []; list the allowed values, or remove "enum".',
        id="empty-enum",
    ),
    pytest.param(
        prop({"type": "integer", "enum": [1, "2"]}),
        "/properties/q/enum/1",
        "enum",
        'Invalid schema for tool "search" at /properties/q/enum/1: "enum" entry 1 must be an integer like its node, got string "2"; fix the entry or the node\'s "type".',
        id="enum-member-of-the-wrong-type",
    ),
    pytest.param(
        prop({"type": "number", "enum": [1, 1.0]}),
        "/properties/q/enum/1",
        "enum",
        'Invalid schema for tool "search" at /properties/q/enum/1: "enum" entry 1 (1.0) repeats entry 0; list each value once.',
        id="enum-duplicate",
    ),
    pytest.param(
        prop({"oneOf": []}),
        "/properties/q/oneOf",
        "oneOf",
        'Invalid schema for tool "search" at /properties/q/oneOf: "oneOf" must be a non-empty array of nodes, got array []; list the alternatives, e.g. [{"type": "string"}, {"type": "integer"}].',
        id="empty-one-of",
    ),
    pytest.param(
        prop({"type": "string", "oneOf": [{"type": "string"}]}),
        "/properties/q/oneOf",
        "oneOf",
        'Invalid schema for tool "search" at /properties/q/oneOf: "oneOf" cannot stand beside "type" in one node; remove "type" here and give each "oneOf" alternative its own "type".',
        id="type-beside-one-of",
    ),
    pytest.param(
        prop({"type": "integer", "minimum": 5, "maximum": 1}),
        "/properties/q/minimum",
        "minimum",
        'Invalid schema for tool "search" at /properties/q/minimum: "minimum" (5) is greater than "maximum" (1), so nothing can match; lower "minimum" or raise "maximum".',
        id="minimum-above-maximum",
    ),
    pytest.param(
        prop({"type": "string", "minLength": 5, "maxLength": 1}),
        "/properties/q/minLength",
        "minLength",
        'Invalid schema for tool "search" at /properties/q/minLength: "minLength" (5) is greater than "maxLength" (1), so nothing can match; lower "minLength" or raise "maxLength".',
        id="min-length-above-max-length",
    ),
    pytest.param(
        prop({"type": "array", "items": {"type": "string"}, "minItems": 5, "maxItems": 1}),
        "/properties/q/minItems",
        "minItems",
        'Invalid schema for tool "search" at /properties/q/minItems: "minItems" (5) is greater than "maxItems" (1), so nothing can match; lower "minItems" or raise "maxItems".',
        id="min-items-above-max-items",
    ),
    pytest.param(
        {"type": "object", "properties": {}, "required": ["q"]},
        "/required/0",
        "required",
        'Invalid schema for tool "search" at /required/0: "required" names "q", which "properties" does not define; define it in "properties" or remove it from "required".',
        id="required-not-in-properties",
    ),
    pytest.param(
        {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q", "q"]},
        "/required/1",
        "required",
        'Invalid schema for tool "search" at /required/1: "required" entry 1 repeats "q" (entry 0); list each name once.',
        id="required-duplicate",
    ),
    pytest.param(
        {"type": "object", "properties": ["q"]},
        "/properties",
        "properties",
        'Invalid schema for tool "search" at /properties: "properties" must be an object mapping each property name to its node, got array ["q"]; use e.g. {"name": {"type": "string"}}.',
        id="properties-not-an-object",
    ),
    pytest.param(
        prop({"minLength": 1}),
        "/properties/q",
        "type",
        'Invalid schema for tool "search" at /properties/q: a schema node needs "type" (one of "string", "number", "integer", "boolean", "array", "object") or "oneOf"; add "type": "string".',
        id="node-without-type",
    ),
    pytest.param(
        prop({"type": "str"}),
        "/properties/q/type",
        "type",
        'Invalid schema for tool "search" at /properties/q/type: "type" must be one of "string", "number", "integer", "boolean", "array", "object", got string "str"; use one of these names.',
        id="unknown-type",
    ),
    pytest.param(
        prop({"type": ["string", "null"]}),
        "/properties/q/type",
        "type",
        'Invalid schema for tool "search" at /properties/q/type: "type" must be one of "string", "number", "integer", "boolean", "array", "object", got array ["string","null"]; use "oneOf" with one node per type.',
        id="type-list",
    ),
    pytest.param(
        prop({"type": "null"}),
        "/properties/q/type",
        "type",
        'Invalid schema for tool "search" at /properties/q/type: "type" must be one of "string", "number", "integer", "boolean", "array", "object", got string "null"; the subset has no null type; to let a value be missing, leave its property out of "required".',
        id="null-type",
    ),
    pytest.param(
        prop({"type": "array"}),
        "/properties/q",
        "items",
        'Invalid schema for tool "search" at /properties/q: an array node needs "items", the node every item must match; add e.g. "items": {"type": "string"}.',
        id="array-without-items",
    ),
    pytest.param(
        prop({"type": "array", "items": [{"type": "string"}]}),
        "/properties/q/items",
        None,
        'Invalid schema for tool "search" at /properties/q/items: expected a schema node (an object with "type" or "oneOf"), got array [{"type":"string"}]; use e.g. {"type": "string"}.',
        id="items-as-a-list",
    ),
    pytest.param(
        prop("string"),
        "/properties/q",
        None,
        'Invalid schema for tool "search" at /properties/q: expected a schema node (an object with "type" or "oneOf"), got string "string"; use e.g. {"type": "string"}.',
        id="not-a-node",
    ),
    pytest.param(
        {"type": "array", "items": {"type": "string"}},
        "/type",
        "type",
        'Invalid schema for tool "search" at /type: the root must be {"type": "object", ...}, got "type": "array"; a tool\'s arguments are always an object (a tool without arguments uses {"type": "object", "properties": {}}).',
        id="root-not-an-object-node",
    ),
    pytest.param(
        [],
        "",
        None,
        'Invalid schema for tool "search" at the root: the root must be {"type": "object", ...}, got array []; a tool\'s arguments are always an object (a tool without arguments uses {"type": "object", "properties": {}}).',
        id="root-not-a-dict",
    ),
    pytest.param(
        prop({"type": "string", "description": 1}),
        "/properties/q/description",
        "description",
        'Invalid schema for tool "search" at /properties/q/description: "description" must be a string, got integer 1; write it as text.',
        id="description-not-a-string",
    ),
    pytest.param(
        prop({"type": "string", "pattern": "("}),
        "/properties/q/pattern",
        "pattern",
        'Invalid schema for tool "search" at /properties/q/pattern: pattern "(" does not compile: missing ), unterminated subpattern at position 0; fix the regular expression syntax.',
        id="pattern-does-not-compile",
    ),
    pytest.param(
        prop({"type": "string", "pattern": "(?P<year>[0-9]{4})"}),
        "/properties/q/pattern",
        "pattern",
        'Invalid schema for tool "search" at /properties/q/pattern: pattern "(?P<year>[0-9]{4})" uses the named group "(?P<year>...)" at position 0, which is not portable to ECMA-262 regular expressions (JavaScript, JSON Schema); use a plain group "(...)" instead.',
        id="pattern-not-portable",
    ),
    pytest.param(
        # Ambiguous repeats such as "^(a+)+$" are no longer refused: they run on the linear-time
        # matcher. What no linear matcher can run still is, with the construct and the fix.
        prop({"type": "string", "pattern": "^(a+)\\1$"}),
        "/properties/q/pattern",
        "pattern",
        'Invalid schema for tool "search" at /properties/q/pattern: pattern "^(a+)\\1$" uses the backreference "\\1" to the group "(a+)", which can capture more than one character, so it cannot be matched in time linear in the string; remove the backreference or let the group capture exactly one character.',
        id="pattern-backreference-to-a-long-group",
    ),
    pytest.param(
        prop({"type": "integer", "minimum": 0, "default": -1}),
        "/properties/q/default",
        "default",
        'Invalid schema for tool "search" at /properties/q/default: "default" is not valid for its own node (must be >= 0, got -1); fix the default or remove it.',
        id="default-not-valid",
    ),
    pytest.param(
        # Registration applies the call-time bound: a default the validator would refuse to
        # search (longer than max_pattern_length) is refused here too.
        prop({"type": "string", "pattern": "^a", "default": "a" * 1025}),
        "/properties/q/default",
        "default",
        'Invalid schema for tool "search" at /properties/q/default: "default" is not valid for its own node (is 1025 characters long, too long to check against pattern "^a" (limit 1024); send a shorter string); fix the default or remove it.',
        id="default-longer-than-the-pattern-bound",
    ),
    pytest.param(
        prop({"type": "string", "examples": "en"}),
        "/properties/q/examples",
        "examples",
        'Invalid schema for tool "search" at /properties/q/examples: "examples" must be an array of example values, got string "en"; wrap the example in an array: ["en"].',
        id="examples-not-a-list",
    ),
    pytest.param(
        prop({"type": "string", "enum": ["en", "de"], "examples": ["fr"]}),
        "/properties/q/examples/0",
        "examples",
        'Invalid schema for tool "search" at /properties/q/examples/0: "examples" entry 0 is not valid for its own node (must be one of "en", "de"; got "fr"); fix the example or remove it.',
        id="example-not-valid",
    ),
    pytest.param(
        prop({"type": "string", "enum": {"a"}}),
        "/properties/q/enum",
        "enum",
        'Invalid schema for tool "search" at /properties/q/enum: set is not a JSON type (use a list); a schema holds only plain JSON: dicts with str keys, lists, str, int, finite float, bool and None.',
        id="set-is-not-json",
    ),
    pytest.param(
        prop({"type": "string", "enum": ("a",)}),
        "/properties/q/enum",
        "enum",
        'Invalid schema for tool "search" at /properties/q/enum: tuple is not a JSON type (use a list); a schema holds only plain JSON: dicts with str keys, lists, str, int, finite float, bool and None.',
        id="tuple-is-not-json",
    ),
    pytest.param(
        prop({"type": "number", "maximum": math.nan}),
        "/properties/q/maximum",
        "maximum",
        'Invalid schema for tool "search" at /properties/q/maximum: NaN is not a JSON number (numbers must be finite); a schema holds only plain JSON: dicts with str keys, lists, str, int, finite float, bool and None.',
        id="nan-is-not-json",
    ),
    pytest.param(
        prop({"type": "string", "default": len}),
        "/properties/q/default",
        "default",
        'Invalid schema for tool "search" at /properties/q/default: builtin_function_or_method is not a JSON type; a schema holds only plain JSON: dicts with str keys, lists, str, int, finite float, bool and None.',
        id="function-is-not-json",
    ),
    pytest.param(
        {"type": "object", "properties": {1: {"type": "string"}}},
        "/properties",
        "properties",
        'Invalid schema for tool "search" at /properties: object key 1 (integer) is not a string; a schema holds only plain JSON: dicts with str keys, lists, str, int, finite float, bool and None.',
        id="non-string-key",
    ),
    pytest.param(
        cyclic(),
        "/properties/q",
        None,
        'Invalid schema for tool "search" at /properties/q: circular reference (a container contains itself); a schema holds only plain JSON: dicts with str keys, lists, str, int, finite float, bool and None.',
        id="cycle",
    ),
    pytest.param(
        nested(64),
        DEEP_POINTER,
        None,
        'Invalid schema for tool "search" at '
        + DEEP_POINTER
        + ": the schema is nested too deeply (more than 64 levels of nodes); flatten it or split the tool.",
        id="nested-too-deeply",
    ),
]


@pytest.mark.parametrize(("schema", "pointer", "keyword", "message"), SCHEMA_RULES)
def test_schema_rule_message(schema: Any, pointer: str, keyword: str | None, message: str) -> None:
    with pytest.raises(PedelecError) as raised:
        check_schema(schema, tool=TOOL)
    error = raised.value
    assert (error.code, error.message) == (INVALID_INPUT, message)
    assert error.details == {"pointer": pointer, "keyword": keyword, "tool": TOOL}
    # The three things a developer needs, in this order: the tool, where, and (after the
    # clause saying what is wrong) how to fix it.
    where = pointer or "the root"
    assert message.startswith(f'Invalid schema for tool "{TOOL}" at {where}: ')
    assert "; " in message.removeprefix(f'Invalid schema for tool "{TOOL}" at {where}: ')


def test_a_registered_tool_reports_the_same_message() -> None:
    # Registration goes through the cached compiler; on failure it reports like check_schema.
    schema = prop({"type": "integer", "minimum": 5, "maximum": 1})
    with pytest.raises(PedelecError) as raised:
        define_tool(name=TOOL, description="Search.", schema=schema)
    assert raised.value.message == (
        'Invalid schema for tool "search" at /properties/q/minimum: "minimum" (5) is greater '
        'than "maximum" (1), so nothing can match; lower "minimum" or raise "maximum".'
    )
    assert raised.value.details == {
        "pointer": "/properties/q/minimum",
        "keyword": "minimum",
        "tool": TOOL,
    }


# --- definition rules ---------------------------------------------------------------------------

SCHEMA: Any = {"type": "object", "properties": {}}


def declared() -> Session:
    return Session(tools=[define_tool(name=TOOL, description="Search.", schema=SCHEMA)])


def duplicate_in_tools() -> None:
    search = define_tool(name=TOOL, description="Search.", schema=SCHEMA)
    Session(tools=[search, search])


def duplicate_on_tool() -> None:
    session = declared()

    @session.on_tool(TOOL, description="Search again.", schema=SCHEMA)
    def search(args: Any) -> None: ...


def no_docstring() -> None:
    @Session().on_tool(TOOL, schema=SCHEMA)
    def search(args: Any) -> None: ...


def legacy_input_on_tool() -> None:
    Session().on_tool(TOOL, input=SCHEMA)


def legacy_input_define_tool() -> None:
    define_tool(name=TOOL, description="Search.", schema=SCHEMA, input=SCHEMA)


DEFINITION_RULES: list[Any] = [
    pytest.param(
        lambda: define_tool(name="1search", description="Search.", schema=SCHEMA),
        {"tool": "1search", "field": "name"},
        "Tool name \"1search\" is invalid; a name starts with a letter and continues with letters, digits, '_', '.' or '-' (e.g. \"update_counter\" or \"editor.replace\").",
        id="name-pattern",
    ),
    pytest.param(
        duplicate_in_tools,
        {"tool": TOOL, "field": "name"},
        'Tool "search" is already declared in this session; tool names must be unique (to replace its handler, use @session.on_tool(name) without a schema).',
        id="duplicate-name-in-tools",
    ),
    pytest.param(
        duplicate_on_tool,
        {"tool": TOOL, "field": "name"},
        'Tool "search" is already declared in this session; tool names must be unique (to replace its handler, use @session.on_tool(name) without a schema).',
        id="duplicate-name-on-tool",
    ),
    pytest.param(
        lambda: define_tool(name=TOOL, description="   ", schema=SCHEMA),
        {"tool": TOOL, "field": "description"},
        'Tool "search" needs a description (a non-empty string) that tells the agent when to use it; got an empty string.',
        id="empty-description",
    ),
    pytest.param(
        no_docstring,
        {"tool": TOOL, "field": "description"},
        'Tool "search" needs a description (a non-empty string) that tells the agent when to use it; got NoneType.',
        id="no-description-and-no-docstring",
    ),
    pytest.param(
        lambda: define_tool(name=TOOL, description="Search.", schema=SCHEMA, timeout_ms=0),
        {"tool": TOOL, "field": "timeout_ms"},
        'Tool "search": timeout_ms must be a positive integer of milliseconds, got 0.',
        id="timeout-not-positive",
    ),
    pytest.param(
        lambda: define_tool(name=TOOL, description="Search.", schema=SCHEMA, timeout_ms=2**64),
        {"tool": TOOL, "field": "timeout_ms"},
        'Tool "search": timeout_ms may be at most 9007199254740991 ms (pedelec.limits.MAX_TIMEOUT_MS, about 285 000 years), got 18446744073709551616.',
        id="timeout-above-the-maximum",
    ),
    pytest.param(
        lambda: define_tool(name=TOOL, description="\ufeff", schema=SCHEMA),
        {"tool": TOOL, "field": "description"},
        'Tool "search" needs a description (a non-empty string) that tells the agent when to use it; got an empty string.',
        id="description-blank-to-javascript",
    ),
    pytest.param(
        lambda: define_tool(name=TOOL, description="Search.", schema=SCHEMA, timeout_ms=True),
        {"tool": TOOL, "field": "timeout_ms"},
        'Tool "search": timeout_ms must be a positive integer of milliseconds, got True.',
        id="timeout-bool-is-not-an-integer",
    ),
    pytest.param(
        lambda: define_tool(name=TOOL, description="Search.", schema=SCHEMA, handler=42),
        {"tool": TOOL, "field": "handler"},
        'The handler of tool "search" must be callable, got int.',
        id="handler-not-callable",
    ),
    pytest.param(
        lambda: define_tool(name=TOOL, description="Search.", schema=SCHEMA, handler=lambda: None),
        {"tool": TOOL, "field": "handler"},
        'The handler of tool "search" must take (args) or (args, ctx); <lambda>() cannot.',
        id="handler-signature",
    ),
    pytest.param(
        legacy_input_on_tool,
        {"tool": TOOL, "field": "input"},
        'Tool "search": the "input" field is no longer supported; pass the argument schema as schema= instead.',
        id="legacy-input-on-tool",
    ),
    pytest.param(
        legacy_input_define_tool,
        {"tool": TOOL, "field": "input"},
        'Tool "search": the "input" field is no longer supported; pass the argument schema as schema= instead.',
        id="legacy-input-define-tool",
    ),
    pytest.param(
        lambda: define_tool(name=TOOL, description="Search.", input=SCHEMA),
        {"tool": TOOL, "field": "input"},
        'Tool "search": the "input" field is no longer supported; pass the argument schema as schema= instead.',
        id="legacy-input-without-schema",
    ),
    pytest.param(
        lambda: Session(tools=[{"name": TOOL, "description": "Search.", "input": SCHEMA}]),
        {"tool": TOOL, "field": "input"},
        'Tool "search": the "input" field is no longer supported; pass the argument schema as "argsSchema" instead.',
        id="legacy-input-manifest-entry",
    ),
    pytest.param(
        lambda: Session().on_tool(TOOL),
        {"tool": TOOL, "field": "schema"},
        'Tool "search" is not declared in this session, so an agent could never call this handler; declare it with schema= (and description=), in tools=, or in the manifest.',
        id="handler-for-an-undeclared-tool",
    ),
    pytest.param(
        lambda: declared().on_tool(TOOL, description="Search."),
        {"tool": TOOL, "field": "schema"},
        'Tool "search": description, timeout_ms, title, annotations and sequential only apply when declaring the tool with schema=.',
        id="description-without-schema",
    ),
    pytest.param(
        lambda: Session(tools=[{"name": TOOL, "description": "Search."}]),
        {"tool": TOOL, "index": 0, "field": "argsSchema"},
        'Tool "search" has no "argsSchema"; every tool needs one (a tool without arguments uses {"type": "object", "properties": {}}).',
        id="manifest-entry-without-schema",
    ),
]


@pytest.mark.parametrize(("declare", "details", "message"), DEFINITION_RULES)
def test_definition_rule_message(
    declare: Callable[[], object], details: dict[str, Any], message: str
) -> None:
    with pytest.raises(PedelecError) as raised:
        declare()
    error = raised.value
    assert (error.code, error.message, error.details) == (INVALID_INPUT, message, details)
    assert f'"{details["tool"]}"' in message  # every definition message names the tool


# --- one vocabulary: control characters read the same in both kinds of message ----------------


def test_a_validator_message_escapes_a_tab_and_a_control_character() -> None:
    from pedelec import compile_schema

    validator = compile_schema(
        {"type": "object", "properties": {"q": {"type": "string", "enum": ["a\tb"]}}}
    )

    assert [str(error) for error in validator.errors({"q": "x\ty\x01"})] == [
        '/q: must be one of "a\\tb"; got "x\\ty\\u0001" (enum)'
    ]


def test_a_registration_message_escapes_a_tab_and_a_control_character() -> None:
    with pytest.raises(PedelecError) as caught:
        check_schema(
            {"type": "object", "properties": {"q": {"type": "integer", "default": "x\ty\x01"}}}
        )

    assert caught.value.message == (
        'Invalid schema at /properties/q/default: "default" is not valid for its own node '
        '(expected integer, got string "x\\ty\\u0001"); fix the default or remove it.'
    )


def test_a_registration_rule_message_escapes_a_tab_and_a_control_character() -> None:
    with pytest.raises(PedelecError) as caught:
        check_schema({"type": "object", "properties": {"q": {"type": "str\ting\x01"}}})

    assert caught.value.message == (
        'Invalid schema at /properties/q/type: "type" must be one of "string", "number", '
        '"integer", "boolean", "array", "object", got string "str\\ting\\u0001"; use one of '
        "these names."
    )
