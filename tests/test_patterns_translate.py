"""The pattern plan and the ECMA-262 -> Python translation, both read from the one parse tree.

``plan(p).search(s)`` and the compiled ``to_python`` source are held equal to the linear-time
matcher, an independent engine that tests/test_pattern_matcher.py holds to node's own verdicts,
over every pattern the test suite uses and over generated ones.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from pedelec.schema.patterns import pattern_problem
from pedelec.schema.patterns.matcher import compile as linear, supported
from pedelec.schema.patterns.parse import parse
from pedelec.schema.patterns.translate import (
    PYTHON_FLAGS,
    ClassRun,
    PatternPlan,
    TextCheck,
    plan,
    to_python,
)

TESTS = Path(__file__).parent
PACKAGE = TESTS.parent / "pedelec" / "schema" / "patterns"
MAX = sys.maxsize


def _strings_in(path: Path) -> set[str]:
    return {
        node.value
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


def _conformance_patterns() -> set[str]:
    found: set[str] = set()

    def visit(value: object) -> None:
        if isinstance(value, dict):
            if isinstance(value.get("pattern"), str):
                found.add(value["pattern"])
            for item in value.values():
                visit(item)
        elif isinstance(value, list):
            for item in value:
                visit(item)

    visit(json.loads((TESTS / "conformance" / "cases.json").read_text(encoding="utf-8")))
    return found


def _corpus() -> list[str]:
    """Every string in the pattern tests that registration accepts as a pattern."""
    strings = _conformance_patterns()
    for name in ("test_pattern_semantics.py", "test_regex.py", "test_hardening_redos.py"):
        strings |= _strings_in(TESTS / name)
    return sorted(s for s in strings if len(s) <= 200 and pattern_problem(s) is None)


CORPUS = _corpus()

# Strings that tell the dialects apart, and the characters the corpus patterns are made of.
PROBES = [
    "",
    "a",
    "abc",
    "123",
    "123\n",
    "abc\n",
    "a\rc",
    "a\nc",
    "a\u2028c",
    "\u0664\u0662",
    "caf\u00e9",
    "cafe_1",
    "a\u00a0b",
    "a\ufeffb",
    "a\u3000b",
    "\u2028",
    "cost $5",
    "a cat!",
    "\u00e9cat",
    "https://x.y",
    "report.pdf",
    "v1",
    "a-b_c",
    "card-42",
    "2024-01-31",
    "user@example.com",
    "#a1B2c3",
    "\\",
    "$",
    " \t",
]


def test_corpus_is_the_suites_patterns() -> None:
    assert len(CORPUS) > 150
    assert {"^[0-9]+$", "^a*$", r"^[^@\s]+@[^@\s]+\.[^@\s]+$", "^https://"} <= set(CORPUS)


@pytest.mark.parametrize("pattern", CORPUS)
def test_every_engine_of_a_plan_agrees_with_the_linear_matcher(pattern: str) -> None:
    """Two independent engines: the plan's own path (fast, re) and the Pike-VM matcher, which
    tests/test_pattern_matcher.py holds to node's verdicts row by row."""
    made = plan(pattern)
    if supported(pattern) is not None:
        return  # e.g. a backreference the matcher cannot express; re runs it, proven linear
    reference = linear(pattern)
    for text in [*PROBES, pattern, pattern + "\n", "x" + pattern + "x"]:
        expected = reference.search(text)
        assert made.search(text) is expected, (pattern, text)
        if made.regex is not None and made.engine != "matcher":
            assert (made.regex.search(text) is not None) is expected, (pattern, text)


# pattern -> the fast check plan() picks (None: the compiled expression)
FAST = [
    ("^https://", TextCheck("prefix", "https://")),
    ("\\.pdf$", TextCheck("suffix", ".pdf")),
    ("^v1$", TextCheck("exact", "v1")),
    ("a-b", TextCheck("inside", "a-b")),
    ("^\\$", TextCheck("prefix", "$")),
    ("^(?:ab)$", TextCheck("exact", "ab")),
    ("^[a]b$", TextCheck("exact", "ab")),
    ("^\\u0041$", TextCheck("exact", "A")),
    ("\\\\$", TextCheck("suffix", "\\")),
    ("^card-[0-9]{1,8}$", ClassRun("card-", "0123456789", 1, 8)),
    ("^[a-c]+$", ClassRun("", "abc", 1, MAX)),
    ("^[a-c]{0}$", ClassRun("", "abc", 0, 0)),
    ("^[a-c]{2,}$", ClassRun("", "abc", 2, MAX)),
    ("^(?:[a-c])*$", ClassRun("", "abc", 0, MAX)),
    ("^(?:a|[bc])+$", ClassRun("", "abc", 1, MAX)),
    # shapes today's re._parser reading left to the regex engine
    ("^a+$", ClassRun("", "a", 1, MAX)),
    ("^[a-c]+?$", ClassRun("", "abc", 1, MAX)),
    ("^\\d{4}$", ClassRun("", "0123456789", 4, 4)),
    ("^[^a]+$", None),
    ("^a[bc]", None),
    ("^a+", None),
    ("^[a-z\u00e9]+$", None),
    ("^[\\s]+$", None),
    ("^(ab)$", None),
    ("^(a)[bc]+$", None),
    ("^(?:ab)+$", None),
    ("^(?:a|bc)+$", None),
    ("^a|b$", None),
    ("ab$$", None),
    ("^$", None),
    ("", None),
    ("\\bcat", None),
]


@pytest.mark.parametrize(("pattern", "fast"), FAST)
def test_fast_check_catalogue(pattern: str, fast: TextCheck | ClassRun | None) -> None:
    assert plan(pattern).fast == fast


# pattern -> to_python source (compiled with re.ASCII)
SOURCE = [
    ("^[0-9]+$", "^[0-9]+\\Z"),
    ("a.b", "a[^\\n\\r\\u2028\\u2029]b"),
    ("\\\\$", "\\\\\\Z"),
    ("[\\d_]", "[0-9_]"),
    ("\\d\\D", "[0-9][^0-9]"),
    ("\\w\\W", "[0-9A-Z_a-z][^0-9A-Z_a-z]"),
    (
        "\\s",
        "[\\t-\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]",
    ),
    (
        "[^\\S]",
        "[\\t-\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]",
    ),
    ("[\\s\\S]", "[\\x00-\\U0010ffff]"),
    ("[^\\s\\S]", "[^\\x00-\\U0010ffff]"),
    ("[\\w-]", "[\\-0-9A-Z_a-z]"),
    ("[\\]\\[^]", "[\\[\\]\\^]"),
    ("[$.]", "[$.]"),
    ("\\$\\.\\(\\{", "\\$\\.\\(\\{"),
    ("\\x41\\u00e9\\t\\0", "A\\u00e9\\t\\x00"),
    ("a*b+?c?d{2}e{2,}f{2,3}?", "a*b+?c?d{2}e{2,}f{2,3}?"),
    ("(a)(?:b)(?=c)(?!d)(?<=e)(?<!f)", "(a)(?:b)(?=c)(?!d)(?<=e)(?<!f)"),
    ("(a)\\1[0]", "(a)(?(1)\\1)0"),
    ("(a)(?<=\\1)b", "(a)(?<=(?:\\1))b"),
    ("^a|b$|", "^a|b\\Z|"),
    ("\\bx\\B", "\\bx(?!\\b)"),
    ("", ""),
]


@pytest.mark.parametrize(("pattern", "source"), SOURCE)
def test_python_source_catalogue(pattern: str, source: str) -> None:
    assert to_python(parse(pattern)) == source
    if pattern == "(a)(?<=\\1)b":  # no linear-time path runs it, so it has no plan
        return
    regex = plan(pattern).regex
    assert regex is not None
    assert regex.pattern == source
    assert regex.flags & PYTHON_FLAGS == re.ASCII


def test_non_space_class_is_ecma() -> None:
    # [\S] was Python's ASCII \S in the old translation: NBSP passed "^[\S]+$"
    for space in "\u00a0\ufeff\u3000\u2028\u202f":
        assert plan("^[\\S]+$").search(f"a{space}b") is False
        assert plan("^[\\S]+$").search("ab") is True
        assert plan("[^\\S]").search(space) is True


def test_not_word_edge_holds_on_the_empty_string() -> None:
    # Python 3.11's \B never matches the empty string; ECMA-262's does (no word on either side)
    assert plan("\\B").search("") is True
    assert plan("^\\B$").search("") is True
    assert plan("a\\Bb").search("ab") is True
    assert plan("a\\Bb").search("a b") is False


def test_backreference_to_an_unset_group_matches_empty() -> None:
    # ECMA-262 reads a group that has not matched as the empty string; Python's \1 fails there
    assert plan("^(a)?b\\1$").search("b") is True
    assert plan("^(a)?b\\1$").search("aba") is True
    assert plan("^(a)?b\\1$").search("ab") is False
    assert plan("^(?:(a)|b)\\1c$").search("bc") is True


def test_plan_is_cached_and_reads_well() -> None:
    assert plan("^v1$") is plan("^v1$")
    assert repr(plan("^v1$")) == (
        "PatternPlan('^v1$', engine='fast', fast=TextCheck(how='exact', text='v1'))"
    )
    assert isinstance(plan("a.b"), PatternPlan)


def test_plan_refuses_what_registration_refuses() -> None:
    with pytest.raises(ValueError) as caught:
        plan("(?i)a")
    assert str(caught.value) == "pattern '(?i)a' is not portable: it uses the inline flags \"(?i)\""
    with pytest.raises(ValueError) as caught:
        plan("a)")
    assert str(caught.value) == "pattern 'a)' does not compile"


def test_no_private_re_modules() -> None:
    for path in sorted(PACKAGE.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        for name in ("re._parser", "re._constants", "sre_parse", "sre_constants", "sre_compile"):
            assert name not in text, (path.name, name)


# --- generated patterns ---------------------------------------------------------------------

_ATOMS = st.sampled_from(
    [
        "a",
        "b",
        "-",
        "\\.",
        ".",
        "\\d",
        "\\D",
        "\\w",
        "\\W",
        "\\s",
        "\\S",
        "[ab]",
        "[^a]",
        "[a-c\\d]",
        "[\\s]",
        "[^\\s]",
        "[\\w-]",
        "\\n",
        "\\u00e9",
        "\\$",
    ]
)
_QUANTIFIERS = st.sampled_from(["", "", "", "*", "+", "?", "{2}", "{1,2}", "+?", "*?"])


def _item(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    group = st.tuples(st.sampled_from(["(", "(?:", "(?=", "(?!"]), inner).map(
        lambda t: f"{t[0]}{t[1]})"
    )
    atom = st.one_of(_ATOMS, group)
    quantified = st.tuples(atom, _QUANTIFIERS).map(
        lambda t: t[0] if t[0].startswith("(?=") or t[0].startswith("(?!") else t[0] + t[1]
    )
    return st.one_of(quantified, st.sampled_from(["^", "$", "\\b", "\\B"]))


_SEQS = st.recursive(
    st.lists(_item(st.just("a")), max_size=4).map("".join),
    lambda inner: st.lists(
        st.lists(_item(inner), max_size=4).map("".join), min_size=1, max_size=3
    ).map("|".join),
    max_leaves=8,
)
_TEXT = st.text(alphabet="ab-.\n\r\u00e9\u00a0\u2028 _0\u0661$", max_size=8)


@settings(max_examples=300, deadline=None)
@given(pattern=_SEQS, texts=st.lists(_TEXT, min_size=1, max_size=6))
def test_generated_patterns_match_like_the_linear_matcher(pattern: str, texts: list[str]) -> None:
    if pattern_problem(pattern) is not None:
        return
    made = plan(pattern)
    assert made.regex is not None
    for text in texts:
        found = made.regex.search(text) is not None
        assert made.search(text) is found, (pattern, text)
        if supported(pattern) is None:
            assert found is linear(pattern).search(text), (pattern, text)


@settings(max_examples=200, deadline=None)
@given(
    prefix=st.sampled_from(["", "a", "x-", "\\."]),
    body=st.sampled_from(["[a-c]", "[ab-]", "(?:a|b)", "\\d", "[.]", "a", "(?:[a-c])"]),
    count=st.sampled_from(["+", "*", "{0}", "{2}", "{1,3}", "{2,}", "+?"]),
    text=st.text(alphabet="abcx-.1\n", max_size=7),
)
def test_class_runs_match_the_regex(prefix: str, body: str, count: str, text: str) -> None:
    made = plan(f"^{prefix}{body}{count}$")
    assert isinstance(made.fast, ClassRun)
    assert made.search(text) is (made.regex.search(text) is not None)
    assert made.search(text) is linear(f"^{prefix}{body}{count}$").search(text)
