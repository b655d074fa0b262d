"""pattern_problem: portable to ECMA-262, well formed, and run by a linear-time path."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings, strategies as st

from pedelec.schema.patterns import pattern_problem
from pedelec.schema.patterns.translate import plan

NOT_PORTABLE = "which is not portable to ECMA-262 regular expressions (JavaScript, JSON Schema)"


def unportable(pattern: str, what: str, pos: int, fix: str) -> str:
    return f'pattern "{pattern}" uses {what} at position {pos}, {NOT_PORTABLE}; {fix}'


# --- accepted ------------------------------------------------------------------------------

# Patterns tool schemas use every day; each must pass and must stay fast on hostile input.
SAFE = [
    r"^[a-z0-9-]+$",
    r"^([a-z]+-)*[a-z]+$",
    r"^#[0-9a-fA-F]{6}$",
    r"^\d{4}-\d{2}-\d{2}$",
    r"^[^@\s]+@[^@\s]+\.[^@\s]+$",
    r"^(https?|ftp)://[^\s]+$",
    r"^[A-Z]{2,3}(-[A-Z0-9]+)*$",
    r"a+",
    r"^a*$",
    r"^\S+$",
    r"^(\+|-)?\d+$",
    r"^[a-z]+(\.[a-z]+)*$",
    r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
    r"^(\d{1,3}\.){3}\d{1,3}$",
    r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,}$",
    r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$",
    r"^\+?[1-9]\d{1,14}$",
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$",
    r"^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$",
    r"^\w+(?:[-'.]\w+)*(?:\s+\w+(?:[-'.]\w+)*)*$",
]


@pytest.mark.parametrize("pattern", SAFE)
def test_common_patterns_are_accepted(pattern: str) -> None:
    assert pattern_problem(pattern) is None


ALSO_ACCEPTED = [
    "",
    r"\\A",  # an escaped backslash, then the letter A
    r"\\Z\\z",
    r"[+*?]",  # quantifier characters are literal inside a class
    r"[(?P<]",  # so is group syntax
    r"[\-.]",  # \- is a valid escape inside a class in unicode mode
    r"[a\]]",
    r"\{\}\[\]\(\)\/\|",
    r"(?:ab|ac)+",  # the branches share "a" but part on the next character
    r"\d+\d+",  # ambiguous, but only polynomially
    r"(a|a){2}",  # ambiguous, but a small bounded repeat costs four tries
    r"(?:a?){2}",
    r"(a?)+",
    r"(a|)*",
    r"([0-9]|[٠-٩])+",  # the two classes share no character
    r"(?<=a)b(?!c)(?=d)(?<!e)",
    r"\bword\b[\b]",
    r"\x41\u00e9\0\f\n\r\t\v",
    r"(a)\1",
    r"(a)\1*",
    r"a{2}b{2,}c{2,5}?d*?e+?f??",
    r"(?:(a+)+){0}",  # never runs
    r"(?<=a+)b",  # Python's re cannot compile a lookbehind of variable width; the matcher runs it
]


@pytest.mark.parametrize("pattern", ALSO_ACCEPTED)
def test_portable_patterns_without_exponential_backtracking_are_accepted(pattern: str) -> None:
    assert pattern_problem(pattern) is None


# --- not portable to ECMA-262 --------------------------------------------------------------

CASES_BY_HAND = 'remove it and spell out both cases instead, e.g. "[Aa]"'
BY_NUMBER = 'refer to a plain group by its number instead, e.g. "\\1"'
SPACED = (
    'remove the spaces from "{1, 3}" if it is meant as a quantifier, or escape the brace as "\\{"'
)
FIRST_IN_CLASS = '"]" as the first character of a character class'

UNPORTABLE = [
    # Python-only groups
    (r"(?P<id>\d+)", 'the named group "(?P<id>...)"', 0, 'use a plain group "(...)" instead'),
    (r"(a)(?P=id)", 'the named backreference "(?P=id)"', 3, BY_NUMBER),
    (r"(?>a+)b", 'the atomic group "(?>...)"', 0, 'use a non-capturing group "(?:...)" instead'),
    (
        r"(a)?(?(1)b|c)",
        'the conditional group "(?(1)...)"',
        4,
        'rewrite it as an alternation "(?:...|...)"',
    ),
    (r"a(?#note)b", 'the comment group "(?#...)"', 1, "remove it"),
    (r"(?i)abc", 'the inline flags "(?i)"', 0, CASES_BY_HAND),
    (r"x(?i:abc)", 'the inline flags "(?i:...)"', 1, CASES_BY_HAND),
    (
        r"(?-i:abc)",
        'the inline flags "(?-i:...)"',
        0,
        'remove it and use a plain non-capturing group "(?:...)"',
    ),
    (
        r"(?s).",
        'the inline flags "(?s)"',
        0,
        'remove it and write "[\\s\\S]" where a dot must also match a newline',
    ),
    (
        r"(?m)^a$",
        'the inline flags "(?m)"',
        0,
        'remove it and match line breaks explicitly with "\\n"',
    ),
    (
        r"(?x) a",
        'the inline flags "(?x)"',
        0,
        "remove it and delete the whitespace and comments it allowed",
    ),
    (
        r"(?a)\w",
        'the inline flags "(?a)"',
        0,
        'remove it and write ASCII classes such as "[0-9]" explicitly',
    ),
    (r"(?u)\w", 'the inline flags "(?u)"', 0, "remove it; Unicode matching is already the default"),
    # Python-only anchors and quantifiers
    (r"\Afoo", '"\\A"', 0, 'use "^" instead'),
    (r"foo\Z", '"\\Z"', 3, 'use "$" instead'),
    (r"foo\z", '"\\z"', 3, 'use "$" instead'),
    (r"\\\A", '"\\A"', 2, 'use "^" instead'),  # an escaped backslash, then \A
    (r"a*+", 'the possessive quantifier "*+"', 1, 'use "*" instead'),
    (r"a++", 'the possessive quantifier "++"', 1, 'use "+" instead'),
    (r"a?+", 'the possessive quantifier "?+"', 1, 'use "?" instead'),
    (r"a{2}+", 'the possessive quantifier "{2}+"', 1, 'use "{2}" instead'),
    (r"a{2,5}+", 'the possessive quantifier "{2,5}+"', 1, 'use "{2,5}" instead'),
    (r"a{,5}", 'the quantifier "{,5}"', 1, 'use "{0,5}" instead'),
    (r"a{,}", 'the quantifier "{,}"', 1, 'use "*" instead'),
    (r"(?=a)*", 'the quantifier "*" on a lookaround assertion', 5, "remove the quantifier"),
    # escapes that ECMA-262 refuses in unicode mode or reads differently
    (r"\#", 'the escape "\\#"', 0, 'write "#" without the backslash'),
    (r"\-", 'the escape "\\-"', 0, 'write "-" without the backslash'),
    (r"a\ b", 'the escape "\\ "', 1, 'write " " without the backslash'),
    (r"\é", 'the escape "\\é"', 0, 'write "é" without the backslash'),
    (r"[\#]", 'the escape "\\#"', 1, 'write "#" without the backslash'),
    (r"\a", 'the escape "\\a"', 0, 'use "\\x07" instead'),
    (r"[\a]", 'the escape "\\a"', 1, 'use "\\x07" instead'),
    (r"\U0001F600", 'the escape "\\U0001F600"', 0, "write the character itself instead"),
    (r"\U000000e9", 'the escape "\\U000000e9"', 0, 'use "\\u00e9" instead'),
    (r"\N{EM DASH}", 'the escape "\\N{EM DASH}"', 0, "write the character itself instead"),
    (r"\ud83d\ude00", 'the surrogate escape "\\ud83d"', 0, "write the character itself instead"),
    (r"\012", 'the octal escape "\\012"', 0, 'use "\\x0a" instead'),
    (r"(a)\123", 'the octal escape "\\123"', 3, 'use "\\x53" instead'),
    (r"[\1]", 'the octal escape "\\1"', 1, 'use "\\x01" instead'),
    (r"\08", '"\\0" followed by a digit', 0, 'use "\\x00" instead'),
    # brackets Python reads as literal text
    (r"{", 'the unescaped "{"', 0, 'escape it as "\\{"'),
    (r"x{}", 'the unescaped "{"', 1, 'escape it as "\\{"'),
    (r"a{1, 3}", 'the unescaped "{"', 1, SPACED),
    (r"a}", 'the unescaped "}"', 1, 'escape it as "\\}"'),
    (r"a]", 'the unescaped "]"', 1, 'escape it as "\\]"'),
    (r"[]a]", FIRST_IN_CLASS, 1, 'escape it as "\\]"'),
    (r"[^]a]", FIRST_IN_CLASS, 2, 'escape it as "\\]"'),
    # set syntax (Python warns about it; ECMA-262's v mode reads it as set operations)
    (r"[[:alpha:]]", '"[" inside a character class', 1, 'escape it as "\\["'),
    (r"[a&&b]", '"&&" inside a character class', 2, 'list "&" only once'),
    (r"[a||b]", '"||" inside a character class', 2, 'list "|" only once'),
    (r"[a~~b]", '"~~" inside a character class', 2, 'list "~" only once'),
    (r"[+--]", '"--" inside a character class', 2, 'escape the second one as "\\-"'),
]


@pytest.mark.parametrize(("pattern", "construct", "pos", "fix"), UNPORTABLE)
def test_python_only_syntax_is_named_with_its_replacement(
    pattern: str, construct: str, pos: int, fix: str
) -> None:
    assert pattern_problem(pattern) == unportable(pattern, construct, pos, fix)


def test_unportable_message_in_full() -> None:
    assert pattern_problem(r"^\d+\Z") == (
        'pattern "^\\d+\\Z" uses "\\Z" at position 4, which is not portable to ECMA-262 '
        'regular expressions (JavaScript, JSON Schema); use "$" instead'
    )


def test_python_only_syntax_is_reported_before_a_compile_error() -> None:
    # Python 3.11 does not know \z at all; the portable advice is the useful one everywhere
    assert pattern_problem(r"a\z(") == unportable(r"a\z(", '"\\z"', 1, 'use "$" instead')


# --- does not compile ----------------------------------------------------------------------

NOT_COMPILING = [
    ("(a", "missing ), unterminated subpattern at position 0; fix the regular expression syntax"),
    ("a)", "unbalanced parenthesis at position 1; fix the regular expression syntax"),
    ("[a", "unterminated character set at position 0; fix the regular expression syntax"),
    ("*a", "nothing to repeat at position 0; fix the regular expression syntax"),
    ("a**", "multiple repeat at position 2; fix the regular expression syntax"),
    ("^*", "nothing to repeat at position 1; fix the regular expression syntax"),
    (r"\q", "bad escape \\q at position 0; fix the regular expression syntax"),
    (r"\p{L}", "bad escape \\p at position 0; fix the regular expression syntax"),
    ("(?<name>a)", "unknown extension ?<n at position 1; fix the regular expression syntax"),
    (r"(a)\2", "invalid group reference 2 at position 4; fix the regular expression syntax"),
    (r"(a\1)", "cannot refer to an open group at position 2; fix the regular expression syntax"),
    ("[z-a]", "bad character range z-a at position 1; fix the regular expression syntax"),
    (r"[\d-z]", "bad character range \\d-z at position 1; fix the regular expression syntax"),
    (
        "a{3,2}",
        "min repeat greater than max repeat at position 2; fix the regular expression syntax",
    ),
    (r"\x4", "incomplete escape \\x4 at position 0; fix the regular expression syntax"),
    ("a{99999999999}", "the repetition number is too large; use a smaller count"),
    ("\\", "bad escape (end of pattern) at position 0; fix the regular expression syntax"),
]


@pytest.mark.parametrize(("pattern", "reason"), NOT_COMPILING)
def test_pattern_that_re_refuses_carries_res_reason(pattern: str, reason: str) -> None:
    assert pattern_problem(pattern) == f'pattern "{pattern}" does not compile: {reason}'


def test_nesting_too_deep_for_re() -> None:
    pattern = "(" * 2000 + ")" * 2000
    assert pattern_problem(pattern) == (
        f'pattern "{"(" * 80}…" does not compile: it nests groups too deeply for Python\'s re; '
        "use fewer nested groups"
    )


# --- catastrophic backtracking -------------------------------------------------------------


OWASP_EMAIL = (
    r"^([a-zA-Z0-9])(([\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}"
    r"(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$"
)
REGEXLIB_EMAIL = (
    r"^([0-9a-zA-Z]([-.\w]*[0-9a-zA-Z])*@([0-9a-zA-Z][-\w]*[0-9a-zA-Z]\.)+[a-zA-Z]{2,9})$"
)
OWASP_MATCHER = (
    r"^([a-z0-9]+([\-a-z0-9]*[a-z0-9]+)?\.){0,}([a-z0-9]+([\-a-z0-9]*[a-z0-9]+)?){1,63}"
    r"(\.[a-z0-9]{2,7})+$"
)

# Patterns that backtrack catastrophically in Python's re (the textbook cases, then published
# ReDoS examples: OWASP "Regular expression Denial of Service", RegExLib entries it cites).
# Registration used to refuse them; the plan runs them on the linear-time matcher, so they are
# accepted, with these verdicts.
CATASTROPHIC_IN_RE = [
    ("(a+)+", "ba", True),
    ("(a+)+", "b", False),
    ("(a*)*", "b", True),
    ("(a+)*b", "aab", True),
    ("(a+)*b", "aaa!", False),
    (r"^(\d+)+$", "123", True),
    (r"^(\d+)+$", "12a", False),
    (r"(\w+\s?)*", "!", True),
    ("(([a-z])+.)+", "ab", True),
    ("(([a-z])+.)+", "a", False),
    ("(a+){2}", "aa", True),
    ("(a+){2}", "a", False),
    ("(a+){2,100}", "aa", True),
    ("(a+){2,100}", "ab", False),
    (r"(\w{1,3}\s?){1,100}", "ab c", True),
    (r"(\w{1,3}\s?){1,100}", " !", False),
    ("(a|a)*", "b", True),
    (r"(\d|\w)+", "_", True),
    (r"(\d|\w)+", "é", False),  # \w is ASCII in ECMA-262
    ("(a|a){9}", "a" * 9, True),
    ("(a|a){9}", "a" * 8, False),
    ("(a|aa)+", "ba", True),
    ("(a|aa)+", "b", False),
    ("(x+x+)+y", "xxy", True),
    ("(x+x+)+y", "xy", False),
    ("(a?a?)+", "b", True),
    (r"(\d|[٠-٩])+", "٣", True),
    (r"(\d|[٠-٩])+", "a", False),
    (r"(\w|é)+", "é", True),
    (r"(\w|é)+", "è", False),
    ("(\\s|\ufeff)+", "\ufeff", True),
    ("(\\s|\ufeff)+", "a", False),
    ("(?=(a+)+)", "ba", True),
    ("(?=(a+)+)", "b", False),
    ("^(?:(?:a?)+b)+$", "abab", True),
    ("^(?:(?:a?)+b)+$", "aba", False),
    ("^(?:(?:a*)?b)+$", "bb", True),
    ("^(?:(?:a*)?b)+$", "", False),
    ("(?:(?:|)a)+", "a", True),
    ("(?:(?:|)a)+", "b", False),
    (r"^(?:(?:a?){2}\d)+$", "aa1a2", True),
    (r"^(?:(?:a?){2}\d)+$", "aaa1", False),
    ("(?:a*|b*)*", "c", True),
    (r"^(?:(?:(?:(?:(?:\b)*?)?)+){3,})+$", "", True),
    (r"^(?:(?:(?:(?:(?:\b)*?)?)+){3,})+$", "a", False),
    ("^(a|aa)+$", "aaa", True),
    ("^(a|aa)+$", "aab", False),
    ("^(a|a?)+$", "", True),
    ("^(a|a?)+$", "b", False),
    ("(a|b|ab)*c", "abc", True),
    ("(a|b|ab)*c", "ab", False),
    ("^(.*a){12}$", "a" * 12, True),
    ("^(.*a){12}$", "a" * 11, False),
    (r"^(([a-z])+.)+[A-Z]([a-z])+$", "ab!Cd", True),
    (r"^(([a-z])+.)+[A-Z]([a-z])+$", "ab", False),
    (OWASP_EMAIL, "user@example.com", True),
    (OWASP_EMAIL, "user@example", False),
    (REGEXLIB_EMAIL, "user@example.com", True),
    (REGEXLIB_EMAIL, "user@example", False),
    (OWASP_MATCHER, "example.com", True),
    (OWASP_MATCHER, "example", False),
    (r"^\d*[0-9](|.\d*[0-9]|)*$", "12.5", True),
    (r"^\d*[0-9](|.\d*[0-9]|)*$", "12.", False),
    (r"^(\s*,?\s*)*$", " , ,", True),
    (r"^(\s*,?\s*)*$", "a", False),
]


@pytest.mark.parametrize(("pattern", "text", "verdict"), CATASTROPHIC_IN_RE)
def test_catastrophic_patterns_are_accepted_and_run_on_the_matcher(
    pattern: str, text: str, verdict: bool
) -> None:
    assert pattern_problem(pattern) is None
    assert plan(pattern).engine == "matcher"
    assert plan(pattern).search(text) is verdict


def test_pattern_too_big_to_parse_is_refused() -> None:
    pattern = "(" + "a" * 1000 + ")" + "\\1" * 30  # every backreference counts as a copy
    assert pattern_problem(pattern) == (
        f'pattern "{pattern[:80]}…" is too complex to check for catastrophic backtracking; '
        "simplify its repeated groups"
    )


def test_pattern_too_big_for_the_matcher_is_refused() -> None:
    # re is not proven linear on it (every option starts with "a"), and the matcher's
    # program would pass its state limit
    pattern = "(?:" + "|".join(f"a{i}" for i in range(500)) + ")+"
    assert pattern_problem(pattern) == (
        f'pattern "{pattern[:80]}…" needs more than 2,000 matcher states, each counted repeat '
        "written out as copies of its body; use smaller counts, fewer nested counted repeats "
        "or fewer alternatives"
    )


def test_a_long_ambiguous_repeat_runs_on_the_matcher() -> None:
    pattern = "(?:" + "a?" * 300 + "b)+"
    assert pattern_problem(pattern) is None
    assert plan(pattern).engine == "matcher"
    assert plan(pattern).search("a" * 300 + "b") is True
    assert plan(pattern).search("a" * 301) is False


# --- messages ------------------------------------------------------------------------------


def test_control_characters_are_escaped_in_messages() -> None:
    assert pattern_problem("(\n\t") == (
        'pattern "(\\n\\t" does not compile: missing ), unterminated subpattern at position 0 '
        "(line 1, column 1); fix the regular expression syntax"
    )
    # What is not printable is written as JSON writes it, as in every other message.
    assert pattern_problem("a\x01\u200b\x7f(?i)") == unportable(
        "a\\u0001\\u200b\\u007f(?i)",
        'the inline flags "(?i)"',
        4,
        'remove it and spell out both cases instead, e.g. "[Aa]"',
    )


def test_long_patterns_are_cut_in_messages() -> None:
    pattern = "x" * 100 + r"\A"
    assert pattern_problem(pattern) == unportable("x" * 80 + "…", '"\\A"', 100, 'use "^" instead')


# --- properties ----------------------------------------------------------------------------

TOKENS = [
    *"ab1.^$|*+?()[]{}-,:=!<>#&~ \\",
    "(?:",
    "(?=",
    "(?!",
    "(?<=",
    "(?P<n>",
    "(?i)",
    "{2}",
    "{1,3}",
    "{2,}",
    "[^",
    r"\d",
    r"\w",
    r"\s",
    r"\b",
    r"\1",
    r"\x41",
    r"\u00e9",
    "a?",
    "a*",
    "a+",
    "(a|b)",
    "é",
    "٣",
]


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=40))
def test_never_raises_on_any_text(pattern: str) -> None:
    check_answer(pattern)


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=16).map("".join))
def test_never_raises_on_pattern_like_text(pattern: str) -> None:
    check_answer(pattern)


def check_answer(pattern: str) -> None:
    problem = pattern_problem(pattern)
    if problem is None:
        plan(pattern)  # accepted patterns have a plan, without warnings (pytest errors on them)
        return
    assert isinstance(problem, str)
    assert problem.startswith('pattern "')
    assert "\n" not in problem
    assert not problem.endswith(".")
    assert "too complex" not in problem  # small patterns are always analysed


# --- the accepted patterns really are fast --------------------------------------------------

HOSTILE_RUNNER = textwrap.dedent(
    """
    import itertools, json, sys
    from pedelec.schema.patterns.translate import plan

    pattern = plan(json.loads(sys.argv[1]))
    units = ["a", "A", "0", "-", ".", "@", "_", " ", "a-", "a.", "a@", "0.", "aA0", "ab", "a b"]
    tails = ["", "!", "\\n", "@", "-", " "]
    for unit, tail in itertools.product(units, tails):
        text = (unit * 5_000)[: 5_000 - len(tail)] + tail
        pattern.search(text)
        pattern.search("#" + text)
        pattern.search("http://" + text)
        pattern.search("a@" + text)
    print("done")
    """
)


@pytest.mark.parametrize("pattern", SAFE)
def test_accepted_patterns_finish_on_hostile_input(pattern: str) -> None:
    # Only a hard timeout: a catastrophic pattern would run for hours on 5,000 characters.
    run = subprocess.run(
        [sys.executable, "-c", HOSTILE_RUNNER, json.dumps(pattern)],
        capture_output=True,
        text=True,
        timeout=20,
        check=True,
    )
    assert run.stdout == "done\n"


def test_import_loads_nothing_beyond_typing_extensions() -> None:
    # pedelec already depends on typing_extensions, which brings typing, re and collections;
    # `from __future__ import annotations` loads __future__ (no start-up hook preloads it now)
    code = (
        "import __future__, sys, typing_extensions; before = set(sys.modules); "
        "import pedelec.schema.patterns; "
        "print(sorted(m for m in set(sys.modules) - before if not m.startswith('pedelec')))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert run.stdout == "[]\n"
