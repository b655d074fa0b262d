"""Static types of Tool Args Schema nodes, so type checkers catch a bad schema before it runs.

One ``TypedDict`` per node kind of the subset (DESIGN §3), with a ``Literal`` ``type`` and
``NotRequired`` optional keywords. Annotating a schema as ``ToolArgsSchema`` makes mypy and
pyright reject a misspelled keyword (``"minLenght"``), a wrong ``type`` (``"str"``) or a value of
the wrong type (``"required": "name"``)::

    from pedelec import ToolArgsSchema

    schema: ToolArgsSchema = {
        "type": "object",
        "properties": {"query": {"type": "string", "minLength": 1}},
        "required": ["query"],
    }

The types describe the shape only; the registration check (``check_schema``) still enforces
the rules a type cannot express (``minimum`` not above ``maximum``, ``required`` names defined
in ``properties``, portable patterns, a valid ``default``...).

At runtime these are plain ``dict`` classes: nothing here validates or converts anything.
Annotations are real (not strings) on purpose, so ``__required_keys__`` is correct for code
that inspects the classes.
"""

from typing import Literal, NotRequired, TypeAlias

from typing_extensions import TypedDict

__all__ = [
    "ArraySchema",
    "BooleanSchema",
    "IntegerSchema",
    "JsonValue",
    "NumberSchema",
    "ObjectSchema",
    "OneOfSchema",
    "StringSchema",
    "ToolArgsSchema",
    "ToolArgsSchemaNode",
]

#: Any JSON value: what ``default`` and ``examples`` entries may hold. Containers are ``list``
#: and ``dict`` (not tuples or sets), exactly what the registration check accepts.
JsonValue: TypeAlias = "str | int | float | bool | list[JsonValue] | dict[str, JsonValue] | None"


class _Metadata(TypedDict):
    """Keywords every node may carry: they guide the agent and are never inserted into args."""

    description: NotRequired[str]
    default: NotRequired[JsonValue]
    examples: NotRequired[list[JsonValue]]


class StringSchema(_Metadata):
    """``{"type": "string"}``: a string, optionally from ``enum``, bounded or matching ``pattern``.

    Example:
        >>> role: StringSchema = {"type": "string", "enum": ["viewer", "editor"]}
    """

    type: Literal["string"]
    enum: NotRequired[list[str]]
    minLength: NotRequired[int]
    maxLength: NotRequired[int]
    pattern: NotRequired[str]


class NumberSchema(_Metadata):
    """``{"type": "number"}``: any JSON number (integers included), optionally bounded.

    Example:
        >>> ratio: NumberSchema = {"type": "number", "minimum": 0, "maximum": 1}
    """

    type: Literal["number"]
    enum: NotRequired[list[float]]
    minimum: NotRequired[float]
    maximum: NotRequired[float]


class IntegerSchema(_Metadata):
    """``{"type": "integer"}``: a whole number (``2.0`` counts), optionally bounded.

    Example:
        >>> delta: IntegerSchema = {"type": "integer", "minimum": -100, "maximum": 100}
    """

    type: Literal["integer"]
    enum: NotRequired[list[float]]
    minimum: NotRequired[float]
    maximum: NotRequired[float]


class BooleanSchema(_Metadata):
    """``{"type": "boolean"}``: ``true`` or ``false``.

    Example:
        >>> confirm: BooleanSchema = {"type": "boolean", "description": "Really delete?"}
    """

    type: Literal["boolean"]
    enum: NotRequired[list[bool]]


class ArraySchema(_Metadata):
    """``{"type": "array", "items": node}``: a list whose every item matches ``items``.

    Example:
        >>> ids: ArraySchema = {
        ...     "type": "array",
        ...     "items": {"type": "string", "minLength": 1},
        ...     "maxItems": 50,
        ...     "uniqueItems": True,
        ... }
    """

    type: Literal["array"]
    items: "ToolArgsSchemaNode"
    minItems: NotRequired[int]
    maxItems: NotRequired[int]
    uniqueItems: NotRequired[bool]


class ObjectSchema(_Metadata):
    """``{"type": "object"}``: named properties, some ``required``; undeclared ones are allowed.

    Example:
        >>> point: ObjectSchema = {
        ...     "type": "object",
        ...     "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
        ...     "required": ["x", "y"],
        ... }
    """

    type: Literal["object"]
    properties: NotRequired[dict[str, "ToolArgsSchemaNode"]]
    required: NotRequired[list[str]]


class OneOfSchema(_Metadata):
    """``{"oneOf": [node, ...]}``: exactly one alternative must match (no ``type`` beside it).

    Example:
        >>> target: OneOfSchema = {"oneOf": [{"type": "string"}, {"type": "integer"}]}
    """

    oneOf: list["ToolArgsSchemaNode"]


class ToolArgsSchema(ObjectSchema):
    """The root of a tool's argument schema: always an object node.

    Example:
        >>> schema: ToolArgsSchema = {
        ...     "type": "object",
        ...     "properties": {"query": {"type": "string"}},
        ...     "required": ["query"],
        ... }
    """


#: Any node of the subset (the value of ``items``, of each ``properties`` entry, of ``oneOf``).
ToolArgsSchemaNode: TypeAlias = (
    StringSchema
    | NumberSchema
    | IntegerSchema
    | BooleanSchema
    | ArraySchema
    | ObjectSchema
    | OneOfSchema
)
