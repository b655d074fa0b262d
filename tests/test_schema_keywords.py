"""The keyword table, ``ArgError``'s path parts and the value rendering of validator messages."""

from __future__ import annotations

import pickle
import string
from typing import Any

import pytest

from pedelec import ArgError, compile_schema
from pedelec._json.render import describe, python_text, scalar_text
from pedelec.schema._codegen import _Gen
from pedelec.schema.keywords import SUBSET, Condition, Step

# --- the table --------------------------------------------------------------------------------


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def test_every_code_row_is_something_the_generator_can_write() -> None:
    for kind, rows in SUBSET.items():
        orders = [row.code.order for row in rows.keywords.values() if row.code is not None]
        assert len(orders) == len(set(orders)), kind
        for keyword, row in rows.keywords.items():
            if type(row.code) is Condition:
                assert _fields(row.code.fails) <= {"v", "n", "k"}, (kind, keyword)
                assert row.code.got in ("{v}", "{n}"), (kind, keyword)
            elif type(row.code) is Step:
                assert callable(getattr(_Gen, row.code.routine)), (kind, keyword)
        if rows.wrong_type is not None:
            assert _fields(rows.wrong_type) <= {"v", "t"}, kind
        if rows.rest is not None:
            assert callable(getattr(_Gen, rows.rest)), kind


def test_metadata_rows_generate_no_code() -> None:
    for rows in SUBSET.values():
        assert [rows.keywords[k].code for k in ("description", "default", "examples")] == [
            None,
            None,
            None,
        ]


def test_checks_run_in_row_order_not_listing_order() -> None:
    # enum is listed first (messages list it so) but checked after the bounds.
    validator = compile_schema(
        {
            "type": "object",
            "properties": {"s": {"type": "string", "enum": ["abc"], "minLength": 4}},
        }
    )
    assert [(e.keyword, e.message) for e in validator.errors({"s": "ab"})] == [
        ("minLength", "must be at least 4 characters long, got 2"),
        ("enum", 'must be one of "abc"; got "ab"'),
    ]


# --- ArgError ---------------------------------------------------------------------------------


def test_an_error_keeps_its_path_as_parts() -> None:
    validator = compile_schema(
        {
            "type": "object",
            "properties": {"a/b": {"type": "array", "items": {"type": "integer"}}},
        }
    )
    [error] = validator.errors({"a/b": [1, "x"]})
    assert error.parts == ("a/b", 1)
    assert error.path == "/a~1b/1"
    assert error.to_dict() == {
        "path": "/a~1b/1",
        "keyword": "type",
        "message": 'expected integer, got string "x"',
    }
    assert str(error) == '/a~1b/1: expected integer, got string "x" (type)'
    assert repr(error) == (
        "ArgError(parts=('a/b', 1), keyword='type', message='expected integer, got string \"x\"')"
    )


def test_errors_compare_by_pointer_keyword_and_message() -> None:
    error = ArgError(("card", 0), "type", "m")
    assert error == ArgError(("card", 0), "type", "m")
    assert error == ("/card/0", "type", "m")
    plain = ("/card/0", "type", "m")
    assert plain == error  # the tuple on the left: Python asks ArgError.__eq__ in turn
    assert error != ArgError(("card", 1), "type", "m")
    assert error != ArgError(("card", 0), "enum", "m")
    assert error != "/card/0"
    assert hash(error) == hash(("/card/0", "type", "m"))
    assert pickle.loads(pickle.dumps(error)) == error
    assert ArgError((), "type", "m").path == ""
    assert str(ArgError((), "type", "m")) == "(root): m (type)"


def test_an_error_is_immutable_and_takes_parts_only() -> None:
    error = ArgError(("a",), "type", "m")
    with pytest.raises(AttributeError, match="property 'parts' of 'ArgError' object has no setter"):
        error.parts = ("b",)  # type: ignore[misc]
    with pytest.raises(AttributeError, match="'ArgError' object has no attribute 'extra'"):
        error.extra = 1  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="ArgError parts must be a tuple of keys and indexes"):
        ArgError("/a", "type", "m")  # type: ignore[arg-type]


# --- the message vocabulary as validator messages use it ---------------------------------------


@pytest.mark.parametrize(
    ("value", "limit", "shown"),
    [
        ('a"b\\c\nd', None, '"a\\"b\\\\c\\nd"'),
        ("a\tb\x01", None, '"a\\tb\\u0001"'),
        ("x" * 41, 40, '"' + "x" * 40 + '…"'),
        ("x" * 41, 60, '"' + "x" * 41 + '"'),
        (True, None, "true"),
        (False, None, "false"),
        (None, None, "null"),
        (1.5, None, "1.5"),
        (2**130, None, str(2**130)),
    ],
)
def test_scalar_text(value: Any, limit: int | None, shown: str) -> None:
    assert scalar_text(value, limit) == shown


@pytest.mark.parametrize(
    ("value", "shown"),
    [(True, "True"), ((1, 2), "(1, 2)"), (("\t",), "('\\t',)"), ((chr(0x200B),), "('\\u200b',)")],
)
def test_python_text(value: Any, shown: str) -> None:
    assert python_text(value) == shown


@pytest.mark.parametrize(
    ("value", "described"),
    [
        ("abc", 'string "abc"'),
        (True, "boolean true"),
        (3, "integer 3"),
        (2**130, f"integer {str(2**130)[:20]}…"),
        (1.0, "number 1.0"),
        (float("nan"), "nan (not a JSON number)"),
        (None, "null"),
        ([1], "array of 1 item"),
        ([1, 2], "array of 2 items"),
        ({}, "object"),
        ((), "Python tuple (not a JSON value)"),
    ],
)
def test_describe(value: Any, described: str) -> None:
    assert describe(value) == described
