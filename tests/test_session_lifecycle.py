"""Status, events, timeouts, cancellation and end(), on real event loops and threads."""

from __future__ import annotations

import asyncio
import contextvars
import gc
import threading
import time
from typing import Any

import pytest

from pedelec._context import ToolCallContext
from pedelec.errors import PedelecError
from pedelec.session import Session, ToolResult

OPEN: Any = {"type": "object"}


def ended_running(name: str) -> dict[str, Any]:
    return {
        "error": {
            "code": "SESSION_ENDED",
            "message": f'The session ended while tool "{name}" was running; it was cancelled.',
            "details": {"tool": name},
        }
    }


def timeout_of(name: str, ms: int) -> dict[str, Any]:
    return {
        "error": {
            "code": "TOOL_TIMEOUT",
            "message": f'Tool "{name}" did not finish within {ms} ms.',
            "details": {"tool": name, "timeoutMs": ms},
        }
    }


# --- status and events ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["dispatch_sync", "dispatch"])
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_status_during_and_after_a_call(mode: str, kind: str) -> None:
    session = Session()
    seen_inside: list[str] = []
    changes: list[str] = []
    session.on_status(changes.append)

    if kind == "sync":

        def handler(args: Any) -> Any:
            seen_inside.append(session.status)
            if args.get("fail"):
                raise ValueError("no")
            return 1

    else:

        async def handler(args: Any) -> Any:
            await asyncio.sleep(0)
            seen_inside.append(session.status)
            if args.get("fail"):
                raise ValueError("no")
            return 1

    session.on_tool("t", description="T.", schema=OPEN)(handler)

    def call(args: Any) -> ToolResult:
        if mode == "dispatch_sync":
            return session.dispatch_sync("t", args)
        return asyncio.run(session.dispatch("t", args))

    assert call({}).value == 1
    assert call({"fail": True}).error.code == "TOOL_HANDLER_ERROR"  # type: ignore[union-attr]
    assert call("[]").error.code == "TOOL_ARGS_INVALID"  # type: ignore[union-attr]
    assert seen_inside == ["waiting_tool_result", "waiting_tool_result"]
    # A failed call is that call's result: the session is idle again; args errors never start.
    assert changes == ["waiting_tool_result", "idle", "waiting_tool_result", "idle"]
    assert session.status == "idle"


def test_unsubscribe_and_raising_callbacks(caplog: pytest.LogCaptureFixture) -> None:
    session = Session()
    session.on_tool("t", description="T.", schema=OPEN)(lambda args: 1 / 0)
    got: list[Any] = []

    def broken(*args: Any) -> None:
        raise RuntimeError("callback bug")

    session.on_status(broken)
    session.on_error(broken)
    session.on_ended(broken)
    stop_status = session.on_status(got.append)
    stop_error = session.on_error(lambda result: got.append(result.error.code))
    with caplog.at_level("ERROR", logger="pedelec"):
        result = session.dispatch_sync("t", {})
    assert result.error is not None and result.error.code == "TOOL_HANDLER_ERROR"
    assert got == ["waiting_tool_result", "TOOL_HANDLER_ERROR", "idle"]
    stop_status()
    stop_error()
    stop_error()  # unsubscribing twice is harmless
    session.dispatch_sync("t", {})
    assert got == ["waiting_tool_result", "TOOL_HANDLER_ERROR", "idle"]
    with caplog.at_level("ERROR", logger="pedelec"):
        session.end()
    messages = [r.getMessage() for r in caplog.records]
    assert messages.count("pedelec: a session callback raised; it was ignored") >= 4


def test_the_same_callback_twice_is_two_subscriptions() -> None:
    session = Session()
    got: list[str] = []
    first = session.on_status(got.append)
    session.on_status(got.append)
    first()
    session.end()
    assert got == ["ended"]


ERRORS = {
    "raises": (lambda args: 1 / 0, True),
    "returns_set": (lambda args: {1}, True),
    "overruns": (lambda args: time.sleep(0.05), True),
    "domain": (lambda args: (_ for _ in ()).throw(PedelecError("NOPE", "No.")), False),
    "envelope": (lambda args: {"error": {"code": "NOPE", "message": "No."}}, False),
    "ok": (lambda args: 1, False),
}


@pytest.mark.parametrize("name", [*ERRORS, "no_handler", "unknown", "bad_args"])
def test_on_error_fires_for_developer_failures_only(name: str) -> None:
    session = Session()
    for tool, (fn, _) in ERRORS.items():
        session.on_tool(
            tool, description="T.", schema=OPEN, timeout_ms=5 if tool == "overruns" else None
        )(fn)
    session.on_tool("no_handler", description="T.", schema=OPEN)(ERRORS["ok"][0])
    session.off_tool("no_handler", ERRORS["ok"][0])
    reported: list[ToolResult] = []
    session.on_error(reported.append)
    expected = ERRORS[name][1] if name in ERRORS else name == "no_handler"
    result = session.dispatch_sync(
        "t" if name == "bad_args" else name, "[]" if name == "bad_args" else {}
    )
    assert reported == ([result] if expected else [])


def test_on_ended_fires_once_and_end_is_idempotent() -> None:
    session = Session()
    ended: list[str] = []
    statuses: list[str] = []
    session.on_ended(lambda: ended.append("first"))
    session.on_status(statuses.append)
    stop = session.on_ended(lambda: ended.append("removed"))
    stop()
    session.end()
    session.end()
    assert ended == ["first"]
    assert statuses == ["ended"]
    assert session.status == "ended"
    session.on_ended(lambda: ended.append("late"))  # already ended: called at once
    assert ended == ["first", "late"]


# --- dispatch_sync misuse -------------------------------------------------------------------


@pytest.mark.asyncio
async def test_dispatch_sync_inside_a_running_loop_raises() -> None:
    session = Session()
    session.on_tool("t", description="T.", schema=OPEN)(lambda args: 1)
    with pytest.raises(RuntimeError) as info:
        session.dispatch_sync("t", {})
    assert str(info.value) == (
        "Session.dispatch_sync() was called from a thread that is running an event loop, where "
        "it would block that loop; use `await session.dispatch(...)` instead."
    )
    assert session.status == "idle"
    # The same call from a worker thread is fine.
    result = await asyncio.to_thread(session.dispatch_sync, "t", {})
    assert result.value == 1


def test_async_handler_under_dispatch_sync_in_threads() -> None:
    session = Session()

    @session.on_tool("t", description="T.", schema=OPEN)
    async def handler(args: Any, ctx: ToolCallContext) -> Any:
        await asyncio.sleep(0.001)
        return {"n": args["n"], "loop": id(asyncio.get_running_loop())}

    results: list[Any] = []

    def worker(base: int) -> None:
        for n in range(base, base + 20):
            results.append(session.dispatch_sync("t", {"n": n}).value)

    threads = [threading.Thread(target=worker, args=(i * 100,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(r["n"] for r in results) == sorted(
        i * 100 + j for i in range(4) for j in range(20)
    )
    # Each thread runs its own private loop, reused for its calls.
    assert len({r["loop"] for r in results}) == 4
    assert session.status == "idle"


# --- timeouts -------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_async_timeout_cancels_the_handler() -> None:
    session = Session()
    events: list[str] = []

    @session.on_tool("slow", description="S.", schema=OPEN, timeout_ms=20)
    async def slow(args: Any, ctx: ToolCallContext) -> Any:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            events.append(f"cancelled {ctx.cancelled} {ctx.cancel_event.is_set()}")
            raise
        return "never"

    start = time.monotonic()
    result = await session.dispatch("slow", {})
    assert time.monotonic() - start < 2
    assert result.to_json() == timeout_of("slow", 20)
    assert events == ["cancelled True True"]
    assert session.status == "idle"
    # The task that awaited dispatch is not left cancelled.
    task = asyncio.current_task()
    assert task is not None and task.cancelling() == 0
    await asyncio.sleep(0)


@pytest.mark.asyncio
async def test_per_call_timeout_overrides_the_tools() -> None:
    session = Session()

    @session.on_tool("wait", description="W.", schema=OPEN, timeout_ms=10)
    async def wait(args: Any) -> str:
        await asyncio.sleep(0.05)
        return "done"

    assert (await session.dispatch("wait", {})).to_json() == timeout_of("wait", 10)
    assert (await session.dispatch("wait", {"timeoutMs": 5000})).value == "done"
    assert (await session.dispatch("wait", '{"timeoutMs": 1}')).to_json() == timeout_of("wait", 1)


@pytest.mark.asyncio
async def test_handler_that_swallows_cancellation_still_times_out() -> None:
    session = Session()

    @session.on_tool("stubborn", description="S.", schema=OPEN, timeout_ms=10)
    async def stubborn(args: Any) -> str:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            return "ignored the cancellation"
        return "never"

    result = await session.dispatch("stubborn", {})
    assert result.to_json() == timeout_of("stubborn", 10)
    task = asyncio.current_task()
    assert task is not None and task.cancelling() == 0


@pytest.mark.asyncio
async def test_handler_that_blocks_its_first_step_reports_a_timeout() -> None:
    session = Session()

    @session.on_tool("blocking", description="B.", schema=OPEN, timeout_ms=5)
    async def blocking(args: Any) -> str:
        time.sleep(0.03)  # never awaits: no timer could interrupt it
        return "late"

    assert (await session.dispatch("blocking", {})).to_json() == timeout_of("blocking", 5)


@pytest.mark.asyncio
async def test_cancelling_the_caller_still_propagates() -> None:
    session = Session()
    started = asyncio.Event()

    @session.on_tool("slow", description="S.", schema=OPEN)
    async def slow(args: Any) -> str:
        started.set()
        await asyncio.sleep(5)
        return "never"

    task = asyncio.create_task(session.dispatch("slow", {}))
    await started.wait()
    assert session.status == "waiting_tool_result"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert session.status == "idle"


@pytest.mark.asyncio
async def test_an_outer_timeout_composes_with_the_tools() -> None:
    session = Session()

    @session.on_tool("slow", description="S.", schema=OPEN, timeout_ms=5000)
    async def slow(args: Any) -> str:
        await asyncio.sleep(5)
        return "never"

    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.02):
            await session.dispatch("slow", {})
    assert session.status == "idle"


@pytest.mark.asyncio
async def test_threaded_sync_handler_times_out_and_is_told(
    caplog: pytest.LogCaptureFixture,
) -> None:
    session = Session()
    saw_cancel = threading.Event()
    finished = threading.Event()

    @session.on_tool("slow", description="S.", schema=OPEN, timeout_ms=20)
    def slow(args: Any, ctx: ToolCallContext) -> str:
        if ctx.cancel_event.wait(5):
            saw_cancel.set()
        finished.set()
        raise ValueError("after the deadline")

    with caplog.at_level("ERROR", logger="pedelec"):
        result = await session.dispatch("slow", {})
        assert result.to_json() == timeout_of("slow", 20)
        assert await asyncio.to_thread(finished.wait, 5)
        await asyncio.sleep(0.05)
    assert saw_cancel.is_set()
    assert session.status == "idle"
    assert 'pedelec: the handler of tool "slow" raised after its call was over' in [
        r.getMessage() for r in caplog.records
    ]
    session.end()


def test_sync_handler_under_dispatch_sync_overrunning_reports_timeout() -> None:
    session = Session()
    seen: list[bool] = []

    @session.on_tool("slow", description="S.", schema=OPEN, timeout_ms=10)
    def slow(args: Any, ctx: ToolCallContext) -> str:
        before = ctx.cancelled
        time.sleep(0.03)
        seen.extend([before, ctx.cancelled])
        return "finished late"

    assert session.dispatch_sync("slow", {}).to_json() == timeout_of("slow", 10)
    # Nothing can interrupt it, but the deadline is visible to a handler that polls.
    assert seen == [False, True]


def test_contextvars_reach_threaded_handlers() -> None:
    var: contextvars.ContextVar[str] = contextvars.ContextVar("var", default="unset")
    session = Session()
    session.on_tool("read", description="R.", schema=OPEN)(lambda args: var.get())

    async def main() -> Any:
        var.set("from the caller")
        return (await session.dispatch("read", {})).value

    assert asyncio.run(main()) == "from the caller"
    session.end()


# --- end() with calls in flight -----------------------------------------------------------


@pytest.mark.asyncio
async def test_end_cancels_async_handlers_in_flight() -> None:
    session = Session()
    started = asyncio.Event()
    cancelled: list[bool] = []
    ended: list[str] = []
    session.on_ended(lambda: ended.append("ended"))

    @session.on_tool("slow", description="S.", schema=OPEN)
    async def slow(args: Any, ctx: ToolCallContext) -> str:
        started.set()
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancelled.append(ctx.cancel_event.is_set())
            raise
        return "never"

    tasks = [asyncio.create_task(session.dispatch("slow", {})) for _ in range(3)]
    await started.wait()
    await asyncio.sleep(0)
    session.end()
    results = await asyncio.gather(*tasks)
    assert [r.to_json() for r in results] == [ended_running("slow")] * 3
    assert cancelled == [True, True, True]
    assert ended == ["ended"]
    assert session.status == "ended"
    new = await session.dispatch("slow", {})
    assert new.error is not None and new.error.code == "SESSION_ENDED"


@pytest.mark.asyncio
async def test_end_from_another_thread_cancels_async_handlers() -> None:
    session = Session()
    started = asyncio.Event()

    @session.on_tool("slow", description="S.", schema=OPEN)
    async def slow(args: Any) -> str:
        started.set()
        await asyncio.sleep(5)
        return "never"

    task = asyncio.create_task(session.dispatch("slow", {}))
    await started.wait()
    await asyncio.to_thread(session.end)
    assert (await task).to_json() == ended_running("slow")


@pytest.mark.asyncio
async def test_end_releases_callers_of_threaded_handlers() -> None:
    session = Session()
    started = threading.Event()
    told = threading.Event()

    @session.on_tool("slow", description="S.", schema=OPEN)
    def slow(args: Any, ctx: ToolCallContext) -> str:
        started.set()
        if ctx.cancel_event.wait(5):
            told.set()
        return "discarded"

    task = asyncio.create_task(session.dispatch("slow", {}))
    assert await asyncio.to_thread(started.wait, 5)
    session.end()
    assert (await task).to_json() == ended_running("slow")
    assert await asyncio.to_thread(told.wait, 5)


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_end_during_dispatch_sync_in_another_thread(kind: str) -> None:
    session = Session()
    started = threading.Event()
    told: list[bool] = []

    if kind == "sync":

        def handler(args: Any, ctx: ToolCallContext) -> str:
            started.set()
            told.append(ctx.cancel_event.wait(5))
            return "discarded"

    else:

        async def handler(args: Any, ctx: ToolCallContext) -> str:
            started.set()
            try:
                await asyncio.sleep(5)
            finally:
                told.append(ctx.cancel_event.is_set())
            return "never"

    session.on_tool("t", description="T.", schema=OPEN)(handler)
    results: list[ToolResult] = []
    worker = threading.Thread(target=lambda: results.append(session.dispatch_sync("t", {})))
    worker.start()
    assert started.wait(5)
    session.end()
    worker.join(5)
    assert not worker.is_alive()
    assert [r.to_json() for r in results] == [ended_running("t")]
    assert told == [True]


@pytest.mark.asyncio
async def test_end_called_by_a_running_async_handler() -> None:
    session = Session()

    @session.on_tool("ends", description="E.", schema=OPEN)
    async def ends(args: Any) -> str:
        await asyncio.sleep(0)
        session.end()
        return "discarded"

    assert (await session.dispatch("ends", {})).to_json() == ended_running("ends")
    task = asyncio.current_task()
    assert task is not None and task.cancelling() == 0


def test_end_while_a_sync_handler_runs_in_the_calling_thread() -> None:
    session = Session()

    @session.on_tool("ends", description="E.", schema=OPEN)
    def ends(args: Any) -> str:
        session.end()
        return "discarded"

    assert session.dispatch_sync("ends", {}).to_json() == ended_running("ends")
    assert session.status == "ended"


# --- a dropped session is freed by reference counting ------------------------------------------


def _typed_create(title: str, day: int = 1) -> dict[str, object]:
    """Create an entry.

    Args:
        title: Its title.
        day: Its day.
    """
    return {"title": title, "day": day}


async def _typed_echo(title: str) -> str:
    """Echo the title."""
    return title


FREED_SESSIONS: list[tuple[str, dict[str, Any]]] = [
    ("default", {}),
    ("sync_dispatch worker", {"sync_dispatch": "worker"}),
    ("max_concurrency", {"max_concurrency": 2}),
    ("approver", {"approver": lambda request: True}),
    ("middleware", {}),
    ("subscribers", {}),
    ("ended", {}),
]


@pytest.mark.parametrize(("case", "options"), FREED_SESSIONS, ids=[c for c, _ in FREED_SESSIONS])
def test_a_dropped_session_leaves_nothing_for_the_garbage_collector(
    case: str, options: dict[str, Any]
) -> None:
    # Objects in a reference cycle wait for a full collection, rare in a process holding many
    # objects: a server that makes a session per client would pile them up until then.
    def use_once() -> None:
        session = Session(**options)
        session.tool(_typed_create)
        session.tool(_typed_echo)
        if case == "middleware":
            session.use(lambda call, call_next: call_next(call))
        if case == "subscribers":
            session.on_status(lambda status: None)
            session.on_error(lambda result: None)
            session.on_ended(lambda: None)
        results = [
            session.dispatch_sync("_typed_create", {"title": "a"}),
            session.dispatch_sync("_typed_create", '{"title": "a"}'),
            session.dispatch_sync("_typed_create", {"title": 1}),
            session.dispatch_sync("missing", {}),
            asyncio.run(session.dispatch("_typed_create", {"title": "a"})),
            asyncio.run(session.dispatch("_typed_echo", {"title": "a"})),
        ]
        assert [r.error.code if r.error else r.value for r in results] == [
            {"title": "a", "day": 1},
            {"title": "a", "day": 1},
            "TOOL_ARGS_INVALID",
            "TOOL_NOT_FOUND",
            {"title": "a", "day": 1},
            "a",
        ]
        if case == "ended":
            session.end()

    use_once()  # first uses (imports, the private event loop, cached validators) out of the way
    gc.collect()
    gc.disable()
    try:
        use_once()
        assert gc.collect() == 0
    finally:
        gc.enable()
