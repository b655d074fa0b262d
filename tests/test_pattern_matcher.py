"""The linear-time pattern matcher answers as ECMA-262 (``u`` flag) does, without backtracking.

The reference is ``tests/patterns/ecma_table.json``, verdicts JavaScript itself gave
(``tests/patterns/gen_ecma_table.mjs`` writes it with node; the suite never needs node).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from pedelec.schema.patterns import pattern_problem
from pedelec.schema.patterns.matcher import compile, supported
from pedelec.schema.patterns.translate import plan

ROOT = Path(__file__).resolve().parent.parent
TABLE = json.loads((ROOT / "tests" / "patterns" / "ecma_table.json").read_text("utf-8"))
ROWS: list[tuple[str, str, bool]] = [(p, s, v) for p, s, v in TABLE["rows"]]
BY_PATTERN: dict[str, list[tuple[str, bool]]] = defaultdict(list)
for _pattern, _text, _verdict in ROWS:
    BY_PATTERN[_pattern].append((_text, _verdict))

# Patterns of the table the project's parser refuses: ECMA-262 syntax that is not portable to
# Python's re (\u{...}, \cA, surrogate-pair escapes, "[^]").
UNPARSED = {
    "^[^]$",
    "^\\u{1F600}$",
    "^[\\u{1F600}-\\u{1F64F}]$",
    "^\\uD83D\\uDE00$",
    "^\\uD83D",
    "\\uDE00",
    "^[\\uD83D\\uDE00]$",
    "(?<=\\u{1F600})a",
    "^\\u{41}$",
    "^\\cA$",
    "^\\u{0}$",
}
# Patterns of the table the parser reads but the matcher cannot run in linear time.
UNSUPPORTED = {
    "^(a*)\\1$": 'pattern "^(a*)\\1$" uses the backreference "\\1" to the group "(a*)", which '
    "can capture more than one character, so it cannot be matched in time linear in the string; "
    "remove the backreference or let the group capture exactly one character",
    "(.)\\1": 'pattern "(.)\\1" uses the backreference "\\1" to the group "(.)", and the groups '
    "its backreferences name can capture more than 255 different characters between them, so it "
    "cannot be matched in time linear in the string; remove the backreference or narrow the "
    "characters its group can capture",
}

POLYNOMIAL = [
    r"^\w*\s*\w*\s*\w*\s*\w*$",
    r"^\d*\d*\d*\d*$",
    r"^(?:\w+\s?)(?:\w+\s?)(?:\w+\s?)(?:\w+\s?)$",
    r"^.*.*.*.*.*.*.*.*x$",
]


def test_the_table_is_big_enough_and_mostly_accepted() -> None:
    accepted = [row for row in ROWS if pattern_problem(row[0]) is None]
    assert len(accepted) >= 2_000
    assert TABLE["refused_by_javascript"] == ["^\\-$"]


@pytest.mark.parametrize("pattern", sorted(BY_PATTERN))
def test_matcher_agrees_with_javascript(pattern: str) -> None:
    rows = BY_PATTERN[pattern]
    if pattern in UNPARSED:
        assert supported(pattern) == (
            f'pattern "{pattern}" is not a portable ECMA-262 pattern; fix what '
            "pattern_problem reports for it"
        )
        return
    if pattern in UNSUPPORTED:
        assert supported(pattern) == UNSUPPORTED[pattern]
        return
    assert supported(pattern) is None
    matcher = compile(pattern)
    assert [(text, matcher.search(text)) for text, _ in rows] == rows


# -- differential: where Python's re and ECMA-262 mean the same, the verdicts agree ---------

# Python's re (with re.ASCII) and ECMA-262 read these alike on strings drawn from ALPHABET:
# no "\n" ($), no "\r" or U+2028 (.), no non-ASCII spaces (\s), no \B (empty strings), no
# backreferences (unset groups).
ATOMS = ["a", "b", "1", " ", "_", "[ab]", "[^a]", "[a-z1]", "\\d", "\\w", "\\s", "\\W", "."]
ASSERTIONS = ["^", "$", "\\b"]
QUANTIFIERS = ["*", "+", "?", "{2}", "{1,2}", "{0,3}", "*?", "+?", "??", "{1,2}?", "{2,}"]
ALPHABET = "ab1 _-"


def _patterns() -> st.SearchStrategy[str]:
    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.lists(inner, min_size=2, max_size=3).map("".join),
            st.lists(inner, min_size=2, max_size=3).map(lambda xs: "(?:" + "|".join(xs) + ")"),
            st.tuples(inner, st.sampled_from(QUANTIFIERS)).map(lambda t: f"(?:{t[0]}){t[1]}"),
            st.tuples(st.sampled_from(["(?=", "(?!"]), inner).map(lambda t: f"{t[0]}{t[1]})"),
            inner.map(lambda x: f"({x})"),
        )

    leaves = st.sampled_from(ATOMS + ASSERTIONS)
    return st.recursive(leaves, extend, max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(_patterns(), st.lists(st.text(ALPHABET, max_size=8), min_size=1, max_size=6))
def test_matcher_agrees_with_re_where_the_dialects_agree(pattern: str, texts: list[str]) -> None:
    assert supported(pattern) is None
    matcher = compile(pattern)
    compiled = re.compile(pattern, re.ASCII)
    assert [matcher.search(t) for t in texts] == [compiled.search(t) is not None for t in texts]


# -- polynomial patterns: linear time on long adversarial strings --------------------------

WORD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
ADVERSARIAL = [
    (POLYNOMIAL[0], "a" * 1023 + "!", False),
    (POLYNOMIAL[0], "a" * 1020 + " b c", True),
    (POLYNOMIAL[0], "ab " * 341 + "!", False),
    (POLYNOMIAL[1], "1" * 1023 + "a", False),
    (POLYNOMIAL[1], "".join(str(i % 10) for i in range(1024)), True),
    (POLYNOMIAL[2], "a" * 1023 + "!", False),
    (POLYNOMIAL[2], "".join(WORD[i % 63] for i in range(1020)) + " b c", True),
    (POLYNOMIAL[2], "a " * 511 + "b!", False),
    (POLYNOMIAL[3], "a" * 1024, False),
    (POLYNOMIAL[3], "".join(chr(0x4E00 + i) for i in range(1023)) + "x", True),
    (POLYNOMIAL[3], "a" * 1023 + "\n", False),
]

_RUN_ADVERSARIAL = """
import json, sys
from pedelec.schema.patterns.matcher import compile
cases = json.loads(sys.stdin.read())
print(json.dumps([compile(p).search(s) for p, s in cases]))
"""


def test_polynomial_patterns_answer_promptly_on_adversarial_strings() -> None:
    assert all(len(text) == 1024 for _, text, _ in ADVERSARIAL)
    # a subprocess with a hard timeout, so that a matcher which backtracks fails instead of
    # holding the suite; 20 s is generous for what takes milliseconds
    done = subprocess.run(
        [sys.executable, "-c", _RUN_ADVERSARIAL],
        input=json.dumps([(p, s) for p, s, _ in ADVERSARIAL]),
        capture_output=True,
        text=True,
        timeout=20,
        cwd=ROOT,
        check=True,
    )
    assert json.loads(done.stdout) == [verdict for _, _, verdict in ADVERSARIAL]


# The polynomial patterns of issue 11, an unanchored repeat re rescans from every start
# (quadratic), adjacent overlapping repeats, and an exponential one, each with a string that
# makes a backtracking engine pay, at 1 024 and at 100 000 code points.
HOSTILE = [  # (pattern, repeated character, last character)
    (POLYNOMIAL[0], "a", "!"),
    (POLYNOMIAL[1], "1", "a"),
    (POLYNOMIAL[2], "a", "!"),
    (POLYNOMIAL[3], "a", "a"),
    ("\\w+x", "a", "a"),
    ("a*a*b", "a", "a"),
    ("\\d+\\d+$", "1", "x"),
    (".*.*=.*", " ", " "),
    ("\\s+$", " ", "x"),
    ("^(a+)+$", "a", "!"),
    ("(x+x+)+y", "x", "x"),
    ("^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$", ".", "@"),
]

_RUN_PLANS = """
import json, sys
from pedelec.schema.patterns.translate import plan
out = []
for pattern, unit, last in json.loads(sys.stdin.read()):
    made = plan(pattern)
    out.append([made.engine, *(made.search(unit * (n - 1) + last) for n in (1_024, 100_000))])
print(json.dumps(out))
"""


def test_plan_answers_promptly_on_hostile_strings() -> None:
    # a hard timeout only: re would run for minutes on the first of these, hours on most
    done = subprocess.run(
        [sys.executable, "-c", _RUN_PLANS],
        input=json.dumps(HOSTILE),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=True,
    )
    assert json.loads(done.stdout) == [["matcher", False, False]] * len(HOSTILE)


# -- named cases: the ECMA-262 rules the matcher follows ------------------------------------


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("\\B", "", True),  # both sides of the empty string are non-word characters
        ("^[^\\S]$", "\u00a0", True),  # \S inside a negated class: NBSP is whitespace
        ("^[a-z\\S]$", "\u3000", False),
        ("^\\s$", "\ufeff", True),
        ("^\\s$", "\u0085", False),  # NEL is not ECMA-262 whitespace
        ("^.$", "\u2028", False),
        ("^.{2}$", "\U0001f600\U0001f600", True),  # code points, not UTF-16 units
        ("^(a)?b\\1$", "b", True),  # an unset group matches the empty string
        ("^(?:(a)|b)*\\1$", "abb", True),  # the last iteration reset the capture
        ("^(?:(a)|b)*\\1$", "aba", False),
        ("(?<=a+)b", "aaab", True),  # variable-width lookbehind
        ("^(?=(a+))a*b$", "aab", True),
        ("^(?!.*\\s).+$", "a b", False),
        ("^\\d$", "\u0664", False),
        ("\\bcat\\b", "\u00e9cat", True),
    ],
)
def test_matcher_follows_ecma_rules(pattern: str, text: str, expected: bool) -> None:
    assert compile(pattern).search(text) is expected


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        (
            "^(?:(a)|b?)*\\1$",
            'pattern "^(?:(a)|b?)*\\1$" uses a backreference to the group "(a)" inside the repeat '
            '"(?:(a)|b?)*", which can repeat the empty string, so it cannot be matched in time '
            "linear in the string; remove the backreference or make the repeated part match at "
            "least one character",
        ),
        (
            "(?=(a))\\1",
            'pattern "(?=(a))\\1" uses the backreference "\\1" with a lookaround around it or '
            "around its group, which cannot be matched in time linear in the string; remove the "
            "backreference or move it and its group out of the lookaround",
        ),
        (
            "(?:a{50}){41}",
            'pattern "(?:a{50}){41}" needs more than 2,000 matcher states, each counted repeat '
            "written out as copies of its body; use smaller counts, fewer nested counted repeats "
            "or fewer alternatives",
        ),
        (
            "\\A",
            'pattern "\\A" is not a portable ECMA-262 pattern; fix what pattern_problem reports '
            "for it",
        ),
    ],
)
def test_supported_names_the_construct_and_the_fix(pattern: str, reason: str) -> None:
    assert supported(pattern) == reason
    with pytest.raises(ValueError) as caught:
        compile(pattern)
    assert str(caught.value) == reason


def test_deep_nesting_compiles_without_recursion() -> None:
    pattern = "(?:" * 600 + "a" + ")" * 600
    assert compile(pattern).search("xa") is True
    assert compile(pattern).search("x") is False


# -- the validator's plan against the table ------------------------------------------------

# The table's patterns registration refuses: the ones the parser refuses, and the one that
# neither path can run in linear time.
REFUSED = UNPARSED | {"^(a*)\\1$"}
ACCEPTED = sorted(set(BY_PATTERN) - REFUSED)


def test_registration_refuses_exactly_these_table_patterns() -> None:
    assert {p for p in BY_PATTERN if pattern_problem(p) is not None} == REFUSED
    assert pattern_problem("^(a*)\\1$") == UNSUPPORTED["^(a*)\\1$"]


@pytest.mark.parametrize("pattern", ACCEPTED)
def test_plan_agrees_with_javascript(pattern: str) -> None:
    # \S in classes, \B on the empty string, unset and reset backreferences included
    rows = BY_PATTERN[pattern]
    made = plan(pattern)
    assert [(text, made.search(text)) for text, _ in rows] == rows


def test_the_table_exercises_every_engine() -> None:
    engines = {plan(p).engine for p in ACCEPTED}
    assert engines == {"fast", "re", "matcher"}
