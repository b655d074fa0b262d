"""Typed tools: schemas and handler calls inferred from signatures (``pedelec.typed``, issue 5).

``INFERRED`` is the rule table as data: an annotation (and default) → the WHOLE root schema of a
one-parameter tool. ``REJECTED`` holds the annotations that must fail, with whole messages. Then
docstring styles, calling (keyword arguments, conversions, context injection, sync and async),
``null`` handling, and a round trip: every inferred schema passes the registration check and,
for generated args, pedelec's validator agrees with ``jsonschema``.
"""

from __future__ import annotations

import asyncio
import enum
import functools
import inspect
import math
import os
from collections.abc import Callable, Sequence
from typing import (
    Annotated,
    Any,
    Generic,
    Literal,
    NewType,
    NotRequired,
    Required,
    TypedDict,
)

import annotated_types as at
import pytest
from hypothesis import given, settings, strategies as st
from jsonschema import Draft202012Validator
from typing_extensions import Doc, ReadOnly, TypeAliasType

import pedelec.schema
from pedelec import compile_schema
from pedelec._context import ToolCallContext
from pedelec._handlers import HandlerSpec
from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.markers import (
    Description,
    Examples,
    Maximum,
    MaxItems,
    MaxLength,
    Minimum,
    MinItems,
    MinLength,
    Pattern,
    UniqueItems,
)
from pedelec.schema import check_schema
from pedelec.typed import InferredTool, infer_tool
from pedelec.typed.docstrings import _GOOGLE_ENTRY, parse_docstring

# --- types used by the table (module level: annotations are resolved in this module) ----------


class Color(enum.StrEnum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Shape(str, enum.Enum):  # noqa: UP042 - the str mixin spelling is what is tested
    """The outline of a mark."""

    CIRCLE = "circle"
    SQUARE = "square"


class Plain(enum.Enum):
    A = "a"
    B = "b"


class Mixed(enum.Enum):
    A = "a"
    B = 2


class Empty(enum.Enum):
    pass


class Point(TypedDict):
    """A point on the canvas.

    Attributes:
        x: Horizontal position.
        y: Vertical position.
    """

    x: float
    y: float


class Label(TypedDict, total=False):
    text: Required[str]
    color: Color
    size: NotRequired[int | None]


class Mark(TypedDict):
    at: Point
    labels: list[Label]
    level: NotRequired[Level]
    note: ReadOnly[NotRequired[str]]


class ById(TypedDict):
    """Select by id."""

    id: str


class ByIndex(TypedDict):
    index: Annotated[int, Minimum(0)]


class ByIdMaybeIndex(TypedDict):
    id: str
    index: NotRequired[int]


class ByIdAndName(TypedDict):
    id: str
    name: str


class Circle(TypedDict):
    kind: Literal["circle"]
    radius: float


class Square(TypedDict):
    kind: Literal["square"]
    side: float


class Node(TypedDict):
    name: str
    children: list[Node]


class Broken(TypedDict):
    when: NotDefinedAnywhere  # type: ignore[name-defined]  # noqa: F821


class NullableField(TypedDict):
    size: int | None


UserId = NewType("UserId", str)
Tags = TypeAliasType("Tags", list[str])


NO_DEFAULT: Any = object()
TOOL = "probe"


def probe(annotation: Any, default: Any = NO_DEFAULT, doc: str = "Probe a type.") -> Any:
    """A one-parameter tool ``probe(x: annotation = default)`` that returns what it receives."""

    def fn(x: Any) -> Any:
        return x

    fn.__name__ = TOOL
    fn.__doc__ = doc
    fn.__annotations__ = {"x": annotation, "return": Any}
    if default is not NO_DEFAULT:
        fn.__defaults__ = (default,)
    return fn


def root(node: dict[str, Any], required: bool = True) -> dict[str, Any]:
    return {"type": "object", "properties": {"x": node}, "required": ["x"] if required else []}


def schema_of(annotation: Any, default: Any = NO_DEFAULT) -> dict[str, Any]:
    return infer_tool(probe(annotation, default)).schema


STRING = {"type": "string"}
INTEGER = {"type": "integer"}
NUMBER = {"type": "number"}
BOOLEAN = {"type": "boolean"}
POINT = {
    "type": "object",
    "properties": {
        "x": {"type": "number", "description": "Horizontal position."},
        "y": {"type": "number", "description": "Vertical position."},
    },
    "required": ["x", "y"],
    "description": "A point on the canvas.",
}
LABEL = {
    "type": "object",
    "properties": {
        "text": STRING,
        "color": {"type": "string", "enum": ["red", "green"]},
        "size": INTEGER,
    },
    "required": ["text"],
}

# (id, annotation, default, expected property node, required)
INFERRED: list[tuple[str, Any, Any, dict[str, Any], bool]] = [
    # scalars
    ("str", str, NO_DEFAULT, STRING, True),
    ("int", int, NO_DEFAULT, INTEGER, True),
    ("float", float, NO_DEFAULT, NUMBER, True),
    ("bool", bool, NO_DEFAULT, BOOLEAN, True),
    ("newtype", UserId, NO_DEFAULT, STRING, True),
    # arrays
    ("list", list[str], NO_DEFAULT, {"type": "array", "items": STRING}, True),
    ("sequence", Sequence[int], NO_DEFAULT, {"type": "array", "items": INTEGER}, True),
    (
        "nested_list",
        list[list[bool]],
        NO_DEFAULT,
        {"type": "array", "items": {"type": "array", "items": BOOLEAN}},
        True,
    ),
    ("type_alias", Tags, NO_DEFAULT, {"type": "array", "items": STRING}, True),
    # objects
    ("typeddict", Point, NO_DEFAULT, POINT, True),
    ("typeddict_total_false_required", Label, NO_DEFAULT, LABEL, True),
    (
        "typeddict_nested",
        Mark,
        NO_DEFAULT,
        {
            "type": "object",
            "properties": {
                "at": POINT,
                "labels": {"type": "array", "items": LABEL},
                "level": {"type": "integer", "enum": [1, 2]},
                "note": STRING,
            },
            "required": ["at", "labels"],
        },
        True,
    ),
    ("free_object", dict[str, Any], NO_DEFAULT, {"type": "object"}, True),
    ("bare_dict", dict, NO_DEFAULT, {"type": "object"}, True),
    # enums
    ("literal_str", Literal["a", "b"], NO_DEFAULT, {"type": "string", "enum": ["a", "b"]}, True),
    ("literal_int", Literal[1, 2], NO_DEFAULT, {"type": "integer", "enum": [1, 2]}, True),
    ("literal_bool", Literal[True], NO_DEFAULT, {"type": "boolean", "enum": [True]}, True),
    (
        "literal_mixed_types",
        Literal["a", 1, False],
        NO_DEFAULT,
        {
            "oneOf": [
                {"type": "string", "enum": ["a"]},
                {"type": "integer", "enum": [1]},
                {"type": "boolean", "enum": [False]},
            ]
        },
        True,
    ),
    (
        "literal_enum_member",
        Literal[Color.RED, "blue"],
        NO_DEFAULT,
        {"type": "string", "enum": ["red", "blue"]},
        True,
    ),
    ("str_enum", Color, NO_DEFAULT, {"type": "string", "enum": ["red", "green"]}, True),
    ("int_enum", Level, NO_DEFAULT, {"type": "integer", "enum": [1, 2]}, True),
    (
        "str_mixin_enum_with_doc",
        Shape,
        NO_DEFAULT,
        {
            "type": "string",
            "enum": ["circle", "square"],
            "description": "The outline of a mark.",
        },
        True,
    ),
    ("plain_enum_of_str", Plain, NO_DEFAULT, {"type": "string", "enum": ["a", "b"]}, True),
    # unions
    ("int_or_str", int | str, NO_DEFAULT, {"oneOf": [INTEGER, STRING]}, True),
    ("bool_or_int", bool | int, NO_DEFAULT, {"oneOf": [BOOLEAN, INTEGER]}, True),
    (
        "str_or_list",
        str | list[str],
        NO_DEFAULT,
        {"oneOf": [STRING, {"type": "array", "items": STRING}]},
        True,
    ),
    (
        "literals_merge",
        Literal["a"] | Literal["b"] | int,
        NO_DEFAULT,
        {"oneOf": [{"type": "string", "enum": ["a", "b"]}, INTEGER]},
        True,
    ),
    (
        "literal_and_pattern_that_excludes_it",
        Literal["auto"] | Annotated[str, Pattern("^[0-9]+$")],
        NO_DEFAULT,
        {
            "oneOf": [
                {"type": "string", "enum": ["auto"]},
                {"type": "string", "pattern": "^[0-9]+$"},
            ]
        },
        True,
    ),
    (
        "literals_merge_without_duplicates",
        Literal["a"] | Literal["a", "b"],
        NO_DEFAULT,
        {"type": "string", "enum": ["a", "b"]},
        True,
    ),
    (
        "literal_and_other_type",
        Literal["auto"] | int,
        NO_DEFAULT,
        {"oneOf": [{"type": "string", "enum": ["auto"]}, INTEGER]},
        True,
    ),
    (
        "disjoint_int_ranges",
        Annotated[int, Maximum(-1)] | Annotated[int, Minimum(1)],
        NO_DEFAULT,
        {"oneOf": [{"type": "integer", "maximum": -1}, {"type": "integer", "minimum": 1}]},
        True,
    ),
    (
        "integer_enum_and_float_range",
        Literal[5] | Annotated[float, Maximum(1)],
        NO_DEFAULT,
        {"oneOf": [{"type": "integer", "enum": [5]}, {"type": "number", "maximum": 1}]},
        True,
    ),
    (
        "typeddicts_by_required_key",
        ById | ByIndex,
        NO_DEFAULT,
        {
            "oneOf": [
                {
                    "type": "object",
                    "properties": {"id": STRING},
                    "required": ["id"],
                    "description": "Select by id.",
                },
                {
                    "type": "object",
                    "properties": {"index": {"type": "integer", "minimum": 0}},
                    "required": ["index"],
                },
            ]
        },
        True,
    ),
    (
        "typeddicts_by_tag",
        Circle | Square,
        NO_DEFAULT,
        {
            "oneOf": [
                {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "enum": ["circle"]},
                        "radius": NUMBER,
                    },
                    "required": ["kind", "radius"],
                },
                {
                    "type": "object",
                    "properties": {"kind": {"type": "string", "enum": ["square"]}, "side": NUMBER},
                    "required": ["kind", "side"],
                },
            ]
        },
        True,
    ),
    (
        "lists_that_cannot_be_empty",
        Annotated[list[int], MinItems(1)] | Annotated[list[str], MinItems(1)],
        NO_DEFAULT,
        {
            "oneOf": [
                {"type": "array", "items": INTEGER, "minItems": 1},
                {"type": "array", "items": STRING, "minItems": 1},
            ]
        },
        True,
    ),
    # pedelec markers
    (
        "numeric_markers",
        Annotated[int, Minimum(-5), Maximum(5)],
        NO_DEFAULT,
        {"type": "integer", "minimum": -5, "maximum": 5},
        True,
    ),
    (
        "string_markers",
        Annotated[str, MinLength(1), MaxLength(8), Pattern("^[a-z]+$")],
        NO_DEFAULT,
        {"type": "string", "minLength": 1, "maxLength": 8, "pattern": "^[a-z]+$"},
        True,
    ),
    (
        "array_markers",
        Annotated[list[Annotated[str, MinLength(1)]], MinItems(1), MaxItems(3), UniqueItems()],
        NO_DEFAULT,
        {
            "type": "array",
            "items": {"type": "string", "minLength": 1},
            "minItems": 1,
            "maxItems": 3,
            "uniqueItems": True,
        },
        True,
    ),
    (
        "description_and_examples",
        Annotated[Color, Description("Paint colour."), Examples(Color.GREEN, "red")],
        NO_DEFAULT,
        {
            "type": "string",
            "enum": ["red", "green"],
            "description": "Paint colour.",
            "examples": ["green", "red"],
        },
        True,
    ),
    (
        "bare_string_description",
        Annotated[str, "City name."],
        NO_DEFAULT,
        {**STRING, "description": "City name."},
        True,
    ),
    (
        "description_on_union",
        Annotated[int | str, Description("Either.")],
        NO_DEFAULT,
        {"oneOf": [INTEGER, STRING], "description": "Either."},
        True,
    ),
    (
        "marker_description_beats_type_doc",
        Annotated[Point, Description("Where to go.")],
        NO_DEFAULT,
        {**POINT, "description": "Where to go."},
        True,
    ),
    (
        "last_marker_wins",
        Annotated[Annotated[int, Minimum(0)], Minimum(5)],
        NO_DEFAULT,
        {"type": "integer", "minimum": 5},
        True,
    ),
    # annotated-types, by duck typing
    (
        "at_ge_le",
        Annotated[float, at.Ge(0), at.Le(1.5)],
        NO_DEFAULT,
        {"type": "number", "minimum": 0, "maximum": 1.5},
        True,
    ),
    (
        "at_gt_lt_on_int",
        Annotated[int, at.Gt(0), at.Lt(10)],
        NO_DEFAULT,
        {"type": "integer", "minimum": 1, "maximum": 9},
        True,
    ),
    (
        "at_gt_lt_fractional_on_int",
        Annotated[int, at.Gt(-2.5), at.Lt(2.5)],
        NO_DEFAULT,
        {"type": "integer", "minimum": -2, "maximum": 2},
        True,
    ),
    (
        "at_interval",
        Annotated[int, at.Interval(ge=1, lt=5)],
        NO_DEFAULT,
        {"type": "integer", "minimum": 1, "maximum": 4},
        True,
    ),
    (
        "at_len_str",
        Annotated[str, at.Len(2, 4)],
        NO_DEFAULT,
        {"type": "string", "minLength": 2, "maxLength": 4},
        True,
    ),
    (
        "at_minlen_maxlen_list",
        Annotated[list[int], at.MinLen(1), at.MaxLen(9)],
        NO_DEFAULT,
        {"type": "array", "items": INTEGER, "minItems": 1, "maxItems": 9},
        True,
    ),
    (
        "at_doc",
        Annotated[str, at.doc("Documented.")],
        NO_DEFAULT,
        {**STRING, "description": "Documented."},
        True,
    ),
    (
        "pep727_doc",
        Annotated[str, Doc("Documented.")],
        NO_DEFAULT,
        {**STRING, "description": "Documented."},
        True,
    ),
    # defaults and None
    ("default_int", int, 5, {"type": "integer", "default": 5}, False),
    (
        "default_enum_member",
        Color,
        Color.GREEN,
        {"type": "string", "enum": ["red", "green"], "default": "green"},
        False,
    ),
    (
        "default_tuple_becomes_list",
        Sequence[str],
        ("a", "b"),
        {"type": "array", "items": STRING, "default": ["a", "b"]},
        False,
    ),
    (
        "default_typeddict",
        Point,
        {"x": 0, "y": 1.5},
        {**POINT, "default": {"x": 0, "y": 1.5}},
        False,
    ),
    ("default_on_union", int | str, "auto", {"oneOf": [INTEGER, STRING], "default": "auto"}, False),
    ("optional_none_default", int | None, None, INTEGER, False),
    ("optional_without_default", str | None, NO_DEFAULT, STRING, False),
    ("optional_with_value_default", int | None, 3, {"type": "integer", "default": 3}, False),
    ("none_default_without_optional", int, None, INTEGER, False),
    (
        "annotated_optional",
        Annotated[int | None, Minimum(0)],
        None,
        {"type": "integer", "minimum": 0},
        False,
    ),
    (
        "optional_annotated",
        Annotated[int, Minimum(0)] | None,
        None,
        {"type": "integer", "minimum": 0},
        False,
    ),
    (
        "literal_with_none",
        Literal["a", "b", None],
        None,
        {"type": "string", "enum": ["a", "b"]},
        False,
    ),
    ("optional_union", int | str | None, None, {"oneOf": [INTEGER, STRING]}, False),
    (
        "none_inside_a_literal_member",
        Literal["a", None] | int,
        None,
        {"oneOf": [{"type": "string", "enum": ["a"]}, INTEGER]},
        False,
    ),
]


@pytest.mark.parametrize(
    ("annotation", "default", "node", "required"),
    [row[1:] for row in INFERRED],
    ids=[row[0] for row in INFERRED],
)
def test_inferred_schema(
    annotation: Any, default: Any, node: dict[str, Any], required: bool
) -> None:
    assert schema_of(annotation, default) == root(node, required)


# --- rejected annotations -----------------------------------------------------------------------


def where(clause: str, at: str | None = None) -> str:
    inside = f" (at {at})" if at else ""
    return f'Parameter "x" of tool "probe"{inside}: {clause}.'


AMBIGUOUS = "and oneOf rejects a value that matches two members"
NOT_SUPPORTED = (
    "is not supported; use str, int, float, bool, list[T], a TypedDict, Literal[...], an Enum, "
    "or a union of these"
)
OBJECT_FIX = (
    "give each TypedDict a required key the other does not declare, or a required tag key "
    'with different Literal values (e.g. kind: Literal["a"])'
)

# (id, annotation, default, whole message)
REJECTED: list[tuple[str, Any, Any, str]] = [
    # ambiguous unions
    (
        "int_or_float",
        int | float,
        NO_DEFAULT,
        where(
            f"the union int | float is ambiguous: int and float can both match 1, {AMBIGUOUS}; "
            "use float alone, it accepts whole numbers too"
        ),
    ),
    (
        "str_or_literal",
        str | Literal["a"],
        NO_DEFAULT,
        where(
            "the union str | Literal['a'] is ambiguous: Literal['a'] and str can both match "
            f"\"a\", {AMBIGUOUS}; str already accepts those values; drop Literal['a'] or str"
        ),
    ),
    (
        "enum_or_int",
        Level | int,
        NO_DEFAULT,
        where(
            f"the union Level | int is ambiguous: Level and int can both match 1, {AMBIGUOUS}; "
            "int already accepts those values; drop Level or int"
        ),
    ),
    (
        "overlapping_enums",
        Color | Literal["red", "blue"],
        NO_DEFAULT,
        where(
            "the union Color | Literal['red', 'blue'] is ambiguous: Literal['red', 'blue'] and "
            f'Color can both match "red", {AMBIGUOUS}; remove the shared values from '
            "Literal['red', 'blue'] or Color"
        ),
    ),
    (
        "lists",
        list[int] | list[str],
        NO_DEFAULT,
        where(
            "the union list[int] | list[str] is ambiguous: list[int] and list[str] can both "
            f"match [], {AMBIGUOUS}; an empty list matches both; use one list of a union "
            "(e.g. list[int | str]), or add MinItems(1) to each"
        ),
    ),
    (
        "typeddict_subset",
        ById | ByIdAndName,
        NO_DEFAULT,
        where(
            "the union ById | ByIdAndName is ambiguous: ById and ByIdAndName can both match an "
            f'object with the keys "id", "name", {AMBIGUOUS}; {OBJECT_FIX}'
        ),
    ),
    (
        "typeddict_declares_the_others_required_key",
        ByIdMaybeIndex | ByIndex,
        NO_DEFAULT,
        where(
            "the union ByIdMaybeIndex | ByIndex is ambiguous: ByIdMaybeIndex and ByIndex can both "
            f'match an object with the keys "id", "index", {AMBIGUOUS}; {OBJECT_FIX}'
        ),
    ),
    (
        "typeddict_and_free_object",
        Point | dict[str, Any],
        NO_DEFAULT,
        where(
            "the union Point | dict[str, Any] is ambiguous: Point and dict[str, Any] can both "
            f'match an object with the keys "x", "y", {AMBIGUOUS}; {OBJECT_FIX}'
        ),
    ),
    (
        "overlapping_ranges",
        Annotated[int, Maximum(5)] | Annotated[int, Minimum(0)],
        NO_DEFAULT,
        where(
            f"the union int | int is ambiguous: int and int can both match 1, {AMBIGUOUS}; "
            "make the members distinguishable (different JSON types, or disjoint values or bounds)"
        ),
    ),
    (
        "literal_matching_the_pattern",
        Literal["12"] | Annotated[str, Pattern("^[0-9]+$")],
        NO_DEFAULT,
        where(
            "the union Literal['12'] | str is ambiguous: Literal['12'] and str can both match "
            f"\"12\", {AMBIGUOUS}; str already accepts those values; drop Literal['12'] or str"
        ),
    ),
    (
        # The witness is written by the one message vocabulary: control characters escaped.
        "literal_with_control_characters",
        Literal["a\tb\x01"] | str,
        NO_DEFAULT,
        where(
            "the union Literal['a\\tb\\x01'] | str is ambiguous: Literal['a\\tb\\x01'] and str "
            f'can both match "a\\tb\\u0001", {AMBIGUOUS}; str already accepts those values; '
            "drop Literal['a\\tb\\x01'] or str"
        ),
    ),
    # parameters the call cannot fill, or the schema cannot describe
    (
        "any",
        Any,
        NO_DEFAULT,
        where(
            "Any cannot be described (the subset has no 'any' type); annotate a concrete type such as str, int, list[str] or a TypedDict"
        ),
    ),
    (
        "object",
        object,
        NO_DEFAULT,
        where(
            "object cannot be described (the subset has no 'any' type); annotate a concrete type such as str, int, list[str] or a TypedDict"
        ),
    ),
    ("bytes", bytes, NO_DEFAULT, where(f"bytes {NOT_SUPPORTED}")),
    # typing.get_origin(Generic) is Generic itself: its label must not follow that loop.
    ("generic", Generic, NO_DEFAULT, where(f"Generic {NOT_SUPPORTED}")),
    (
        "tuple",
        tuple[int, int],
        NO_DEFAULT,
        where(
            "tuple[int, int] is not supported; use list[T] or Sequence[T] (the subset has no fixed-length tuples)"
        ),
    ),
    (
        "set",
        set[str],
        NO_DEFAULT,
        where("set[str] is not supported; use list[T] with UniqueItems()"),
    ),
    ("bare_list", list, NO_DEFAULT, where("list needs an item type; write e.g. list[str]")),
    (
        "typed_dict_values",
        dict[str, int],
        NO_DEFAULT,
        where(
            "dict[str, int] is not supported: the subset cannot constrain the values of a free-form object; use a TypedDict, or dict[str, Any] for any object"
        ),
    ),
    (
        "none_alone",
        None,
        NO_DEFAULT,
        where(
            "None is only allowed as T | None on a parameter or on a NotRequired TypedDict field (the subset has no null type); leave the key out instead of sending null"
        ),
    ),
    (
        "nested_none",
        list[int | None],
        NO_DEFAULT,
        where(
            "int | None accepts None, which is only allowed on a parameter or on a NotRequired TypedDict field (the subset has no null type); use NotRequired[...] without None, or drop None",
            "x[]",
        ),
    ),
    (
        "required_field_none",
        NullableField,
        NO_DEFAULT,
        where(
            "int | None accepts None, which is only allowed on a parameter or on a NotRequired TypedDict field (the subset has no null type); use NotRequired[...] without None, or drop None",
            "x.size",
        ),
    ),
    (
        "recursive_typeddict",
        Node,
        NO_DEFAULT,
        where(
            "TypedDict Node contains itself; recursive types cannot be described (the subset has no $ref)",
            "x.children[]",
        ),
    ),
    (
        "unresolvable_typeddict",
        Broken,
        NO_DEFAULT,
        where(
            "the fields of TypedDict Broken cannot be resolved (NameError: name 'NotDefinedAnywhere' is not defined); define or import the names at module level"
        ),
    ),
    (
        "context_inside",
        list[ToolCallContext],
        NO_DEFAULT,
        where(
            "ToolCallContext can only be the annotation of a parameter of its own, which receives the call context",
            "x[]",
        ),
    ),
    (
        "required_outside_typeddict",
        Required[int],
        NO_DEFAULT,
        where("Required[int] is only meaningful on a TypedDict field"),
    ),
    # enums and literals
    (
        "mixed_enum",
        Mixed,
        NO_DEFAULT,
        where(
            "the values of Enum Mixed must be all strings or all integers, got ['a', 2]; give the members str or int values"
        ),
    ),
    ("empty_enum", Empty, NO_DEFAULT, where("Enum Empty has no members")),
    (
        "bytes_literal",
        Literal[b"x"],
        NO_DEFAULT,
        where(
            "Literal value b'x' is not a string, integer or boolean; the subset's enums hold JSON values"
        ),
    ),
    # markers
    (
        "marker_on_wrong_type",
        Annotated[str, Minimum(0)],
        NO_DEFAULT,
        where("Minimum(0) applies to int and float, not to str"),
    ),
    (
        "length_marker_on_list",
        Annotated[list[str], MinLength(1)],
        NO_DEFAULT,
        where("MinLength(1) applies to str, not to list[str]"),
    ),
    (
        "marker_on_union",
        Annotated[int | str, Minimum(0)],
        NO_DEFAULT,
        where(
            "Minimum(0) applies to int and float, not to int | str; put it on the member it constrains, e.g. Annotated[int, Minimum(0)] | str"
        ),
    ),
    (
        "marker_class",
        Annotated[list[str], UniqueItems],
        NO_DEFAULT,
        where("write UniqueItems(...) in Annotated[...], an instance, not the class"),
    ),
    (
        "unknown_metadata",
        Annotated[int, 3.5],
        NO_DEFAULT,
        where(
            "Annotated metadata 3.5 is not understood; use the pedelec markers (Minimum, Maximum, MinLength, MaxLength, Pattern, MinItems, MaxItems, UniqueItems, Description, Examples) or annotated-types constraints"
        ),
    ),
    (
        "empty_string_metadata",
        Annotated[int, " "],
        NO_DEFAULT,
        where("an empty string in Annotated[...] is not a description"),
    ),
    (
        "at_gt_on_float",
        Annotated[float, at.Gt(0)],
        NO_DEFAULT,
        where(
            "Gt(gt=0) is an exclusive bound, which the subset cannot express for float (it has no exclusiveMinimum/exclusiveMaximum); use Ge(...) with the closest value you accept"
        ),
    ),
    (
        "at_lt_on_float",
        Annotated[float, at.Lt(1)],
        NO_DEFAULT,
        where(
            "Lt(lt=1) is an exclusive bound, which the subset cannot express for float (it has no exclusiveMinimum/exclusiveMaximum); use Le(...) with the closest value you accept"
        ),
    ),
    (
        "at_ge_on_str",
        Annotated[str, at.Ge(1)],
        NO_DEFAULT,
        where("Ge(ge=1) applies to int and float, not to str"),
    ),
    (
        "at_len_on_int",
        Annotated[int, at.MinLen(1)],
        NO_DEFAULT,
        where("MinLen(min_length=1) applies to str and lists, not to int"),
    ),
    (
        "at_multiple_of",
        Annotated[int, at.MultipleOf(2)],
        NO_DEFAULT,
        where(
            "MultipleOf(multiple_of=2) has no equivalent in the Tool Args Schema subset; check it in the handler instead"
        ),
    ),
    (
        "at_non_finite_bound",
        Annotated[float, at.Ge(math.inf)],
        NO_DEFAULT,
        where("Ge(ge=inf): the bound must be a finite int or float"),
    ),
    # defaults and the registration check
    (
        "default_not_json",
        int,
        {1, 2},
        where("the default {1, 2} is not JSON (set has no JSON form); use a JSON value"),
    ),
    (
        "default_nan",
        float,
        math.nan,
        where("the default nan is not JSON (nan is not a JSON number); use a JSON value"),
    ),
    (
        "example_not_json",
        Annotated[str, Examples(b"x")],
        NO_DEFAULT,
        where("the example b'x' is not JSON (bytes has no JSON form); use a JSON value"),
    ),
    (
        "default_invalid_for_node",
        Annotated[int, Maximum(10)],
        11,
        where(
            'Invalid schema at /properties/x/default: "default" is not valid for its own node '
            "(must be <= 10, got 11); fix the default or remove it"
        ),
    ),
    (
        "bounds_crossed",
        Annotated[int, Minimum(5), Maximum(1)],
        NO_DEFAULT,
        where(
            'Invalid schema at /properties/x/minimum: "minimum" (5) is greater than "maximum" '
            '(1), so nothing can match; lower "minimum" or raise "maximum"'
        ),
    ),
]


@pytest.mark.parametrize(
    ("annotation", "default", "message"),
    [row[1:] for row in REJECTED],
    ids=[row[0] for row in REJECTED],
)
def test_rejected_annotation(annotation: Any, default: Any, message: str) -> None:
    with pytest.raises(PedelecError) as caught:
        infer_tool(probe(annotation, default))
    assert caught.value.code == INVALID_INPUT
    assert caught.value.message == message
    assert caught.value.details["tool"] == TOOL
    assert caught.value.details["parameter"] == "x"


def test_registration_check_details_keep_pointer_and_keyword() -> None:
    with pytest.raises(PedelecError) as caught:
        infer_tool(probe(Annotated[int, Maximum(10)], 11))
    assert caught.value.details == {
        "pointer": "/properties/x/default",
        "keyword": "default",
        "tool": TOOL,
        "parameter": "x",
    }


def var_positional(*values: int) -> None:
    """Sum."""


def var_keyword(**options: int) -> None:
    """Configure."""


def positional_only(x: int, /) -> None:
    """Square."""


def unannotated(x) -> None:  # type: ignore[no-untyped-def]
    """Echo."""


def two_contexts(a: ToolCallContext, b: ToolCallContext) -> None:
    """Twice."""


def forward_ref(x: Undefined) -> None:  # type: ignore[name-defined]  # noqa: F821
    """Unresolvable."""


def undocumented(x: int) -> None:
    pass


SIGNATURE_ERRORS: list[tuple[Callable[..., Any], str, str]] = [
    (
        var_positional,
        "values",
        "*args cannot be described by a schema; declare each argument as its own parameter, "
        "or one list[T] parameter",
    ),
    (
        var_keyword,
        "options",
        "**kwargs cannot be described by a schema; declare each argument as its own parameter, "
        "or one TypedDict parameter",
    ),
    (
        positional_only,
        "x",
        "positional-only parameters cannot be passed by keyword; remove the / from the signature",
    ),
    (
        unannotated,
        "x",
        "it has no type annotation; annotate it (e.g. str, int, list[str], a TypedDict)",
    ),
    (two_contexts, "b", 'parameter "a" already receives the ToolCallContext; keep one'),
    (
        forward_ref,
        "x",
        "its annotation 'Undefined' cannot be resolved (NameError: name 'Undefined' is not "
        "defined); define or import the name at module level",
    ),
]


@pytest.mark.parametrize(
    ("fn", "parameter", "clause"),
    SIGNATURE_ERRORS,
    ids=[fn.__name__ for fn, *_ in SIGNATURE_ERRORS],
)
def test_rejected_signature(fn: Callable[..., Any], parameter: str, clause: str) -> None:
    with pytest.raises(PedelecError) as caught:
        infer_tool(fn)
    assert caught.value.code == INVALID_INPUT
    assert caught.value.message == f'Parameter "{parameter}" of tool "{fn.__name__}": {clause}.'
    assert caught.value.details == {"tool": fn.__name__, "parameter": parameter}


@pytest.mark.parametrize("description", [None, "", "  "])
def test_no_description_is_rejected(description: str | None) -> None:
    with pytest.raises(PedelecError) as caught:
        infer_tool(undocumented, description=description)
    assert caught.value.message == (
        'Tool "undocumented" has no description; give the function a docstring '
        'or pass description="..."'
    )
    assert caught.value.details == {"tool": "undocumented"}


def test_explicit_name_and_description_win() -> None:
    tool = infer_tool(undocumented, name="count", description="Count things.")
    assert (tool.name, tool.description) == ("count", "Count things.")
    assert tool.schema == root(INTEGER)


def test_no_name_is_rejected() -> None:
    class Callable_:
        """Call me."""

        def __call__(self, x: int) -> int:
            return x

    with pytest.raises(PedelecError) as caught:
        infer_tool(Callable_())
    assert caught.value.message.startswith("Cannot infer a tool name from <")
    assert caught.value.message.endswith('; pass name="..."')
    tool = infer_tool(Callable_(), name="call_me")
    assert tool.description == "Call me."
    assert tool.handler.call({"x": 4}, None) == 4


def test_unresolvable_return_annotation_does_not_matter() -> None:
    def fn(x: int) -> Undefined:  # type: ignore[name-defined]  # noqa: F821
        """Echo."""
        return x

    assert infer_tool(fn).schema == root(INTEGER)


# --- several parameters, context, docstrings -------------------------------------------------


def search(
    query: Annotated[str, MinLength(1)],
    ctx: ToolCallContext,
    tags: list[str],
    mode: Literal["fast", "exact"] = "fast",
    limit: Annotated[int, Minimum(1), Maximum(100)] = 10,
    verbose: bool = False,
    *,
    ratio: float = 0.5,
) -> dict[str, Any]:
    """Search the catalogue
    for products.

    Everything after the first paragraph stays out of the description.

    Args:
        query: Words to look
            for.
        ctx: The call context (not part of the schema).
        tags (list[str]): Tags that must all match.
        limit: How many results.

    Returns:
        The matching products.
    """
    return {"query": query, "tool": ctx.tool, "tags": tags, "mode": mode, "limit": limit}


SEARCH_SCHEMA = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1, "description": "Words to look for."},
        "tags": {"type": "array", "items": STRING, "description": "Tags that must all match."},
        "mode": {"type": "string", "enum": ["fast", "exact"], "default": "fast"},
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": 100,
            "description": "How many results.",
            "default": 10,
        },
        "verbose": {"type": "boolean", "default": False},
        "ratio": {"type": "number", "default": 0.5},
    },
    "required": ["query", "tags"],
}


def test_google_docstring_and_context_parameter() -> None:
    tool = infer_tool(search)
    assert isinstance(tool, InferredTool)
    assert tool.name == "search"
    assert tool.description == "Search the catalogue for products."
    assert tool.schema == SEARCH_SCHEMA
    assert tool.nullable == frozenset()
    assert tool.validator is compile_schema(tool.schema)  # compiled once, shared by the cache
    assert tool.validator.is_valid({"query": "bike", "tags": []})
    assert isinstance(tool.handler, HandlerSpec)
    assert tool.handler.source is search
    assert tool.handler.is_async is False


class DocText(str):
    """A ``str`` subclass, as a library's description type may be."""


def labelled(count: Annotated[int, DocText("How many."), Minimum(0)]) -> int:
    """Count things."""
    return count


def test_the_validator_keeps_a_plain_private_copy_of_the_inferred_schema() -> None:
    """The inferred schema's text is written from it directly (``_cache.compiled_built``); the
    validator's copy, read back from that text, is plain JSON and shares nothing with it."""
    pedelec.schema._clear_cache()
    tool = infer_tool(labelled)
    node = tool.validator.schema["properties"]["count"]
    assert node == {"type": "integer", "description": "How many.", "minimum": 0}
    assert type(node["description"]) is str
    assert type(tool.schema["properties"]["count"]["description"]) is DocText
    tool.schema["properties"]["count"]["minimum"] = 5
    assert node["minimum"] == 0
    assert tool.validator.is_valid({"count": 1})
    # Cached by the text: a later inference and compile_schema of the same schema share it.
    assert infer_tool(labelled).validator is tool.validator
    assert compile_schema(infer_tool(labelled).schema) is tool.validator


def lone_surrogate(x: Annotated[int, "bad \ud800 text"]) -> int:
    """Take x."""
    return x


def test_an_inferred_schema_that_cannot_be_sent_names_its_parameter() -> None:
    pedelec.schema._clear_cache()
    with pytest.raises(PedelecError) as caught:
        infer_tool(lone_surrogate)
    assert caught.value.message == (
        'Parameter "x" of tool "lone_surrogate": Invalid schema at /properties/x/description: '
        "the string holds a lone surrogate (U+D800), which UTF-8 cannot encode; the schema "
        "cannot be sent as JSON."
    )
    assert caught.value.details == {
        "pointer": "/properties/x/description",
        "keyword": "description",
        "tool": "lone_surrogate",
        "parameter": "x",
    }


#: An int with more digits than Python writes as text (sys.get_int_max_str_digits()).
HUGE = 10**5000


def huge_ge(x: Annotated[int, at.Ge(HUGE)]) -> None:
    """Take x."""


def huge_gt(x: Annotated[int, at.Gt(HUGE)]) -> None:
    """Take x."""


def huge_minimum(x: Annotated[int, Minimum(HUGE)]) -> None:
    """Take x."""


def huge_default(x: int = HUGE) -> None:
    """Take x."""


def huge_example(x: Annotated[int, Examples(HUGE)]) -> None:
    """Take x."""


def huge_literal(x: Literal[HUGE] | str) -> None:
    """Take x."""


@pytest.mark.parametrize(
    ("fn", "pointer", "keyword"),
    [
        (huge_ge, "/properties/x/minimum", "minimum"),
        (huge_gt, "/properties/x/minimum", "minimum"),
        (huge_minimum, "/properties/x/minimum", "minimum"),
        (huge_default, "/properties/x/default", "default"),
        (huge_example, "/properties/x/examples/0", "examples"),
        (huge_literal, "/properties/x/oneOf/0/enum/0", "enum"),
    ],
    ids=lambda v: v.__name__ if callable(v) else None,
)
def test_an_int_too_long_to_write_is_an_input_error(
    fn: Callable[..., Any], pointer: str, keyword: str
) -> None:
    """Not an OverflowError from a bound's check, nor a ValueError from writing a label."""
    with pytest.raises(PedelecError) as caught:
        infer_tool(fn)
    assert caught.value.message == (
        f'Parameter "x" of tool "{fn.__name__}": Invalid schema at {pointer}: an integer with '
        "more than 4300 digits, more than Python writes as text "
        "(sys.get_int_max_str_digits()); the schema cannot be sent as JSON."
    )
    assert caught.value.details == {
        "pointer": pointer,
        "keyword": keyword,
        "tool": fn.__name__,
        "parameter": "x",
    }


def numpy_style(city: str, days: int = 1, *, units: Literal["c", "f"] = "c") -> str:
    """Forecast the weather.

    Parameters
    ----------
    city : str
        The city, e.g.
        Paris.
    days, units
        Shared text.

    Returns
    -------
    str
        The forecast.
    """
    return city


def rest_style(city: str, days: int = 1) -> str:
    """Forecast the weather.

    :param str city: The city, e.g.
        Paris.
    :param days: How many days.
    :returns: The forecast.
    """
    return city


def marker_beats_docstring(city: Annotated[str, Description("From the marker.")]) -> str:
    """Forecast the weather.

    Args:
        city: From the docstring.
    """
    return city


def summary_then_section(city: str) -> str:
    """Forecast the weather.
    Args:
        city: The city.
    """
    return city


DOCSTRINGS: list[tuple[Callable[..., Any], dict[str, str]]] = [
    (
        numpy_style,
        {"city": "The city, e.g. Paris.", "days": "Shared text.", "units": "Shared text."},
    ),
    (rest_style, {"city": "The city, e.g. Paris.", "days": "How many days."}),
    (marker_beats_docstring, {"city": "From the marker."}),
    (summary_then_section, {"city": "The city."}),
]


@pytest.mark.parametrize(
    ("fn", "descriptions"), DOCSTRINGS, ids=[fn.__name__ for fn, _ in DOCSTRINGS]
)
def test_docstring_styles(fn: Callable[..., Any], descriptions: dict[str, str]) -> None:
    tool = infer_tool(fn)
    assert tool.description == "Forecast the weather."
    found = {
        name: node["description"]
        for name, node in tool.schema["properties"].items()
        if "description" in node
    }
    assert found == descriptions


# --- calling ------------------------------------------------------------------------------


def make_context(tool: str = "search") -> ToolCallContext:
    return ToolCallContext(session_id="s1", tool_request_id="r1", tool=tool)


def test_call_passes_keyword_arguments_and_the_context() -> None:
    tool = infer_tool(search)
    result = tool.handler.call({"query": "bike", "tags": ["red"], "undeclared": 1}, make_context())
    assert result == {
        "query": "bike",
        "tool": "search",
        "tags": ["red"],
        "mode": "fast",
        "limit": 10,
    }


def paint(
    color: Color,
    level: Level,
    shapes: list[Shape],
    mark: Mark,
    choice: Literal[Color.RED, "blue"],
    count: int,
    target: ById | ByIndex,
    either: Annotated[int, Maximum(-1)] | Annotated[Level, Description("A level.")],
) -> dict[str, Any]:
    """Paint."""
    return dict(
        color=color,
        level=level,
        shapes=shapes,
        mark=mark,
        choice=choice,
        count=count,
        target=target,
        either=either,
    )


def test_call_converts_enums_integers_and_keeps_typeddicts_as_dicts() -> None:
    args = {
        "color": "green",
        "level": 2.0,
        "shapes": ["square", "circle"],
        "mark": {"at": {"x": 1, "y": 2.5}, "labels": [{"text": "a", "color": "red"}], "level": 1},
        "choice": "red",
        "count": 3.0,
        "target": {"index": 4.0},
        "either": 2,
    }
    snapshot = repr(args)
    received = infer_tool(paint).handler.call(args, None)
    assert received == {
        "color": Color.GREEN,
        "level": Level.HIGH,
        "shapes": [Shape.SQUARE, Shape.CIRCLE],
        "mark": {
            "at": {"x": 1, "y": 2.5},
            "labels": [{"text": "a", "color": Color.RED}],
            "level": Level.LOW,
        },
        "choice": Color.RED,
        "count": 3,
        "target": {"index": 4},
        "either": Level.HIGH,
    }
    assert type(received["color"]) is Color
    assert type(received["level"]) is Level
    assert type(received["count"]) is int
    assert type(received["target"]["index"]) is int
    assert type(received["mark"]) is dict
    assert type(received["mark"]["labels"][0]["color"]) is Color
    assert type(received["mark"]["level"]) is Level
    assert repr(args) == snapshot  # the agent's args are not modified


def test_a_literal_that_only_python_re_would_match_is_not_ambiguous() -> None:
    # Regression (issue 10): the ambiguity check matched with Python's re, where "$" also
    # matches before a final newline, and refused this union; ECMA-262 "$" is the very end.
    def probe(x: Literal["1\n"] | Annotated[str, Pattern("^[0-9]+$")]) -> str:
        """Probe."""
        return x

    inferred = infer_tool(probe)
    assert inferred.schema == {
        "type": "object",
        "properties": {
            "x": {
                "oneOf": [
                    {"type": "string", "enum": ["1\n"]},
                    {"type": "string", "pattern": "^[0-9]+$"},
                ]
            }
        },
        "required": ["x"],
    }
    valid = {text: inferred.validator.is_valid({"x": text}) for text in ("1\n", "12", "12\n")}
    assert valid == {"1\n": True, "12": True, "12\n": False}
    assert inferred.handler.call({"x": "1\n"}, None) == "1\n"


def test_call_picks_the_union_member_that_matches() -> None:
    call = infer_tool(paint).handler.call
    base = {
        "color": "red",
        "level": 1,
        "shapes": [],
        "mark": {"at": {"x": 0, "y": 0}, "labels": []},
        "choice": "blue",
        "count": 0,
    }
    received = call({**base, "target": {"id": "a1"}, "either": -3.0}, None)
    assert received["choice"] == "blue"
    assert received["target"] == {"id": "a1"}
    assert received["either"] == -3
    assert type(received["either"]) is int


def test_missing_optional_parameters_are_not_passed() -> None:
    def fn(a: int, b: int = 7, c: str | None = None, d: str | None = "keep") -> tuple[Any, ...]:
        """Collect."""
        return a, b, c, d

    call = infer_tool(fn).handler.call
    assert call({"a": 1}, None) == (1, 7, None, "keep")
    assert call({"a": 1, "b": 2, "c": "x", "d": "y"}, None) == (1, 2, "x", "y")


@pytest.mark.asyncio
async def test_async_handler_returns_a_coroutine() -> None:
    async def fetch(url: str, ctx: ToolCallContext) -> str:
        """Fetch a page."""
        await asyncio.sleep(0)
        return f"{ctx.tool}:{url}"

    tool = infer_tool(fetch)
    assert tool.handler.is_async is True
    assert tool.schema == {
        "type": "object",
        "properties": {"url": STRING},
        "required": ["url"],
    }
    pending = tool.handler.call({"url": "https://example.com"}, make_context("fetch"))
    assert asyncio.iscoroutine(pending)
    assert await pending == "fetch:https://example.com"


def test_methods_and_partials() -> None:
    class Counter:
        def __init__(self) -> None:
            self.value = 0

        def add(self, delta: Annotated[int, Minimum(-10), Maximum(10)]) -> int:
            """Add to the counter."""
            self.value += delta
            return self.value

    counter = Counter()
    tool = infer_tool(counter.add)
    assert tool.name == "add"
    assert tool.schema == {
        "type": "object",
        "properties": {"delta": {"type": "integer", "minimum": -10, "maximum": 10}},
        "required": ["delta"],
    }
    assert tool.handler.call({"delta": 3}, None) == 3

    def scale(value: float, factor: float) -> float:
        """Scale a value."""
        return value * factor

    double = infer_tool(functools.partial(scale, factor=2.0))
    assert double.name == "scale"
    assert double.schema == {
        "type": "object",
        "properties": {"value": NUMBER, "factor": {"type": "number", "default": 2.0}},
        "required": ["value"],
    }
    assert double.handler.call({"value": 4}, None) == 8.0


def optional_context(x: int, ctx: ToolCallContext | None = None) -> Any:
    """Works with and without a session."""
    return x, ctx


def context_by_name(x: int, ctx: Any) -> Any:
    """The context annotation is a string that cannot be evaluated (TYPE_CHECKING import)."""
    return x, ctx


context_by_name.__annotations__["ctx"] = "pedelec.ToolCallContext"


@pytest.mark.parametrize("fn", [optional_context, context_by_name])
def test_context_parameter_variants(fn: Callable[..., Any]) -> None:
    tool = infer_tool(fn)
    assert tool.schema == {"type": "object", "properties": {"x": INTEGER}, "required": ["x"]}
    ctx = make_context(tool.name)
    assert tool.handler.call({"x": 1}, ctx) == (1, ctx)


def google_variants(a: int, b: int, c: int, d: int) -> None:
    """Exercise Google-style details.

    Args:
        a (Callable[[int], str] | dict(str, int)): Type with brackets (and parens).
        b:
            Text on the next line.

    Keyword Args:
        c: From a second section.
    Raises:
        d: Not a parameter section.
    """


def numpy_variants(a: int, b: int) -> None:
    """Exercise NumPy-style details.

    Other Parameters
    ----------------
    a : int
        Described here.
    Notes
    -----
    b : int
        Not a parameter section.
    """


@pytest.mark.parametrize(
    ("fn", "descriptions"),
    [
        (
            google_variants,
            {
                "a": "Type with brackets (and parens).",
                "b": "Text on the next line.",
                "c": "From a second section.",
            },
        ),
        (numpy_variants, {"a": "Described here."}),
    ],
)
def test_docstring_section_details(fn: Callable[..., Any], descriptions: dict[str, str]) -> None:
    properties = infer_tool(fn).schema["properties"]
    assert {
        k: v["description"] for k, v in properties.items() if "description" in v
    } == descriptions


@given(
    st.text(
        alphabet=st.sampled_from([*"ab_Z9*:() \t.,-", "é", "\u00a0", "\u2003"]),
        min_size=1,
        max_size=16,
    )
)
def test_a_google_entry_reads_as_its_pattern_says(line: str) -> None:
    """The usual ``name: text`` entry is read without the entry regex; every line must still
    give what the regex gives (name and text, or no entry at all)."""
    if not line.strip():
        return
    doc = f"Summary.\n\nArgs:\n    {line.strip()}\n"
    _, params = parse_docstring(doc)
    entry = inspect.cleandoc(doc).splitlines()[3].strip()  # tabs expanded, as the parser reads
    match = _GOOGLE_ENTRY.fullmatch(entry)
    expected = {match.group(1): match.group(2)} if match and match.group(2) else {}
    assert params == expected


# --- markers --------------------------------------------------------------------------------

MARKER_ERRORS: list[tuple[Callable[[], Any], str]] = [
    (lambda: Minimum(True), "Minimum: the bound must be a finite int or float, got True."),
    (lambda: Maximum(math.nan), "Maximum: the bound must be a finite int or float, got nan."),
    (lambda: Minimum("1"), "Minimum: the bound must be a finite int or float, got '1'."),
    (lambda: MinLength(-1), "MinLength: the length must be an int of 0 or more, got -1."),
    (lambda: MaxLength(2.0), "MaxLength: the length must be an int of 0 or more, got 2.0."),
    (lambda: MinItems(True), "MinItems: the length must be an int of 0 or more, got True."),
    (lambda: MaxItems(None), "MaxItems: the length must be an int of 0 or more, got None."),
    (lambda: Pattern(1), "Pattern: the pattern must be a str, got 1."),
    (lambda: UniqueItems(1), "UniqueItems: the flag must be True or False, got 1."),
    (lambda: Description(" "), "Description: the description must be non-empty text, got ' '."),
    (lambda: Examples(), "Examples: give at least one example value."),
]


@pytest.mark.parametrize(("make", "message"), MARKER_ERRORS, ids=[m for _, m in MARKER_ERRORS])
def test_marker_checks_its_value(make: Callable[[], Any], message: str) -> None:
    with pytest.raises(PedelecError) as caught:
        make()
    assert caught.value.code == INVALID_INPUT
    assert caught.value.message == message
    assert caught.value.details == {"marker": message.split(":")[0]}


def test_markers_are_immutable_values() -> None:
    assert Minimum(1) == Minimum(1)
    assert Minimum(1) != Minimum(1.5)
    assert Minimum(1) != Maximum(1)
    assert Examples(1) != Examples(True)
    assert Examples([1, {"a": True}]) == Examples([1, {"a": True}])
    assert hash(Minimum(1)) == hash(Minimum(1))
    assert {UniqueItems(), UniqueItems(True)} == {UniqueItems()}
    assert [repr(m) for m in (Minimum(1), Pattern("^a"), UniqueItems(), Examples("en", 2))] == [
        "Minimum(1)",
        "Pattern('^a')",
        "UniqueItems(True)",
        "Examples('en', 2)",
    ]
    assert (MinLength(2).keyword, MinLength(2).value) == ("minLength", 2)
    with pytest.raises(AttributeError, match=r"^Minimum is immutable$"):
        Minimum(1).value = 2  # type: ignore[misc]


# --- null -----------------------------------------------------------------------------------


def nullable(a: int, b: int | None = None, c: str | None = "keep", d: Point | None = None) -> Any:
    """Nullable parameters."""
    return a, b, c, d


def test_prepare_args_turns_null_into_absent_for_parameters_that_accept_none() -> None:
    tool = infer_tool(nullable)
    assert tool.nullable == frozenset({"b", "c", "d"})
    args = {"a": 1, "b": 2}
    assert tool.prepare_args(args) is args
    prepared = tool.prepare_args({"a": 1, "b": None, "c": None, "d": None})
    assert prepared == {"a": 1}
    assert tool.handler.call(prepared, None) == (1, None, "keep", None)


def test_null_for_a_parameter_that_does_not_accept_none_is_left_for_validation() -> None:
    tool = infer_tool(nullable)
    args = {"a": None}
    assert tool.prepare_args(args) is args
    not_an_object: Any = [None]
    assert tool.prepare_args(not_an_object) is not_an_object
    assert not compile_schema(tool.schema).is_valid(args)


def test_call_treats_null_like_absent_for_nullable_parameters() -> None:
    assert infer_tool(nullable).handler.call({"a": 1, "c": None}, None) == (1, None, "keep", None)


# --- round trip: registration check and differential validation -----------------------------

ROUND_TRIP = [(row[0], probe(row[1], row[2])) for row in INFERRED] + [
    ("search", search),
    ("paint", paint),
    ("nullable", nullable),
]


@pytest.mark.parametrize("fn", [fn for _, fn in ROUND_TRIP], ids=[name for name, _ in ROUND_TRIP])
def test_inferred_schema_passes_the_registration_check(fn: Callable[..., Any]) -> None:
    schema = infer_tool(fn).schema
    assert check_schema(schema) == schema
    Draft202012Validator.check_schema(schema)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-5, 5) | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3)
    ),
    max_leaves=8,
)


def shaped(node: dict[str, Any], exact: bool) -> st.SearchStrategy[Any]:
    """Values shaped like ``node``.

    ``exact``: inside every bound (valid, except where a pattern or uniqueItems says otherwise).
    Otherwise bounds are overshot by one, and any nested value may be arbitrary JSON.
    """

    def child(inner: dict[str, Any]) -> st.SearchStrategy[Any]:
        if exact:
            return shaped(inner, exact)
        return st.one_of(shaped(inner, exact), shaped(inner, exact), JSON)

    slack = 0 if exact else 1
    if "oneOf" in node:
        return st.one_of([child(branch) for branch in node["oneOf"]])
    kind = node["type"]
    if "enum" in node:
        return st.sampled_from(node["enum"])
    if kind == "string":
        low = max(node.get("minLength", 0) - slack, 0)
        high = node.get("maxLength", 6) + slack
        return st.text(alphabet="ab" if exact else "ab1Z", min_size=low, max_size=high)
    if kind in ("integer", "number"):
        low = node.get("minimum", -1000) - slack
        high = node.get("maximum", 1000) + slack
        if math.ceil(low) > math.floor(high):  # no whole number in range
            return st.floats(low, high, allow_nan=False) if kind == "number" else st.just(low)
        whole = st.integers(math.ceil(low), math.floor(high))
        if kind == "integer":
            return whole | whole.map(float)
        return whole | st.floats(low, high, allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        low = max(node.get("minItems", 0) - slack, 0)
        high = node.get("maxItems", 3) + slack
        return st.lists(child(node["items"]), min_size=low, max_size=high)
    properties = node.get("properties", {})
    required = node.get("required", [])
    return st.fixed_dictionaries(
        {k: child(v) for k, v in properties.items() if k in required},
        optional={k: child(v) for k, v in properties.items() if k not in required},
    )


def args_for(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    return st.one_of(shaped(schema, exact=True), shaped(schema, exact=False), JSON)


@functools.cache
def inferred(fn: Callable[..., Any]) -> InferredTool:
    return infer_tool(fn)


@pytest.mark.parametrize("fn", [fn for _, fn in ROUND_TRIP], ids=[name for name, _ in ROUND_TRIP])
# 60 examples for each of the ~70 schemas keeps the default run short; PEDELEC_SLOW runs more.
@settings(max_examples=1000 if os.environ.get("PEDELEC_SLOW") == "1" else 60)
@given(data=st.data())
def test_validator_agrees_with_jsonschema_and_valid_args_can_be_called(
    fn: Callable[..., Any], data: st.DataObject
) -> None:
    tool = inferred(fn)
    args = data.draw(args_for(tool.schema))
    valid = compile_schema(tool.schema).is_valid(args)
    assert valid == Draft202012Validator(tool.schema).is_valid(args)
    if valid:
        tool.handler.call(tool.prepare_args(args), make_context(tool.name))


# --- fuzz: random annotations either fail cleanly or give a sound schema ----------------------

LEAVES: list[Any] = [
    str,
    int,
    float,
    bool,
    Color,
    Level,
    Shape,
    Point,
    ById,
    ByIndex,
    ByIdMaybeIndex,
    ByIdAndName,
    Circle,
    Square,
    Literal["a"],
    Literal["red", "blue"],
    Literal[1, 5],
    Literal[True],
    dict[str, Any],
    Annotated[int, Maximum(-1)],
    Annotated[float, Minimum(0.5), Maximum(0.9)],
    Annotated[str, MinLength(4)],
    Annotated[str, MaxLength(3)],
    Annotated[str, Pattern("^[0-9]+$")],
]
MARKERS: list[Any] = [
    Minimum(0),
    Maximum(3),
    MinLength(1),
    MaxItems(2),
    MinItems(1),
    UniqueItems(),
    Description("d"),
    at.Ge(1),
    at.Len(1, 2),
]


def _union(members: list[Any]) -> Any:
    return functools.reduce(lambda a, b: a | b, members)


ANNOTATIONS = st.recursive(
    st.sampled_from(LEAVES),
    lambda inner: st.one_of(
        inner.map(lambda t: list[t]),  # type: ignore[valid-type]
        st.lists(inner, min_size=2, max_size=3).map(_union),
        st.tuples(inner, st.sampled_from(MARKERS)).map(lambda p: Annotated[p[0], p[1]]),
    ),
    max_leaves=4,
)


def one_of_nodes(node: Any) -> list[list[dict[str, Any]]]:
    """The branch lists of every oneOf inside ``node``."""
    found: list[list[dict[str, Any]]] = []
    if isinstance(node, dict):
        if "oneOf" in node:
            found.append(node["oneOf"])
        for value in node.values():
            found.extend(one_of_nodes(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(one_of_nodes(value))
    return found


@given(annotation=ANNOTATIONS, data=st.data())
def test_any_annotation_fails_cleanly_or_gives_unambiguous_one_of(
    annotation: Any, data: st.DataObject
) -> None:
    try:
        tool = infer_tool(probe(annotation))
    except PedelecError as exc:
        assert exc.code == INVALID_INPUT
        assert exc.details["parameter"] == "x"
        assert exc.message.startswith('Parameter "x" of tool "probe"')
        return
    assert check_schema(tool.schema) == tool.schema
    # A value written for one member (only its declared keys, inside its bounds) never matches
    # another member: the ambiguity analysis let no overlapping union through.
    for branches in one_of_nodes(tool.schema):
        index = data.draw(st.integers(0, len(branches) - 1))
        value = data.draw(shaped(branches[index], exact=True))
        if not Draft202012Validator(branches[index]).is_valid(value):
            continue  # e.g. a pattern or uniqueItems the generator did not honour
        matches = [i for i, b in enumerate(branches) if Draft202012Validator(b).is_valid(value)]
        assert matches == [index]
    args = data.draw(args_for(tool.schema))
    valid = tool.validator.is_valid(args)
    assert valid == Draft202012Validator(tool.schema).is_valid(args)
    if valid:
        tool.handler.call(args, None)


def _wrapped_target(
    title: Annotated[str, at.MaxLen(20)], kind: Literal["a", "b"] = "a"
) -> dict[str, object]:
    """Make a thing.

    Args:
        title: What it is called.
    """
    return {"title": title, "kind": kind}


def test_a_functools_wraps_wrapper_reads_names_in_the_wrapped_functions_globals() -> None:
    """As get_type_hints does: the annotations are strings here (``from __future__``), and the
    wrapper's own globals (an exec namespace) hold none of the names they use."""
    from pedelec.typed.hints import _plain_hints

    namespace: dict[str, Any] = {"functools": functools, "target": _wrapped_target}
    exec(
        "@functools.wraps(target)\nasync def wrapper(*args, **kwargs):\n"
        "    return target(*args, **kwargs)\n",
        namespace,
    )
    wrapper = namespace["wrapper"]
    hints = _plain_hints(wrapper)
    assert hints == {
        "title": Annotated[str, at.MaxLen(20)],
        "kind": Literal["a", "b"],
        "return": dict[str, object],
    }
    assert (
        infer_tool(wrapper).schema
        == infer_tool(_wrapped_target).schema
        == {
            "type": "object",
            "properties": {
                "title": {"type": "string", "maxLength": 20, "description": "What it is called."},
                "kind": {"type": "string", "enum": ["a", "b"], "default": "a"},
            },
            "required": ["title"],
        }
    )
