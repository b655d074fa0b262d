"""Typed tools with ``dataclass`` and pydantic-model parameters (``pedelec.typed.models``).

``SCHEMAS`` is the rule table as data: a class → the WHOLE node of a one-parameter tool's
parameter. ``REJECTED`` holds the classes the subset cannot express, with whole messages. Then
dispatch through a session: the handler receives an instance, nested classes built, and what a
model's own validators reject comes back as ``TOOL_ARGS_INVALID``.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Annotated, Any, ClassVar, Literal

import annotated_types as at
import pytest
from pydantic import BaseModel, ConfigDict, Field, field_validator

from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.schema import check_schema
from pedelec.session import Session
from pedelec.typed import infer_tool

# --- classes used by the tables (module level: annotations are resolved in this module) --------


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclasses.dataclass
class Point:
    """A point on the canvas.

    Attributes:
        x: Horizontal position.
    """

    x: int
    y: Annotated[float, at.Ge(0)] = 0.0
    color: Color | None = None
    tags: list[str] = dataclasses.field(default_factory=list)
    kind: ClassVar[str] = "point"  # a class constant, not a field
    seen: bool = dataclasses.field(default=False, init=False)  # set by the class itself


@dataclasses.dataclass(frozen=True)
class Line:
    start: Point
    end: Point


class Query(BaseModel):
    """A search of the notes."""

    text: str = Field(min_length=1, max_length=40, pattern="^[a-z ]+$", description="What to find.")
    limit: int = Field(default=10, ge=1, le=50, alias="max")
    near: Point | None = None
    mode: Literal["any", "all"] = Field(default="any", examples=["all"])


class Shout(BaseModel):
    word: str

    @field_validator("word")
    @classmethod
    def lower_case(cls, value: str) -> str:
        if value != value.lower():
            raise ValueError("must be lower case")
        return value.upper()


@dataclasses.dataclass
class NeedsNone:
    size: int | None


@dataclasses.dataclass
class WithInitVar:
    scale: dataclasses.InitVar[int]


@dataclasses.dataclass
class Tree:
    children: list[Tree]


@dataclasses.dataclass
class Unresolvable:
    x: NotDefinedAnywhere  # type: ignore[name-defined]  # noqa: F821


class MultipleOf(BaseModel):
    n: int = Field(multiple_of=2)


class StrictField(BaseModel):
    n: int = Field(strict=True)


class FreeText(BaseModel):
    text: Annotated[str, at.Predicate(str.islower)]


class Chooses(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    text: str = Field(validation_alias=__import__("pydantic").AliasChoices("text", "q"))


class Maybe(BaseModel):
    size: int | None


# --- helpers -----------------------------------------------------------------------------------

TOOL = "probe"
POINT = {
    "type": "object",
    "properties": {
        "x": {"type": "integer", "description": "Horizontal position."},
        "y": {"type": "number", "minimum": 0, "default": 0.0},
        "color": {"type": "string", "enum": ["red", "blue"]},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["x"],
    "description": "A point on the canvas.",
}


def probe(annotation: Any) -> Any:
    """A one-parameter tool ``probe(x: annotation)`` that returns what it receives."""

    def fn(x: Any) -> Any:
        return x

    fn.__name__ = TOOL
    fn.__doc__ = "Probe a class."
    fn.__annotations__ = {"x": annotation, "return": Any}
    return fn


def where(clause: str, at: str | None = None) -> str:
    inside = f" (at {at})" if at else ""
    return f'Parameter "x" of tool "probe"{inside}: {clause}.'


SCHEMAS: list[tuple[str, Any, dict[str, Any]]] = [
    ("dataclass", Point, POINT),
    (
        "nested_dataclasses",
        Line,
        {
            "type": "object",
            "properties": {"start": POINT, "end": POINT},
            "required": ["start", "end"],
        },
    ),
    (
        "pydantic_model",
        Query,
        {
            "type": "object",
            "properties": {
                "text": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 40,
                    "pattern": "^[a-z ]+$",
                    "description": "What to find.",
                },
                "max": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
                "near": POINT,
                "mode": {
                    "type": "string",
                    "enum": ["any", "all"],
                    "default": "any",
                    "examples": ["all"],
                },
            },
            "required": ["text"],
            "description": "A search of the notes.",
        },
    ),
    (
        "list_of_dataclasses",
        list[Point],
        {"type": "array", "items": POINT},
    ),
]


@pytest.mark.parametrize(
    ("annotation", "node"), [row[1:] for row in SCHEMAS], ids=[row[0] for row in SCHEMAS]
)
def test_schema(annotation: Any, node: dict[str, Any]) -> None:
    schema = infer_tool(probe(annotation)).schema
    assert schema == {"type": "object", "properties": {"x": node}, "required": ["x"]}
    check_schema(schema)


NO_NULL = "(the subset has no null type)"
REJECTED: list[tuple[str, Any, str]] = [
    (
        "required_field_accepts_none",
        NeedsNone,
        where(
            f"int | None accepts None, but the field has no default {NO_NULL}; give the "
            "dataclass field a default (= None) so the agent can leave it out, or drop None",
            "x.size",
        ),
    ),
    (
        "required_model_field_accepts_none",
        Maybe,
        where(
            f"int | None accepts None, but the field has no default {NO_NULL}; give the "
            "model field a default (= None) so the agent can leave it out, or drop None",
            "x.size",
        ),
    ),
    (
        "init_var",
        WithInitVar,
        where(
            "the InitVar scale of dataclass WithInitVar is not a field the agent can send; "
            "make it a field, or compute it in __post_init__",
            "x.scale",
        ),
    ),
    (
        "recursive_dataclass",
        Tree,
        where(
            "Tree contains itself; recursive types cannot be described (the subset has no $ref)",
            "x.children[]",
        ),
    ),
    (
        "unresolvable_dataclass",
        Unresolvable,
        where(
            "the fields of dataclass Unresolvable cannot be resolved (NameError: name "
            "'NotDefinedAnywhere' is not defined); define or import the names at module level"
        ),
    ),
    (
        "pydantic_constraint_without_keyword",
        MultipleOf,
        where(
            "MultipleOf(multiple_of=2) has no equivalent in the Tool Args Schema subset; check it "
            "in the handler instead",
            "x.n",
        ),
    ),
    (
        "pydantic_metadata_not_understood",
        StrictField,
        where(
            "Annotated metadata Strict(strict=True) is not understood; use the pedelec markers "
            "(Minimum, Maximum, MinLength, MaxLength, Pattern, MinItems, MaxItems, UniqueItems, "
            "Description, Examples) or annotated-types constraints",
            "x.n",
        ),
    ),
    (
        "annotated_types_predicate",
        FreeText,
        where(
            "Predicate(str.islower) has no equivalent in the Tool Args Schema subset; check it "
            "in the handler instead",
            "x.text",
        ),
    ),
    (
        "alias_choices",
        Chooses,
        where(
            "field text of model Chooses has the validation_alias "
            "AliasChoices(choices=['text', 'q']); only a plain string alias can name a key of "
            "the schema",
            "x.text",
        ),
    ),
]


@pytest.mark.parametrize(
    ("annotation", "message"), [row[1:] for row in REJECTED], ids=[row[0] for row in REJECTED]
)
def test_rejected(annotation: Any, message: str) -> None:
    with pytest.raises(PedelecError) as caught:
        infer_tool(probe(annotation))
    assert caught.value.code == INVALID_INPUT
    assert caught.value.message == message
    assert caught.value.details == {"tool": TOOL, "parameter": "x"}


# --- dispatch ----------------------------------------------------------------------------------


def make_session() -> tuple[Session, list[Any]]:
    session = Session()
    received: list[Any] = []

    @session.tool
    def draw(line: Line, query: Query | None = None) -> str:
        """Draw a line."""
        received.append((line, query))
        return "drawn"

    @session.tool
    def shout(words: list[Shout]) -> list[str]:
        """Shout the words."""
        return [w.word for w in words]

    return session, received


def test_the_handler_receives_instances() -> None:
    session, received = make_session()
    args = {
        "line": {"start": {"x": 1.0, "color": "red"}, "end": {"x": 2, "y": 3, "undeclared": 1}},
        "query": {"text": "bikes", "max": 5, "near": {"x": 4}},
    }
    result = session.dispatch_sync("draw", args)
    assert result.to_json() == "drawn"
    ((line, query),) = received
    assert line == Line(Point(1, 0.0, Color.RED, []), Point(2, 3, None, []))
    assert type(line.start.x) is int
    assert query == Query(text="bikes", max=5, near=Point(4))
    assert type(query.near) is Point


def test_an_absent_nullable_class_parameter_is_none() -> None:
    session, received = make_session()
    assert (
        session.dispatch_sync(
            "draw", {"line": {"start": {"x": 1}, "end": {"x": 2}}, "query": None}
        ).to_json()
        == "drawn"
    )
    assert received == [(Line(Point(1), Point(2)), None)]


def test_invalid_fields_are_rejected_before_the_handler_runs() -> None:
    session, received = make_session()
    result = session.dispatch_sync(
        "draw", {"line": {"start": {"x": "1"}, "end": {"x": 2}}, "query": {"text": "Bikes"}}
    )
    assert received == []
    assert result.error is not None
    assert result.error.message == (
        'Invalid arguments for tool "draw": /line/start/x: expected integer, got string "1" '
        '(type); /query/text: must match pattern "^[a-z ]+$", got "Bikes" (pattern). '
        "Correct the arguments and call the tool again."
    )


def test_a_model_validator_rejection_is_tool_args_invalid() -> None:
    session, _ = make_session()
    assert session.dispatch_sync("shout", {"words": [{"word": "hi"}]}).to_json() == ["HI"]
    result = session.dispatch_sync("shout", {"words": [{"word": "hi"}, {"word": "Hey"}]})
    assert result.to_json() == {
        "error": {
            "code": "TOOL_ARGS_INVALID",
            "message": 'Invalid arguments for tool "shout": words[]: Shout rejected the value '
            "(word: Value error, must be lower case). Correct the arguments and call the tool "
            "again.",
            "details": {
                "tool": "shout",
                "at": "words[]",
                "errors": [{"field": "word", "message": "Value error, must be lower case"}],
            },
        }
    }
