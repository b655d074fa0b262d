"""Typed returns serialise (DESIGN §10): dataclasses, TypedDicts, Enums and ``model_dump``
objects become JSON; a return annotation no JSON value fits is refused at declaration."""

from __future__ import annotations

import asyncio
import dataclasses
import enum
from typing import Any, Literal, TypedDict

import pytest

from pedelec import PedelecError, Session, tool


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclasses.dataclass
class Point:
    x: int
    color: Color


class Row(TypedDict):
    point: Point
    tags: list[str]


class Model:
    """Duck-typed like a pydantic model: only ``model_dump(mode=...)``."""

    def __init__(self, v: int) -> None:
        self.v = v

    def model_dump(self, mode: str = "python") -> dict[str, Any]:
        return {"v": self.v, "mode": mode}


class Opaque:
    pass


def point() -> Point:
    """Point."""
    return Point(1, Color.RED)


def rows() -> list[Row]:
    """Rows."""
    return [{"point": Point(2, Color.BLUE), "tags": ["a"]}]


def color() -> Color:
    """Color."""
    return Color.BLUE


def model() -> Model:
    """Model."""
    return Model(3)


def optional_point(flag: bool) -> Point | None:
    """Maybe a point."""
    return Point(4, Color.RED) if flag else None


def by_key() -> dict[str, tuple[Color, ...]]:
    """Colours by key."""
    return {"k": (Color.RED, Color.BLUE)}


def literal() -> Literal["a", "b"]:
    """Literal."""
    return "a"


def unannotated_dataclass():  # type: ignore[no-untyped-def]
    """Unannotated."""
    return Point(5, Color.BLUE)


def unannotated_enum():  # type: ignore[no-untyped-def]
    """Unannotated."""
    return Color.RED


def any_model() -> Any:
    """Any."""
    return Model(6)


def plain() -> dict[str, Any]:
    """Plain."""
    return {"x": [1, 2.5, True, None]}


def nothing() -> None:
    """Nothing."""


async def async_point() -> Point:
    """Async point."""
    return Point(7, Color.RED)


@pytest.mark.parametrize(
    ("fn", "args", "value"),
    [
        (point, {}, {"x": 1, "color": "red"}),
        (rows, {}, [{"point": {"x": 2, "color": "blue"}, "tags": ["a"]}]),
        (color, {}, "blue"),
        (model, {}, {"v": 3, "mode": "json"}),
        (optional_point, {"flag": True}, {"x": 4, "color": "red"}),
        (optional_point, {"flag": False}, None),
        (by_key, {}, {"k": ["red", "blue"]}),
        (literal, {}, "a"),
        (unannotated_dataclass, {}, {"x": 5, "color": "blue"}),
        (unannotated_enum, {}, "red"),
        (any_model, {}, {"v": 6, "mode": "json"}),
        (plain, {}, {"x": [1, 2.5, True, None]}),
        (nothing, {}, None),
        (async_point, {}, {"x": 7, "color": "red"}),
    ],
)
def test_typed_results_become_json(fn: Any, args: dict[str, Any], value: Any) -> None:
    session = Session()
    session.tool(fn)
    result = session.dispatch_sync(fn.__name__, args)
    assert (result.is_error, result.value) == (False, value)
    decorated = Session(tools=[tool(fn)])
    assert asyncio.run(decorated.dispatch(fn.__name__, args)).value == value


def _returning(annotation: Any) -> Any:
    def f() -> None:
        """F."""

    f.__annotations__ = {"return": annotation}
    return f


@pytest.mark.parametrize(
    ("annotation", "label"),
    [
        (set[int], "set[int]"),
        (bytes, "bytes"),
        (Opaque, "Opaque"),
        (dict[int, str], "dict[int, str]"),
        (list[bytes], "list[bytes]"),
        (Point | bytes, "Point | bytes"),
    ],
)
def test_a_return_no_json_fits_is_refused_at_declaration(annotation: Any, label: str) -> None:
    with pytest.raises(PedelecError) as caught:
        Session().tool(_returning(annotation))
    assert (caught.value.code, caught.value.message, caught.value.details) == (
        "INVALID_INPUT",
        f'Tool "f": its return annotation {label} cannot be sent as JSON; return str, int, '
        "float, bool, None, a list or dict[str, ...] of them, a dataclass, a TypedDict, an Enum "
        'or an object with model_dump(mode="json"), or annotate it -> Any.',
        {"tool": "f", "field": "return"},
    )


def test_an_unannotated_opaque_result_is_still_the_developers_error() -> None:
    def opaque():  # type: ignore[no-untyped-def]
        """Opaque."""
        return Opaque()

    session = Session()
    session.tool(opaque)
    result = session.dispatch_sync("opaque", {})
    assert result.error is not None
    assert (result.error.code, result.error.message) == (
        "SUBMIT_TOOL_RESULT_FAILED",
        'Tool "opaque" returned a result that is not JSON: (root): Opaque is not a JSON type.',
    )
