"""Dispatch: every outcome of issue 3 item 4, in order, for both dispatchers and handler kinds.

Each row runs four ways: ``dispatch_sync`` and ``await dispatch``, with a sync and with an async
handler (so the calling-thread, private-loop, in-task and worker-thread runners all answer the
same). Whole ``to_json()`` payloads are asserted.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, strategies as st

from pedelec import compile_schema
from pedelec._context import ToolCallContext
from pedelec.errors import PedelecError
from pedelec.session import Session, ToolResult

COUNTER: Any = {
    "type": "object",
    "properties": {"delta": {"type": "integer", "minimum": -100, "maximum": 100}},
    "required": ["delta"],
}
OPEN: Any = {"type": "object"}
CARD: Any = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "minLength": 1},
        "labels": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
        "size": {"oneOf": [{"type": "integer"}, {"type": "string", "enum": ["s", "m"]}]},
    },
    "required": ["title"],
}
OWN_TIMEOUT: Any = {
    "type": "object",
    "properties": {"timeoutMs": {"type": "integer", "maximum": 5000}},
}

Body = Callable[[dict[str, Any], ToolCallContext], Any]


class Opaque:
    pass


def cycle() -> list[Any]:
    items: list[Any] = []
    items.append(items)
    return items


def fail(exc: BaseException) -> Body:
    def body(args: dict[str, Any], ctx: ToolCallContext) -> Any:
        raise exc

    return body


def returns(value: Any) -> Body:
    return lambda args, ctx: value


BODIES: dict[str, tuple[Any, Body, int | None]] = {
    "counter": (COUNTER, lambda args, ctx: {"value": args["delta"]}, None),
    "card": (CARD, lambda args, ctx: args, None),
    "echo": (OPEN, lambda args, ctx: args, None),
    "timeout_of": (OPEN, lambda args, ctx: ctx.timeout_ms, None),
    "own_timeout": (OWN_TIMEOUT, lambda args, ctx: {"args": args, "timeout": ctx.timeout_ms}, None),
    "boom": (OPEN, fail(ValueError("boom")), None),
    "bare": (OPEN, fail(RuntimeError()), None),
    "domain": (
        OPEN,
        fail(PedelecError("INVALID_DELTA", "delta must be between -100 and 100.", {"max": 100})),
        None,
    ),
    "domain_bad_details": (OPEN, fail(PedelecError("X", "x", {1, 2})), None),
    "envelope": (
        OPEN,
        returns({"error": {"code": "NOT_ALLOWED", "message": "Not now.", "details": {"a": 1}}}),
        None,
    ),
    "not_envelope": (OPEN, returns({"error": "plain text"}), None),
    "set": (OPEN, returns({1}), None),
    "nan": (OPEN, returns(math.nan), None),
    "deep_inf": (OPEN, returns({"a": [1, math.inf]}), None),
    "object": (OPEN, returns(Opaque()), None),
    "cycle": (OPEN, returns(cycle()), None),
    "int_key": (OPEN, returns({1: "a"}), None),
    "tuple": (OPEN, returns((1, 2)), None),
    "bytes": (OPEN, returns(b"x"), None),
    "none": (OPEN, returns(None), None),
    "float": (OPEN, returns(1.5), None),
    "nested": (OPEN, returns({"a": [1, {"b": None}], "c": "d"}), None),
    "slow": (OPEN, lambda args, ctx: time.sleep(0.3), 20),
}


def build(kind: str) -> Session:
    """A session with every tool of ``BODIES``, handlers sync or async per ``kind``."""
    session = Session(guidance="Test tools.")
    for name, (schema, body, timeout) in BODIES.items():
        if kind == "sync":
            fn: Any = body
        elif name == "slow":

            async def fn(args: dict[str, Any], ctx: ToolCallContext) -> Any:
                await asyncio.sleep(0.3)

        else:

            async def fn(args: dict[str, Any], ctx: ToolCallContext, body: Body = body) -> Any:
                return body(args, ctx)

            # The default parameter binds the body; the handler still takes (args, ctx).
        session.on_tool(name, description=f"{name}.", schema=schema, timeout_ms=timeout)(fn)
    session.on_tool("no_handler", description="Declared only.", schema=OPEN)(declared_only)
    assert session.off_tool("no_handler", declared_only)
    return session


def declared_only(args: Any) -> None:
    return None


@pytest.fixture(params=["sync", "async"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=["dispatch_sync", "dispatch"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def run(session: Session, mode: str, name: Any, args: Any, **kwargs: Any) -> ToolResult:
    if mode == "dispatch_sync":
        return session.dispatch_sync(name, args, **kwargs)
    return asyncio.run(session.dispatch(name, args, **kwargs))


def envelope(code: str, message: str, details: Any) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "details": details}}


AGAIN = "Correct the arguments and call the tool again."

ROWS = [
    # --- success -------------------------------------------------------------------------
    pytest.param("counter", {"delta": 3}, {"value": 3}, id="ok-dict"),
    pytest.param("counter", '{"delta": -3}', {"value": -3}, id="ok-text"),
    pytest.param("counter", b'{"delta": 4}', {"value": 4}, id="ok-bytes"),
    pytest.param("counter", bytearray(b'{"delta": 5}'), {"value": 5}, id="ok-bytearray"),
    pytest.param("counter", {"delta": 3.0}, {"value": 3.0}, id="ok-integral-float"),
    pytest.param(
        "echo", {"a": {"b": [1, "x", None]}}, {"a": {"b": [1, "x", None]}}, id="ok-nested"
    ),
    pytest.param("none", {}, None, id="ok-none"),
    pytest.param("float", {}, 1.5, id="ok-float"),
    pytest.param("nested", {}, {"a": [1, {"b": None}], "c": "d"}, id="ok-nested-result"),
    pytest.param("not_envelope", {}, {"error": "plain text"}, id="ok-error-key-not-envelope"),
    # --- TOOL_NOT_FOUND --------------------------------------------------------------------
    pytest.param(
        "countr",
        {"delta": "x"},
        envelope(
            "TOOL_NOT_FOUND", 'Unknown tool "countr". Did you mean "counter"?', {"tool": "countr"}
        ),
        id="unknown-before-args",
    ),
    pytest.param(
        "zzzzzz",
        {},
        envelope(
            "TOOL_NOT_FOUND",
            'Unknown tool "zzzzzz". Available tools: "counter", "card", "echo", "timeout_of", '
            '"own_timeout", "boom", "bare", "domain", "domain_bad_details", "envelope", '
            '"not_envelope", "set", "nan", "deep_inf", "object", "cycle", "int_key", "tuple", '
            '"bytes", "none" and 4 more.',
            {"tool": "zzzzzz"},
        ),
        id="unknown-lists-tools",
    ),
    pytest.param(
        ["counter"],
        {},
        envelope(
            "TOOL_NOT_FOUND",
            "Unknown tool <list>. Available tools: "
            + ", ".join(f'"{n}"' for n in [*list(BODIES)[:20]])
            + " and 4 more.",
            {"tool": "'list'"},
        ),
        id="unknown-unhashable-name",
    ),
    # --- TOOL_ARGS_INVALID -----------------------------------------------------------------
    pytest.param(
        "counter",
        {"delta": "3"},
        envelope(
            "TOOL_ARGS_INVALID",
            f'Invalid arguments for tool "counter": /delta: expected integer, got string "3" '
            f"(type). {AGAIN}",
            {
                "tool": "counter",
                "errors": [
                    {
                        "path": "/delta",
                        "keyword": "type",
                        "message": 'expected integer, got string "3"',
                    }
                ],
            },
        ),
        id="invalid-type",
    ),
    pytest.param(
        "counter",
        {"delta": True},
        envelope(
            "TOOL_ARGS_INVALID",
            f'Invalid arguments for tool "counter": /delta: expected integer, got boolean true (type). {AGAIN}',
            {
                "tool": "counter",
                "errors": [
                    {
                        "path": "/delta",
                        "keyword": "type",
                        "message": "expected integer, got boolean true",
                    }
                ],
            },
        ),
        id="invalid-bool-is-not-integer",
    ),
    pytest.param(
        "card",
        {"title": "", "labels": ["a", "a"], "size": "xl"},
        envelope(
            "TOOL_ARGS_INVALID",
            'Invalid arguments for tool "card": /title: must be at least 1 character long, got 0 '
            "(minLength); /labels/1: duplicate of item 0 (uniqueItems); /size: matches none of "
            'the 2 alternatives: [1] /size: expected integer, got string "xl"; [2] /size: must '
            'be one of "s", "m"; got "xl" (oneOf). ' + AGAIN,
            {
                "tool": "card",
                "errors": [
                    {
                        "path": "/title",
                        "keyword": "minLength",
                        "message": "must be at least 1 character long, got 0",
                    },
                    {
                        "path": "/labels/1",
                        "keyword": "uniqueItems",
                        "message": "duplicate of item 0",
                    },
                    {
                        "path": "/size",
                        "keyword": "oneOf",
                        "message": "matches none of the 2 alternatives: [1] /size: expected integer, "
                        'got string "xl"; [2] /size: must be one of "s", "m"; got "xl"',
                    },
                ],
            },
        ),
        id="invalid-every-error-reported",
    ),
    pytest.param(
        "counter",
        {},
        envelope(
            "TOOL_ARGS_INVALID",
            f'Invalid arguments for tool "counter": (root): missing required property "delta" (required). {AGAIN}',
            {
                "tool": "counter",
                "errors": [
                    {
                        "path": "",
                        "keyword": "required",
                        "message": 'missing required property "delta"',
                    }
                ],
            },
        ),
        id="invalid-missing-required",
    ),
    pytest.param(
        "echo",
        [1],
        envelope(
            "TOOL_ARGS_INVALID",
            f'Invalid arguments for tool "echo": (root): expected object, got array of 1 item (type). {AGAIN}',
            {
                "tool": "echo",
                "errors": [
                    {
                        "path": "",
                        "keyword": "type",
                        "message": "expected object, got array of 1 item",
                    }
                ],
            },
        ),
        id="invalid-args-not-object",
    ),
    pytest.param(
        "echo",
        "null",
        envelope(
            "TOOL_ARGS_INVALID",
            f'Invalid arguments for tool "echo": (root): expected object, got null (type). {AGAIN}',
            {
                "tool": "echo",
                "errors": [{"path": "", "keyword": "type", "message": "expected object, got null"}],
            },
        ),
        id="invalid-text-null",
    ),
    pytest.param(
        "echo",
        None,
        envelope(
            "TOOL_ARGS_INVALID",
            f'Invalid arguments for tool "echo": (root): expected object, got null (type). {AGAIN}',
            {
                "tool": "echo",
                "errors": [{"path": "", "keyword": "type", "message": "expected object, got null"}],
            },
        ),
        id="invalid-none",
    ),
    pytest.param(
        "echo",
        {"a": {1, 2}},
        envelope(
            "TOOL_ARGS_INVALID",
            f'Invalid arguments for tool "echo": /a: set is not a JSON type (use a list) (type). {AGAIN}',
            {
                "tool": "echo",
                "errors": [
                    {
                        "path": "/a",
                        "keyword": "type",
                        "message": "set is not a JSON type (use a list)",
                    }
                ],
            },
        ),
        id="invalid-dict-not-json",
    ),
    pytest.param(
        "echo",
        '{"a": 1, "a": 2}',
        envelope(
            "TOOL_ARGS_INVALID",
            'Invalid arguments for tool "echo": args are not valid JSON: duplicate key "a" in the '
            f"object at the root (line 1, column 10); send each key once. {AGAIN}",
            {"tool": "echo", "pointer": "", "line": 1, "column": 10},
        ),
        id="invalid-text-duplicate-key",
    ),
    pytest.param(
        "echo",
        '{"a": NaN}',
        envelope(
            "TOOL_ARGS_INVALID",
            'Invalid arguments for tool "echo": args are not valid JSON: NaN at /a (line 1, '
            f"column 7) is not a JSON number; send a finite number or null. {AGAIN}",
            {"tool": "echo", "pointer": "/a", "line": 1, "column": 7},
        ),
        id="invalid-text-nan",
    ),
    pytest.param(
        "echo",
        b"\xff",
        envelope(
            "TOOL_ARGS_INVALID",
            'Invalid arguments for tool "echo": args are not valid JSON: byte 0 (line 1, column 1) '
            f"is not valid UTF-8; send the text as UTF-8. {AGAIN}",
            {"tool": "echo", "line": 1, "column": 1, "byte": 0},
        ),
        id="invalid-text-utf8",
    ),
    # --- timeoutMs -------------------------------------------------------------------------
    pytest.param("echo", {"timeoutMs": 5000, "a": 1}, {"a": 1}, id="timeoutMs-removed"),
    pytest.param("timeout_of", {"timeoutMs": 1234}, 1234, id="timeoutMs-overrides"),
    pytest.param("timeout_of", '{"timeoutMs": 1234.0}', 1234, id="timeoutMs-integral-float"),
    pytest.param("timeout_of", {}, 60_000, id="timeout-default"),
    # A declared timeoutMs stays in the args, is validated by the schema and is the call's
    # timeout, as in upstream's ToolRegistry::normalize_tool_call (pedelec-core/src/lib.rs).
    pytest.param(
        "own_timeout",
        {"timeoutMs": 1234},
        {"args": {"timeoutMs": 1234}, "timeout": 1234},
        id="timeoutMs-declared-stays-and-applies",
    ),
    pytest.param(
        "own_timeout",
        '{"timeoutMs": 1234.0}',
        {"args": {"timeoutMs": 1234.0}, "timeout": 1234},
        id="timeoutMs-declared-integral-float",
    ),
    pytest.param(
        "own_timeout",
        {"timeoutMs": 6000},
        envelope(
            "TOOL_ARGS_INVALID",
            'Invalid arguments for tool "own_timeout": /timeoutMs: must be <= 5000, got 6000 '
            f"(maximum). {AGAIN}",
            {
                "tool": "own_timeout",
                "errors": [
                    {
                        "path": "/timeoutMs",
                        "keyword": "maximum",
                        "message": "must be <= 5000, got 6000",
                    }
                ],
            },
        ),
        id="timeoutMs-declared-validated-by-schema",
    ),
    pytest.param(
        "own_timeout",
        {"timeoutMs": "x"},
        envelope(
            "TOOL_ARGS_INVALID",
            'Invalid arguments for tool "own_timeout": /timeoutMs: expected a positive integer of '
            'milliseconds (this call\'s timeout), got string "x" (timeoutMs); /timeoutMs: expected '
            f'integer, got string "x" (type). {AGAIN}',
            {
                "tool": "own_timeout",
                "errors": [
                    {
                        "path": "/timeoutMs",
                        "keyword": "timeoutMs",
                        "message": "expected a positive integer of milliseconds (this call's "
                        'timeout), got string "x"',
                    },
                    {
                        "path": "/timeoutMs",
                        "keyword": "type",
                        "message": 'expected integer, got string "x"',
                    },
                ],
            },
        ),
        id="timeoutMs-declared-must-be-a-timeout",
    ),
    *[
        pytest.param(
            "counter",
            {"delta": 1, "timeoutMs": raw},
            envelope(
                "TOOL_ARGS_INVALID",
                'Invalid arguments for tool "counter": /timeoutMs: expected a positive integer of '
                f"milliseconds (this call's timeout), got {shown} (timeoutMs). {AGAIN}",
                {
                    "tool": "counter",
                    "errors": [
                        {
                            "path": "/timeoutMs",
                            "keyword": "timeoutMs",
                            "message": "expected a positive integer of milliseconds (this call's "
                            f"timeout), got {shown}",
                        }
                    ],
                },
            ),
            id=f"timeoutMs-invalid-{label}",
        )
        for label, raw, shown in [
            ("zero", 0, "integer 0"),
            ("negative", -1, "integer -1"),
            ("fraction", 1.5, "number 1.5"),
            ("string", "100", 'string "100"'),
            ("bool", True, "true"),
            ("null", None, "null"),
        ]
    ],
    pytest.param(
        "counter",
        {"delta": 500, "timeoutMs": 0},
        envelope(
            "TOOL_ARGS_INVALID",
            'Invalid arguments for tool "counter": /timeoutMs: expected a positive integer of '
            "milliseconds (this call's timeout), got integer 0 (timeoutMs); /delta: must be <= "
            f"100, got 500 (maximum). {AGAIN}",
            {
                "tool": "counter",
                "errors": [
                    {
                        "path": "/timeoutMs",
                        "keyword": "timeoutMs",
                        "message": "expected a positive integer of milliseconds (this call's "
                        "timeout), got integer 0",
                    },
                    {"path": "/delta", "keyword": "maximum", "message": "must be <= 100, got 500"},
                ],
            },
        ),
        id="timeoutMs-invalid-with-schema-errors",
    ),
    # --- TOOL_HANDLER_NOT_FOUND ------------------------------------------------------------
    pytest.param(
        "no_handler",
        {},
        envelope(
            "TOOL_HANDLER_NOT_FOUND",
            'Tool "no_handler" has no handler registered, so it cannot be run.',
            {"tool": "no_handler"},
        ),
        id="no-handler",
    ),
    pytest.param(
        "no_handler",
        "[]",
        envelope(
            "TOOL_ARGS_INVALID",
            'Invalid arguments for tool "no_handler": (root): expected object, got array of 0 items '
            f"(type). {AGAIN}",
            {
                "tool": "no_handler",
                "errors": [
                    {
                        "path": "",
                        "keyword": "type",
                        "message": "expected object, got array of 0 items",
                    }
                ],
            },
        ),
        id="args-checked-before-handler",
    ),
    # --- handler failures ------------------------------------------------------------------
    pytest.param(
        "boom",
        {},
        envelope(
            "TOOL_HANDLER_ERROR",
            'Tool "boom" failed: ValueError: boom',
            {"tool": "boom", "exception": "ValueError"},
        ),
        id="handler-raises",
    ),
    pytest.param(
        "bare",
        {},
        envelope(
            "TOOL_HANDLER_ERROR",
            'Tool "bare" failed: RuntimeError',
            {"tool": "bare", "exception": "RuntimeError"},
        ),
        id="handler-raises-without-message",
    ),
    pytest.param(
        "domain",
        {},
        envelope("INVALID_DELTA", "delta must be between -100 and 100.", {"max": 100}),
        id="handler-raises-pedelec-error",
    ),
    pytest.param(
        "domain_bad_details",
        {},
        envelope(
            "SUBMIT_TOOL_RESULT_FAILED",
            "Tool \"domain_bad_details\" raised PedelecError('X') whose details are not JSON: "
            "(root): set is not a JSON type (use a list).",
            {"tool": "domain_bad_details", "pointer": ""},
        ),
        id="handler-raises-pedelec-error-bad-details",
    ),
    pytest.param(
        "envelope",
        {},
        envelope("NOT_ALLOWED", "Not now.", {"a": 1}),
        id="handler-returns-envelope",
    ),
    *[
        pytest.param(
            name,
            {},
            envelope(
                "SUBMIT_TOOL_RESULT_FAILED",
                f'Tool "{name}" returned a result that is not JSON: {where}: {reason}.',
                {"tool": name, "pointer": "" if where == "(root)" else where},
            ),
            id=f"result-not-json-{name}",
        )
        for name, where, reason in [
            ("set", "(root)", "set is not a JSON type (use a list)"),
            ("nan", "(root)", "NaN is not a JSON number (numbers must be finite)"),
            ("deep_inf", "/a/1", "Infinity is not a JSON number (numbers must be finite)"),
            ("object", "(root)", "Opaque is not a JSON type"),
            ("cycle", "/0", "circular reference (a container contains itself)"),
            ("int_key", "(root)", "object key 1 (integer) is not a string"),
            ("tuple", "(root)", "tuple is not a JSON type (use a list)"),
            ("bytes", "(root)", "bytes is not a JSON type (decode it to a str)"),
        ]
    ],
    # --- TOOL_TIMEOUT ----------------------------------------------------------------------
    pytest.param(
        "slow",
        {},
        envelope(
            "TOOL_TIMEOUT",
            'Tool "slow" did not finish within 20 ms.',
            {"tool": "slow", "timeoutMs": 20},
        ),
        id="timeout",
    ),
]


@pytest.mark.parametrize(("name", "args", "expected"), ROWS)
def test_dispatch_outcomes(kind: str, mode: str, name: Any, args: Any, expected: Any) -> None:
    session = build(kind)
    result = run(session, mode, name, args)
    assert isinstance(result, ToolResult)
    assert result.to_json() == expected
    is_envelope = isinstance(expected, dict) and isinstance(expected.get("error"), dict)
    assert result.is_error is is_envelope
    assert session.status == "idle"


def test_ended_session_answers_first(kind: str, mode: str) -> None:
    session = build(kind)
    session.end()
    for name, args in [("counter", {"delta": 1}), ("nope", "{bad json"), ("boom", {})]:
        result = run(session, mode, name, args)
        assert result.to_json() == envelope(
            "SESSION_ENDED", f'The session has ended; tool "{name}" was not run.', {"tool": name}
        )
    assert session.status == "ended"


def test_handler_exception_goes_to_the_logger_with_traceback(
    kind: str, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    session = build(kind)
    with caplog.at_level("ERROR", logger="pedelec"):
        result = run(session, mode, "boom", {})
    assert result.error is not None
    assert "Traceback" not in result.error.message
    [record] = caplog.records
    assert record.name == "pedelec"
    assert record.getMessage() == 'pedelec: the handler of tool "boom" raised'
    assert record.exc_info is not None and isinstance(record.exc_info[1], ValueError)


def test_tool_result_api(mode: str) -> None:
    session = build("sync")
    ok = run(session, mode, "counter", {"delta": 7}, tool_request_id="call_abc")
    assert (ok.tool, ok.tool_request_id, ok.value, ok.error, ok.is_error) == (
        "counter",
        "call_abc",
        {"value": 7},
        None,
        False,
    )
    assert ok.to_text() == '{"value":7}'
    assert run(session, mode, "counter", {"delta": 1}, tool_request_id=17).tool_request_id == "17"
    assert repr(ok) == "ToolResult(tool='counter', value={'value': 7})"

    bad = run(session, mode, "domain", {})
    assert bad.is_error and bad.value is None
    assert bad.error is not None
    assert (bad.error.code, bad.error.message, bad.error.details) == (
        "INVALID_DELTA",
        "delta must be between -100 and 100.",
        {"max": 100},
    )
    assert bad.to_text() == (
        '{"error":{"code":"INVALID_DELTA","message":"delta must be between -100 and 100.",'
        '"details":{"max":100}}}'
    )
    assert repr(bad).startswith("ToolResult(tool='domain', error=PedelecError('INVALID_DELTA'")

    returned = run(session, mode, "envelope", {})
    assert returned.is_error
    assert returned.value == {
        "error": {"code": "NOT_ALLOWED", "message": "Not now.", "details": {"a": 1}}
    }
    assert returned.error is not None and returned.error.to_dict() == {
        "code": "NOT_ALLOWED",
        "message": "Not now.",
        "details": {"a": 1},
    }
    assert run(session, mode, "nested", {}).to_text() == '{"a":[1,{"b":null}],"c":"d"}'


def test_request_ids_are_unique_and_match_the_context(mode: str) -> None:
    session = Session()
    seen: list[str] = []

    @session.on_tool("rid", description="Id.", schema=OPEN)
    def rid(args: Any, ctx: ToolCallContext) -> str:
        seen.append(ctx.tool_request_id)
        return ctx.tool_request_id

    results = [run(session, mode, "rid", {}) for _ in range(20)]
    assert [r.tool_request_id for r in results] == seen == [r.value for r in results]
    assert len(set(seen)) == 20
    assert all(s.startswith("call_") for s in seen)
    fast = Session(tools=[])
    fast.on_tool("plain", description="P.", schema=OPEN)(lambda args: 1)
    ids = {run(fast, mode, "plain", {}).tool_request_id for _ in range(20)}
    assert len(ids) == 20


def test_context_fields(kind: str, mode: str) -> None:
    session = Session(session_id="sess-1")
    seen: list[ToolCallContext] = []

    def body(args: Any, ctx: ToolCallContext) -> Any:
        seen.append(ctx)
        return None

    handler: Any = body
    if kind == "async":

        async def handler(args: Any, ctx: ToolCallContext) -> Any:
            return body(args, ctx)

    session.on_tool("ctx", description="Ctx.", schema=OPEN, timeout_ms=5000)(handler)
    before = time.time()
    result = run(session, mode, "ctx", {}, turn_id="turn-9", tool_request_id="req-1")
    [ctx] = seen
    assert (ctx.session_id, ctx.tool_request_id, ctx.tool, ctx.turn_id, ctx.timeout_ms) == (
        "sess-1",
        "req-1",
        "ctx",
        "turn-9",
        5000,
    )
    assert before - 1 <= ctx.started_at <= time.time()
    assert ctx.cancelled is False and not ctx.cancel_event.is_set()
    assert result.tool_request_id == "req-1"
    with pytest.raises(AttributeError):
        ctx.tool = "other"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        ctx.extra = 1  # type: ignore[attr-defined]


def test_each_call_gets_its_own_args(kind: str, mode: str) -> None:
    """A handler that mutates its args changes neither the caller's dict nor a later call."""
    session = Session()
    received: list[Any] = []

    def body(args: dict[str, Any]) -> Any:
        received.append(args)
        args["n"] = 999
        args.setdefault("tags", []).append("x")
        return None

    handler: Any = body
    if kind == "async":

        async def handler(args: dict[str, Any]) -> Any:
            return body(args)

    session.on_tool("mutate", description="M.", schema=OPEN)(handler)
    flat = {"n": 1}
    nested = {"n": 1, "tags": ["a"]}
    for args in (flat, flat, nested, nested):
        run(session, mode, "mutate", args)
    assert flat == {"n": 1}
    assert nested == {"n": 1, "tags": ["a"]}
    assert received[0] is not received[1]
    assert received[2]["tags"] is not received[3]["tags"]


def test_result_is_a_private_copy(kind: str, mode: str) -> None:
    shared: dict[str, Any] = {"items": [1]}
    flat: dict[str, Any] = {"a": 1}
    session = Session()
    session.on_tool("shared", description="S.", schema=OPEN)(lambda args: shared)
    session.on_tool("flat", description="F.", schema=OPEN)(lambda args: flat)
    result = run(session, mode, "shared", {})
    flat_result = run(session, mode, "flat", {})
    shared["items"].append(2)
    flat["a"] = 2
    assert result.value == {"items": [1]}
    assert flat_result.value == {"a": 1}


def test_subclass_values_become_plain_json(mode: str) -> None:
    import enum

    class Color(enum.StrEnum):
        RED = "red"

    session = Session()
    session.on_tool("enum", description="E.", schema=OPEN)(lambda args: {"c": Color.RED, "a": args})
    result = run(session, mode, "enum", {"x": Color.RED})
    assert result.value == {"c": "red", "a": {"x": "red"}}
    assert type(result.value["c"]) is str
    assert type(result.value["a"]["x"]) is str


def test_sync_handler_returning_a_coroutine_is_explained(mode: str) -> None:
    async def real(args: Any) -> int:
        return 1

    session = Session()
    session.on_tool("wrapped", description="W.", schema=OPEN)(lambda args: real(args))
    result = run(session, mode, "wrapped", {})
    assert result.to_json() == envelope(
        "SUBMIT_TOOL_RESULT_FAILED",
        'Tool "wrapped" returned a result that is not JSON: it returned an awaitable; declare '
        "the handler with async def so pedelec awaits it.",
        {"tool": "wrapped", "pointer": ""},
    )


def test_an_exception_whose_str_fails_still_becomes_a_result(mode: str) -> None:
    class Weird(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no")

    session = Session()

    @session.on_tool("weird", description="W.", schema=OPEN)
    def weird(args: Any) -> Any:
        raise Weird

    result = run(session, mode, "weird", {})
    assert result.error is not None
    assert result.error.message == 'Tool "weird" failed: Weird'


def test_unknown_tool_in_an_empty_session(mode: str) -> None:
    result = run(Session(), mode, "nope", {})
    assert result.to_json() == envelope(
        "TOOL_NOT_FOUND", 'Unknown tool "nope"; this session has no tools.', {"tool": "nope"}
    )


def test_unknown_tool_with_a_huge_name_is_cheap_and_short(mode: str) -> None:
    name = "x" * 1_000_000
    result = run(build("sync"), mode, name, {})
    assert result.error is not None
    assert result.error.code == "TOOL_NOT_FOUND"
    assert len(result.error.message) < 600
    assert result.error.details == {"tool": "x" * 200 + "…"}


def test_args_bounds_apply(mode: str) -> None:
    from pedelec.limits import Limits

    session = Session(limits=Limits(max_depth=3, max_args_values=5, max_args_bytes=20))
    session.on_tool("echo", description="E.", schema=OPEN)(lambda args: args)
    deep = run(session, mode, "echo", {"a": {"b": {"c": {}}}})
    wide = run(session, mode, "echo", {"a": [1, 2, 3, 4, 5]})
    text = run(session, mode, "echo", '{"a": "' + "x" * 30 + '"}')
    flat = run(session, mode, "echo", {str(i): i for i in range(10)})
    for result in (deep, wide, text, flat):
        assert result.error is not None and result.error.code == "TOOL_ARGS_INVALID"
    assert deep.error is not None and deep.error.details["errors"][0]["path"] == "/a/b/c"
    assert run(session, mode, "echo", {"a": 1}).value == {"a": 1}


def test_max_errors_bounds_the_report(mode: str) -> None:
    from pedelec.limits import Limits

    schema: Any = {
        "type": "object",
        "properties": {f"p{i}": {"type": "integer"} for i in range(10)},
    }
    session = Session(limits=Limits(max_errors=3))
    session.on_tool("many", description="M.", schema=schema)(lambda args: args)
    result = run(session, mode, "many", {f"p{i}": "x" for i in range(10)})
    assert result.error is not None
    assert [e["path"] for e in result.error.details["errors"]] == ["/p0", "/p1", "/p2"]


# --- nothing an agent sends makes dispatch raise ----------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3)
    ),
    max_leaves=10,
)
agent_args = (
    json_values
    | st.text(max_size=30)
    | st.binary(max_size=30)
    | st.sets(st.integers(), max_size=2)
    | st.dictionaries(st.integers() | st.text(max_size=2), json_values, max_size=3)
)

FUZZ_SESSION = build("sync")


@given(name=st.sampled_from([*BODIES, "no_handler", "nope"]) | st.text(max_size=5), args=agent_args)
def test_dispatch_sync_never_raises(name: str, args: Any) -> None:
    if name == "slow":
        return
    result = FUZZ_SESSION.dispatch_sync(name, args)
    assert isinstance(result, ToolResult)
    assert result.is_error is (result.error is not None)
    result.to_text()  # always serialisable


def test_per_call_timeout_is_capped_by_limits() -> None:
    """An agent cannot lift a tool's timeout past Limits.max_call_timeout_ms."""
    from pedelec import Limits, Session

    session = Session(limits=Limits(max_call_timeout_ms=5_000))

    @session.on_tool(
        "ping",
        description="Ping.",
        schema={"type": "object", "properties": {}},
    )
    def ping(args: dict[str, object]) -> str:
        return "pong"

    assert session.dispatch_sync("ping", {"timeoutMs": 5_000}).to_json() == "pong"
    result = session.dispatch_sync("ping", {"timeoutMs": 5_001})
    assert result.to_json() == {
        "error": {
            "code": "TOOL_ARGS_INVALID",
            "message": 'Invalid arguments for tool "ping": /timeoutMs: this call\'s timeout may be '
            "at most 5000 ms, got 5001; ask for less or leave timeoutMs out to use the tool's "
            f"own timeout (timeoutMs). {AGAIN}",
            "details": {
                "tool": "ping",
                "errors": [
                    {
                        "path": "/timeoutMs",
                        "keyword": "timeoutMs",
                        "message": "this call's timeout may be at most 5000 ms, got 5001; ask for "
                        "less or leave timeoutMs out to use the tool's own timeout",
                    }
                ],
            },
        }
    }


# --- the validator cache keeps each schema's property order -------------------------------------


def test_schemas_that_differ_only_in_property_order_report_errors_in_their_own_order() -> None:
    # The cache is keyed by the schema's JSON text with its key order: keyed by sorted keys,
    # the tool registered second would get the first one's validator, and its order.
    ab = {
        "type": "object",
        "description": "order probe",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    }
    ba = {**ab, "properties": {"b": {"type": "integer"}, "a": {"type": "integer"}}}
    session = Session()
    session.on_tool("ab", description="A then b.", schema=ab)(lambda args: None)
    session.on_tool("ba", description="B then a.", schema=ba)(lambda args: None)
    bad = {"a": "x", "b": "y"}
    messages = [session.dispatch_sync(name, bad).error.message for name in ("ab", "ba")]
    assert messages == [
        'Invalid arguments for tool "ab": /a: expected integer, got string "x" (type); '
        '/b: expected integer, got string "y" (type). Correct the arguments and call the tool '
        "again.",
        'Invalid arguments for tool "ba": /b: expected integer, got string "y" (type); '
        '/a: expected integer, got string "x" (type). Correct the arguments and call the tool '
        "again.",
    ]
    assert compile_schema(ab) is compile_schema({**ab})  # the same text: one validator
    assert compile_schema(ab) is not compile_schema(ba)
