"""JSON value rules: pointers, strict clone, strict parse, JSON equality, dumps, renderings."""

from __future__ import annotations

import collections
import decimal
import enum
import gc
import json
import math
import pickle
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, strategies as st

from pedelec._json import (
    NotJsonError,
    clone_json,
    dumps_canonical,
    dumps_compact,
    duplicates,
    json_equal,
    json_key,
    parse_json_args,
    pointer,
    type_name,
)
from pedelec._json.dump import _dumps_deep
from pedelec._json.locate import explain
from pedelec._json.parse import _FEW_OBJECTS, _UNSURE, _census, _quick, _scanner
from pedelec._json.render import render
from pedelec.errors import TOOL_ARGS_INVALID, PedelecError

# --- helpers ----------------------------------------------------------------------------------


class Color(enum.StrEnum):
    RED = "red"


class OldColor(str, enum.Enum):  # noqa: UP042 -- the pre-StrEnum idiom is the point
    """A str mixin enum whose ``str()`` is ``"OldColor.BLUE"``, not its value."""

    BLUE = "blue"


class Level(enum.IntEnum):
    HIGH = 3


class Perm(enum.IntFlag):
    R = 4


class Plain(enum.Enum):
    A = 1


class Meters(float):
    pass


class Shouty(str):
    def __str__(self) -> str:
        return self.upper()


class Tags(list[Any]):
    pass


class IdentityKey(str):
    """Two equal strings that a dict keeps apart: a clone cannot keep both as plain str."""

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other


def containers(value: Any) -> list[Any]:
    """Every dict and list inside ``value`` (iteratively), the root included."""
    found: list[Any] = []
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            found.append(item)
            todo.extend(item.values())
        elif isinstance(item, list):
            found.append(item)
            todo.extend(item)
    return found


def exact_types(value: Any) -> set[type]:
    """The exact types of every value and key inside ``value``."""
    types = set()
    todo = [value]
    while todo:
        item = todo.pop()
        types.add(type(item))
        if isinstance(item, dict):
            types.update(type(k) for k in item)
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return types


def nested_list(depth: int) -> list[Any]:
    root: list[Any] = []
    current = root
    for _ in range(depth - 1):
        inner: list[Any] = []
        current.append(inner)
        current = inner
    return root


def list_depth(value: Any) -> int:
    """Depth of a chain of single-item lists, without recursion."""
    depth = 0
    while isinstance(value, list):
        depth += 1
        value = value[0] if value else None
    return depth


json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=5), children, max_size=5)
    ),
    max_leaves=30,
)


# --- pointer ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        ((), ""),
        (("a",), "/a"),
        (("",), "/"),
        (("a", 0, "b", 12), "/a/0/b/12"),
        (("a/b",), "/a~1b"),
        (("m~n",), "/m~0n"),
        (("~1",), "/~01"),  # "~" is escaped first, so "~1" does not turn into "/"
        (("~/",), "/~0~1"),
        ((" ", "é"), "/ /é"),
        ((Color.RED,), "/red"),
    ],
)
def test_pointer(parts: tuple[str | int, ...], expected: str) -> None:
    assert pointer(parts) == expected


def test_pointer_takes_any_iterable() -> None:
    parts: list[str | int] = ["x", 1]
    assert pointer(iter(parts)) == "/x/1"


# --- NotJsonError -----------------------------------------------------------------------------


def test_not_json_error_fields() -> None:
    err = NotJsonError("set is not a JSON type (use a list)", ["a/b", 0])
    assert isinstance(err, ValueError)
    assert err.path == ("a/b", 0)
    assert err.reason == "set is not a JSON type (use a list)"
    assert err.pointer == "/a~1b/0"
    assert str(err) == "/a~1b/0: set is not a JSON type (use a list)"


def test_not_json_error_at_root_and_pickle() -> None:
    err = NotJsonError("bytes is not a JSON type (decode it to a str)")
    assert err.path == ()
    assert err.pointer == ""
    assert str(err) == "(root): bytes is not a JSON type (decode it to a str)"
    copy = pickle.loads(pickle.dumps(err))
    assert (type(copy), copy.path, copy.reason, str(copy)) == (
        NotJsonError,
        (),
        err.reason,
        str(err),
    )


# --- clone_json: accepted ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        (True, True),
        (False, False),
        (0, 0),
        (-(10**30), -(10**30)),
        (1.5, 1.5),
        (-0.0, -0.0),
        (1e308, 1e308),
        ("", ""),
        ("héllo \u2603 \U0001f600", "héllo \u2603 \U0001f600"),
        ({}, {}),
        ([], []),
        ({"delta": 3}, {"delta": 3}),
        ([1, 2.5, "x", None, True], [1, 2.5, "x", None, True]),
        ({"a": [{"b": [[], {}]}], "c": {"d": None}}, {"a": [{"b": [[], {}]}], "c": {"d": None}}),
        (Color.RED, "red"),
        (OldColor.BLUE, "blue"),
        (Shouty("abc"), "abc"),
        (Level.HIGH, 3),
        (Perm.R, 4),
        (Meters(2.5), 2.5),
        (collections.OrderedDict([("b", 1), ("a", 2)]), {"b": 1, "a": 2}),
        (collections.defaultdict(list, {"k": [1]}), {"k": [1]}),
        (Tags(["x"]), ["x"]),
        (
            {Color.RED: Level.HIGH, "n": [Meters(1.0), OldColor.BLUE]},
            {"red": 3, "n": [1.0, "blue"]},
        ),
        ([collections.OrderedDict(a=Tags([Color.RED]))], [{"a": ["red"]}]),
        ({"z": 1, Color.RED: 2, "a": 3}, {"z": 1, "red": 2, "a": 3}),
    ],
)
def test_clone_accepts(value: Any, expected: Any) -> None:
    clone = clone_json(value)
    assert clone == expected
    assert exact_types(clone) == exact_types(expected)
    if isinstance(expected, dict):
        assert list(clone) == list(expected)  # key order is kept
    if isinstance(value, float):
        assert math.copysign(1.0, clone) == math.copysign(1.0, value)


def test_clone_converts_bool_keys_order_of_str_subclass_keys() -> None:
    clone = clone_json({"first": 1, Color.RED: {OldColor.BLUE: 2}, "last": 3})
    assert list(clone) == ["first", "red", "last"]
    assert [type(k) for k in clone] == [str, str, str]
    assert [type(k) for k in clone["red"]] == [str]


def test_clone_shares_nothing() -> None:
    inner = {"x": [1, 2]}
    value = {"a": inner, "b": [inner, [inner]]}
    clone = clone_json(value)
    assert clone == value
    assert {id(c) for c in containers(clone)}.isdisjoint(id(c) for c in containers(value))
    inner["x"].append(3)
    assert clone["a"] == {"x": [1, 2]}


def test_clone_copies_a_shared_list_once_per_reference() -> None:
    shared = [1]
    clone = clone_json([shared, shared, {"again": shared}])
    assert clone == [[1], [1], {"again": [1]}]
    assert clone[0] is not clone[1]
    assert clone[0] is not clone[2]["again"]
    assert clone[0] is not shared


def test_clone_shared_containers_deep_below_the_tracking_depth() -> None:
    # Past the depth where cycle tracking starts, a shared (acyclic) container is still fine.
    shared: list[Any] = [0]
    deep = nested_list(40)
    tail = deep
    while tail:
        tail = tail[0]
    tail.extend([shared, shared, [shared]])
    clone = clone_json(deep)
    tail = clone
    while len(tail) == 1:
        tail = tail[0]
    assert tail == [[0], [0], [[0]]]
    assert tail[0] is not tail[1]


@pytest.fixture(scope="module")
def million_deep() -> list[Any]:
    return nested_list(1_000_000)


def test_clone_a_million_levels_deep(million_deep: list[Any]) -> None:
    # The cyclic garbage collector is off only to keep the suite fast: two million new lists
    # make it run full collections many times over.
    gc.disable()
    try:
        clone = clone_json(million_deep)
    finally:
        gc.enable()
    assert list_depth(clone) == 1_000_000
    assert clone is not million_deep
    assert clone[0] is not million_deep[0]


def test_clone_a_hundred_thousand_values() -> None:
    value = [{"x": i, "y": [i, float(i)]} for i in range(100_000)]
    assert clone_json(value, max_values=500_001) == value
    with pytest.raises(NotJsonError) as info:
        clone_json(value, max_values=500_000)
    assert (info.value.path, info.value.reason) == (
        (99_999, "y"),
        "more than 500000 values (max_values)",
    )


@pytest.mark.parametrize(
    ("value", "max_depth"),
    [(5, 0), ([], 1), ({"a": [1]}, 2), ([[{"a": {}}]], 4)],
)
def test_clone_within_max_depth(value: Any, max_depth: int) -> None:
    assert clone_json(value, max_depth=max_depth) == value


@pytest.mark.parametrize(
    ("value", "max_values"),
    [(5, 1), ([], 1), ([1, 2, 3], 4), ({"a": [1, 2]}, 4), ([{"a": 1}, {"b": 2}], 5)],
)
def test_clone_within_max_values(value: Any, max_values: int) -> None:
    assert clone_json(value, max_values=max_values) == value


# --- clone_json: rejected ---------------------------------------------------------------------


def _self_dict() -> dict[str, Any]:
    value: dict[str, Any] = {"ok": 1}
    value["self"] = value
    return value


def _cycle_in_list() -> list[Any]:
    value: list[Any] = [[[]]]
    value[0][0].append(value)
    return value


def _cycle_below_root() -> dict[str, Any]:
    loop: list[Any] = [1]
    loop.append({"back": loop})
    return {"a": {"b": loop}}


def _long_cycle(length: int) -> dict[str, Any]:
    first: dict[str, Any] = {}
    current = first
    for _ in range(length - 1):
        nxt: dict[str, Any] = {}
        current["n"] = nxt
        current = nxt
    current["n"] = first
    return first


def _big_self_list() -> list[Any]:
    value: list[Any] = list(range(1000))
    value.append(value)
    return value


@pytest.mark.parametrize(
    ("value", "kwargs", "path", "reason"),
    [
        ((1, 2), {}, (), "tuple is not a JSON type (use a list)"),
        ({"a": {1}}, {}, ("a",), "set is not a JSON type (use a list)"),
        ([frozenset()], {}, (0,), "frozenset is not a JSON type (use a list)"),
        ({"a": [1, b"x"]}, {}, ("a", 1), "bytes is not a JSON type (decode it to a str)"),
        ([bytearray(b"x")], {}, (0,), "bytearray is not a JSON type (decode it to a str)"),
        ([memoryview(b"x")], {}, (0,), "memoryview is not a JSON type (decode it to a str)"),
        (math.nan, {}, (), "NaN is not a JSON number (numbers must be finite)"),
        ([1.0, math.inf], {}, (1,), "Infinity is not a JSON number (numbers must be finite)"),
        ({"t": -math.inf}, {}, ("t",), "-Infinity is not a JSON number (numbers must be finite)"),
        (
            {"m": Meters("inf")},
            {},
            ("m",),
            "Infinity is not a JSON number (numbers must be finite)",
        ),
        ([[{"x": math.nan}]], {}, (0, 0, "x"), "NaN is not a JSON number (numbers must be finite)"),
        ({1: "a"}, {}, (), "object key 1 (integer) is not a string"),
        ({"a": [{None: 1}]}, {}, ("a", 0), "object key null is not a string"),
        ({"a": {True: 1}}, {}, ("a",), "object key true (boolean) is not a string"),
        ({(1, 2): 0}, {}, (), "object key (1, 2) (tuple) is not a string"),
        ({"ok": [1], 2.5: 0}, {}, (), "object key 2.5 (number) is not a string"),
        ({"d": decimal.Decimal("1.5")}, {}, ("d",), "Decimal is not a JSON type"),
        ([object()], {}, (0,), "object is not a JSON type"),
        ({"f": len}, {}, ("f",), "builtin_function_or_method is not a JSON type"),
        ([Plain.A], {}, (0,), "Plain is not a JSON type"),
        ({"a/b": {"c~d": (1,)}}, {}, ("a/b", "c~d"), "tuple is not a JSON type (use a list)"),
        (_self_dict(), {}, ("self",), "circular reference (a container contains itself)"),
        (_cycle_in_list(), {}, (0, 0, 0), "circular reference (a container contains itself)"),
        (
            _cycle_below_root(),
            {},
            ("a", "b", 1, "back"),
            "circular reference (a container contains itself)",
        ),
        (_long_cycle(50), {}, ("n",) * 50, "circular reference (a container contains itself)"),
        (
            _long_cycle(50),
            {"max_depth": 10},
            ("n",) * 10,
            "nested deeper than 10 levels (max_depth)",
        ),
        (
            _self_dict(),
            {"max_depth": 64},
            ("self",),
            "circular reference (a container contains itself)",
        ),
        (
            _big_self_list(),
            {"max_values": 5000},
            (1000,),
            "circular reference (a container contains itself)",
        ),
        (
            {IdentityKey("a"): 1, IdentityKey("a"): 2},
            {},
            (),
            "two object keys are the same string once converted to str",
        ),
        ([], {"max_depth": 0}, (), "nested deeper than 0 levels (max_depth)"),
        ([[[]]], {"max_depth": 2}, (0, 0), "nested deeper than 2 levels (max_depth)"),
        (
            {"a": [1, {"b": []}]},
            {"max_depth": 2},
            ("a", 1),
            "nested deeper than 2 levels (max_depth)",
        ),
        ({"a": [[1]]}, {"max_depth": 2}, ("a", 0), "nested deeper than 2 levels (max_depth)"),
        ("x", {"max_values": 0}, (), "more than 0 values (max_values)"),
        ([1, 2, 3], {"max_values": 3}, (), "more than 3 values (max_values)"),
        ({"a": [1, 2]}, {"max_values": 3}, ("a",), "more than 3 values (max_values)"),
        ([[1], [2], [3]], {"max_values": 6}, (2,), "more than 6 values (max_values)"),
    ],
)
def test_clone_rejects(
    value: Any, kwargs: dict[str, int], path: tuple[Any, ...], reason: str
) -> None:
    with pytest.raises(NotJsonError) as info:
        clone_json(value, **kwargs)
    assert (info.value.path, info.value.reason) == (path, reason)


def test_clone_rejects_deep_value_over_max_depth(million_deep: list[Any]) -> None:
    with pytest.raises(NotJsonError) as info:
        clone_json(million_deep, max_depth=64)
    assert info.value.path == (0,) * 64
    assert info.value.reason == "nested deeper than 64 levels (max_depth)"


def test_clone_rejects_deep_cycle_without_bounds() -> None:
    value = nested_list(100)
    tail = value
    while tail:
        tail = tail[0]
    tail.append(value)
    with pytest.raises(NotJsonError) as info:
        clone_json(value)
    assert info.value.path == (0,) * 100
    assert info.value.reason == "circular reference (a container contains itself)"


# --- parse_json_args: accepted ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"delta": 3}', {"delta": 3}),
        ('  \t\n{"a":[1,2.5,true,false,null]}\r\n ', {"a": [1, 2.5, True, False, None]}),
        ("[]", []),
        ('"x"', "x"),
        ("0", 0),
        ("-0", 0),
        ("-0.0", -0.0),
        ("1E-400", 0.0),
        ("1.7976931348623157e308", 1.7976931348623157e308),
        ('{"a\\u0062":"\\u00e9\\n\\"\\\\\\/"}', {"ab": 'é\n"\\/'}),
        ('{"😀": "\\ud83d\\ude00"}', {"😀": "😀"}),
        ('{"a": {"a": 1}, "b": {"a": 2}}', {"a": {"a": 1}, "b": {"a": 2}}),
        ("1" * 4300, int("1" * 4300)),
        (b'{"a": "\xc3\xa9"}', {"a": "é"}),
        (bytearray(b"[1]"), [1]),
        (memoryview(b"[2]"), [2]),
    ],
)
def test_parse_accepts(text: str | bytes, expected: Any) -> None:
    value = parse_json_args(text)
    assert value == expected
    assert type(value) is type(expected)


@pytest.mark.parametrize(
    ("text", "max_depth"),
    [
        ("1", 0),
        ("[]", 1),
        ("[[1], {}]", 2),
        ('{"a": [{"b": 1}]}', 3),
        # Many siblings: the cheap bound fails, the exact check passes.
        (json.dumps([[{"x": 1}] for _ in range(100)], indent=1), 3),
        (json.dumps([{"x": [1]} for _ in range(100)]), 3),
        (json.dumps({"s": "[[[[{{{{" * 50}), 1),
    ],
)
def test_parse_within_max_depth(text: str, max_depth: int) -> None:
    assert parse_json_args(text, max_depth=max_depth) == json.loads(text)


def test_parse_max_bytes_counts_utf8_bytes() -> None:
    assert parse_json_args('"ééé"', max_bytes=8) == "ééé"  # 2 quotes + 3 x 2 bytes
    assert parse_json_args(b'"\xc3\xa9"', max_bytes=4) == "é"
    assert parse_json_args('"abc"', max_bytes=5) == "abc"


def test_parse_a_50_megabyte_string() -> None:
    text = '{"blob": "' + "a" * 50_000_000 + '"}'
    value = parse_json_args(text, max_depth=64)
    assert len(value["blob"]) == 50_000_000


# --- parse_json_args: rejected ----------------------------------------------------------------

_DEEP_64 = "[" * 100 + "]" * 100
_LONG_KEYS = '{"key_number_x": ' * 70 + "1" + "}" * 70


@pytest.mark.parametrize(
    ("text", "kwargs", "message", "details"),
    [
        (
            '{"a": 1, "a": 2}',
            {},
            'args are not valid JSON: duplicate key "a" in the object at the root (line 1, column 10); send each key once.',
            {"pointer": "", "line": 1, "column": 10},
        ),
        (
            '{"b": {"x": 1, "\\u0078": 2}}',
            {},
            'args are not valid JSON: duplicate key "x" in the object at /b (line 1, column 16); send each key once.',
            {"pointer": "/b", "line": 1, "column": 16},
        ),
        (
            '{\n  "a": 1,\n  "a": 2\n}',
            {},
            'args are not valid JSON: duplicate key "a" in the object at the root (line 3, column 3); send each key once.',
            {"pointer": "", "line": 3, "column": 3},
        ),
        (
            '{"a/b": {"c~d": [1, NaN]}}',
            {},
            "args are not valid JSON: NaN at /a~1b/c~0d/1 (line 1, column 21) is not a JSON number; send a finite number or null.",
            {"pointer": "/a~1b/c~0d/1", "line": 1, "column": 21},
        ),
        (
            "[Infinity]",
            {},
            "args are not valid JSON: Infinity at /0 (line 1, column 2) is not a JSON number; send a finite number or null.",
            {"pointer": "/0", "line": 1, "column": 2},
        ),
        (
            '{"t": -Infinity}',
            {},
            "args are not valid JSON: -Infinity at /t (line 1, column 7) is not a JSON number; send a finite number or null.",
            {"pointer": "/t", "line": 1, "column": 7},
        ),
        (
            '{"x": 1e400}',
            {},
            "args contain a number out of range: the number 1e400 at /x (line 1, column 7) is too large for a 64-bit float; send a smaller number.",
            {"pointer": "/x", "line": 1, "column": 7},
        ),
        (
            "[-" + "9" * 400 + ".5]",
            {},
            "args contain a number out of range: the number -9999999999999999999999… at /0 (line 1, column 2) is too large for a 64-bit float; send a smaller number.",
            {"pointer": "/0", "line": 1, "column": 2},
        ),
        (
            '{"n": ' + "1" * 4301 + "}",
            {},
            "args contain a number out of range: the integer at /n (line 1, column 7) has 4301 digits, more than the limit of 4300; send it as a string.",
            {"pointer": "/n", "line": 1, "column": 7},
        ),
        (
            '{"a": True}',
            {},
            'args are not valid JSON: expected a value at /a (line 1, column 7), found "True"; write true instead of True.',
            {"pointer": "/a", "line": 1, "column": 7},
        ),
        (
            '{"a": None}',
            {},
            'args are not valid JSON: expected a value at /a (line 1, column 7), found "None"; write null instead of None.',
            {"pointer": "/a", "line": 1, "column": 7},
        ),
        (
            "{'a': 1}",
            {},
            "args are not valid JSON: expected a key in double quotes in the object at the root (line 1, column 2), found \"'a'\"; use double quotes for strings.",
            {"pointer": "", "line": 1, "column": 2},
        ),
        (
            "{\"a\": 'x'}",
            {},
            "args are not valid JSON: expected a value at /a (line 1, column 7), found \"'x'\"; use double quotes for strings.",
            {"pointer": "/a", "line": 1, "column": 7},
        ),
        (
            "{a: 1}",
            {},
            'args are not valid JSON: expected a key in double quotes in the object at the root (line 1, column 2), found "a"; put every key in double quotes.',
            {"pointer": "", "line": 1, "column": 2},
        ),
        (
            '{"a": 1,}',
            {},
            'args are not valid JSON: expected a key in double quotes in the object at the root (line 1, column 9), found "}"; remove the trailing comma.',
            {"pointer": "", "line": 1, "column": 9},
        ),
        (
            '{"l": [1, 2,\n]}',
            {},
            'args are not valid JSON: expected a value at /l/2 (line 2, column 1), found "]"; remove the trailing comma.',
            {"pointer": "/l/2", "line": 2, "column": 1},
        ),
        (
            "",
            {},
            "args are not valid JSON: expected a value at the root (line 1, column 1), found the end of the text; send the complete JSON text.",
            {"pointer": "", "line": 1, "column": 1},
        ),
        (
            " \n ",
            {},
            "args are not valid JSON: expected a value at the root (line 2, column 2), found the end of the text; send the complete JSON text.",
            {"pointer": "", "line": 2, "column": 2},
        ),
        (
            '{"a": [1, {"b": ',
            {},
            "args are not valid JSON: expected a value at /a/1/b (line 1, column 17), found the end of the text; send the complete JSON text.",
            {"pointer": "/a/1/b", "line": 1, "column": 17},
        ),
        (
            "\ufeff{}",
            {},
            'args are not valid JSON: expected a value at the root (line 1, column 1), found "\\ufeff"; remove the byte order mark.',
            {"pointer": "", "line": 1, "column": 1},
        ),
        (
            '{"a" 1}',
            {},
            'args are not valid JSON: expected ":" after the key "a" in the object at the root (line 1, column 6), found "1"; fix the JSON syntax.',
            {"pointer": "", "line": 1, "column": 6},
        ),
        (
            '{"a": 1 "b": 2}',
            {},
            'args are not valid JSON: expected "," or "}" after the value at /a (line 1, column 9), found "\\""; fix the JSON syntax.',
            {"pointer": "/a", "line": 1, "column": 9},
        ),
        (
            "[1 2]",
            {},
            'args are not valid JSON: expected "," or "]" after the item at /0 (line 1, column 4), found "2"; fix the JSON syntax.',
            {"pointer": "/0", "line": 1, "column": 4},
        ),
        (
            '{"a": 1} {"b": 2}',
            {},
            'args are not valid JSON: found "{" after the end of the JSON value (line 1, column 10); send exactly one JSON value.',
            {"pointer": "", "line": 1, "column": 10},
        ),
        (
            "[01]",
            {},
            'args are not valid JSON: expected "," or "]" after the item at /0 (line 1, column 3), found "1"; fix the JSON syntax.',
            {"pointer": "/0", "line": 1, "column": 3},
        ),
        (
            '{"a": -}',
            {},
            'args are not valid JSON: expected a value at /a (line 1, column 7), found "-"; fix the JSON syntax.',
            {"pointer": "/a", "line": 1, "column": 7},
        ),
        (
            '{"a": nan}',
            {},
            'args are not valid JSON: expected a value at /a (line 1, column 7), found "nan"; fix the JSON syntax.',
            {"pointer": "/a", "line": 1, "column": 7},
        ),
        (
            '{"a": "' + "z" * 30 + "}",
            {},
            "args are not valid JSON: unterminated string at /a (line 1, column 7); close it with a double quote.",
            {"pointer": "/a", "line": 1, "column": 7},
        ),
        (
            '{"a": "x\ty"}',
            {},
            'args are not valid JSON: unescaped control character "\\t" in the string at /a (line 1, column 9); escape it, e.g. \\n for a line break.',
            {"pointer": "/a", "line": 1, "column": 9},
        ),
        (
            '{"a": "\\q"}',
            {},
            'args are not valid JSON: invalid escape "\\\\q" in the string at /a (line 1, column 8); escape a backslash as \\\\.',
            {"pointer": "/a", "line": 1, "column": 8},
        ),
        (
            '["\\u12G4"]',
            {},
            "args are not valid JSON: invalid \\u escape in the string at /0 (line 1, column 3); write \\u and four hex digits.",
            {"pointer": "/0", "line": 1, "column": 3},
        ),
        (
            '{"k\ney": 1}',
            {},
            'args are not valid JSON: unescaped control character "\\n" in the string at the root (line 1, column 4); escape it, e.g. \\n for a line break.',
            {"pointer": "", "line": 1, "column": 4},
        ),
        (
            b'{"a": "\xff"}',
            {},
            "args are not valid JSON: byte 7 (line 1, column 8) is not valid UTF-8; send the text as UTF-8.",
            {"line": 1, "column": 8, "byte": 7},
        ),
        (
            b'{"\xc3\xa9":\n "\xed\xa0\x80"}',
            {},
            "args are not valid JSON: byte 9 (line 2, column 3) is not valid UTF-8; send the text as UTF-8.",
            {"line": 2, "column": 3, "byte": 9},
        ),
        (
            '"' + "é" * 10 + '"',
            {"max_bytes": 21},
            "args are too large: the JSON text is longer than 21 bytes of UTF-8; send smaller args.",
            {"maxBytes": 21},
        ),
        (
            "[" + "1," * 100 + "1]",
            {"max_bytes": 100},
            "args are too large: the JSON text is longer than 100 bytes of UTF-8; send smaller args.",
            {"maxBytes": 100},
        ),
        (
            b"[1, 2]",
            {"max_bytes": 5},
            "args are too large: the JSON text is longer than 5 bytes of UTF-8; send smaller args.",
            {"maxBytes": 5},
        ),
        (
            '{"a": [[1]]}',
            {"max_depth": 2},
            "args are nested too deeply: the array at /a/0 (line 1, column 8) is nested 3 levels deep, more than the limit of 2; send flatter args.",
            {"pointer": "/a/0", "line": 1, "column": 8, "maxDepth": 2},
        ),
        (
            "[]",
            {"max_depth": 0},
            "args are nested too deeply: the array at the root (line 1, column 1) is nested 1 levels deep, more than the limit of 0; send flatter args.",
            {"pointer": "", "line": 1, "column": 1, "maxDepth": 0},
        ),
        (
            json.dumps([{"x": [1]} for _ in range(50)] + [{"x": [{"y": {}}]}]),
            {"max_depth": 3},
            "args are nested too deeply: the object at /50/x/0 (line 1, column 609) is nested 4 levels deep, more than the limit of 3; send flatter args.",
            {"pointer": "/50/x/0", "line": 1, "column": 609, "maxDepth": 3},
        ),
        (
            _DEEP_64,
            {"max_depth": 64},
            "args are nested too deeply: the array at "
            + ("/0" * 64)[:59]
            + "…"
            + ("/0" * 64)[-59:]
            + " (line 1, column 65) is nested 65 levels deep, more than the limit of 64; send flatter args.",
            {"pointer": "/0" * 64, "line": 1, "column": 65, "maxDepth": 64},
        ),
        (
            _LONG_KEYS,
            {"max_depth": 64},
            "args are nested too deeply: the object at "
            + ("/key_number_x" * 64)[:59]
            + "…"
            + ("/key_number_x" * 64)[-59:]
            + " (line 1, column 1089) is nested 65 levels deep, more than the limit of 64; send flatter args.",
            {"pointer": "/key_number_x" * 64, "line": 1, "column": 1089, "maxDepth": 64},
        ),
    ],
)
def test_parse_rejects(
    text: str | bytes, kwargs: dict[str, int], message: str, details: dict[str, Any]
) -> None:
    with pytest.raises(PedelecError) as info:
        parse_json_args(text, **kwargs)
    assert info.value.code == TOOL_ARGS_INVALID
    assert info.value.message == message
    assert info.value.details == details


def test_parse_rejects_100_000_levels() -> None:
    text = "[" * 100_000 + "]" * 100_000
    with pytest.raises(PedelecError) as info:
        parse_json_args(text, max_depth=64)
    assert info.value.details == {"pointer": "/0" * 64, "line": 1, "column": 65, "maxDepth": 64}
    # Without max_depth the C parser's recursion limit is the bound.
    with pytest.raises(PedelecError) as info:
        parse_json_args(text)
    assert info.value.message == (
        "args are nested too deeply: the JSON text is nested 100000 levels deep, deeper than "
        "the parser can go; send flatter args."
    )
    assert info.value.details == {"depth": 100000}


def test_parse_rejects_100_000_unclosed_levels() -> None:
    with pytest.raises(PedelecError) as info:
        parse_json_args('{"a":' * 100_000, max_depth=64)
    assert info.value.details == {
        "pointer": "/a" * 64,
        "line": 1,
        "column": 64 * 5 + 1,
        "maxDepth": 64,
    }
    with pytest.raises(PedelecError) as info:
        parse_json_args("[" * 100_000)
    assert info.value.details == {"depth": 100000}


def test_parse_rejects_10_000_duplicate_keys() -> None:
    text = "{" + ",".join(['"a": 1'] * 10_000) + "}"
    with pytest.raises(PedelecError) as info:
        parse_json_args(text)
    assert info.value.message == (
        'args are not valid JSON: duplicate key "a" in the object at the root (line 1, '
        "column 9); send each key once."
    )


def test_parse_rejects_50_megabytes_before_parsing() -> None:
    text = '"' + "a" * 50_000_000 + '"'
    with pytest.raises(PedelecError) as info:
        parse_json_args(text, max_bytes=1_000_000)
    assert info.value.details == {"maxBytes": 1_000_000}
    with pytest.raises(PedelecError) as info:
        parse_json_args(text.encode(), max_bytes=1_000_000)
    assert info.value.details == {"maxBytes": 1_000_000}


def test_parse_locates_problem_after_a_50_megabyte_string() -> None:
    text = '{"blob": "' + "a" * 50_000_000 + '", "n": NaN}'
    with pytest.raises(PedelecError) as info:
        parse_json_args(text)
    assert info.value.details == {"pointer": "/n", "line": 1, "column": 50_000_019}


def test_parse_rejects_other_types() -> None:
    with pytest.raises(TypeError, match=r"^parse_json_args\(\) takes str or bytes, not dict$"):
        parse_json_args({"a": 1})  # type: ignore[arg-type]


def test_parse_error_is_not_chained() -> None:
    with pytest.raises(PedelecError) as info:
        parse_json_args("[NaN]")
    assert info.value.__cause__ is None
    assert info.value.__suppress_context__


# --- parse_json_args: properties --------------------------------------------------------------


@given(json_values)
def test_parse_round_trips_dumps(value: Any) -> None:
    assert parse_json_args(dumps_compact(value)) == value
    assert parse_json_args(json.dumps(value, indent=2).encode()) == value


def _strict_loads(text: str) -> Any:
    """An independent strict parser: ``json.loads`` with its own rejecting hooks."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        if len({k for k, _ in items}) != len(items):
            raise ValueError("duplicate")
        return dict(items)

    def finite(number: str) -> float:
        if not math.isfinite(float(number)):
            raise ValueError("overflow")
        return float(number)

    def constant(name: str) -> Any:
        raise ValueError(name)

    return json.loads(text, object_pairs_hook=pairs, parse_float=finite, parse_constant=constant)


_MUTATIONS = st.sampled_from(
    ['"', ",", ":", "[", "]", "{", "}", "NaN", "1e999", "\\", "\n", "'", "tru", "-", " ", '"a":1,']
)


# Enough objects for the hook-free decode; %s is the value at /x.
_WIDE = '{"items": [' + ", ".join(f'{{"n": {i}}}' for i in range(9)) + '], "x": %s}'


@pytest.mark.parametrize("wrap", ["%s", _WIDE], ids=["as is", "in a wide text"])
@given(json_values, st.lists(st.tuples(st.integers(0, 10_000), _MUTATIONS), max_size=3), st.data())
def test_parse_agrees_with_strict_loads_on_mutated_text(
    wrap: str, value: Any, edits: list[tuple[int, str]], data: st.DataObject
) -> None:
    text = wrap % json.dumps(value)
    for where, piece in edits:
        at = where % (len(text) + 1)
        if data.draw(st.booleans()):
            text = text[:at] + piece + text[at:]
        else:
            text = text[:at] + text[at + 1 :]
    try:
        expected = _strict_loads(text)
    except (ValueError, RecursionError):
        assert _quick(text, None) is _UNSURE
        with pytest.raises(PedelecError) as info:
            parse_json_args(text)
        # The slow scanner located the problem the fast parser stopped at.
        assert info.value.details is not None
        assert "line" in info.value.details
        return
    assert parse_json_args(text) == expected
    assert _quick(text, None) in (_UNSURE, expected)
    assert explain(text, sys.maxsize, _scanner()) is None


# --- parse_json_args: the quick path for texts with many objects --------------------------


def test_wide_texts_take_the_quick_path() -> None:
    assert (_WIDE % "1").count("{") > _FEW_OBJECTS


@pytest.mark.parametrize(
    ("inner", "max_depth", "message", "details"),
    [
        (
            '{"c": 1, "c": 2}',
            None,
            'args are not valid JSON: duplicate key "c" in the object at /x (line 1, column '
            "117); send each key once.",
            {"pointer": "/x", "line": 1, "column": 117},
        ),
        # The same key spelt with an escape decodes to the same string: a duplicate.
        (
            '{"a": 1, "\\u0061": 2}',
            None,
            'args are not valid JSON: duplicate key "a" in the object at /x (line 1, column '
            "117); send each key once.",
            {"pointer": "/x", "line": 1, "column": 117},
        ),
        (
            '{"a" : 1, "a"\n: 2}',
            None,
            'args are not valid JSON: duplicate key "a" in the object at /x (line 1, column '
            "118); send each key once.",
            {"pointer": "/x", "line": 1, "column": 118},
        ),
        (
            "[1e400]",
            None,
            "args contain a number out of range: the number 1e400 at /x/0 (line 1, column 109) "
            "is too large for a 64-bit float; send a smaller number.",
            {"pointer": "/x/0", "line": 1, "column": 109},
        ),
        (
            '{"y": -1e400}',
            None,
            "args contain a number out of range: the number -1e400 at /x/y (line 1, column "
            "114) is too large for a 64-bit float; send a smaller number.",
            {"pointer": "/x/y", "line": 1, "column": 114},
        ),
        (
            '{"y": Infinity}',
            None,
            "args are not valid JSON: Infinity at /x/y (line 1, column 114) is not a JSON "
            "number; send a finite number or null.",
            {"pointer": "/x/y", "line": 1, "column": 114},
        ),
        (
            "[[[1]]]",
            3,
            "args are nested too deeply: the array at /x/0/0 (line 1, column 110) is nested 4 "
            "levels deep, more than the limit of 3; send flatter args.",
            {"pointer": "/x/0/0", "line": 1, "column": 110, "maxDepth": 3},
        ),
    ],
)
def test_quick_path_doubts_what_the_strict_path_rejects(
    inner: str, max_depth: int | None, message: str, details: dict[str, Any]
) -> None:
    text = _WIDE % inner
    assert _quick(text, max_depth) is _UNSURE
    with pytest.raises(PedelecError) as info:
        parse_json_args(text, max_depth=max_depth)
    assert info.value.message == message
    assert info.value.details == details


@pytest.mark.parametrize(
    ("inner", "quick"),
    [
        ('{"a": 1, "b": [1.5, -2.25e10, 1e-400]}', True),
        ('{"a"\t:\r\n1, "b" : 2}', True),
        # A ":" inside a string may look like a member: the strict path then decides.
        ('{"at": "12:30", "url": "https://example.com"}', True),
        ('{"q\\":": "\\" :"}', False),
        # Finite floats whose sum overflows: the census doubts, the strict path accepts.
        ("[1e308, 1e308]", False),
        ('"' + "{" * 20 + '"', True),
    ],
)
def test_quick_path_accepts_strict_json(inner: str, quick: bool) -> None:
    text = _WIDE % inner
    expected = json.loads(text)
    assert (_quick(text, None) is not _UNSURE) is quick
    if quick:
        assert _quick(text, None) == expected
    assert parse_json_args(text, max_depth=4) == expected


def _float_sum_overflows(value: Any) -> bool:
    # A level's floats can only sum past the largest float when some are this large.
    return any(abs(f) > 1e300 for f in _floats(value))


def _floats(value: Any) -> list[float]:
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        if type(item) is float:
            found.append(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


@given(json_values)
def test_census_counts_keys_and_levels(value: Any) -> None:
    keys = depth = 0
    level = [value]
    while level:
        level = [c for c in level if isinstance(c, dict | list)]
        if level:
            depth += 1
        keys += sum(len(c) for c in level if isinstance(c, dict))
        level = [v for c in level for v in (c.values() if isinstance(c, dict) else c)]
    # None means "unsure, take the strict path": besides a literal that overflowed to infinity,
    # finite floats whose sum overflows are unsure too (never a wrong count, only a slower path).
    counted = _census(value)
    assert counted == (keys, depth) or (counted is None and _float_sum_overflows(value))
    assert _census([value, {"f": [math.inf]}]) is None
    assert _census({"f": -math.inf, "v": value}) is None


@given(json_values, st.integers(0, 6))
def test_parse_max_depth_agrees_with_the_depth_of_the_value(value: Any, max_depth: int) -> None:
    depth = 0
    level = [value]
    while level:
        level = [c for c in level if isinstance(c, dict | list)]
        if level:
            depth += 1
        level = [v for c in level for v in (c.values() if isinstance(c, dict) else c)]
    text = dumps_compact(value)
    if depth <= max_depth:
        assert parse_json_args(text, max_depth=max_depth) == value
    else:
        with pytest.raises(PedelecError) as info:
            parse_json_args(text, max_depth=max_depth)
        assert info.value.details["maxDepth"] == max_depth


# --- clone_json: properties -------------------------------------------------------------------


@given(json_values)
def test_clone_property_equal_and_shares_nothing(value: Any) -> None:
    clone = clone_json(value)
    assert clone == value
    assert exact_types(clone) == exact_types(value)
    assert {id(c) for c in containers(clone)}.isdisjoint(id(c) for c in containers(value))


# --- json_key / json_equal --------------------------------------------------------------------


def ref_equal(a: Any, b: Any) -> bool:
    """Reference JSON Schema equality: recursive, type-aware, written independently."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(ref_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(ref_equal(a[k], b[k]) for k in a)
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    if a is None or b is None:
        return a is b
    return False


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [
        (1, 1.0, True),
        (0, -0.0, True),
        (True, 1, False),
        (False, 0, False),
        (True, 1.0, False),
        (True, True, True),
        (None, None, True),
        (None, False, False),
        ("1", 1, False),
        ("", None, False),
        ([], {}, False),
        ([1, True], [1.0, True], True),
        ([1, True], [True, 1], False),
        ([[1]], [[1.0]], True),
        ([[1]], [[True]], False),
        ({"a": 1, "b": [2]}, {"b": [2.0], "a": 1.0}, True),
        ({"a": 1}, {"a": True}, False),
        ({"a": [1, {"b": 0}]}, {"a": [1.0, {"b": False}]}, False),
        ({"a": 1}, {"a": 1, "b": 1}, False),
        ([1, 2], [1, 2, 2], False),
        (Level.HIGH, 3, True),
        (Color.RED, "red", True),
        (2**53 + 1, float(2**53), False),
        (["boolean", True], [True], False),
        ([("boolean", True)], [True], False),
        ({"k": ["array", []]}, {"k": [[]]}, False),
    ],
)
def test_json_key_equality(a: Any, b: Any, equal: bool) -> None:
    assert (json_key(a) == json_key(b)) is equal
    assert json_equal(a, b) is equal
    if equal:
        assert hash(json_key(a)) == hash(json_key(b))


def test_json_key_keeps_one_and_true_apart_in_a_set() -> None:
    items = [1, True, 1.0, False, 0, [1], [True], {"a": 0}, {"a": False}, {"a": 0.0}]
    assert len({json_key(item) for item in items}) == 8


def test_json_key_never_raises_on_non_json() -> None:
    marker = object()
    value: list[Any] = [1, {2, 3}, (4,), marker, {(1, 2): "tuple key"}]
    value.append(value)
    key = json_key(value)
    assert key == key
    assert hash(key) == hash(key)
    assert json_key(marker) == json_key(marker)
    assert json_key(object()) != json_key(marker)
    assert json_key({1, 2}) != json_key({1, 2})  # a set is not JSON: equal only to itself


def test_json_key_deep_values() -> None:
    keys = []
    for leaf in (1, 1.0, True):
        deep = nested_list(100_000)
        tail = deep
        while tail:
            tail = tail[0]
        tail.append({"leaf": leaf})
        keys.append(json_key(deep))
    assert keys[0] == keys[1]
    assert keys[0] != keys[2]


@given(json_values, json_values)
def test_json_key_agrees_with_reference_equality(a: Any, b: Any) -> None:
    assert (json_key(a) == json_key(b)) is ref_equal(a, b)


def _twin(value: Any) -> Any:
    """An equal JSON value with different Python types: ints as floats, keys reordered."""
    if isinstance(value, bool) or value is None or isinstance(value, str | float):
        return value
    if isinstance(value, int):
        return float(value) if abs(value) < 2**53 else value
    if isinstance(value, list):
        return [_twin(v) for v in value]
    return {k: _twin(value[k]) for k in reversed(list(value))}


@given(json_values)
def test_json_key_of_twins_is_equal(value: Any) -> None:
    twin = _twin(value)
    assert ref_equal(value, twin)
    assert json_key(value) == json_key(twin)
    assert hash(json_key(value)) == hash(json_key(twin))


# --- duplicates ---------------------------------------------------------------------------


def _duplicates_one_key_each(items: list[Any]) -> list[tuple[int, int]]:
    """The reference: a ``json_key`` for every item."""
    seen: dict[Any, int] = {}
    found = []
    for j, item in enumerate(items):
        i = seen.setdefault(json_key(item), j)
        if i != j:
            found.append((i, j))
    return found


_ROWS = [{"id": i, "name": f"row {i}", "tags": ["a", f"b{i % 3}"]} for i in range(10)]


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        ([], []),
        ([1, 1.0, True, 1, "1", None, None], [(0, 1), (0, 3), (5, 6)]),
        (_ROWS, []),
        ([*_ROWS, {"tags": ["a", "b0"], "name": "row 0", "id": 0.0}], [(0, 10)]),
        # Equal ids, different tags: the ids keep both in doubt, the whole objects differ.
        ([*_ROWS, {**_ROWS[3], "tags": ["a"]}, _ROWS[3]], [(3, 11)]),
        ([{"id": i % 5} for i in range(10)], [(i, i + 5) for i in range(5)]),
        # True is not 1, though Python's set holds them as one: they stay in doubt only.
        ([*({"on": i} for i in range(2, 10)), {"on": True}, {"on": 1}], []),
        ([*({"n": i} for i in range(9)), {"m": 0}, {"m": 0.0}, {}], [(9, 10)]),
        ([*({"n": i} for i in range(9)), {"n": Color.RED}, {"n": "red"}], [(9, 10)]),
        # NaN is not JSON: json_key's text makes nested ones equal, a bare one is only itself.
        ([*({"n": i} for i in range(9)), {"n": math.nan}, {"n": float("nan")}], [(9, 10)]),
        ([*range(9), math.nan, float("nan"), math.nan], [(9, 11)]),
        ([*range(9), math.inf, math.inf], [(9, 10)]),
        # A key that hashes apart from its equal str: dict.get cannot find it.
        ([*({"n": i} for i in range(9)), {"k": 0}, {IdentityKey("k"): 0}], [(9, 10)]),
        ([*({"n": i} for i in range(9)), [1, 2], [1.0, 2]], [(9, 10)]),
    ],
)
def test_duplicates(items: list[Any], expected: list[tuple[int, int]]) -> None:
    assert list(duplicates(items)) == expected
    assert _duplicates_one_key_each(items) == expected


@given(st.lists(json_values, max_size=12), st.lists(st.integers(0, 11), max_size=4))
def test_duplicates_agrees_with_a_key_each(values: list[Any], repeats: list[int]) -> None:
    items = [*values, *(_twin(values[i]) for i in repeats if i < len(values))]
    assert list(duplicates(items)) == _duplicates_one_key_each(items)
    rows = [{"id": i % 4, "v": v} for i, v in enumerate(items)]
    assert list(duplicates(rows)) == _duplicates_one_key_each(rows)


# --- type_name and render ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ({}, "object"),
        ([], "array"),
        ("a", "string"),
        (1, "integer"),
        (1.0, "number"),
        (math.nan, "number"),
        (True, "boolean"),
        (None, "null"),
        (Level.HIGH, "integer"),
        (Color.RED, "string"),
        (collections.OrderedDict(), "object"),
        ((1,), "tuple"),
        ({1}, "set"),
        (b"", "bytes"),
        (decimal.Decimal(1), "Decimal"),
    ],
)
def test_type_name(value: Any, name: str) -> None:
    assert type_name(value) == name


@pytest.mark.parametrize(
    ("value", "limit", "text"),
    [
        ({"a": [1, True, None]}, 40, '{"a":[1,true,null]}'),
        ("3", 40, '"3"'),
        ('say "hi"\n', 40, '"say \\"hi\\"\\n"'),
        ("é", 40, '"é"'),
        (1.5, 40, "1.5"),
        (1e16, 40, "1e+16"),
        (math.nan, 40, "NaN"),
        (-math.inf, 40, "-Infinity"),
        (Color.RED, 40, '"red"'),
        (Level.HIGH, 40, "3"),
        ((1, 2), 40, "(1, 2)"),
        ({1: "a"}, 40, '{1:"a"}'),
        ("x" * 100, 10, '"xxxxxxxx…'),
        (list(range(100)), 12, "[0,1,2,3,4,…"),
        ({"k": "v" * 50}, 12, '{"k":"vvvvv…'),
        ({"k" * 50: 1}, 8, '{"kkkkk…'),
        ("ab", 4, '"ab"'),
        ("abc", 4, '"ab…'),
        ("abc", 0, "…"),
        pytest.param(10**5000, 40, "<integer of 16610 bits>", id="int-over-digit-limit"),
    ],
)
def test_render(value: Any, limit: int, text: str) -> None:
    assert render(value, limit) == text


def test_render_of_huge_and_deep_values(million_deep: list[Any]) -> None:
    assert render("a" * 50_000_000) == '"' + "a" * 38 + "…"
    assert render(million_deep) == "[" * 39 + "…"
    cyclic: list[Any] = [1]
    cyclic.append(cyclic)
    assert render(cyclic, 10) == "[1,[1,[1,…"


def test_render_of_a_broken_repr() -> None:
    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    assert render(Broken()).startswith("<Broken instance at 0x")


# --- dumps ------------------------------------------------------------------------------------


def test_dumps_canonical_and_compact() -> None:
    value = {"b": 1, "a": [True, None, "é", 1.5, {"z": 0, "y": -1}]}
    assert dumps_canonical(value) == '{"a":[true,null,"é",1.5,{"y":-1,"z":0}],"b":1}'
    assert dumps_compact(value) == '{"b":1,"a":[true,null,"é",1.5,{"z":0,"y":-1}]}'
    assert dumps_canonical({"b": 1, "a": 2}) == dumps_canonical({"a": 2, "b": 1})


@pytest.mark.parametrize("dumps", [dumps_canonical, dumps_compact])
def test_dumps_rejects_nan(dumps: Any) -> None:
    with pytest.raises(ValueError, match=r"^Out of range float values are not JSON compliant"):
        dumps([math.nan])


@pytest.mark.parametrize("dumps", [dumps_canonical, dumps_compact])
def test_dumps_a_hundred_thousand_levels(dumps: Any) -> None:
    value: Any = nested_list(100_000)
    value_tail = value
    while value_tail:
        value_tail = value_tail[0]
    value_tail.append({"b": 1, "a": "é"})
    inner = '{"a":"é","b":1}' if dumps is dumps_canonical else '{"b":1,"a":"é"}'
    assert dumps(value) == "[" * 100_000 + inner + "]" * 100_000


def test_dumps_deep_rejects_cycles_and_non_json() -> None:
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    with pytest.raises(ValueError, match=r"^Circular reference detected$"):
        _dumps_deep(cyclic, sort_keys=False)
    with pytest.raises(TypeError, match=r"^Object of type set is not JSON serializable$"):
        _dumps_deep([{1}], sort_keys=False)
    with pytest.raises(ValueError, match=r"^Out of range float values are not JSON compliant"):
        _dumps_deep({"x": [math.inf]}, sort_keys=True)


@given(
    st.recursive(
        json_scalars | st.sampled_from([Level.HIGH, Color.RED]),
        lambda children: (
            st.lists(children, max_size=4)
            | st.tuples(children, children)
            | st.dictionaries(
                st.text(max_size=4) | st.integers() | st.booleans() | st.none(),
                children,
                max_size=4,
            )
        ),
        max_leaves=20,
    ),
    st.booleans(),
)
def test_dumps_deep_matches_json(value: Any, sort_keys: bool) -> None:
    try:
        expected = json.dumps(
            value, sort_keys=sort_keys, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
    except TypeError:  # sort_keys with mixed key types
        with pytest.raises(TypeError):
            _dumps_deep(value, sort_keys=sort_keys)
        return
    assert _dumps_deep(value, sort_keys=sort_keys) == expected


# --- import cost ------------------------------------------------------------------------------


def test_import_does_not_load_json() -> None:
    code = "import sys, pedelec._json; print('json' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_parse_locates_a_problem_deep_in_a_late_item() -> None:
    # The slow scanner skips valid items at C speed; it must still walk into the broken one.
    head = json.dumps([{"a": [1, 2]}] * 500)[:-1]
    text = head + ', {"a": [1, {"b": NaN}]}]'
    with pytest.raises(PedelecError) as info:
        parse_json_args(text, max_depth=64)
    assert info.value.details == {"pointer": "/500/a/1/b", "line": 1, "column": len(head) + 19}
