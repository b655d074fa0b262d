"""Regular expressions on agent input: ReDoS patterns run in linear time, on bounded text.

A schema ``pattern`` is searched on strings an agent sends. Three protections are tested here:

* patterns that would backtrack catastrophically in Python's re are accepted and run on the
  linear-time matcher, answering at once on the strings that make re backtrack;
* registration refuses patterns that no linear-time path can run, with an ``INVALID_INPUT``
  error that names the tool, the pointer, the construct and a fix; ``pedelec check`` reports
  the same error for a target that declares one;
* a pattern is only ever run on strings of at most ``Limits.max_pattern_length`` code points;
  a longer string fails ``pattern`` without being searched (proved with a spy on the compiled
  pattern, and with a pattern that registration accepts but that is quadratic, on a string that
  would keep it busy for an hour, in a subprocess with a hard timeout).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

from pedelec import ArgError, Limits, PedelecError, Session, ToolResult, compile_schema, define_tool
from pedelec.cli import main
from pedelec.schema import _codegen, interpret
from pedelec.schema.patterns import pattern_problem
from pedelec.schema.patterns.translate import plan

AGAIN = "Correct the arguments and call the tool again."

# Known catastrophic patterns (OWASP's ReDoS examples and the classic textbook ones). Python's
# re would backtrack exponentially on them; the validator's plan runs them on the linear-time
# matcher instead, so registration accepts them. Each comes with a string that makes a
# backtracking engine pay (a character repeated, then a last one) and the verdict.
REDOS: list[tuple[str, str, str, bool]] = [
    (r"^(a+)+$", "a", "!", False),
    (r"([a-zA-Z]+)*", "a", "!", True),
    (r"(a|aa)+", "a", "!", True),
    (r"(a|a?)+", "a", "!", True),
    (r"(a|a)*", "a", "!", True),
    (r"(.*a){12}", "a", "!", True),
    (r"^(([a-z])+.)+[A-Z]([a-z])+$", "a", "!", False),
    (r"(\w+\s?)+$", "a", "!", False),
    (r"^(\d+)+$", "1", "a", False),
    (r"^(\w|\d)+$", "1", "!", False),
    (r"(x+x+)+y", "x", "x", False),
    (r"^(a*)*$", "a", "!", False),
    (r"(a+){2,9}", "a", "!", True),
    (r"^(.*?,){11}P", ",", "!", False),
    (r"^([a-z0-9]+[-.]?)+[a-z0-9]+$", "a", "!", False),
]

# Patterns neither path can run in linear time: Python's re is not proven linear on them and
# the matcher cannot carry the backreference. Registration names the construct and the fix.
REFUSED: list[tuple[str, str]] = [
    (
        r"^(a+)+\1$",
        'pattern "^(a+)+\\1$" uses the backreference "\\1" to the group "(a+)", which can '
        "capture more than one character, so it cannot be matched in time linear in the string; "
        "remove the backreference or let the group capture exactly one character",
    ),
    (
        r"(.)\1+",
        'pattern "(.)\\1+" uses the backreference "\\1" to the group "(.)", and the groups its '
        "backreferences name can capture more than 255 different characters between them, so it "
        "cannot be matched in time linear in the string; remove the backreference or narrow the "
        "characters its group can capture",
    ),
    (
        r"(?=(a+))\1",
        'pattern "(?=(a+))\\1" uses the backreference "\\1" with a lookaround around it or '
        "around its group, which cannot be matched in time linear in the string; remove the "
        "backreference or move it and its group out of the lookaround",
    ),
    (
        r"^(?:(a)|b?)*\1$",
        'pattern "^(?:(a)|b?)*\\1$" uses a backreference to the group "(a)" inside the repeat '
        '"(?:(a)|b?)*", which can repeat the empty string, so it cannot be matched in time '
        "linear in the string; remove the backreference or make the repeated part match at "
        "least one character",
    ),
]


def string_schema(pattern: str, **extra: Any) -> Any:
    return {"type": "object", "properties": {"s": {"type": "string", "pattern": pattern, **extra}}}


REFUSED_PARAMS = [pytest.param(p, r, id=p) for p, r in REFUSED]


@pytest.mark.parametrize(("pattern", "unit", "last", "verdict"), REDOS)
def test_redos_patterns_are_accepted_and_run_on_the_matcher(
    pattern: str, unit: str, last: str, verdict: bool
) -> None:
    assert pattern_problem(pattern) is None
    assert plan(pattern).engine == "matcher"
    assert plan(pattern).search(unit * 20 + last) is verdict


_RUN_REDOS = """
import json, sys
from pedelec.schema.patterns.translate import plan
cases = json.loads(sys.stdin.read())
print(json.dumps([plan(p).search(u * 1023 + t) for p, u, t in cases]))
"""


def test_redos_patterns_answer_promptly_on_hostile_strings() -> None:
    # a hard timeout only: Python's re would backtrack for hours on most of these
    done = subprocess.run(
        [sys.executable, "-c", _RUN_REDOS],
        input=json.dumps([(p, u, t) for p, u, t, _ in REDOS]),
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert json.loads(done.stdout) == [verdict for *_, verdict in REDOS]


@pytest.mark.parametrize(("pattern", "message"), REFUSED_PARAMS)
def test_registration_refuses_what_no_linear_path_runs(pattern: str, message: str) -> None:
    assert pattern_problem(pattern) == message
    session = Session()
    with pytest.raises(PedelecError) as caught:
        session.on_tool("slug", description="Slug.", schema=string_schema(pattern))(lambda a: a)
    assert caught.value.code == "INVALID_INPUT"
    assert caught.value.message == (
        f'Invalid schema for tool "slug" at /properties/s/pattern: {message}.'
    )
    assert caught.value.details == {
        "pointer": "/properties/s/pattern",
        "keyword": "pattern",
        "tool": "slug",
    }
    assert session.tool_names() == []


NESTED_REDOS: Any = {
    "type": "object",
    "properties": {
        "tags": {
            "type": "array",
            "items": {"oneOf": [{"type": "integer"}, {"type": "string", "pattern": REFUSED[0][0]}]},
        }
    },
}
NESTED_POINTER = "/properties/tags/items/oneOf/1/pattern"
NESTED_REASON = REFUSED[0][1]


def test_every_way_in_refuses_a_nested_redos_pattern() -> None:
    ways = {
        "define_tool": lambda: define_tool(
            name="tags", description="Tags.", schema=NESTED_REDOS, handler=lambda args: args
        ),
        "on_tool": lambda: Session().on_tool("tags", description="Tags.", schema=NESTED_REDOS)(
            lambda args: args
        ),
    }
    for way, register in ways.items():
        with pytest.raises(PedelecError) as caught:
            register()
        assert caught.value.code == "INVALID_INPUT", way
        assert caught.value.message == (
            f'Invalid schema for tool "tags" at {NESTED_POINTER}: {NESTED_REASON}.'
        )
        assert caught.value.details == {
            "pointer": NESTED_POINTER,
            "keyword": "pattern",
            "tool": "tags",
        }
    with pytest.raises(PedelecError) as caught:
        Session.from_manifest(
            {"tools": [{"name": "tags", "description": "Tags.", "argsSchema": NESTED_REDOS}]}
        )
    assert caught.value.message == (
        "The manifest's schemas are outside the Tool Args Schema subset in 1 place; fix it as "
        "each line says, or convert each argsSchema with pedelec.schema.convert or "
        f'`pedelec convert FILE`:\n- tool "tags" at {NESTED_POINTER}: {NESTED_REASON}.'
    )
    assert caught.value.details == {
        "problems": [
            {
                "tool": "tags",
                "index": 0,
                "pointer": NESTED_POINTER,
                "keyword": "pattern",
                "message": NESTED_REASON,
            }
        ]
    }
    with pytest.raises(PedelecError) as caught:
        compile_schema(NESTED_REDOS)
    assert caught.value.message == f"Invalid schema at {NESTED_POINTER}: {NESTED_REASON}."
    assert caught.value.details == {"pointer": NESTED_POINTER, "keyword": "pattern"}


@pytest.mark.parametrize(
    "pattern",
    [
        "a+",  # the fixes the messages suggest
        "[a-zA-Z]*",
        r"^\d+$",
        r"^[a-z]+(-[a-z]+)*$",  # each repetition starts with a character the last one cannot
        r"^[A-Z]{2}-\d{4}$",
        r"^[^@\s]+@[^@\s]+$",
        r"\s+$",
    ],
)
def test_registration_accepts_unambiguous_patterns(pattern: str) -> None:
    assert pattern_problem(pattern) is None
    session = Session()
    session.on_tool("slug", description="Slug.", schema=string_schema(pattern))(lambda args: 1)
    assert session.tool_names() == ["slug"]


# --- pedelec check -----------------------------------------------------------------------------

TARGET = """
from pedelec import Session

session = Session()


@session.on_tool(
    "slug",
    description="Make a slug.",
    schema={{"type": "object", "properties": {{"s": {{"type": "string", "pattern": {pattern!r}}}}}}},
)
def slug(args):
    return args["s"]
"""


@pytest.mark.parametrize(("pattern", "message"), REFUSED_PARAMS[:2])
def test_pedelec_check_reports_a_refused_pattern(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pattern: str, message: str
) -> None:
    # Registration refuses the pattern, so loading the target fails and check reports that
    # error (with its pointer) instead of a list of findings.
    path = tmp_path / "redos_tools.py"
    path.write_text(TARGET.format(pattern=pattern))
    assert main(["check", f"{path}:session"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f'error: INVALID_INPUT: Invalid schema for tool "slug" at /properties/s/pattern: '
        f"{message}.",
        "1 error",
    ]
    assert err == ""


def test_pedelec_check_passes_a_safe_pattern_and_warns_about_its_length(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "safe_tools.py"
    path.write_text(TARGET.format(pattern=r"^[a-z]+(-[a-z]+)*$"))
    assert main(["check", f"{path}:session"]) == 0
    out, _ = capsys.readouterr()
    assert out.splitlines() == [
        "warning: slug /properties/s: property has no description to tell the model what to send",
        "warning: slug /properties/s: string has a pattern but no maxLength, so the agent may "
        "send any length (the pattern runs on up to Limits.max_pattern_length characters; longer "
        "strings fail)",
        "1 tool checked: 0 errors, 2 warnings",
    ]


# --- patterns only run on strings within max_pattern_length -------------------------------------


class SpyPattern:
    """Stands in for a compiled pattern and records the length of every string searched."""

    def __init__(self, real: Any, searched: list[int]) -> None:
        self.real = real
        self.searched = searched

    def search(self, text: str) -> Any:
        self.searched.append(len(text))
        return self.real.search(text)


@pytest.fixture
def searched(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Lengths of the strings every pattern is searched on from now on: by code generated
    from now on, and by the interpreter a new validator answers its first calls with."""
    lengths: list[int] = []
    real = _codegen.plan
    monkeypatch.setattr(_codegen, "plan", lambda source: SpyPlan(real(source), lengths))
    monkeypatch.setattr(interpret, "plan", lambda source: SpyPlan(real(source), lengths))
    return lengths


class SpyPlan:
    """Stands in for a pattern's plan, with no fast path, so every check runs a search."""

    def __init__(self, real: Any, searched: list[int]) -> None:
        self.engine = real.engine
        self.fast = None
        self.regex = None if real.regex is None else SpyPattern(real.regex, searched)
        self.real = real
        self.searched = searched

    def search(self, text: str) -> bool:
        self.searched.append(len(text))
        return bool(self.real.search(text))


def fresh(schema: Any) -> Any:
    """``schema`` with a unique description, so the validator cache cannot hand back code that
    was generated before the spy was in place."""
    return {**schema, "description": f"fresh {uuid.uuid4()}"}


QUADRATIC = r"\s+$"  # accepted by registration; quadratic on many spaces followed by "x"

BOUNDED: Any = {
    "type": "object",
    "properties": {
        "s": {"type": "string", "pattern": QUADRATIC},
        "list": {"type": "array", "items": {"type": "string", "pattern": QUADRATIC}},
        "either": {"oneOf": [{"type": "integer"}, {"type": "string", "pattern": QUADRATIC}]},
    },
}


def too_long(path: str, length: int, limit: int) -> dict[str, str]:
    return {
        "path": path,
        "keyword": "pattern",
        "message": f'is {length} characters long, too long to check against pattern "\\\\s+$" '
        f"(limit {limit}); send a shorter string",
    }


def mismatch(path: str, text: str) -> dict[str, str]:
    return {
        "path": path,
        "keyword": "pattern",
        "message": f'must match pattern "\\\\s+$", got "{text}"',
    }


def report(result: ToolResult) -> list[dict[str, str]]:
    assert result.error is not None and result.error.code == "TOOL_ARGS_INVALID"
    errors: list[dict[str, str]] = result.error.details["errors"]
    listed = "; ".join(f"{e['path']}: {e['message']} ({e['keyword']})" for e in errors)
    assert result.error.message == f'Invalid arguments for tool "t": {listed}. {AGAIN}'
    return errors


@pytest.mark.parametrize("kind", ["dict", "text"])
def test_a_string_over_the_bound_fails_without_being_searched(
    searched: list[int], kind: str
) -> None:
    session = Session(limits=Limits(max_pattern_length=100))
    session.on_tool("t", description="T.", schema=fresh(BOUNDED))(lambda args: "ran")
    long = " " * 100 + "x"
    args: Any = {"s": long, "list": ["y", long], "either": long}
    result = session.dispatch_sync("t", args if kind == "dict" else json.dumps(args))
    # oneOf reports the branch's first error inside its own message.
    either = (
        'matches none of the 2 alternatives: [1] /either: expected integer, got string "'
        + " " * 40
        + '…"; [2] /either: is 101 characters long, too long to check against pattern "\\\\s+$" '
        "(limit 100); send a shorter string"
    )
    assert report(result) == [
        too_long("/s", 101, 100),
        mismatch("/list/0", "y"),
        too_long("/list/1", 101, 100),
        {"path": "/either", "keyword": "oneOf", "message": either},
    ]
    assert searched  # the spy is in place: "y" was searched
    assert max(searched) == 1


@pytest.mark.parametrize("kind", ["dict", "text"])
def test_a_string_at_the_bound_is_searched(searched: list[int], kind: str) -> None:
    session = Session(limits=Limits(max_pattern_length=100))
    session.on_tool("t", description="T.", schema=fresh(BOUNDED))(lambda args: "ran")
    at_limit = " " * 99 + "x"
    args: Any = {"s": at_limit}
    result = session.dispatch_sync("t", args if kind == "dict" else json.dumps(args))
    assert report(result) == [mismatch("/s", " " * 40 + "…")]
    # Searched (by the fast check, and again while the error is collected), never cut short.
    assert set(searched) == {100}
    searched.clear()
    ok = session.dispatch_sync("t", {"s": "x" + " " * 99})
    assert ok.error is None and ok.value == "ran"
    assert searched == [100]


def test_compile_schema_applies_its_own_bound(searched: list[int]) -> None:
    validator = compile_schema(fresh(BOUNDED), max_pattern_length=10)
    assert validator.is_valid({"s": " " * 11}) is False
    assert validator.errors({"s": " " * 11}) == [
        ArgError(
            ("s",),
            "pattern",
            'is 11 characters long, too long to check against pattern "\\\\s+$" (limit 10); '
            "send a shorter string",
        )
    ]
    assert searched == []
    assert validator.is_valid({"s": " " * 10}) is True
    assert searched == [10]


NO_HANG_SCRIPT = """
import json
from pedelec import Session

session = Session()
session.on_tool("t", description="T.", schema={schema!r})(lambda args: "ran")
for label, args in (
    ("dict", {{"s": " " * 1_000_000 + "x"}}),
    ("text", json.dumps({{"s": " " * 990_000 + "x"}})),
    ("list", {{"list": [" " * 5_000 + "x"] * 19}}),
):
    result = session.dispatch_sync("t", args)
    errors = result.error.details["errors"]
    print(label, result.error.code, sorted({{e["keyword"] for e in errors}}), len(errors), flush=True)
"""


def test_a_quadratic_pattern_on_a_megabyte_string_is_answered_at_once() -> None:
    # Searching "\\s+$" on a million spaces and an "x" takes about an hour with Python's re
    # (every start position scans to the end); under the bound it is never searched. The hard
    # timeout is far above the real cost and proves the search did not run; nothing is timed.
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(NO_HANG_SCRIPT.format(schema=BOUNDED))],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.stderr == ""
    assert done.stdout.splitlines() == [
        "dict TOOL_ARGS_INVALID ['pattern'] 1",
        "text TOOL_ARGS_INVALID ['pattern'] 1",
        "list TOOL_ARGS_INVALID ['pattern'] 19",
    ]


POLYNOMIAL_SCRIPT = """
from pedelec import PedelecError, Session

from pedelec import DEFAULT_LIMITS
n = DEFAULT_LIMITS.max_pattern_length
for pattern, text in ((r"\\d+\\d+$", "1" * (n - 1) + "x"), ("a*a*b", "a" * n), (".*.*=.*", " " * n)):
    session = Session()
    try:
        session.on_tool("t", description="T.", schema={{
            "type": "object", "properties": {{"s": {{"type": "string", "pattern": pattern}}}}
        }})(lambda args: "ran")
    except PedelecError as exc:
        print(pattern, exc.code, flush=True)
        continue
    result = session.dispatch_sync("t", {{"s": text}})
    print(pattern, result.error.code if result.error else result.value, flush=True)
"""


def test_accepted_polynomial_patterns_are_answered_at_once_within_the_bound() -> None:
    # Polynomially ambiguous patterns (\d+\d+$, a*a*b, .*.*=.*) pass registration; the default
    # max_pattern_length (1024) keeps the longest string they are run on to about a second each
    # here (at 4096 it was 10-60 s). The hard timeout only catches a search that runs on.
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(POLYNOMIAL_SCRIPT.format())],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0
