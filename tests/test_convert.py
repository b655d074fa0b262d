"""``pedelec.schema.convert``: foreign JSON Schemas in, the closest Tool Args Schema out.

Each rule has a table row with the exact output and the exact change list; problems are
asserted as whole messages; pydantic's schemas and the upstream demo manifests are real input.
"""

from __future__ import annotations

import copy
import datetime
import enum
import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import pedelec.schema
from pedelec import PedelecError, Session, check_schema
from pedelec.schema import Change, convert, convert_text

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM = Path(__file__).parent / "upstream"

_NULL = (
    "the subset has no null type (a property that could be null is left out of its object's "
    "required list instead)."
)
_TITLE = '"title" only annotates; it was dropped.'
_MOVED = "so the constraint moved into the description for the agent to follow."


def _obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


def _changes(changes: list[Change]) -> list[tuple[str, Any, Any, str]]:
    return [(c.pointer, c.was, c.became, c.reason) for c in changes]


def _resolve(schema: Any, pointer: str) -> Any:
    node = schema
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if type(node) is list else node[part]
    return node


# --- one row per rule --------------------------------------------------------------------------

RULES: list[tuple[str, dict[str, Any], dict[str, Any], list[tuple[str, Any, Any, str]]]] = [
    (
        "const becomes a one-member enum",
        {"type": "string", "const": "on"},
        {"type": "string", "enum": ["on"]},
        [
            (
                "/properties/a/const",
                "on",
                {"enum": ["on"]},
                _CONST := '"const" became a one-member "enum", which means the same.',
            )
        ],
    ),
    (
        "integer exclusive bounds become inclusive ones",
        {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10.5},
        {"type": "integer", "minimum": 1, "maximum": 10},
        [
            (
                "/properties/a/exclusiveMinimum",
                0,
                {"minimum": 1},
                '"exclusiveMinimum" became "minimum" 1, the nearest integer inside the bound, '
                "which allows the same integers.",
            ),
            (
                "/properties/a/exclusiveMaximum",
                10.5,
                {"maximum": 10},
                '"exclusiveMaximum" became "maximum" 10, the nearest integer inside the bound, '
                "which allows the same integers.",
            ),
        ],
    ),
    (
        "an integer exclusive bound looser than the inclusive one is dropped",
        {"type": "integer", "minimum": 5, "exclusiveMinimum": 2},
        {"type": "integer", "minimum": 5},
        [
            (
                "/properties/a/exclusiveMinimum",
                2,
                None,
                '"exclusiveMinimum" was dropped: "minimum" is at least as strict.',
            )
        ],
    ),
    (
        "draft-04 boolean exclusive bounds (OpenAPI 3.0) on an integer",
        {"type": "integer", "minimum": 0, "exclusiveMinimum": True, "exclusiveMaximum": False},
        {"type": "integer", "minimum": 1},
        [
            (
                "/properties/a/exclusiveMinimum",
                True,
                {"minimum": 1},
                '"exclusiveMinimum" became "minimum" 1, the nearest integer inside the bound, '
                "which allows the same integers.",
            ),
            (
                "/properties/a/exclusiveMaximum",
                False,
                None,
                '"exclusiveMaximum": False says nothing here.',
            ),
        ],
    ),
    (
        "number exclusive bounds move into the description",
        {"type": "number", "description": "Opacity", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        {"type": "number", "description": "Opacity. Greater than 0. Less than 1."},
        [
            (
                "/properties/a/exclusiveMinimum",
                0,
                {"description": "Opacity. Greater than 0. Less than 1."},
                f"The subset has no exclusive bounds, {_MOVED}",
            ),
            (
                "/properties/a/exclusiveMaximum",
                1,
                {"description": "Opacity. Greater than 0. Less than 1."},
                f"The subset has no exclusive bounds, {_MOVED}",
            ),
        ],
    ),
    (
        "format and multipleOf move into the description",
        {"type": "integer", "format": "int32", "multipleOf": 5},
        {"type": "integer", "description": "Format: int32. Multiple of 5."},
        [
            (
                "/properties/a/format",
                "int32",
                {"description": "Format: int32. Multiple of 5."},
                f"The subset checks no format, {_MOVED}",
            ),
            (
                "/properties/a/multipleOf",
                5,
                {"description": "Format: int32. Multiple of 5."},
                f'The subset has no "multipleOf", {_MOVED}',
            ),
        ],
    ),
    (
        "multipleOf 1 on an integer says nothing",
        {"type": "integer", "multipleOf": 1},
        {"type": "integer"},
        [("/properties/a/multipleOf", 1, None, '"multipleOf": 1 says nothing on integers.')],
    ),
    (
        "annotations are dropped",
        {
            "type": "string",
            "title": "A",
            "readOnly": True,
            "deprecated": False,
            "$comment": "c",
            "x-order": 3,
        },
        {"type": "string"},
        [
            ("/properties/a/title", "A", None, _TITLE),
            ("/properties/a/readOnly", True, None, '"readOnly" only annotates; it was dropped.'),
            (
                "/properties/a/deprecated",
                False,
                None,
                '"deprecated" only annotates; it was dropped.',
            ),
            ("/properties/a/$comment", "c", None, '"$comment" only annotates; it was dropped.'),
            ("/properties/a/x-order", 3, None, '"x-order" only annotates; it was dropped.'),
        ],
    ),
    (
        "a keyword of another type said nothing",
        {"type": "string", "minimum": 3, "default": "x"},
        {"type": "string", "default": "x"},
        [
            (
                "/properties/a/minimum",
                3,
                None,
                '"minimum" applies to number values only, so it said nothing on a string node; '
                "it was dropped.",
            )
        ],
    ),
    (
        "an unknown keyword said nothing",
        {"type": "string", "minLenght": 3},
        {"type": "string"},
        [
            (
                "/properties/a/minLenght",
                3,
                None,
                '"minLenght" is no validation keyword, so it said nothing; it was dropped.',
            )
        ],
    ),
    (
        "additionalProperties: false is dropped with the advice",
        {"type": "object", "properties": {"k": {"type": "string"}}, "additionalProperties": False},
        {"type": "object", "properties": {"k": {"type": "string"}}},
        [
            (
                "/properties/a/additionalProperties",
                False,
                None,
                '"additionalProperties": false was dropped: a Tool Args Schema allows undeclared '
                "properties; to reject undeclared arguments, use "
                "Session(reject_unknown_args=True).",
            )
        ],
    ),
    (
        "additionalProperties: true is the subset's own rule",
        {"type": "object", "additionalProperties": True},
        {"type": "object"},
        [
            (
                "/properties/a/additionalProperties",
                True,
                None,
                '"additionalProperties" was dropped: it allowed any property, as the subset does.',
            )
        ],
    ),
    (
        "property counts move into the description",
        {"type": "object", "minProperties": 1, "maxProperties": 3},
        {"type": "object", "description": "At least 1 property. At most 3 properties."},
        [
            (
                "/properties/a/minProperties",
                1,
                {"description": "At least 1 property. At most 3 properties."},
                f"The subset does not count properties, {_MOVED}",
            ),
            (
                "/properties/a/maxProperties",
                3,
                {"description": "At least 1 property. At most 3 properties."},
                f"The subset does not count properties, {_MOVED}",
            ),
        ],
    ),
    (
        "OpenAPI example becomes examples",
        {"type": "integer", "example": 4},
        {"type": "integer", "examples": [4]},
        [("/properties/a/example", 4, {"examples": [4]}, '"example" became "examples".')],
    ),
    (
        "a default the converted node rejects is dropped",
        {"type": "integer", "exclusiveMinimum": 0, "default": 0, "examples": [0, 2]},
        {"type": "integer", "minimum": 1, "examples": [2]},
        [
            (
                "/properties/a/exclusiveMinimum",
                0,
                {"minimum": 1},
                '"exclusiveMinimum" became "minimum" 1, the nearest integer inside the bound, '
                "which allows the same integers.",
            ),
            (
                "/properties/a/default",
                0,
                None,
                "The default was dropped: the converted node does not accept it.",
            ),
            (
                "/properties/a/examples/0",
                0,
                None,
                "The example was dropped: the converted node does not accept it.",
            ),
        ],
    ),
    (
        "several types become a oneOf, each with its own keywords",
        {"type": ["string", "integer"], "minLength": 1, "minimum": 0},
        {"oneOf": [{"type": "string", "minLength": 1}, {"type": "integer", "minimum": 0}]},
        [
            (
                "/properties/a/type",
                ["string", "integer"],
                {"oneOf": [{"type": "string", "minLength": 1}, {"type": "integer", "minimum": 0}]},
                "A node of several types became a oneOf of one node per type.",
            )
        ],
    ),
    (
        "integer and number: number covers both",
        {"type": ["integer", "number"], "minimum": 0},
        {"type": "number", "minimum": 0},
        [
            (
                "/properties/a/type",
                ["integer", "number"],
                "number",
                '"integer" was dropped from "type": every integer is a number.',
            )
        ],
    ),
    (
        "an enum of mixed types is split by type",
        {"enum": ["auto", 1, 2.5]},
        {"oneOf": [{"type": "string", "enum": ["auto"]}, {"type": "number", "enum": [1, 2.5]}]},
        [
            (
                "/properties/a",
                {"enum": ["auto", 1, 2.5]},
                {"type": ["string", "number"]},
                '"type" was added: the enum members give it.',
            ),
            (
                "/properties/a",
                ["string", "number"],
                {
                    "oneOf": [
                        {"type": "string", "enum": ["auto"]},
                        {"type": "number", "enum": [1, 2.5]},
                    ]
                },
                "A node of several types became a oneOf of one node per type.",
            ),
        ],
    ),
    (
        "a missing type its keywords give is added",
        {"maxLength": 3},
        {"type": "string", "maxLength": 3},
        [
            (
                "/properties/a",
                None,
                {"type": "string"},
                '"type" was added: the keywords of the node apply to string values only.',
            )
        ],
    ),
    (
        "anyOf of disjoint branches becomes oneOf",
        {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        [
            (
                "/properties/a/anyOf",
                [{"type": "string"}, {"type": "integer"}],
                {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                'anyOf became "oneOf": no value matches two of its alternatives, so both mean the '
                "same.",
            )
        ],
    ),
    (
        "oneOf stays oneOf; a discriminator only annotates",
        {
            "oneOf": [{"type": "string"}, {"type": "boolean"}],
            "discriminator": {"propertyName": "kind"},
        },
        {"oneOf": [{"type": "string"}, {"type": "boolean"}]},
        [
            (
                "/properties/a/discriminator",
                {"propertyName": "kind"},
                None,
                '"discriminator" only annotates; it was dropped.',
            )
        ],
    ),
    (
        "an allOf of one part is that part",
        {"allOf": [{"type": "string", "maxLength": 2}], "description": "Code."},
        {"type": "string", "maxLength": 2, "description": "Code."},
        [
            (
                "/properties/a/allOf",
                [{"type": "string", "maxLength": 2}],
                {"type": "string", "maxLength": 2, "description": "Code."},
                "allOf was replaced by the node it names.",
            )
        ],
    ),
]


@pytest.mark.parametrize(
    ("node", "expected", "changes"), [r[1:] for r in RULES], ids=[r[0] for r in RULES]
)
def test_each_rule(node: dict[str, Any], expected: dict[str, Any], changes: list[Any]) -> None:
    schema = _obj(a=node)
    before = copy.deepcopy(schema)
    result, made = convert(schema)
    assert result == _obj(a=expected)
    assert _changes(made) == changes
    assert schema == before  # the input is never modified
    for change in made:
        _resolve(before, change.pointer)  # every pointer is into the original schema


# --- null ---------------------------------------------------------------------------------------

NULLS: list[tuple[str, dict[str, Any], dict[str, Any], tuple[str, Any, Any, str]]] = [
    (
        "nullable: true",
        {"type": "string", "nullable": True},
        {"type": "string"},
        ("/properties/a/nullable", True, None, f"null was removed: {_NULL}"),
    ),
    (
        "a type list with null",
        {"type": ["string", "null"]},
        {"type": "string"},
        ("/properties/a/type", ["string", "null"], "string", f"null was removed: {_NULL}"),
    ),
    (
        "a null enum member",
        {"enum": ["a", None]},
        {"type": "string", "enum": ["a"]},
        ("/properties/a/enum", ["a", None], ["a"], f"null was removed: {_NULL}"),
    ),
    (
        "pydantic's Optional: anyOf with a null branch",
        {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        {"type": "integer"},
        (
            "/properties/a/anyOf/1",
            {"type": "null"},
            None,
            f"The null alternative was removed: {_NULL}",
        ),
    ),
]


@pytest.mark.parametrize(
    ("node", "expected", "first"), [r[1:] for r in NULLS], ids=[r[0] for r in NULLS]
)
def test_null_makes_a_required_property_optional(
    node: dict[str, Any], expected: dict[str, Any], first: tuple[str, Any, Any, str]
) -> None:
    schema = {**_obj(a=node, b={"type": "integer"}), "required": ["a", "b"]}
    result, changes = convert(schema)
    assert result == {**_obj(a=expected, b={"type": "integer"}), "required": ["b"]}
    made = _changes(changes)
    assert made[0] == first
    assert made[-1] == (
        "/required",
        ["a", "b"],
        ["b"],
        '"a" could be null, so no longer required: the handler finds the key missing where the '
        "agent would have sent null.",
    )


def test_a_null_default_goes_with_the_null() -> None:
    schema = _obj(a={"anyOf": [{"type": "string"}, {"type": "null"}], "default": None})
    result, changes = convert(schema)
    assert result == _obj(a={"type": "string"})
    assert _changes(changes)[1] == (
        "/properties/a/default",
        None,
        None,
        "The default was dropped: the converted node does not accept it.",
    )


def test_the_last_required_name_leaves_required_out() -> None:
    result, changes = convert({**_obj(a={"type": ["integer", "null"]}), "required": ["a"]})
    assert result == _obj(a={"type": "integer"})
    assert changes[-1].became is None


# --- $ref ---------------------------------------------------------------------------------------


def test_refs_are_written_in_place_and_changes_in_a_def_reported_once() -> None:
    schema = {
        "type": "object",
        "$defs": {"Id": {"type": "string", "title": "Id", "format": "uuid"}},
        "properties": {
            "a": {"$ref": "#/$defs/Id"},
            "b": {"$ref": "#/$defs/Id", "description": "B"},
        },
    }
    result, changes = convert(schema)
    a = {"type": "string", "description": "Format: uuid."}
    b = {"type": "string", "description": "B. Format: uuid."}
    assert result == _obj(a=a, b=b)
    assert _changes(changes) == [
        (
            "/$defs",
            {"Id": {"type": "string", "title": "Id", "format": "uuid"}},
            None,
            '"$defs" was dropped: each $ref to it is written in place.',
        ),
        ("/$defs/Id/title", "Id", None, _TITLE),
        (
            "/$defs/Id/format",
            "uuid",
            {"description": "Format: uuid."},
            f"The subset checks no format, {_MOVED}",
        ),
        ("/properties/a/$ref", "#/$defs/Id", a, "$ref was replaced by the node it names."),
        (
            "/$defs/Id/format",
            "uuid",
            {"description": "B. Format: uuid."},
            f"The subset checks no format, {_MOVED}",
        ),
        ("/properties/b/$ref", "#/$defs/Id", b, "$ref was replaced by the node it names."),
    ]


def test_draft_07_definitions_and_escaped_pointers() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"a/b": {"type": "boolean"}},
        "type": "object",
        "properties": {"flag": {"$ref": "#/definitions/a~1b"}},
    }
    result, changes = convert(schema)
    assert result == _obj(flag={"type": "boolean"})
    assert [c.pointer for c in changes] == ["/definitions", "/properties/flag/$ref", "/$schema"]


def test_a_root_ref_as_pydantic_writes_it() -> None:
    schema = {"$defs": {"M": _obj(n={"type": "integer"})}, "$ref": "#/$defs/M"}
    result, changes = convert(schema)
    assert result == _obj(n={"type": "integer"})
    assert [c.pointer for c in changes] == ["/$defs", "/$ref"]


# --- problems -----------------------------------------------------------------------------------


def _problem(schema: Any, tool: str | None = None) -> PedelecError:
    with pytest.raises(PedelecError) as caught:
        convert(schema, tool=tool)
    assert caught.value.code == "INVALID_INPUT"
    return caught.value


def test_a_recursive_ref_names_its_pointer() -> None:
    schema = {
        "$defs": {"Node": _obj(kids={"type": "array", "items": {"$ref": "#/$defs/Node"}})},
        "$ref": "#/$defs/Node",
    }
    error = _problem(schema, tool="tree")
    clause = (
        '$ref "#/$defs/Node" is recursive (it is inside the node it names), and a Tool Args '
        "Schema is finite; write out each level up to a fixed depth"
    )
    assert error.message == (
        'Cannot convert the schema for tool "tree" to a Tool Args Schema (1 problem): '
        f"at /$defs/Node/properties/kids/items/$ref: {clause}."
    )
    assert error.details == {
        "problems": [{"pointer": "/$defs/Node/properties/kids/items/$ref", "message": clause}],
        "tool": "tree",
    }


def test_a_ref_to_the_root_is_recursive() -> None:
    error = _problem(_obj(self={"$ref": "#"}))
    assert error.details["problems"][0]["pointer"] == "/properties/self/$ref"


def test_every_problem_is_listed_with_its_pointer() -> None:
    schema = {
        **_obj(
            a={"anyOf": [{"type": "string"}, {"type": "string", "minLength": 2}]},
            b={"type": "string", "not": {"const": ""}},
            c={"type": "array", "items": [{"type": "string"}]},
            d={"allOf": [{"type": "string"}, {"minLength": 1}]},
            e={},
            f={"type": "object", "additionalProperties": {"type": "integer"}},
            g={"$ref": "#/$defs/Missing"},
            h={"$ref": "other.json#/x"},
            i={"type": "string", "minLength": 5, "maxLength": 2},
            j={"type": "null"},
            k={"type": "array"},
            l={"enum": [[1], [2]]},
            m={"type": "date"},
            n={"anyOf": [{"type": "string"}], "oneOf": [{"type": "string"}]},
        ),
        "required": ["a", "zz"],
    }
    error = _problem(schema)
    assert error.details["problems"] == [
        {
            "pointer": "/properties/a/anyOf",
            "message": "anyOf alternatives 0 and 1 may match the same value, so it cannot become "
            '"oneOf" (exactly one); make them distinguishable (different types, or a required '
            "property with different enum values)",
        },
        {
            "pointer": "/properties/b/not",
            "message": '"not" cannot be expressed in a Tool Args Schema; check the value in the '
            "handler",
        },
        {
            "pointer": "/properties/c/items",
            "message": '"items" as an array (one node per position) cannot be expressed; use an '
            'object with named properties, or "items" with one node',
        },
        {
            "pointer": "/properties/d/allOf",
            "message": "allOf with 2 parts cannot be expressed; merge the parts into one node, or "
            'use "oneOf" for alternatives',
        },
        {
            "pointer": "/properties/e",
            "message": 'the node has no "type", so it accepts any JSON value, and the subset has '
            'no such node; give it a "type"',
        },
        {
            "pointer": "/properties/f/additionalProperties",
            "message": '"additionalProperties" with a node (a map of any keys) cannot be '
            "expressed; declare each property, or take a list of {key, value} objects",
        },
        {
            "pointer": "/properties/g/$ref",
            "message": '$ref "#/$defs/Missing" points to nothing in this schema',
        },
        {
            "pointer": "/properties/h/$ref",
            "message": '$ref "other.json#/x" does not point into this schema; only references '
            'such as "#/$defs/Name" are written in place, so copy the target into "$defs"',
        },
        {
            "pointer": "/properties/i/minLength",
            "message": '"minLength" (5) is greater than "maxLength" (2), so nothing can match; '
            'lower "minLength" or raise "maxLength"',
        },
        {
            "pointer": "/properties/j",
            "message": "the property can only be null, and the subset has no null type; remove "
            "the property",
        },
        {
            "pointer": "/properties/k",
            "message": 'an array without "items" may hold any value, and the subset has no such '
            'node; add "items" with the node every item matches',
        },
        {
            "pointer": "/properties/l/enum",
            "message": '"enum" holds an array value, and the subset has enum on string, number, '
            "integer and boolean nodes only; check the value in the handler",
        },
        {
            "pointer": "/properties/m/type",
            "message": '"type" "date" is not one of the subset\'s types (string, number, integer, '
            "boolean, array, object)",
        },
        {
            "pointer": "/properties/n",
            "message": 'anyOf and oneOf in one node cannot be expressed; write one "oneOf" whose '
            "alternatives cannot match the same value",
        },
        {
            "pointer": "/required/1",
            "message": '"required" names "zz", which "properties" does not define; define it in '
            '"properties" or remove it from "required"',
        },
    ]
    listed = "; ".join(f"at {p['pointer']}: {p['message']}" for p in error.details["problems"])
    assert error.message == (
        f"Cannot convert the schema to a Tool Args Schema (15 problems): {listed}."
    )
    assert error.message.startswith(
        "Cannot convert the schema to a Tool Args Schema (15 problems): at /properties/a/anyOf: "
    )
    assert error.message.endswith('define it in "properties" or remove it from "required".')


def test_an_enum_with_no_member_of_its_types() -> None:
    error = _problem(_obj(a={"type": ["string", "integer"], "enum": [True]}))
    assert error.details["problems"] == [
        {
            "pointer": "/properties/a/enum",
            "message": '"enum" has no member of the node\'s types, so nothing matches',
        }
    ]


def test_a_root_that_is_not_an_object() -> None:
    error = _problem({"type": "array", "items": {"type": "string"}})
    assert error.message == (
        "Cannot convert the schema to a Tool Args Schema (1 problem): at the root: the root must "
        'be an object node, got "type": "array"; a tool\'s arguments are always an object, so '
        "wrap the value in a property."
    )


def test_a_pattern_the_subset_refuses_is_a_problem_at_its_pointer() -> None:
    error = _problem(
        {"$defs": {"P": {"type": "string", "pattern": "(?P<x>a)"}}, **_obj(p={"$ref": "#/$defs/P"})}
    )
    assert [p["pointer"] for p in error.details["problems"]] == ["/$defs/P/pattern"]


def test_not_json_is_a_problem() -> None:
    error = _problem(_obj(a={"type": "string", "enum": {"x"}}))
    assert error.message == (
        "Cannot convert the schema to a Tool Args Schema (1 problem): at /properties/a/enum: "
        "set is not a JSON type (use a list)."
    )


def test_convert_text_parses_strictly() -> None:
    result, changes = convert_text('{"type": "object", "title": "T"}')
    assert (result, _changes(changes)) == ({"type": "object"}, [("/title", "T", None, _TITLE)])
    with pytest.raises(PedelecError) as caught:
        convert_text('{"type": "object", "type": "object"}')
    assert caught.value.code == "INVALID_INPUT"
    assert caught.value.message.startswith("the schema is not valid JSON: duplicate key")


def test_change_to_dict() -> None:
    change = Change(
        ("properties", "a/b", "format"), "date", {"description": "Format: date."}, "Why."
    )
    assert change.to_dict() == {
        "pointer": "/properties/a~1b/format",
        "was": "date",
        "became": {"description": "Format: date."},
        "reason": "Why.",
    }
    with pytest.raises(AttributeError):
        change.reason = "other"  # type: ignore[misc]


def test_import_pedelec_schema_loads_no_converter() -> None:
    """``convert`` is loaded on first use; registering a tool never pays for it."""
    script = (
        "import sys, pedelec.schema\n"
        "print(sorted(m for m in sys.modules if m.startswith('pedelec.schema._convert')))\n"
        "convert = pedelec.schema.convert\n"
        "print(convert.__module__, pedelec.schema.Change.__module__)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert completed.stdout == ("[]\npedelec.schema._convert pedelec.schema._convert.log\n")
    assert completed.stderr == ""
    with pytest.raises(AttributeError) as caught:
        pedelec.schema.comvert  # type: ignore[attr-defined]  # noqa: B018
    assert str(caught.value) == "module 'pedelec.schema' has no attribute 'comvert'"


# --- real input: pydantic -------------------------------------------------------------------------

pydantic = pytest.importorskip("pydantic")
from pydantic import BaseModel, Field  # noqa: E402


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Point(BaseModel):
    x: int = Field(ge=0, le=10)
    y: float = Field(gt=0, lt=1.5, description="Height.")


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int = 9


class Dog(BaseModel):
    kind: Literal["dog"]
    name: str = Field(min_length=1, max_length=20, pattern=r"^[a-z]+$")


class Nested(BaseModel):
    point: Point


class Listed(BaseModel):
    points: list[Point] = Field(max_length=3)


class Optional_(BaseModel):
    note: str | None
    count: int | None = None


class Literals(BaseModel):
    mode: Literal["fast", "slow"] = "fast"
    level: Literal[1, 2, 3]


class Enums(BaseModel):
    color: Color = Color.RED


class Pets(BaseModel):
    pet: Annotated[Cat | Dog, Field(discriminator="kind")]


class Described(BaseModel):
    point: Point | None = Field(None, description="Where.")


class Formats(BaseModel):
    at: datetime.datetime
    id: uuid.UUID
    step: int = Field(multiple_of=5, gt=0, lt=100)


class Tree(BaseModel):
    children: list[Tree] = []


class Scores(BaseModel):
    scores: dict[str, int]


_POINT = {
    "type": "object",
    "properties": {
        "x": {"type": "integer", "maximum": 10, "minimum": 0},
        "y": {"type": "number", "description": "Height. Greater than 0. Less than 1.5."},
    },
    "required": ["x", "y"],
}

PYDANTIC: list[tuple[type[Any], dict[str, Any], list[str]]] = [
    (
        Point,
        _POINT,
        [
            "/properties/x/title",
            "/properties/y/title",
            "/properties/y/exclusiveMinimum",
            "/properties/y/exclusiveMaximum",
            "/title",
        ],
    ),
    (
        Nested,
        {**_obj(point=_POINT), "required": ["point"]},
        [
            "/$defs",
            "/$defs/Point/properties/x/title",
            "/$defs/Point/properties/y/title",
            "/$defs/Point/properties/y/exclusiveMinimum",
            "/$defs/Point/properties/y/exclusiveMaximum",
            "/$defs/Point/title",
            "/properties/point/$ref",
            "/title",
        ],
    ),
    (
        Listed,
        {**_obj(points={"type": "array", "items": _POINT, "maxItems": 3}), "required": ["points"]},
        [
            "/$defs",
            "/$defs/Point/properties/x/title",
            "/$defs/Point/properties/y/title",
            "/$defs/Point/properties/y/exclusiveMinimum",
            "/$defs/Point/properties/y/exclusiveMaximum",
            "/$defs/Point/title",
            "/properties/points/items/$ref",
            "/properties/points/title",
            "/title",
        ],
    ),
    (
        Optional_,
        _obj(note={"type": "string"}, count={"type": "integer"}),
        [
            "/properties/note/title",
            "/properties/note/anyOf/1",
            "/properties/count/title",
            "/properties/count/anyOf/1",
            "/properties/count/default",
            "/required",
            "/title",
        ],
    ),
    (
        Literals,
        {
            **_obj(
                mode={"type": "string", "enum": ["fast", "slow"], "default": "fast"},
                level={"type": "integer", "enum": [1, 2, 3]},
            ),
            "required": ["level"],
        },
        ["/properties/mode/title", "/properties/level/title", "/title"],
    ),
    (
        Enums,
        _obj(color={"type": "string", "enum": ["red", "blue"], "default": "red"}),
        ["/$defs", "/$defs/Color/title", "/properties/color/$ref", "/title"],
    ),
    (
        Dog,
        {
            **_obj(
                kind={"type": "string", "enum": ["dog"]},
                name={"type": "string", "maxLength": 20, "minLength": 1, "pattern": "^[a-z]+$"},
            ),
            "required": ["kind", "name"],
        },
        ["/properties/kind/const", "/properties/kind/title", "/properties/name/title", "/title"],
    ),
    (
        Pets,
        {
            **_obj(
                pet={
                    "oneOf": [
                        {
                            **_obj(
                                kind={"type": "string", "enum": ["cat"]},
                                lives={"type": "integer", "default": 9},
                            ),
                            "required": ["kind"],
                        },
                        {
                            **_obj(
                                kind={"type": "string", "enum": ["dog"]},
                                name={
                                    "type": "string",
                                    "maxLength": 20,
                                    "minLength": 1,
                                    "pattern": "^[a-z]+$",
                                },
                            ),
                            "required": ["kind", "name"],
                        },
                    ]
                }
            ),
            "required": ["pet"],
        },
        [
            "/$defs",
            "/properties/pet/discriminator",
            "/properties/pet/title",
            "/$defs/Cat/properties/kind/const",
            "/$defs/Cat/properties/kind/title",
            "/$defs/Cat/properties/lives/title",
            "/$defs/Cat/title",
            "/properties/pet/oneOf/0/$ref",
            "/$defs/Dog/properties/kind/const",
            "/$defs/Dog/properties/kind/title",
            "/$defs/Dog/properties/name/title",
            "/$defs/Dog/title",
            "/properties/pet/oneOf/1/$ref",
            "/title",
        ],
    ),
    (
        Described,
        _obj(point={**_POINT, "description": "Where."}),
        [
            "/$defs",
            "/$defs/Point/properties/x/title",
            "/$defs/Point/properties/y/title",
            "/$defs/Point/properties/y/exclusiveMinimum",
            "/$defs/Point/properties/y/exclusiveMaximum",
            "/$defs/Point/title",
            "/properties/point/anyOf/0/$ref",
            "/properties/point/anyOf/1",
            "/properties/point/default",
            "/title",
        ],
    ),
    (
        Formats,
        {
            **_obj(
                at={"type": "string", "description": "Format: date-time."},
                id={"type": "string", "description": "Format: uuid."},
                step={
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 99,
                    "description": "Multiple of 5.",
                },
            ),
            "required": ["at", "id", "step"],
        },
        [
            "/properties/at/title",
            "/properties/at/format",
            "/properties/id/title",
            "/properties/id/format",
            "/properties/step/exclusiveMinimum",
            "/properties/step/exclusiveMaximum",
            "/properties/step/title",
            "/properties/step/multipleOf",
            "/title",
        ],
    ),
]


@pytest.mark.parametrize(
    ("model", "expected", "pointers"), PYDANTIC, ids=[m.__name__ for m, _, _ in PYDANTIC]
)
@pytest.mark.parametrize("mode", ["validation", "serialization"])
def test_pydantic_schemas(
    model: Any, expected: dict[str, Any], pointers: list[str], mode: str
) -> None:
    original = model.model_json_schema(mode=mode)
    result, changes = convert(original)
    assert result == expected
    assert [c.pointer for c in changes] == pointers
    for change in changes:
        assert json.dumps(_resolve(original, change.pointer)) == json.dumps(change.was)


def test_pydantic_models_outside_the_subset() -> None:
    assert _problem(Tree.model_json_schema()).details["problems"] == [
        {
            "pointer": "/$defs/Tree/properties/children/items/$ref",
            "message": '$ref "#/$defs/Tree" is recursive (it is inside the node it names), and a '
            "Tool Args Schema is finite; write out each level up to a fixed depth",
        }
    ]
    assert _problem(Scores.model_json_schema()).message == (
        "Cannot convert the schema to a Tool Args Schema (1 problem): at "
        '/properties/scores/additionalProperties: "additionalProperties" with a node (a map of '
        "any keys) cannot be expressed; declare each property, or take a list of {key, value} "
        "objects."
    )


def test_a_converted_pydantic_schema_registers_and_validates() -> None:
    schema, _ = convert(Pets.model_json_schema())
    session = Session()

    @session.on_tool("adopt", description="Adopt a pet.", schema=schema)
    def adopt(args: dict[str, Any]) -> Any:
        return Pets.model_validate(args).pet.kind

    assert session.dispatch_sync("adopt", {"pet": {"kind": "cat"}}).to_json() == "cat"
    assert (
        session.dispatch_sync("adopt", {"pet": {"kind": "dog"}}).error.code == "TOOL_ARGS_INVALID"
    )


# --- real input: the TypeScript SDK's demo manifests ------------------------------------------------


def _rain() -> dict[str, dict[str, Any]]:
    loaded: dict[str, dict[str, Any]] = json.loads(
        (UPSTREAM / "shape-rain-schemas.json").read_text(encoding="utf-8")
    )
    return loaded


@pytest.mark.parametrize("tool", sorted(_rain()))
def test_upstream_schemas_are_the_identity(tool: str) -> None:
    schema = _rain()[tool]
    assert convert(schema, tool=tool) == (schema, [])


def _closed(node: Any, path: tuple[Any, ...], closed: list[str]) -> Any:
    """The node with ``additionalProperties: false`` on every object, as older manifests have."""
    if type(node) is list:
        return [_closed(item, (*path, i), closed) for i, item in enumerate(node)]
    if type(node) is not dict:
        return node
    out = {key: _closed(value, (*path, key), closed) for key, value in node.items()}
    if node.get("type") == "object":
        out["additionalProperties"] = False
        closed.append("/".join(("", *map(str, path), "additionalProperties")))
    return out


def test_an_older_upstream_manifest_with_closed_objects() -> None:
    closed: list[str] = []
    manifest = {
        "tools": [
            {
                "name": name,
                "description": "A Shape Rain tool.",
                "argsSchema": _closed(schema, ("tools", i, "argsSchema"), closed),
                "timeoutMs": 3000,
            }
            for i, (name, schema) in enumerate(sorted(_rain().items()))
        ]
    }
    for tool in manifest["tools"]:
        result, changes = convert(tool["argsSchema"], tool=tool["name"])
        assert result == _rain()[tool["name"]]
        prefix = f"/tools/{manifest['tools'].index(tool)}/argsSchema"
        assert [prefix + c.pointer for c in changes] == [
            p for p in closed if p.startswith(prefix + "/")
        ]
        assert {c.reason for c in changes} == {
            '"additionalProperties": false was dropped: a Tool Args Schema allows undeclared '
            "properties; to reject undeclared arguments, use Session(reject_unknown_args=True)."
        }


# --- properties ------------------------------------------------------------------------------------

_SCALARS = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer", "exclusiveMinimum": 0},
        {"type": "number", "exclusiveMaximum": 1, "title": "N"},
        {"type": ["string", "null"], "default": None},
        {"const": "x"},
        {"enum": [1, "a", None]},
        {"type": "string", "format": "email", "minLength": 1},
        {"type": "boolean", "nullable": True},
        {"$ref": "#/$defs/D"},
        {"type": "integer", "multipleOf": 2, "default": 3},
        {"type": ["integer", "string"], "maximum": 3},
        {},
        {"type": "string", "maxLength": 1, "minLength": 2},
    ]
)


def _nodes(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    names = st.sampled_from(["a", "b", "c"])
    return st.one_of(
        st.builds(lambda items: {"type": "array", "items": items}, children),
        st.builds(
            lambda props, req, closed: {
                "type": "object",
                "properties": props,
                "required": [n for n in props if n in req],
                **({"additionalProperties": False} if closed else {}),
            },
            st.dictionaries(names, children, max_size=3),
            st.sets(names),
            st.booleans(),
        ),
        st.builds(lambda bs: {"anyOf": bs}, st.lists(children, min_size=1, max_size=3)),
        st.builds(lambda bs: {"oneOf": bs}, st.lists(children, min_size=1, max_size=3)),
        st.builds(lambda n: {"allOf": [n]}, children),
    )


_FOREIGN = st.builds(
    lambda props, d: {"type": "object", "properties": props, "$defs": {"D": d}},
    st.dictionaries(
        st.sampled_from(["p", "q"]), st.recursive(_SCALARS, _nodes, max_leaves=8), max_size=2
    ),
    st.recursive(_SCALARS.filter(lambda n: "$ref" not in n), _nodes, max_leaves=4),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_FOREIGN)
def test_conversion_registers_or_explains(schema: dict[str, Any]) -> None:
    before = copy.deepcopy(schema)
    try:
        result, changes = convert(schema)
    except PedelecError as error:
        assert error.code == "INVALID_INPUT"
        for problem in error.details["problems"]:
            _resolve(before, problem["pointer"])
        return
    assert check_schema(result) == result
    assert schema == before
    for change in changes:
        _resolve(before, change.pointer)
    # A Tool Args Schema is its own conversion.
    assert convert(result) == (result, [])


def test_an_openapi_3_0_request_body_schema() -> None:
    body = {
        "type": "object",
        "required": ["id", "price", "tags"],
        "properties": {
            "id": {"type": "integer", "format": "int64", "readOnly": True},
            "price": {"type": "number", "minimum": 0, "exclusiveMinimum": True, "example": 9.5},
            "tags": {"type": "array", "items": {"type": "string"}, "nullable": True},
            "status": {"type": "string", "enum": ["open", "closed"], "x-extensible-enum": True},
        },
        "xml": {"name": "Order"},
    }
    result, changes = convert(body)
    assert result == {
        "type": "object",
        "required": ["id", "price"],
        "properties": {
            "id": {"type": "integer", "description": "Format: int64."},
            "price": {"type": "number", "description": "Greater than 0.", "examples": [9.5]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "status": {"type": "string", "enum": ["open", "closed"]},
        },
    }
    assert [c.pointer for c in changes] == [
        "/properties/id/readOnly",
        "/properties/id/format",
        "/properties/price/example",
        "/properties/price/exclusiveMinimum",
        "/properties/tags/nullable",
        "/properties/status/x-extensible-enum",
        "/required",
        "/xml",
    ]


_WIDENS = ("so no longer required", "additionalProperties", "moved into the description")
_NARROWS = ("null was removed", "The null alternative", "the keywords of the node apply")

_VALUES = st.recursive(
    st.sampled_from([None, True, False, 0, 1, -1, 1.0, 2.5, 3, "", "x", "a", "ab", "a@b"]),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["a", "b", "c", "p", "q"]), inner, max_size=4),
    ),
    max_leaves=6,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_FOREIGN, st.lists(_VALUES, min_size=5, max_size=10))
def test_conversion_means_what_its_changes_say(schema: dict[str, Any], values: list[Any]) -> None:
    # jsonschema is the independent oracle for the original; pedelec's validator for the result.
    from jsonschema import Draft202012Validator

    from pedelec import compile_schema

    try:
        result, changes = convert(schema)
    except PedelecError:
        return
    reasons = [c.reason for c in changes]
    widens = any(mark in r for r in reasons for mark in _WIDENS)
    narrows = any(mark in r for r in reasons for mark in _NARROWS)
    original = Draft202012Validator(schema)
    converted = compile_schema(result)
    for value in values:
        before, after = original.is_valid(value), converted.is_valid(value)
        if not widens:
            assert before or not after, f"{value!r} is newly accepted"
        if not narrows:
            assert after or not before, f"{value!r} is newly refused"
