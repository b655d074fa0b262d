"""`pattern` matches with ECMA-262 semantics (JSON Schema's regex dialect), not Python's.

Python's ``re`` lets through strings a JavaScript reading of the same schema rejects: ``$``
before a final newline, ``.`` on a carriage return, ``\\d`` on non-ASCII digits. An agent could
use each to slip a value past a pattern, so the validator rewrites them (``ecma_pattern``).
"""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import given, strategies as st

from pedelec import compile_schema
from pedelec.schema.interpret import accepts
from pedelec.schema.patterns.parse import parse
from pedelec.schema.patterns.translate import PYTHON_FLAGS, ClassRun, TextCheck, plan, to_python


def _schema(pattern: str) -> dict[str, object]:
    return {
        "type": "object",
        "properties": {"s": {"type": "string", "pattern": pattern}},
        "required": ["s"],
    }


# (pattern, string, matches under ECMA-262)
CASES = [
    ("^[0-9]+$", "123", True),
    ("^[0-9]+$", "123\n", False),  # Python's $ would match before the newline
    ("^abc$", "abc\n", False),
    ("^a.c$", "abc", True),
    ("^a.c$", "a\rc", False),  # Python's . matches \r
    ("^a.c$", "a\u2028c", False),
    ("^a.c$", "a\nc", False),
    ("^\\d+$", "42", True),
    ("^\\d+$", "\u0664\u0662", False),  # Arabic-Indic digits: \d is ASCII-only in ECMA-262
    ("^\\w+$", "caf\u00e9", False),
    ("^\\w+$", "cafe_1", True),
    ("^\\D$", "\u0664", True),
    ("^\\W$", "\u00e9", True),
    ("\\s", "a\u00a0b", True),  # ECMA-262 \s includes NBSP and other Unicode spaces
    ("\\s", "a\ufeffb", True),
    ("\\s", "ab", False),
    ("^\\S+$", "a\u3000b", False),
    ("^[\\d]+$", "\u0664", False),
    ("^[\\w-]+$", "a-b_c", True),
    ("^[\\s]$", "\u2028", True),
    ("\\$", "cost $5", True),
    ("^[$]$", "$", True),
    ("[.]", "a\rb", False),
    ("\\bcat\\b", "a cat!", True),
    ("\\bcat\\b", "\u00e9cat", True),  # \b is ASCII: é is not a word character in ECMA-262
]


@pytest.mark.parametrize(("pattern", "text", "expected"), CASES)
def test_pattern_matches_like_ecma_262(pattern: str, text: str, expected: bool) -> None:
    validator = compile_schema(_schema(pattern))
    assert validator.is_valid({"s": text}) is expected
    assert (validator.errors({"s": text}) == []) is expected
    assert accepts(_schema(pattern), {"s": text}) is expected


def test_rewritten_source() -> None:
    assert to_python(parse("^[0-9]+$")) == "^[0-9]+\\Z"
    assert to_python(parse("a.b")) == "a[^\\n\\r\\u2028\\u2029]b"
    assert to_python(parse("\\\\$")) == "\\\\\\Z"
    assert to_python(parse("[\\d_]")) == "[0-9_]"
    assert PYTHON_FLAGS & re.ASCII


# The str.strip fast path for ^[class]{m,n}$ must agree with the regex engine on every string.
CLASS_PATTERNS = [
    "^[a-z0-9-]+$",
    "^[A-Za-z_.]{2,5}$",
    "^[a-z]*$",
    "^[ -~]+$",
    "^[a-c]{0,3}$",
    "^ab-[a-c0-9]{1,3}$",
    "^c[a-z]*$",
]
ALPHABET = "abcz-._A \n\r~\u00e90\u0661\u00a0"


@pytest.mark.parametrize("pattern", CLASS_PATTERNS)
@given(text=st.text(alphabet=ALPHABET, max_size=8))
def test_char_class_fast_path_agrees_with_regex(pattern: str, text: str) -> None:
    validator = compile_schema(_schema(pattern))
    regex = plan(pattern).regex
    assert regex is not None
    expected = regex.search(text) is not None
    assert validator.is_valid({"s": text}) is expected
    assert (validator.errors({"s": text}) == []) is expected


# Plain-text patterns are tested with str methods instead of the regex engine.
LITERAL_PATTERNS = ["^https://", "\\.pdf$", "^v1$", "a-b", "^\\$", "x\\.y$"]
LITERAL_ALPHABET = "htps:/.dfv1a-b$xy\n"


@pytest.mark.parametrize("pattern", LITERAL_PATTERNS)
@given(text=st.text(alphabet=LITERAL_ALPHABET, max_size=10))
def test_literal_fast_path_agrees_with_regex(pattern: str, text: str) -> None:
    validator = compile_schema(_schema(pattern))
    regex = plan(pattern).regex
    assert regex is not None
    expected = regex.search(text) is not None
    assert validator.is_valid({"s": text}) is expected
    assert (validator.errors({"s": text}) == []) is expected


def test_literal_patterns_are_recognised() -> None:
    assert plan("^https://").fast == TextCheck("prefix", "https://")
    assert plan("\\.pdf$").fast == TextCheck("suffix", ".pdf")
    assert plan("^v1$").fast == TextCheck("exact", "v1")
    assert plan("a-b").fast == TextCheck("inside", "a-b")
    assert not isinstance(plan("^a+$").fast, TextCheck)
    assert plan("^(ab)$").fast is None


def test_prefixed_class_patterns_are_recognised() -> None:
    assert plan("^card-[0-9]{1,8}$").fast == ClassRun("card-", "0123456789", 1, 8)
    assert plan("^[a-c]+$").fast == ClassRun("", "abc", 1, sys.maxsize)
    assert plan("^[^a]+$").fast is None
    assert plan("^a[bc]").fast is None
