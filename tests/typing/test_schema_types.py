"""The schema TypedDicts catch bad schemas statically, and agree with the registration check.

Checked by ``mypy --strict`` with ``warn_unused_ignores``: every line that must be a type error
carries ``# type: ignore[<code>]``, so if the types stopped catching it the ignore would become
unused and mypy would fail. pyright honours the same comments. At runtime pytest runs the same
dicts through ``check_schema``: the well-typed ones register, the ill-typed ones are rejected,
so the static types never promise more than registration accepts.
"""

from __future__ import annotations

from typing import Any, assert_type

import pytest

from pedelec.errors import PedelecError
from pedelec.schema import check_schema
from pedelec.schema.types import (
    ArraySchema,
    BooleanSchema,
    IntegerSchema,
    NumberSchema,
    ObjectSchema,
    OneOfSchema,
    StringSchema,
    ToolArgsSchema,
    ToolArgsSchemaNode,
)

# --- well-typed schemas ---------------------------------------------------------------------

EMPTY: ToolArgsSchema = {"type": "object", "properties": {}, "required": []}

ROLE: StringSchema = {
    "type": "string",
    "enum": ["viewer", "editor"],
    "description": "Role to assign.",
    "default": "viewer",
    "examples": ["editor"],
}
DELTA: IntegerSchema = {"type": "integer", "minimum": -10, "maximum": 10}
RATIO: NumberSchema = {"type": "number", "minimum": 0, "maximum": 1.5, "enum": [0, 0.5, 1.5]}
CONFIRM: BooleanSchema = {"type": "boolean", "enum": [True]}
IDS: ArraySchema = {
    "type": "array",
    "items": {"type": "string", "minLength": 1, "pattern": "^[a-z]+$"},
    "minItems": 1,
    "maxItems": 50,
    "uniqueItems": True,
}
POINT: ObjectSchema = {
    "type": "object",
    "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
    "required": ["x", "y"],
}
TARGET: OneOfSchema = {
    "oneOf": [
        {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        {
            "type": "object",
            "properties": {"index": {"type": "integer", "minimum": 0}},
            "required": ["index"],
        },
    ],
    "description": "The shape to move.",
}

# Constants of the node types compose into a root, as the seed's "reuse schema fragments" shows.
MOVE_SHAPE: ToolArgsSchema = {
    "type": "object",
    "properties": {
        "role": ROLE,
        "delta": DELTA,
        "ratio": RATIO,
        "confirm": CONFIRM,
        "ids": IDS,
        "destination": POINT,
        "target": TARGET,
        "options": {
            "type": "object",
            "description": "Free-form options.",
            "default": {"mode": "fast", "levels": [1, 2.5, None, True, {"deep": []}]},
        },
    },
    "required": ["delta", "destination"],
}

WELL_TYPED: list[tuple[str, Any]] = [
    ("empty", EMPTY),
    ("move_shape", MOVE_SHAPE),
]


def test_node_type_of_a_property_is_the_node_union() -> None:
    properties = MOVE_SHAPE["properties"]
    assert_type(properties, dict[str, ToolArgsSchemaNode])
    node: ToolArgsSchemaNode = properties["delta"]
    assert node == {"type": "integer", "minimum": -10, "maximum": 10}


@pytest.mark.parametrize(("name", "schema"), WELL_TYPED, ids=[n for n, _ in WELL_TYPED])
def test_well_typed_schemas_register(name: str, schema: Any) -> None:
    assert check_schema(schema) == schema


# --- ill-typed schemas: each line is a type error AND a registration error ----------------------

MISSPELLED_ROOT_KEYWORD: ToolArgsSchema = {"type": "object", "propertes": {}}  # type: ignore[typeddict-unknown-key]
MISSPELLED_NODE_KEYWORD: ToolArgsSchema = {
    "type": "object",
    "properties": {"q": {"type": "string", "minLenght": 1}},  # type: ignore[dict-item]
}
MISSPELLED_STRING_KEYWORD: StringSchema = {"type": "string", "maxLenght": 3}  # type: ignore[typeddict-unknown-key]
KEYWORD_OF_ANOTHER_KIND: StringSchema = {"type": "string", "minimum": 1}  # type: ignore[typeddict-unknown-key]
WRONG_TYPE_LITERAL: StringSchema = {"type": "str"}  # type: ignore[typeddict-item]
WRONG_ROOT_TYPE: ToolArgsSchema = {"type": "array"}  # type: ignore[typeddict-item]
WRONG_NODE_TYPE: ToolArgsSchemaNode = {"type": "strng"}  # type: ignore[assignment, misc]
REQUIRED_NOT_A_LIST: ToolArgsSchema = {"type": "object", "required": "q"}  # type: ignore[typeddict-item]
BOUND_AS_TEXT: IntegerSchema = {"type": "integer", "minimum": "0"}  # type: ignore[typeddict-item]
ARRAY_WITHOUT_ITEMS: ArraySchema = {"type": "array"}  # type: ignore[typeddict-item]

# (name, schema, whether it is a root schema, JSON pointer of the error at registration)
ILL_TYPED: list[tuple[str, Any, bool, str]] = [
    ("misspelled_root_keyword", MISSPELLED_ROOT_KEYWORD, True, "/propertes"),
    ("misspelled_node_keyword", MISSPELLED_NODE_KEYWORD, True, "/properties/q/minLenght"),
    ("misspelled_string_keyword", MISSPELLED_STRING_KEYWORD, False, "/maxLenght"),
    ("keyword_of_another_kind", KEYWORD_OF_ANOTHER_KIND, False, "/minimum"),
    ("wrong_type_literal", WRONG_TYPE_LITERAL, False, "/type"),
    ("wrong_root_type", WRONG_ROOT_TYPE, True, "/type"),
    ("wrong_node_type", WRONG_NODE_TYPE, False, "/type"),
    ("required_not_a_list", REQUIRED_NOT_A_LIST, True, "/required"),
    ("bound_as_text", BOUND_AS_TEXT, False, "/minimum"),
    ("array_without_items", ARRAY_WITHOUT_ITEMS, False, ""),
]


@pytest.mark.parametrize(
    ("name", "schema", "is_root", "pointer"), ILL_TYPED, ids=[n for n, *_ in ILL_TYPED]
)
def test_ill_typed_schemas_are_rejected_at_registration(
    name: str, schema: Any, is_root: bool, pointer: str
) -> None:
    with pytest.raises(PedelecError) as caught:
        check_schema(schema if is_root else _wrap(schema))
    assert caught.value.code == "INVALID_INPUT"
    assert caught.value.details["pointer"] == (
        pointer if is_root else f"/properties/value{pointer}"
    )


def _wrap(node: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"value": node}, "required": ["value"]}
