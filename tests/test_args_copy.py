"""The generated validate-and-copy walk (``Validator._copy``) against the general path it
replaces on the session's hot path: ``clone_json`` and then ``is_valid``.

* Whatever it accepts, the general path accepts too, with an equal copy in the same key order
  that shares no container with the original, and the same count of values.
* It accepts every value of exact JSON types that the general path accepts and that is not
  nested deeper than the schema's own containers allow under the depth bound.
* Bounds: ``room`` is exact (the largest count that passes, and one less that fails), and an
  undeclared container is cloned under what is left of the depth and the count.
* Arrays of objects whose properties are all scalars are checked in the loop and copied by
  ``dict.copy`` after it; an item with undeclared properties sends every item's copy through
  ``copy_extras``. The same agreement holds for them, drawn on their own.
* Args parsed for the call (``_owned``) reach the handler as they are: no copy.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any

import pytest
from hypothesis import given, strategies as st
from test_hardening_properties import (
    examples,
    nodes,
    object_nodes,
    root_schemas,
    scalar_nodes,
    values_for,
)

from pedelec import Session, compile_schema
from pedelec._json import NotJsonError, clone_json
from pedelec.schema import _codegen
from pedelec.schema.validator import Validator, compile_node


def generated(validator: Validator) -> Validator:
    """``validator`` past its interpreted stage: ``_copy`` is the generated copier from here."""
    validator._generate()
    return validator


def containers(value: Any) -> list[int]:
    """The ids of every dict and list in ``value``."""
    found: list[int] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is dict:
            found.append(id(item))
            stack.extend(item.values())
        elif type(item) is list:
            found.append(id(item))
            stack.extend(item)
    return found


def values(value: Any) -> int:
    """How many values ``clone_json`` counts in ``value`` (every container and item)."""
    return 1 + sum(len(c) for c in _all_containers(value))


def _all_containers(value: Any) -> list[Any]:
    found: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) in (dict, list):
            found.append(item)
            stack.extend(item.values() if type(item) is dict else item)
    return found


def general(validator: Any, value: Any, depth: int, most: int) -> Any:
    """What the session did before: the clone, then validation; ``None`` when either fails."""
    try:
        copy = clone_json(value, max_depth=depth, max_values=most)
    except NotJsonError:
        return None
    return copy if validator.is_valid(copy) else None


@examples(150)
@given(st.data(), st.integers(1, 6), st.integers(1, 40))
def test_the_copier_agrees_with_clone_then_validate(data: Any, depth: int, most: int) -> None:
    schema = data.draw(root_schemas)
    agrees(schema, data.draw(values_for(schema)), depth, most)


def agrees(schema: dict[str, Any], value: Any, depth: int, most: int) -> None:
    """The copier of ``schema`` against the general path, on ``value``."""
    validator = generated(compile_node(schema))
    got = validator._copy(value, depth, most - 1)
    expected = general(validator, value, depth, most)
    if got is False:
        # Declining a value the general path accepts is allowed only because the schema nests
        # containers deeper than the bound (checked up front, whatever the value holds).
        if expected is not None:
            assert validator._copy(value, 64, most - 1) is not False
        return
    copy, count = got
    assert expected is not None
    assert json.dumps(copy) == json.dumps(expected)  # equal, and in the same key order
    assert not set(containers(copy)) & set(containers(value))
    assert count + 1 == values(value)


@examples(100)
@given(st.data())
def test_a_valid_value_is_copied_by_the_nested_copiers_too(data: Any) -> None:
    # Any node kind at the root: scalars, arrays and oneOf get their own copier as branches.
    node = data.draw(nodes)
    value = data.draw(values_for(node))
    validator = generated(compile_node(node))
    got = validator._copy(value, 64, 10**6)
    expected = general(validator, value, 64, 10**6 + 1)
    assert (got is not False) == (expected is not None)
    if got is not False:
        assert json.dumps(got[0]) == json.dumps(expected)
        assert not set(containers(got[0])) & set(containers(value))


#: Root schemas whose one property is an array of flat objects (the ``flat_items`` path).
flat_arrays = object_nodes(scalar_nodes).map(
    lambda item: {"type": "object", "properties": {"rows": {"type": "array", "items": item}}}
)


@examples(150)
@given(st.data(), st.integers(1, 6), st.integers(1, 40))
def test_arrays_of_flat_objects_agree_with_clone_then_validate(
    data: Any, depth: int, most: int
) -> None:
    schema = data.draw(flat_arrays)
    agrees(schema, data.draw(values_for(schema)), depth, most)


POINT = {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}
POINTS = generated(
    compile_schema(
        {
            "type": "object",
            "properties": {
                "points": {"type": "array", "items": POINT},
                "spans": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                    },
                },
            },
        }
    )
)


def test_the_flat_path_is_the_one_generated() -> None:
    text = _codegen._source(POINTS.schema, "copy", 512, _codegen._stub)[0]
    assert text.count("[*map(") == 2
    assert ".append" not in text


# (args, the copy's count, which is also the room that just fits): every value counted once,
# undeclared ones too.
FLAT_ROOMS = [
    ({"points": [{"x": 1}, {"x": 2.5}]}, 5),
    ({"points": [{"x": 1}, {"x": 2, "tag": "t"}]}, 6),
    ({"points": [{"x": 1, "more": [1, {"y": 2}]}]}, 7),
    ({"spans": [{}, {"a": 1}, {"a": 1, "b": 2}]}, 7),
    ({"spans": [{"a": 1, "c": {"d": [None]}}]}, 6),
    ({"points": [], "spans": []}, 2),
]


@pytest.mark.parametrize(("value", "count"), FLAT_ROOMS)
def test_flat_items_count_every_value_and_room_is_exact(value: Any, count: int) -> None:
    assert count + 1 == values(value)
    copy, got = POINTS._copy(value, 64, count)
    assert (copy, got) == (value, count)
    assert json.dumps(copy) == json.dumps(value)
    assert not set(containers(copy)) & set(containers(value))
    assert POINTS._copy(value, 64, count - 1) is False


def test_flat_items_clone_undeclared_containers_under_the_depth_left() -> None:
    value = {"points": [{"x": 1}, {"x": 2, "more": [[3]]}]}  # the inner list is at depth 5
    copy, count = POINTS._copy(value, 5, 100)
    assert (copy, count) == (value, 8)
    assert copy["points"][1]["more"] is not value["points"][1]["more"]
    assert copy["points"][1]["more"][0] is not value["points"][1]["more"][0]
    assert POINTS._copy(value, 4, 100) is False


@pytest.mark.parametrize(
    "item",
    [
        {"x": "1"},
        {"x": True},
        {"x": float("inf")},
        {},
        {"x": 1, "more": (1,)},
        {"x": 1, 2: 3},
        {"x": 1, "more": float("nan")},
        [1],
    ],
)
def test_flat_items_decline_what_is_not_valid(item: Any) -> None:
    assert POINTS._copy({"points": [{"x": 0}, item]}, 64, 100) is False
    assert POINTS._copy({"points": [item, {"x": 0, "extra": 1}]}, 64, 100) is False


TAGS = generated(
    compile_schema(
        {
            "type": "object",
            "properties": {"tags": {"type": "array", "items": {"type": "string"}}},
            "required": ["tags"],
        }
    )
)


def test_room_is_exact() -> None:
    value = {"tags": ["a", "b"], "extra": {"x": [1, 2]}}  # 1 + 2 + 2 + 1 + 2 = 8 values
    assert TAGS._copy(value, 64, 7) == (value, 7)
    assert TAGS._copy(value, 64, 6) is False
    with_root_only = {"tags": ["a", "b"]}
    assert TAGS._copy(with_root_only, 64, 3) == (with_root_only, 3)
    assert TAGS._copy(with_root_only, 64, 2) is False


def test_an_undeclared_container_is_cloned_under_the_depth_left() -> None:
    value = {"tags": [], "extra": {"x": [[1]]}}  # the inner list is at depth 4
    assert TAGS._copy(value, 4, 100) == (value, 5)
    assert TAGS._copy(value, 3, 100) is False


def test_declared_containers_are_checked_against_the_depth_up_front() -> None:
    assert TAGS._copy({"tags": []}, 2, 100) == ({"tags": []}, 1)
    assert TAGS._copy({"tags": []}, 1, 100) is False


class Colour(StrEnum):
    RED = "red"


def test_str_subclasses_are_declined_where_declared_and_cloned_where_not() -> None:
    # A declared string must be a plain str (the session's general path converts it first);
    # an undeclared one is converted by the clone, as the general path would.
    assert TAGS._copy({"tags": [Colour.RED]}, 64, 100) is False
    copy, count = TAGS._copy({"tags": [], "extra": [Colour.RED]}, 64, 100)
    assert (copy, count) == ({"tags": [], "extra": ["red"]}, 3)
    assert type(copy["extra"][0]) is str


def test_undeclared_values_that_are_not_json_are_declined() -> None:
    assert TAGS._copy({"tags": [], "extra": (1,)}, 64, 100) is False
    assert TAGS._copy({"tags": [], 1: 2}, 64, 100) is False
    assert TAGS._copy({"tags": [], "extra": float("nan")}, 64, 100) is False
    loop: list[Any] = []
    loop.append(loop)
    assert TAGS._copy({"tags": [], "extra": loop}, 64, 100) is False


def test_owned_args_reach_the_handler_as_they_are() -> None:
    session = Session()
    seen: list[Any] = []

    @session.on_tool("t", description="T.", schema={"type": "object"})
    def t(args: Any) -> int:
        seen.append(args)
        return 1

    args = {"x": [1]}
    assert session.dispatch_sync("t", args, _owned=True).value == 1
    assert seen[0] is args
    assert session.dispatch_sync("t", args).value == 1
    assert seen[1] == args and seen[1] is not args and seen[1]["x"] is not args["x"]


def test_owned_args_that_are_not_json_get_the_same_result_as_copied_ones() -> None:
    session = Session()
    session.on_tool("t", description="T.", schema={"type": "object"})(lambda args: 1)
    bad = {"x": float("nan")}
    owned = session.dispatch_sync("t", bad, _owned=True, tool_request_id="1")
    copied = session.dispatch_sync("t", bad, tool_request_id="1")
    assert owned.error is not None and copied.error is not None
    assert owned.error.to_dict() == copied.error.to_dict()
    assert owned.error.code == "TOOL_ARGS_INVALID"
