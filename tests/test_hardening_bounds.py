"""Resource bounds: every bound of ``pedelec.Limits`` over dict args and JSON-text args.

Each bound is tested at its edge (the largest input inside it reaches the handler, one more is
``TOOL_ARGS_INVALID`` with the whole message), for args given as a dict and as JSON text. Then
the hostile sizes of issue 6 (a 100 000-deep array or object, a 50 MB string, a 1 000 000-item
array, 10 000 duplicate keys) are sent under the default limits, and once more in a subprocess
with a hard timeout, which proves that none of them hangs or crashes the interpreter. There are
no timing assertions.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import pytest

from pedelec import Limits, Session, ToolResult

AGAIN = "Correct the arguments and call the tool again."

OPEN: Any = {"type": "object"}

HOSTILE: Any = {
    "type": "object",
    "properties": {
        "word": {"type": "string", "pattern": "^a+$"},
        "short": {"type": "string", "maxLength": 1000},
        "numbers": {"type": "array", "items": {"type": "integer"}},
    },
}


class Echo:
    """An ``echo`` tool that records what reached its handler."""

    def __init__(self, limits: Limits | None = None, schema: Any = OPEN, **options: Any) -> None:
        self.calls: list[dict[str, Any]] = []
        self.session = Session(limits=limits, **options)
        self.session.on_tool("echo", description="Echo.", schema=schema)(self.handle)

    def handle(self, args: dict[str, Any]) -> str:
        self.calls.append(args)
        return "ran"

    def call(self, args: Any) -> ToolResult:
        result = self.session.dispatch_sync("echo", args)
        assert self.session.status == "idle"
        return result


def ran(result: ToolResult) -> bool:
    assert result.error is None, result.error
    assert result.value == "ran"
    return True


def invalid(result: ToolResult, message: str, details: dict[str, Any]) -> None:
    """Assert a ``TOOL_ARGS_INVALID`` result with exactly this message (after the tool prefix)."""
    assert result.error is not None
    assert result.error.code == "TOOL_ARGS_INVALID"
    assert result.error.message == f'Invalid arguments for tool "echo": {message}. {AGAIN}'
    assert result.error.details == {"tool": "echo", **details}


def one_error(path: str, keyword: str, message: str) -> tuple[str, dict[str, Any]]:
    """The message part and details of a result holding one validation error."""
    shown = f"{path or '(root)'}: {message} ({keyword})"
    return shown, {"errors": [{"path": path, "keyword": keyword, "message": message}]}


def as_kind(text: str, kind: str) -> Any:
    return (
        text if kind == "str" else (text.encode() if kind == "bytes" else bytearray(text.encode()))
    )


# --- max_args_bytes --------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["str", "bytes", "bytearray"])
def test_max_args_bytes_counts_utf8_bytes_of_the_text(kind: str) -> None:
    echo = Echo(Limits(max_args_bytes=40))
    # '{"x":"' + 16 two-byte characters + '"}': 24 characters, exactly 40 bytes of UTF-8.
    at_limit = '{"x":"' + "é" * 16 + '"}'
    assert len(at_limit.encode()) == 40
    assert ran(echo.call(as_kind(at_limit, kind)))
    assert echo.calls == [{"x": "é" * 16}]

    over = '{"x":"' + "é" * 16 + 'a"}'  # 25 characters but 41 bytes: bytes are what count
    too_large = (
        "args are too large: the JSON text is longer than 40 bytes of UTF-8; send smaller args"
    )
    invalid(echo.call(as_kind(over, kind)), too_large, {"maxBytes": 40})
    assert len(echo.calls) == 1


def test_max_args_bytes_is_checked_before_decoding_bytes() -> None:
    echo = Echo(Limits(max_args_bytes=40))
    not_utf8 = b'{"x":"' + b"\xff" * 40 + b'"}'
    invalid(
        echo.call(not_utf8),
        "args are too large: the JSON text is longer than 40 bytes of UTF-8; send smaller args",
        {"maxBytes": 40},
    )
    invalid(
        echo.call(b'{"x":"\xff"}'),
        "args are not valid JSON: byte 6 (line 1, column 7) is not valid UTF-8; "
        "send the text as UTF-8",
        {"line": 1, "column": 7, "byte": 6},
    )


# --- max_args_values -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "path"),
    [
        # root + "a" + four items = 6 values; one more item is 7.
        ({"a": [1, 2, 3, 4, 5]}, "/a"),
        # A flat object: root + six values.
        ({"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6}, ""),
        ({"a": {"b": {"c": 1}}, "d": [2, 3]}, "/d"),
    ],
)
def test_max_args_values_bounds_dict_args(args: dict[str, Any], path: str) -> None:
    echo = Echo(Limits(max_args_values=6))
    message, details = one_error(path, "type", "more than 6 values (max_values)")
    invalid(echo.call(args), message, details)
    assert echo.calls == []


@pytest.mark.parametrize(
    "args",
    [
        {"a": [1, 2, 3, 4]},
        {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5},
        {"a": {"b": {"c": 1}}, "d": 2},
    ],
)
def test_max_args_values_lets_exactly_the_bound_through(args: dict[str, Any]) -> None:
    echo = Echo(Limits(max_args_values=6))
    assert ran(echo.call(args))
    assert echo.calls == [args]


def test_text_args_are_bounded_by_bytes_not_values() -> None:
    # max_args_values is the dict-input counterpart of max_args_bytes; text is bounded by size.
    echo = Echo(Limits(max_args_values=6, max_args_bytes=100))
    assert ran(echo.call('{"a": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}'))
    assert echo.calls == [{"a": list(range(1, 11))}]


# --- max_depth -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args", [{"a": [[1]]}, {"a": {"b": {"c": 1}}}, {"a": [{"b": 1}]}, {"a": [], "b": {"c": []}}]
)
@pytest.mark.parametrize("kind", ["dict", "text"])
def test_max_depth_lets_exactly_the_bound_through(args: dict[str, Any], kind: str) -> None:
    echo = Echo(Limits(max_depth=3))
    assert ran(echo.call(args if kind == "dict" else json.dumps(args)))
    assert echo.calls == [args]


@pytest.mark.parametrize(
    ("args", "path", "column", "what"),
    [
        ({"a": [[[]]]}, "/a/0/0", 9, "array"),
        ({"a": [[{}]]}, "/a/0/0", 9, "object"),
        ({"a": {"b": {"c": {}}}}, "/a/b/c", 19, "object"),
        ({"ok": 1, "a": [[1], [[2]]]}, "/a/1/0", 23, "array"),
    ],
)
def test_max_depth_bounds_dict_and_text_args(
    args: dict[str, Any], path: str, column: int, what: str
) -> None:
    echo = Echo(Limits(max_depth=3))
    message, details = one_error(path, "type", "nested deeper than 3 levels (max_depth)")
    invalid(echo.call(args), message, details)
    invalid(
        echo.call(json.dumps(args)),
        f"args are nested too deeply: the {what} at {path} (line 1, column {column}) is nested "
        "4 levels deep, more than the limit of 3; send flatter args",
        {"pointer": path, "line": 1, "column": column, "maxDepth": 3},
    )
    assert echo.calls == []


# --- max_pattern_length ----------------------------------------------------------------------

PATTERNED: Any = {
    "type": "object",
    "properties": {
        "word": {"type": "string", "pattern": "^a+$"},
        "any": {"type": "string", "pattern": "^.+$"},
        "free": {"type": "string"},
    },
}


@pytest.mark.parametrize("kind", ["dict", "text"])
def test_max_pattern_length_runs_the_pattern_up_to_the_bound(kind: str) -> None:
    echo = Echo(Limits(max_pattern_length=5), PATTERNED)

    def call(args: dict[str, Any]) -> ToolResult:
        return echo.call(args if kind == "dict" else json.dumps(args))

    assert ran(call({"word": "aaaaa"}))
    # Code points, not bytes or UTF-16 units: five emoji are five characters.
    assert ran(call({"any": "😀" * 5}))
    # A string without a pattern is not bounded by it.
    assert ran(call({"free": "x" * 10_000}))
    mismatch = one_error("/word", "pattern", 'must match pattern "^a+$", got "aaaab"')
    invalid(call({"word": "aaaab"}), *mismatch)
    assert len(echo.calls) == 3


@pytest.mark.parametrize("kind", ["dict", "text"])
@pytest.mark.parametrize(
    ("args", "path", "source", "length"),
    [
        ({"word": "aaaaaa"}, "/word", "^a+$", 6),
        ({"word": "a" * 100_000}, "/word", "^a+$", 100_000),
        ({"any": "😀" * 6}, "/any", "^.+$", 6),
    ],
)
def test_max_pattern_length_fails_longer_strings_without_searching(
    kind: str, args: dict[str, Any], path: str, source: str, length: int
) -> None:
    echo = Echo(Limits(max_pattern_length=5), PATTERNED)
    message = (
        f'is {length} characters long, too long to check against pattern "{source}" (limit 5); '
        "send a shorter string"
    )
    invalid(
        echo.call(args if kind == "dict" else json.dumps(args)),
        *one_error(path, "pattern", message),
    )
    assert echo.calls == []


# --- max_errors ------------------------------------------------------------------------------

TEN_INTEGERS: Any = {
    "type": "object",
    "properties": {f"p{i}": {"type": "integer"} for i in range(10)},
}


@pytest.mark.parametrize("kind", ["dict", "text"])
def test_max_errors_bounds_the_report(kind: str) -> None:
    echo = Echo(Limits(max_errors=3), TEN_INTEGERS)
    args = {f"p{i}": str(i) for i in range(10)}
    errors = [
        {"path": f"/p{i}", "keyword": "type", "message": f'expected integer, got string "{i}"'}
        for i in range(3)
    ]
    invalid(
        echo.call(args if kind == "dict" else json.dumps(args)),
        '/p0: expected integer, got string "0" (type); /p1: expected integer, got string "1" '
        '(type); /p2: expected integer, got string "2" (type)',
        {"errors": errors},
    )


def test_max_errors_bounds_unknown_args_and_the_timeout_problem_together() -> None:
    echo = Echo(Limits(max_errors=2), TEN_INTEGERS, reject_unknown_args=True)
    result = echo.call({"timeoutMs": -1, "p0": "x", **{f"extra{i}": i for i in range(1000)}})
    invalid(
        result,
        "/timeoutMs: expected a positive integer of milliseconds (this call's timeout), got "
        'integer -1 (timeoutMs); /p0: expected integer, got string "x" (type)',
        {
            "errors": [
                {
                    "path": "/timeoutMs",
                    "keyword": "timeoutMs",
                    "message": "expected a positive integer of milliseconds (this call's "
                    "timeout), got integer -1",
                },
                {"path": "/p0", "keyword": "type", "message": 'expected integer, got string "x"'},
            ]
        },
    )


def test_max_errors_default_caps_a_huge_array_of_bad_items() -> None:
    echo = Echo(schema=HOSTILE)
    result = echo.call({"numbers": ["x"] * 90_000})
    assert result.error is not None and result.error.code == "TOOL_ARGS_INVALID"
    errors = result.error.details["errors"]
    assert errors == [
        {"path": f"/numbers/{i}", "keyword": "type", "message": 'expected integer, got string "x"'}
        for i in range(50)
    ]


# --- max_call_timeout_ms ---------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["dict", "text"])
def test_max_call_timeout_ms_bounds_the_agents_timeout(kind: str) -> None:
    echo = Echo(Limits(max_call_timeout_ms=1000))

    def call(args: dict[str, Any]) -> ToolResult:
        return echo.call(args if kind == "dict" else json.dumps(args))

    assert ran(call({"timeoutMs": 1000}))
    assert echo.calls == [{}]  # taken out before the handler sees the args
    message = (
        "this call's timeout may be at most 1000 ms, got 1001; ask for less or leave timeoutMs "
        "out to use the tool's own timeout"
    )
    invalid(call({"timeoutMs": 1001}), *one_error("/timeoutMs", "timeoutMs", message))
    invalid(
        call({"timeoutMs": 10**30}),
        *one_error("/timeoutMs", "timeoutMs", message.replace("1001", str(10**30))),
    )


# --- hostile sizes under the default limits --------------------------------------------------

DEEP = 100_000


def deep_array_text() -> str:
    return "[" * DEEP + "]" * DEEP


def deep_object_text() -> str:
    return '{"a":' * DEEP + "1" + "}" * DEEP


def deep_list() -> list[Any]:
    root: list[Any] = []
    current = root
    for _ in range(DEEP - 1):
        inner: list[Any] = []
        current.append(inner)
        current = inner
    return root


def deep_dict() -> dict[str, Any]:
    root: dict[str, Any] = {}
    current = root
    for _ in range(DEEP - 1):
        inner: dict[str, Any] = {}
        current["a"] = inner
        current = inner
    return root


def shortened(pointer: str) -> str:
    """A long pointer as parse messages show it: 59 characters, "…", the last 59."""
    return pointer[:59] + "…" + pointer[-59:]


FIFTY_MB = 50_000_000
MILLION = 1_000_000
TOO_LARGE = (
    "args are too large: the JSON text is longer than 1000000 bytes of UTF-8; send smaller args",
    {"maxBytes": 1_000_000},
)
TOO_DEEP = "nested deeper than 64 levels (max_depth)"
DUPLICATES = "{" + ",".join(['"k":1'] * 10_000) + "}"
# 10 000 distinct keys, then "k0" again: its quote is 7 characters from the end ('"k0":2}').
LATE_DUPLICATE = "{" + ",".join(f'"k{i}":1' for i in range(10_000)) + ',"k0":2}'

# (id, args factory, expected message part, expected details); the args are built in the test so
# collecting the file allocates nothing large.
HOSTILE_CASES: list[tuple[str, Callable[[], Any], str, dict[str, Any]]] = [
    (
        "deep-array-text",
        deep_array_text,
        f"args are nested too deeply: the array at {shortened('/0' * 64)} (line 1, column 65) "
        "is nested 65 levels deep, more than the limit of 64; send flatter args",
        {"pointer": "/0" * 64, "line": 1, "column": 65, "maxDepth": 64},
    ),
    (
        "deep-object-text",
        deep_object_text,
        f"args are nested too deeply: the object at {shortened('/a' * 64)} (line 1, column 321) "
        "is nested 65 levels deep, more than the limit of 64; send flatter args",
        {"pointer": "/a" * 64, "line": 1, "column": 321, "maxDepth": 64},
    ),
    ("deep-array-dict", deep_list, *one_error("/0" * 64, "type", TOO_DEEP)),
    ("deep-object-dict", deep_dict, *one_error("/a" * 64, "type", TOO_DEEP)),
    (
        "deep-array-in-dict",
        lambda: {"numbers": deep_list()},
        *one_error("/numbers" + "/0" * 63, "type", TOO_DEEP),
    ),
    ("50MB-string-text", lambda: json.dumps({"short": "a" * FIFTY_MB}), *TOO_LARGE),
    ("50MB-string-bytes", lambda: json.dumps({"short": "a" * FIFTY_MB}).encode(), *TOO_LARGE),
    ("50MB-garbage-bytes", lambda: b"\xff" * FIFTY_MB, *TOO_LARGE),
    (
        "50MB-string-dict-maxLength",
        lambda: {"short": "a" * FIFTY_MB},
        *one_error("/short", "maxLength", f"must be at most 1000 characters long, got {FIFTY_MB}"),
    ),
    (
        "50MB-string-dict-pattern",
        lambda: {"word": "a" * FIFTY_MB},
        *one_error(
            "/word",
            "pattern",
            f'is {FIFTY_MB} characters long, too long to check against pattern "^a+$" '
            "(limit 1024); send a shorter string",
        ),
    ),
    ("1M-array-text", lambda: json.dumps({"numbers": list(range(MILLION))}), *TOO_LARGE),
    (
        "1M-array-dict",
        lambda: {"numbers": list(range(MILLION))},
        *one_error("/numbers", "type", "more than 100000 values (max_values)"),
    ),
    (
        "1M-array-root-dict",
        lambda: list(range(MILLION)),
        *one_error("", "type", "more than 100000 values (max_values)"),
    ),
    (
        "10k-duplicate-keys",
        lambda: DUPLICATES,
        'args are not valid JSON: duplicate key "k" in the object at the root (line 1, column 8); '
        "send each key once",
        {"pointer": "", "line": 1, "column": 8},
    ),
    (
        "duplicate-after-10k-keys",
        lambda: LATE_DUPLICATE,
        'args are not valid JSON: duplicate key "k0" in the object at the root '
        f"(line 1, column {len(LATE_DUPLICATE) - 6}); send each key once",
        {"pointer": "", "line": 1, "column": len(LATE_DUPLICATE) - 6},
    ),
]


@pytest.mark.parametrize(
    ("make", "message", "details"),
    [
        pytest.param(make, message, details, id=name)
        for name, make, message, details in HOSTILE_CASES
    ],
)
def test_hostile_args_are_answered_under_the_default_limits(
    make: Callable[[], Any], message: str, details: dict[str, Any]
) -> None:
    echo = Echo(schema=HOSTILE)
    invalid(echo.call(make()), message, details)
    assert echo.calls == []


def test_a_50mb_string_the_schema_does_not_bound_reaches_the_handler() -> None:
    # Dict args are bounded by their count of values: one huge string is one value, and a
    # schema that wants it shorter says so with maxLength (or pattern, which is bounded).
    seen: list[int] = []
    session = Session()

    @session.on_tool("size", description="Size.", schema=OPEN)
    def size(args: dict[str, Any]) -> int:
        seen.append(len(args["blob"]))
        return len(args["blob"])

    result = session.dispatch_sync("size", {"blob": "a" * FIFTY_MB})
    assert result.error is None and result.value == FIFTY_MB
    assert seen == [FIFTY_MB]


# --- hostile sizes with the limits raised past them -----------------------------------------

#: A developer may raise the bounds; the same inputs then go further in and must still be
#: answered (the parser's own recursion limit is the last line for text).
RAISED = Limits(max_depth=10**7, max_args_bytes=10**8, max_args_values=10**8)
PARSER_LIMIT = (
    "args are nested too deeply: the JSON text is nested 100000 levels deep, deeper than the "
    "parser can go; send flatter args",
    {"depth": DEEP},
)
RAISED_CASES: list[tuple[str, Callable[[], Any], str, dict[str, Any] | None]] = [
    ("deep-array-text", deep_array_text, *PARSER_LIMIT),
    ("deep-object-text", deep_object_text, *PARSER_LIMIT),
    ("deep-array-dict", deep_list, *one_error("", "type", "expected object, got array of 1 item")),
    (
        "deep-array-in-dict",
        lambda: {"numbers": deep_list()},
        *one_error("/numbers/0", "type", "expected integer, got array of 1 item"),
    ),
    # Undeclared, so it reaches the handler: the validator looks at it once, in linear time.
    ("deep-object-dict", deep_dict, "ran", None),
    ("deep-array-undeclared", lambda: {"other": deep_list()}, "ran", None),
]


@pytest.mark.parametrize(
    ("make", "expected", "details"),
    [pytest.param(make, exp, details, id=name) for name, make, exp, details in RAISED_CASES],
)
def test_hostile_args_with_the_limits_raised(
    make: Callable[[], Any], expected: str, details: dict[str, Any] | None
) -> None:
    echo = Echo(RAISED, HOSTILE)
    result = echo.call(make())
    if details is None:
        assert ran(result)
        assert len(echo.calls) == 1
    else:
        invalid(result, expected, details)
        assert echo.calls == []


def test_a_100000_deep_result_is_copied_and_serialised() -> None:
    session = Session(limits=RAISED)
    session.on_tool("mirror", description="Mirror.", schema=OPEN)(lambda args: args["a"])
    result = session.dispatch_sync("mirror", {"a": deep_list()})
    assert result.error is None
    assert result.to_text() == "[" * DEEP + "]" * DEEP


NO_HANG_SCRIPT = """
import json, sys
sys.path.insert(0, {tests!r})
from test_hardening_bounds import HOSTILE, HOSTILE_CASES, RAISED, RAISED_CASES
from pedelec import Session

for limits, cases in ((None, HOSTILE_CASES), (RAISED, RAISED_CASES)):
    session = Session(limits=limits)
    session.on_tool("echo", description="Echo.", schema=HOSTILE)(lambda args: "ran")
    for name, make, _, _ in cases:
        result = session.dispatch_sync("echo", make())
        code = result.error.code if result.error else result.value
        print(name, code, session.status, flush=True)
"""


def test_hostile_args_never_hang_or_crash_the_interpreter() -> None:
    # A hard timeout far above the real cost (well under a second per case): a hang, a
    # RecursionError that escapes, or a MemoryError fails the test; nothing here is timed.
    # Before the walks of deep values were made linear, the raised-limit cases alone took
    # about 40 s.
    import pathlib

    tests = str(pathlib.Path(__file__).parent)
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(NO_HANG_SCRIPT.format(tests=tests))],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.stderr == ""
    assert done.returncode == 0
    assert done.stdout.splitlines() == [
        *(f"{name} TOOL_ARGS_INVALID idle" for name, _, _, _ in HOSTILE_CASES),
        *(
            f"{name} {'ran' if details is None else 'TOOL_ARGS_INVALID'} idle"
            for name, _, _, details in RAISED_CASES
        ),
    ]
