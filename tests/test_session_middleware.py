"""``session.use(middleware)``: the onion around the handler, through the public API only.

Every behaviour runs in every way a call can run: ``dispatch_sync`` with the handler inline,
``dispatch_sync`` with ``sync_dispatch="worker"`` and ``await dispatch``, each with a sync and an
async handler, and with async and sync middleware.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest

from pedelec import PedelecError, Session, ToolCall, ToolCallContext, ToolResult

WAIT_S = 10  # seconds: a bound for a wait that must end far sooner
SCHEMA: Any = {
    "type": "object",
    "properties": {"n": {"type": "integer", "minimum": 0}},
    "required": ["n"],
}

#: (name, Session options, how to dispatch)
MODES: list[tuple[str, dict[str, Any], str]] = [
    ("sync inline", {}, "sync"),
    ("sync worker", {"sync_dispatch": "worker"}, "sync"),
    ("await", {}, "async"),
]
HANDLERS = ["sync", "async"]


def call(session: Session, mode: str, args: Any, name: str = "t") -> ToolResult:
    if mode == "sync":
        return session.dispatch_sync(name, args, tool_request_id="r1")
    return asyncio.run(session.dispatch(name, args, tool_request_id="r1"))


def make(
    options: dict[str, Any], kind: str, log: list[str], timeout_ms: int | None = None
) -> Session:
    """A session with tool ``t`` that logs ``handler n`` and answers ``{"n": n}``."""
    session = Session(**options)
    if kind == "sync":

        @session.on_tool("t", description="T.", schema=SCHEMA, timeout_ms=timeout_ms)
        def sync_handler(args: dict[str, Any], ctx: ToolCallContext) -> Any:
            log.append(f"handler {args['n']}")
            return {"n": args["n"], "id": ctx.tool_request_id}

    else:

        @session.on_tool("t", description="T.", schema=SCHEMA, timeout_ms=timeout_ms)
        async def async_handler(args: dict[str, Any], ctx: ToolCallContext) -> Any:
            await asyncio.sleep(0)
            log.append(f"handler {args['n']}")
            return {"n": args["n"], "id": ctx.tool_request_id}

    return session


def layer(label: str, log: list[str], is_async: bool) -> Callable[..., Any]:
    """A middleware that logs on the way in and out and passes the result on."""
    if is_async:

        async def amw(call: ToolCall, call_next: Any) -> Any:
            log.append(f"{label}>")
            result = await call_next(call)
            log.append(f"<{label}")
            return result

        return amw

    def smw(call: ToolCall, call_next: Any) -> Any:
        log.append(f"{label}>")
        result = call_next(call)
        log.append(f"<{label}")
        return result

    return smw


every_way = pytest.mark.parametrize(
    ("options", "mode", "kind"),
    [(options, mode, kind) for _, options, mode in MODES for kind in HANDLERS],
    ids=[f"{name}-{kind} handler" for name, _, _ in MODES for kind in HANDLERS],
)


@every_way
@pytest.mark.parametrize(
    "kinds",
    [(True, True, True), (False, False, False), (True, False, True), (False, True, False)],
    ids=["async", "sync", "async-sync-async", "sync-async-sync"],
)
def test_onion_order(
    options: dict[str, Any], mode: str, kind: str, kinds: tuple[bool, ...]
) -> None:
    log: list[str] = []
    session = make(options, kind, log)
    for label, is_async in zip("abc", kinds, strict=True):
        session.use(layer(label, log, is_async))
    result = call(session, mode, {"n": 3})
    assert (result.error, result.value) == (None, {"n": 3, "id": "r1"})
    assert log == ["a>", "b>", "c>", "handler 3", "<c", "<b", "<a"]


def either(sync_form: Callable[[ToolCall, Any], Any]) -> Callable[[bool], Callable[..., Any]]:
    """A middleware that never calls ``call_next``, in its sync or its async form."""

    def make_form(is_async: bool) -> Callable[..., Any]:
        if not is_async:
            return sync_form

        async def async_form(call: ToolCall, call_next: Any) -> Any:
            return sync_form(call, call_next)

        return async_form

    return make_form


def refuse(call: ToolCall, call_next: Any) -> Any:
    raise PedelecError("FORBIDDEN", f"No {call.tool} for you.", {"n": call.args["n"]})


def boom(call: ToolCall, call_next: Any) -> Any:
    raise ValueError(f"boom on {call.args['n']}")


short_value = either(lambda call, call_next: {"cached": call.args["n"]})
short_error = either(refuse)
raising = either(boom)
not_json = either(lambda call, call_next: {1, 2})


def transform(is_async: bool) -> Callable[..., Any]:
    if is_async:

        async def amw(call: ToolCall, call_next: Any) -> Any:
            result = await call_next(call)
            return {"wrapped": result.value, "error": result.is_error}

        return amw

    def smw(call: ToolCall, call_next: Any) -> Any:
        result = call_next(call)
        return {"wrapped": result.value, "error": result.is_error}

    return smw


OUTCOMES = [
    ("short-circuit with a value", short_value, [], {"cached": 4}),
    (
        "short-circuit with a PedelecError",
        short_error,
        [],
        {"error": {"code": "FORBIDDEN", "message": "No t for you.", "details": {"n": 4}}},
    ),
    (
        "transform the result",
        transform,
        ["handler 4"],
        {"wrapped": {"n": 4, "id": "r1"}, "error": False},
    ),
    (
        "a raising middleware",
        raising,
        [],
        {
            "error": {
                "code": "TOOL_HANDLER_ERROR",
                "message": 'Tool "t" failed: ValueError: boom on 4',
                "details": {"tool": "t", "exception": "ValueError"},
            }
        },
    ),
    (
        "a value that is not JSON",
        not_json,
        [],
        {
            "error": {
                "code": "SUBMIT_TOOL_RESULT_FAILED",
                "message": 'Tool "t" returned a result that is not JSON: (root): set is not a JSON type (use a list).',
                "details": {"tool": "t", "pointer": ""},
            }
        },
    ),
]


@every_way
@pytest.mark.parametrize("is_async", [True, False], ids=["async mw", "sync mw"])
@pytest.mark.parametrize(
    ("what", "middleware", "ran", "expected"), OUTCOMES, ids=[o[0] for o in OUTCOMES]
)
def test_what_a_middleware_returns(
    options: dict[str, Any],
    mode: str,
    kind: str,
    is_async: bool,
    what: str,
    middleware: Callable[..., Any],
    ran: list[str],
    expected: Any,
) -> None:
    log: list[str] = []
    session = make(options, kind, log)
    session.use(middleware(is_async))
    result = call(session, mode, {"n": 4})
    assert result.to_json() == expected
    assert result.tool_request_id == "r1"
    assert log == ran


@every_way
@pytest.mark.parametrize("is_async", [True, False], ids=["async mw", "sync mw"])
def test_an_inner_failure_reaches_the_outer_middleware_as_a_result(
    options: dict[str, Any], mode: str, kind: str, is_async: bool
) -> None:
    seen: list[Any] = []

    async def outer(call: ToolCall, call_next: Any) -> Any:
        result = await call_next(call)
        seen.append(result.to_json())
        return result

    log: list[str] = []
    session = make(options, kind, log)
    session.use(outer)
    session.use(raising(is_async))
    result = call(session, mode, {"n": 1})
    message = 'Tool "t" failed: ValueError: boom on 1'
    assert result.error is not None and result.error.message == message
    assert seen == [result.to_json()]


@every_way
def test_middleware_sees_validated_args_and_the_handlers_ctx(
    options: dict[str, Any], mode: str, kind: str
) -> None:
    seen: list[Any] = []
    ctxs: list[ToolCallContext] = []

    async def spy(call: ToolCall, call_next: Any) -> Any:
        seen.append((call.tool, call.args, call.ctx.tool_request_id, call.ctx.timeout_ms))
        ctxs.append(call.ctx)
        return await call_next(call)

    session = Session(**options)

    @session.on_tool("t", description="T.", schema=SCHEMA)
    def handler(args: dict[str, Any], ctx: ToolCallContext) -> Any:
        ctxs.append(ctx)
        return args["n"]

    session.use(spy)
    bad = [
        call(session, mode, {"n": -1}),
        call(session, mode, '{"n": "1"}'),
        call(session, mode, "{"),
        call(session, mode, {"n": 1}, name="nope"),
    ]
    assert [r.error.code if r.error else None for r in bad] == [
        "TOOL_ARGS_INVALID",
        "TOOL_ARGS_INVALID",
        "TOOL_ARGS_INVALID",
        "TOOL_NOT_FOUND",
    ]
    assert seen == []  # invalid calls never reach a middleware
    result = call(session, mode, '{"n": 2, "timeoutMs": 900}')
    assert result.value == 2
    assert seen == [("t", {"n": 2}, "r1", 900)]
    assert ctxs[0] is ctxs[1]


@every_way
def test_with_args_replaces_args_after_validating_them(
    options: dict[str, Any], mode: str, kind: str
) -> None:
    log: list[str] = []

    async def bump(call: ToolCall, call_next: Any) -> Any:
        if call.args["n"] == 0:
            return await call_next(call.with_args({"n": -5}))
        return await call_next(call.with_args({"n": call.args["n"] + 10}))

    session = make(options, kind, log)
    session.use(bump)
    assert call(session, mode, {"n": 1}).value == {"n": 11, "id": "r1"}
    refused = call(session, mode, {"n": 0})
    assert refused.to_json() == {
        "error": {
            "code": "TOOL_ARGS_INVALID",
            "message": 'Invalid arguments for tool "t": /n: must be >= 0, got -5 (minimum). Correct the arguments and call the tool again.',
            "details": {
                "tool": "t",
                "errors": [{"path": "/n", "keyword": "minimum", "message": "must be >= 0, got -5"}],
            },
        }
    }
    assert log == ["handler 11"]


@pytest.mark.parametrize(("_name", "options", "mode"), MODES, ids=[m[0] for m in MODES])
def test_unsubscribe(_name: str, options: dict[str, Any], mode: str) -> None:
    log: list[str] = []
    session = make(options, "sync", log)
    remove_a = session.use(layer("a", log, True))
    remove_b = session.use(layer("b", log, False))
    call(session, mode, {"n": 1})
    remove_a()
    remove_a()  # idempotent
    call(session, mode, {"n": 2})
    remove_b()
    call(session, mode, {"n": 3})
    assert log == ["a>", "b>", "handler 1", "<b", "<a", "b>", "handler 2", "<b", "handler 3"]


def test_the_same_middleware_twice_is_two_layers() -> None:
    log: list[str] = []
    session = make({}, "sync", log)
    mw = layer("x", log, True)
    remove_first = session.use(mw)
    session.use(mw)
    call(session, "sync", {"n": 1})
    remove_first()
    call(session, "sync", {"n": 2})
    assert log == ["x>", "x>", "handler 1", "<x", "<x", "x>", "handler 2", "<x"]


@pytest.mark.parametrize("bad", [None, 3, "audit"])
def test_use_refuses_what_cannot_be_called(bad: Any) -> None:
    with pytest.raises(PedelecError) as info:
        Session().use(bad)
    assert (info.value.code, info.value.message, info.value.details) == (
        "INVALID_INPUT",
        f"A middleware must be callable as middleware(call, call_next), got {type(bad).__name__}.",
        {"field": "middleware"},
    )


def test_call_next_takes_only_the_calls_own_toolcall() -> None:
    session = make({}, "sync", [])

    async def wrong(call: ToolCall, call_next: Any) -> Any:
        return await call_next({"n": 1})

    session.use(wrong)
    result = call(session, "sync", {"n": 1})
    assert result.error is not None
    assert result.error.message == (
        'Tool "t" failed: TypeError: call_next() takes the ToolCall the middleware received '
        "(or its with_args() copy)"
    )
    with pytest.raises(TypeError):
        ToolCall()


@every_way
def test_a_handler_error_is_reported_once(options: dict[str, Any], mode: str, kind: str) -> None:
    session = Session(**options)
    errors: list[str] = []
    session.on_error(lambda result: errors.append(result.error.code if result.error else ""))

    @session.on_tool("t", description="T.", schema=SCHEMA)
    def handler(args: dict[str, Any]) -> Any:
        raise LookupError("no")

    session.use(layer("a", [], True))
    session.use(layer("b", [], False))
    result = call(session, mode, {"n": 1})
    assert result.error is not None and result.error.message == 'Tool "t" failed: LookupError: no'
    assert errors == ["TOOL_HANDLER_ERROR"]


@pytest.mark.parametrize(("_name", "options", "mode"), MODES, ids=[m[0] for m in MODES])
@pytest.mark.parametrize("is_async", [True, False], ids=["async mw", "sync mw"])
def test_the_timeout_covers_the_middleware(
    _name: str, options: dict[str, Any], mode: str, is_async: bool
) -> None:
    release = threading.Event()
    finished = threading.Event()
    late: list[str] = []

    if is_async:

        async def stall(call: ToolCall, call_next: Any) -> Any:
            await asyncio.Event().wait()  # never set: only the deadline ends it

    else:

        def stall(call: ToolCall, call_next: Any) -> Any:
            release.wait(30)
            try:
                return call_next(call)  # the call is over by now: refused
            except BaseException as exc:
                late.append(type(exc).__name__)
                raise
            finally:
                finished.set()

    log: list[str] = []
    session = make(options, "sync", log, timeout_ms=50)
    session.use(stall)
    try:
        result = call(session, mode, {"n": 1})
    finally:
        release.set()
    assert result.to_json() == {
        "error": {
            "code": "TOOL_TIMEOUT",
            "message": 'Tool "t" did not finish within 50 ms.',
            "details": {"tool": "t", "timeoutMs": 50},
        }
    }
    if not is_async:
        assert finished.wait(10)
        assert late == ["CancelledError"]
    assert log == []
    assert session.status == "idle"


@pytest.mark.parametrize(("_name", "options", "mode"), MODES, ids=[m[0] for m in MODES])
@pytest.mark.parametrize("is_async", [True, False], ids=["async mw", "sync mw"])
def test_a_timed_out_handler_under_middleware(
    _name: str, options: dict[str, Any], mode: str, is_async: bool
) -> None:
    """The handler's own deadline holds inside the chain, and a threaded one is told."""
    session = Session(**options)
    events: list[threading.Event] = []

    @session.on_tool("slow", description="Slow.", schema={"type": "object"}, timeout_ms=50)
    def slow(args: dict[str, Any], ctx: ToolCallContext) -> Any:
        events.append(ctx.cancel_event)
        if mode == "sync" and not options:  # inline: the deadline is cooperative
            while not ctx.cancelled:
                ctx.cancel_event.wait(0.01)
            return "late"
        ctx.cancel_event.wait(30)
        return "late"

    session.use(layer("a", [], is_async))
    result = call(session, mode, {}, name="slow")
    assert result.error is not None and result.error.code == "TOOL_TIMEOUT"
    assert result.error.message == 'Tool "slow" did not finish within 50 ms.'
    if not (mode == "sync" and not options):
        assert events[0].wait(5)
    assert session.status == "idle"


def test_middleware_and_the_session_status() -> None:
    session = make({}, "async", [])
    statuses: list[str] = []
    session.on_status(statuses.append)
    session.use(layer("a", [], False))
    call(session, "async", {"n": 1})
    assert statuses == ["waiting_tool_result", "idle"]


def test_end_while_a_middleware_waits() -> None:
    session = make({}, "async", [])
    entered = asyncio.Event()

    async def stall(call: ToolCall, call_next: Any) -> Any:
        entered.set()
        await asyncio.Event().wait()

    session.use(stall)

    async def main() -> ToolResult:
        task = asyncio.ensure_future(session.dispatch("t", {"n": 1}))
        await entered.wait()
        session.end()
        return await task

    result = asyncio.run(main())
    assert result.error is not None and result.error.code == "SESSION_ENDED"


def test_a_middleware_sees_the_callers_context_variables() -> None:
    import contextvars

    var: contextvars.ContextVar[str] = contextvars.ContextVar("var", default="unset")
    seen: list[str] = []
    session = Session()

    @session.on_tool("t", description="T.", schema={"type": "object"})
    def handler(args: dict[str, Any]) -> Any:
        seen.append(f"handler {var.get()}")
        return None

    def sync_mw(call: ToolCall, call_next: Any) -> Any:
        seen.append(f"sync {var.get()}")
        var.set("from sync")
        return call_next(call)

    async def async_mw(call: ToolCall, call_next: Any) -> Any:
        seen.append(f"async {var.get()}")
        return await call_next(call)

    session.use(sync_mw)
    session.use(async_mw)

    async def main() -> None:
        var.set("caller")
        await session.dispatch("t", {})

    asyncio.run(main())
    assert seen == ["sync caller", "async from sync", "handler from sync"]


@pytest.mark.parametrize("is_async", [True, False], ids=["async mw", "sync mw"])
def test_a_call_next_kept_for_later_runs_nothing(is_async: bool) -> None:
    log: list[str] = []
    session = make({}, "sync", log)
    kept: list[Any] = []

    def keep(call: ToolCall, call_next: Any) -> Any:
        kept.append((call, call_next))
        return "kept"

    session.use(either(keep)(is_async))
    assert call(session, "sync", {"n": 1}).value == "kept"
    late_call, late_next = kept[0]
    with pytest.raises(RuntimeError) as info:
        if is_async:
            asyncio.run(late_next(late_call))
        else:
            late_next(late_call)
    assert str(info.value) == 'call_next() was called after the call of "t" ended'
    assert log == []


def test_sync_middleware_threads_are_bounded_per_layer() -> None:
    """As many sync-middleware threads a layer as the session has workers; a call that finds
    them all held waits, within its timeout, and a nested layer never waits on its own."""
    entered = threading.Event()
    release = threading.Event()
    seen: list[int] = []

    def hold(call: ToolCall, call_next: Any) -> Any:
        seen.append(call.args["n"])
        if call.args["n"] == 1:
            entered.set()
            release.wait(WAIT_S)
        return call_next(call)

    log: list[str] = []
    session = make({"max_workers": 1}, "async", log, timeout_ms=10_000)
    session.use(hold)
    session.use(layer("inner", log, False))  # a second sync layer, with its own single thread

    async def main() -> list[Any]:
        first = asyncio.ensure_future(session.dispatch("t", {"n": 1}))
        while not entered.is_set():
            await asyncio.sleep(0.001)
        waiting = await session.dispatch("t", '{"n": 2, "timeoutMs": 50}')
        release.set()
        return [
            (await first).value,
            waiting.to_json(),
            (await session.dispatch("t", {"n": 3})).value,
        ]

    first, waiting, third = asyncio.run(main())
    assert first == {"n": 1, "id": first["id"]}
    assert waiting == {
        "error": {
            "code": "TOOL_TIMEOUT",
            "message": 'Tool "t" did not finish within 50 ms.',
            "details": {"tool": "t", "timeoutMs": 50},
        }
    }
    assert third == {"n": 3, "id": third["id"]}
    assert seen == [1, 3]  # the waiting call never got a thread
    assert log == ["inner>", "handler 1", "<inner", "inner>", "handler 3", "<inner"]


@pytest.mark.parametrize(
    "options", [{"max_concurrency": 2}, {}], ids=["max_concurrency", "middleware"]
)
@pytest.mark.parametrize("is_async", [True, False], ids=["async mw", "sync mw"])
def test_an_inline_handler_runs_with_no_loop_in_its_thread(
    options: dict[str, Any], is_async: bool
) -> None:
    """Under ``dispatch_sync`` the handler still runs in the caller's thread, where it may run
    an event loop of its own or dispatch again, as it may without middleware."""
    session = Session(**options)
    seen: list[Any] = []

    async def inner() -> str:
        await asyncio.sleep(0)
        return "ran"

    @session.on_tool("outer", description="Outer.", schema={"type": "object"})
    def outer(args: dict[str, Any]) -> Any:
        seen.append(threading.get_ident())
        nested = session.dispatch_sync("leaf", {})
        return {"loop": asyncio.run(inner()), "nested": nested.value}

    @session.on_tool("leaf", description="Leaf.", schema={"type": "object"})
    def leaf(args: dict[str, Any]) -> Any:
        return "leaf"

    if not options:
        session.use(layer("a", [], is_async))
    result = session.dispatch_sync("outer", {})
    assert (result.error, result.value) == (None, {"loop": "ran", "nested": "leaf"})
    assert seen == [threading.get_ident()]
