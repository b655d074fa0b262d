"""The message vocabulary (``pedelec._json.render``): whole strings for every kind of value."""

from __future__ import annotations

import decimal
import enum
import json
import math
from typing import Any

import pytest
from hypothesis import given, strategies as st

from pedelec._json.render import describe, quote, render, scalar_text


class Color(enum.StrEnum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


class Shouting:
    """An object whose repr holds a line break and a tab."""

    def __repr__(self) -> str:
        return "<line\none\ttab>"


@pytest.mark.parametrize(
    ("text", "options", "quoted"),
    [
        ("abc", {}, '"abc"'),
        ("a\tb", {}, '"a\\tb"'),
        ("\x01", {}, '"\\u0001"'),
        ("\n\r\b\f", {}, '"\\n\\r\\b\\f"'),
        ('say "hi" \\o/', {}, '"say \\"hi\\" \\\\o/"'),
        ("é😀", {}, '"é😀"'),
        ("\x7f\x85\x9b", {}, '"\\u007f\\u0085\\u009b"'),
        ("a\x7f", {}, '"a\\u007f"'),
        ("a\u200bb\u202e", {}, '"a\\u200bb\\u202e"'),
        ("\u2028\u00a0", {}, '"\\u2028\\u00a0"'),
        ("\ud800", {}, '"\\ud800"'),
        ("\U000e0001", {}, '"\\udb40\\udc01"'),
        ("x" * 50, {"limit": 3}, '"xxx…"'),
        ("abc", {"limit": 3}, '"abc"'),
        ("abcd", {"limit": 3}, '"abc…"'),
        ("abc", {"limit": 0}, '"…"'),
        ("\t" * 5, {"limit": 2}, '"\\t\\t…"'),
        ("é\ufeff", {"ascii": True}, '"\\u00e9\\ufeff"'),
        ("\x7f", {"ascii": True}, '"\\u007f"'),
        ('\\d+"\t\x01é', {"verbatim": True}, '"\\d+"\\t\\u0001é"'),
        ("(" * 80, {"limit": 59, "verbatim": True}, '"' + "(" * 59 + '…"'),
    ],
)
def test_quote(text: str, options: dict[str, Any], quoted: str) -> None:
    assert quote(text, **options) == quoted


@pytest.mark.parametrize(
    ("value", "limit", "text"),
    [
        ("a\tb\x01", 40, '"a\\tb\\u0001"'),
        ("x" * 100, 10, '"xxxxxxxx…'),
        ("\x01" * 20, 10, '"\\u0001\\u…'),
        (0, 40, "0"),
        (-12, 40, "-12"),
        (10**50, 20, "1000000000000000000…"),
        pytest.param(10**5000, 40, "<integer of 16610 bits>", id="int-over-digit-limit"),
        (1.0, 40, "1.0"),
        (1e16, 40, "1e+16"),
        (math.nan, 40, "NaN"),
        (math.inf, 40, "Infinity"),
        (-math.inf, 40, "-Infinity"),
        (True, 40, "true"),
        (False, 40, "false"),
        (None, 40, "null"),
        ([], 40, "[]"),
        ({}, 40, "{}"),
        ([1, "a", None, 2.5], 40, '[1,"a",null,2.5]'),
        ({"a": {"b": [None, True]}}, 40, '{"a":{"b":[null,true]}}'),
        ({"a\tb": "c\nd"}, 40, '{"a\\tb":"c\\nd"}'),
        (list(range(100)), 12, "[0,1,2,3,4,…"),
        ({"k": "v" * 50}, 12, '{"k":"vvvvv…'),
        (Color.RED, 40, '"red"'),
        (Level.HIGH, 40, "3"),
        ((1, "a"), 40, "(1, 'a')"),
        ({1, 2}, 40, "{1, 2}"),
        ({1: "a", None: 2}, 40, '{1:"a",null:2}'),
        (b"\x00\t", 40, "b'\\x00\\t'"),
        (decimal.Decimal("1.5"), 40, "Decimal('1.5')"),
        (Shouting(), 40, "<line\\none\\ttab>"),
        (["abc"], 4, '["a…'),
        ("abc", 0, "…"),
    ],
)
def test_render(value: Any, limit: int, text: str) -> None:
    assert render(value, limit) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("a\tb", '"a\\tb"'),
        ("x" * 100, '"' + "x" * 100 + '"'),
        (10**60, "1" + "0" * 60),
        (math.nan, "NaN"),
        (None, "null"),
        (False, "false"),
        (Shouting(), "<line\\none\\ttab>"),
    ],
)
def test_scalar_text_shows_a_scalar_whole(value: Any, text: str) -> None:
    assert scalar_text(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("abc", 'string "abc"'),
        ("a\tb\x01", 'string "a\\tb\\u0001"'),
        ("x" * 50, 'string "' + "x" * 40 + '…"'),
        ("x" * 40, 'string "' + "x" * 40 + '"'),
        (3, "integer 3"),
        (1 - 2**127, f"integer {1 - 2**127}"),
        (2**127, "integer 17014118346046923173…"),
        (10**40, "integer 10000000000000000000…"),
        pytest.param(10**5000, "integer <16610 bits>", id="int-over-digit-limit"),
        (1.5, "number 1.5"),
        (1.0, "number 1.0"),
        (math.nan, "nan (not a JSON number)"),
        (-math.inf, "-inf (not a JSON number)"),
        (True, "boolean true"),
        (False, "boolean false"),
        (None, "null"),
        ([], "array of 0 items"),
        ([[1]], "array of 1 item"),
        ([1, 2], "array of 2 items"),
        ({"a": 1}, "object"),
        ((1,), "Python tuple (not a JSON value)"),
        (Color.RED, "Python Color (not a JSON value)"),
        (Level.HIGH, "Python Level (not a JSON value)"),
    ],
)
def test_describe(value: Any, text: str) -> None:
    assert describe(value) == text


# Arbitrary text, and text made of the characters that are easy to get wrong.
texts = st.text() | st.text(
    st.sampled_from('a"\\é\t\n\x01\x1f\x7f\x85\u200b\u2028\ud800\U000e0001')
)


@given(texts, st.integers(0, 50))
def test_quote_is_one_printable_json_string(text: str, limit: int) -> None:
    for quoted in (quote(text), quote(text, ascii=True)):
        assert quoted.isprintable()
        assert json.loads(quoted) == text
    cut = text if len(text) <= limit else text[:limit] + "…"
    assert json.loads(quote(text, limit)) == cut
    assert quote(text, verbatim=True).isprintable()


@given(st.recursive(st.none() | st.booleans() | st.floats() | texts, st.lists, max_leaves=8))
def test_render_is_printable_and_bounded(value: Any) -> None:
    text = render(value, 30)
    assert text.isprintable()
    assert len(text) <= 30
