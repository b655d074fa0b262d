"""Sync handlers in worker threads (issue 11, item 6), with real threads.

A Python thread cannot be stopped. A threaded handler that overruns its timeout keeps its thread,
so the session replaces it (up to ``Limits.max_abandoned_threads``) and other calls keep their
capacity; past that bound a call that finds no worker gets ``TOOL_WORKERS_EXHAUSTED``, never a
``TOOL_TIMEOUT`` for a handler that did not run. ``Session(sync_dispatch="worker")`` gives
``dispatch_sync`` the same hard deadline as ``await dispatch``; ``Session(executor=...)`` and
``Session(max_workers=...)`` choose the threads. The overrunning handlers here block on an event
the test sets at the end, so no assertion depends on timing.
"""

from __future__ import annotations

import asyncio
import contextvars
import gc
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from pedelec import Limits, PedelecError, Session, ToolCallContext, ToolResult

OPEN: Any = {"type": "object"}
WHO: contextvars.ContextVar[str] = contextvars.ContextVar("who", default="nobody")


class Stuck:
    """Handlers that overrun their timeout until the test lets them go."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = 0
        self.told = 0
        self.returned = 0
        self.lock = threading.Lock()

    def handler(self, args: dict[str, Any], ctx: ToolCallContext) -> Any:
        with self.lock:
            self.started += 1
        self.release.wait(30)  # ignores its cancel_event, as a blocking library call would
        with self.lock:
            self.told += ctx.cancel_event.is_set()
            self.returned += 1
        return "late"

    def wait_returned(self, count: int) -> None:
        """Wait (bounded) until ``count`` released handlers have returned."""
        for _ in range(1000):
            with self.lock:
                if self.returned >= count:
                    return
            threading.Event().wait(0.01)


def stuck_session(stuck: Stuck, **options: Any) -> Session:
    session = Session(**options)
    # 100 ms: time enough for a worker to start it even on a loaded machine.
    session.on_tool("stuck", description="Overrun.", schema=OPEN, timeout_ms=100)(stuck.handler)
    session.on_tool("fast", description="Answer.", schema=OPEN)(
        lambda args: threading.current_thread().name
    )
    return session


@pytest.fixture
def stuck() -> Iterator[Stuck]:
    handlers = Stuck()
    yield handlers
    handlers.release.set()


def timeout_of(result: ToolResult, tool: str, ms: int) -> None:
    assert result.to_json() == {
        "error": {
            "code": "TOOL_TIMEOUT",
            "message": f'Tool "{tool}" did not finish within {ms} ms.',
            "details": {"tool": tool, "timeoutMs": ms},
        }
    }


async def overrun(session: Session, calls: int) -> None:
    for result in await asyncio.gather(*(session.dispatch("stuck", {}) for _ in range(calls))):
        timeout_of(result, "stuck", 100)


def test_handlers_that_overran_do_not_take_the_capacity_of_other_calls(stuck: Stuck) -> None:
    # Ten overrunning handlers on four workers: each thread they hold was replaced.
    session = stuck_session(stuck, max_workers=4)
    for _ in range(5):
        asyncio.run(overrun(session, 2))
    assert stuck.started == 10
    result = asyncio.run(session.dispatch("fast", {}))
    assert result.error is None and result.value.startswith("pedelec-")
    assert session.status == "idle"
    stuck.release.set()
    session.end()


def test_past_the_abandoned_bound_a_call_gets_workers_exhausted(stuck: Stuck) -> None:
    limits = Limits(max_abandoned_threads=2)
    session = stuck_session(stuck, max_workers=2, limits=limits)
    reported: list[ToolResult] = []
    session.on_error(reported.append)
    asyncio.run(overrun(session, 2))  # abandoned, and replaced
    asyncio.run(overrun(session, 2))  # abandoned too, but past the bound: they count again
    assert stuck.started == 4
    expected = {
        "error": {
            "code": "TOOL_WORKERS_EXHAUSTED",
            "message": 'Tool "fast" was not run: every worker thread is held by a handler that '
            "overran its timeout (threads held: 4).",
            "details": {"tool": "fast", "heldThreads": 4},
        }
    }
    assert asyncio.run(session.dispatch("fast", {})).to_json() == expected
    worker = Session(sync_dispatch="worker", max_workers=1, limits=Limits(max_abandoned_threads=0))
    worker.on_tool("stuck", description="Overrun.", schema=OPEN, timeout_ms=20)(stuck.handler)
    worker.on_tool("fast", description="Answer.", schema=OPEN)(lambda args: "fast")
    timeout_of(worker.dispatch_sync("stuck", {}), "stuck", 20)
    assert worker.dispatch_sync("fast", {}).to_json() == {
        "error": {
            "code": "TOOL_WORKERS_EXHAUSTED",
            "message": 'Tool "fast" was not run: every worker thread is held by a handler that '
            "overran its timeout (threads held: 1).",
            "details": {"tool": "fast", "heldThreads": 1},
        }
    }
    assert [r.error.code for r in reported if r.error is not None] == ["TOOL_TIMEOUT"] * 4 + [
        "TOOL_WORKERS_EXHAUSTED"
    ]
    # Once the handlers return, their threads serve calls again.
    stuck.release.set()
    for _ in range(500):
        result = asyncio.run(session.dispatch("fast", {}))
        if result.error is None:
            break
        threading.Event().wait(0.01)
    assert result.error is None
    assert session.status == "idle"
    # One free thread answers "fast" before the other released handlers return; wait for them all.
    stuck.wait_returned(5)
    assert stuck.told == 5  # every overrunning handler found its cancel_event set
    session.end()
    worker.end()


def test_a_call_queued_when_the_last_worker_is_abandoned_reports_it_at_its_deadline(
    stuck: Stuck,
) -> None:
    # One worker and no replacement: the second call queues behind a live call; when that
    # call overruns, its thread keeps counting, so the queued call never runs, and its result
    # at its deadline says why rather than TOOL_TIMEOUT.
    session = Session(max_workers=1, limits=Limits(max_abandoned_threads=0))
    started = threading.Event()

    @session.on_tool("hold", description="Hold.", schema=OPEN, timeout_ms=300)
    def hold(args: dict[str, Any]) -> Any:
        started.set()
        return stuck.release.wait(30)

    session.on_tool("next", description="Next.", schema=OPEN, timeout_ms=1_000)(lambda a: 1)

    async def scenario() -> list[ToolResult]:
        first = asyncio.ensure_future(session.dispatch("hold", {}))
        while not started.is_set():
            await asyncio.sleep(0.001)
        second = asyncio.ensure_future(session.dispatch("next", {}))
        return [await first, await second]

    held, queued = asyncio.run(scenario())
    timeout_of(held, "hold", 300)
    assert queued.to_json() == {
        "error": {
            "code": "TOOL_WORKERS_EXHAUSTED",
            "message": 'Tool "next" was not run within its timeout: every worker thread is held '
            "by a handler that overran its timeout (threads held: 1).",
            "details": {"tool": "next", "heldThreads": 1},
        }
    }
    stuck.release.set()
    session.end()


def test_a_call_queued_behind_live_calls_times_out_as_a_timeout(stuck: Stuck) -> None:
    # One worker, busy with a live call: the second call waits in the queue, and its
    # deadline passing there is an ordinary TOOL_TIMEOUT (nothing was abandoned).
    session = Session(max_workers=1)
    gate = threading.Event()

    @session.on_tool("busy", description="Busy.", schema=OPEN, timeout_ms=10_000)
    def busy(args: dict[str, Any]) -> Any:
        gate.wait(10)
        return "done"

    @session.on_tool("queued", description="Queued.", schema=OPEN, timeout_ms=20)
    def queued(args: dict[str, Any]) -> Any:
        return "ran"

    async def scenario() -> list[ToolResult]:
        first = asyncio.ensure_future(session.dispatch("busy", {}))
        await asyncio.sleep(0.05)
        second = await session.dispatch("queued", {})
        gate.set()
        return [await first, second]

    done, late = asyncio.run(scenario())
    assert done.value == "done"
    timeout_of(late, "queued", 20)
    session.end()


def test_dispatch_sync_inline_runs_in_the_callers_thread_and_waits() -> None:
    session = Session()
    ran_in: list[int] = []

    @session.on_tool("slow", description="Slow.", schema=OPEN, timeout_ms=20)
    def slow(args: dict[str, Any], ctx: ToolCallContext) -> Any:
        ran_in.append(threading.get_ident())
        while not ctx.cancelled:  # true at the deadline, though nothing can interrupt us
            threading.Event().wait(0.005)
        return "late"

    timeout_of(session.dispatch_sync("slow", {}), "slow", 20)
    assert ran_in == [threading.get_ident()]


def test_dispatch_sync_worker_returns_at_the_deadline(stuck: Stuck) -> None:
    session = stuck_session(stuck, sync_dispatch="worker")
    told: list[bool] = []

    @session.on_tool("polite", description="Polite.", schema=OPEN, timeout_ms=20)
    def polite(args: dict[str, Any], ctx: ToolCallContext) -> Any:
        told.append(ctx.cancel_event.wait(30))
        return WHO.get()

    # The handler still blocks when the result comes: it came at the deadline.
    timeout_of(session.dispatch_sync("stuck", {}), "stuck", 100)
    assert not stuck.release.is_set() and stuck.started == 1
    timeout_of(session.dispatch_sync("polite", {}), "polite", 20)
    WHO.set("caller")
    result = session.dispatch_sync("fast", {})
    assert result.error is None and result.value != threading.current_thread().name
    for _ in range(500):
        if told:
            break
        threading.Event().wait(0.01)
    assert told == [True]
    session.end()


def test_dispatch_sync_worker_keeps_context_variables() -> None:
    session = Session(sync_dispatch="worker")
    session.on_tool("who", description="Who.", schema=OPEN)(lambda args: WHO.get())
    token = WHO.set("caller")
    try:
        assert session.dispatch_sync("who", {}).value == "caller"
    finally:
        WHO.reset(token)
    session.end()


def test_end_sets_the_cancel_event_of_a_worker_call() -> None:
    session = Session(sync_dispatch="worker")
    started = threading.Event()
    told: list[bool] = []

    @session.on_tool("wait", description="Wait.", schema=OPEN)
    def wait(args: dict[str, Any], ctx: ToolCallContext) -> Any:
        started.set()
        told.append(ctx.cancel_event.wait(30))
        return "done"

    results: list[ToolResult] = []
    caller = threading.Thread(target=lambda: results.append(session.dispatch_sync("wait", {})))
    caller.start()
    assert started.wait(10)
    session.end()
    caller.join(10)
    assert [r.to_json() for r in results] == [
        {
            "error": {
                "code": "SESSION_ENDED",
                "message": 'The session ended while tool "wait" was running; it was cancelled.',
                "details": {"tool": "wait"},
            }
        }
    ]
    for _ in range(500):
        if told:
            break
        threading.Event().wait(0.01)
    assert told == [True]


def test_a_given_executor_is_used_and_never_shut_down() -> None:
    with ThreadPoolExecutor(2, thread_name_prefix="app") as executor:
        session = Session(executor=executor)
        session.on_tool("where", description="Where.", schema=OPEN)(
            lambda args: threading.current_thread().name
        )
        assert asyncio.run(session.dispatch("where", {})).value.startswith("app")
        session.end()
        assert executor.submit(lambda: "still open").result(10) == "still open"
    refused = Session(executor=executor, sync_dispatch="worker")
    refused.on_tool("where", description="Where.", schema=OPEN)(lambda args: "ran")
    expected = {
        "error": {
            "code": "TOOL_WORKERS_EXHAUSTED",
            "message": 'Tool "where" was not run: the session\'s executor refused it '
            "(RuntimeError).",
            "details": {"tool": "where"},
        }
    }
    assert refused.dispatch_sync("where", {}).to_json() == expected
    assert asyncio.run(refused.dispatch("where", {})).to_json() == expected


def test_the_sessions_own_threads_are_daemons_and_go_with_end() -> None:
    session = Session(max_workers=2)
    session.on_tool("me", description="Me.", schema=OPEN)(
        lambda args: threading.current_thread().name
    )
    before = set(threading.enumerate())
    name = asyncio.run(session.dispatch("me", {})).value
    (thread,) = [t for t in threading.enumerate() if t.name == name]
    assert thread.daemon and thread.name.startswith("pedelec-")
    session.end()
    thread.join(10)
    assert not thread.is_alive()
    assert set(threading.enumerate()) <= before | {thread}


def test_a_session_nobody_ends_takes_its_threads_along_when_dropped_without_a_collection() -> None:
    # A session in a reference cycle would wait for a full garbage collection, rare in a process
    # that holds many objects, with its idle worker threads alive until then.
    gc.collect()
    gc.disable()
    try:
        session = Session(max_workers=2)
        session.use(lambda call, call_next: call_next(call))  # the middleware chain's callback
        session.on_tool("me", description="Me.", schema=OPEN)(
            lambda args: threading.current_thread().name
        )
        name = asyncio.run(session.dispatch("me", {})).value
        (thread,) = [t for t in threading.enumerate() if t.name == name]
        del session
        thread.join(10)
        assert not thread.is_alive()
        assert gc.collect() == 0  # nothing was left for a collection to find
    finally:
        gc.enable()


@pytest.mark.parametrize(
    ("options", "message", "field"),
    [
        ({"sync_dispatch": "thread"}, 'sync_dispatch must be "inline" or "worker", got \'thread\'.', "sync_dispatch"),
        ({"executor": object()}, "executor must be a concurrent.futures.Executor, got object.", "executor"),
        ({"max_workers": 0}, "max_workers must be a positive integer, got 0.", "max_workers"),
        ({"max_workers": True}, "max_workers must be a positive integer, got True.", "max_workers"),
        (
            {"executor": ThreadPoolExecutor(1), "max_workers": 2},
            "Give executor or max_workers, not both: max_workers sizes the session's own pool.",
            "max_workers",
        ),
    ],
)  # fmt: skip
def test_bad_worker_options(options: dict[str, Any], message: str, field: str) -> None:
    with pytest.raises(PedelecError) as info:
        Session(**options)
    assert info.value.to_dict() == {
        "code": "INVALID_INPUT",
        "message": message,
        "details": {"field": field},
    }


def test_max_abandoned_threads_may_be_zero_but_not_negative() -> None:
    assert Limits(max_abandoned_threads=0).max_abandoned_threads == 0
    assert Limits().max_abandoned_threads == 32
    with pytest.raises(PedelecError) as info:
        Limits(max_abandoned_threads=-1)
    assert info.value.to_dict() == {
        "code": "INVALID_INPUT",
        "message": "Limits(max_abandoned_threads=...) must be a non-negative integer, got -1.",
        "details": {"limit": "max_abandoned_threads"},
    }


# --- the pool's jobs, directly ---------------------------------------------------------------------
#
# A job submitted for an event loop settles the loop's future itself (one call_soon_threadsafe)
# instead of being awaited through asyncio.wrap_future; these pin what that must keep from
# concurrent.futures.Future: outcomes, cancellation before a worker takes it, callbacks, and a
# worker that survives a closed loop or a failing callback.


def own_workers(size: int = 1) -> Any:
    from pedelec._session.workers import Workers

    return Workers("pedelec-test", size, 0)


def finished(workers: Any, fn: Any) -> Any:
    """Submit ``fn`` and wait (bounded) until the worker has finished it: the job."""
    job = workers.submit(fn)
    done = threading.Event()
    job.add_done_callback(lambda j: done.set())
    assert done.wait(10)
    return job


def test_a_job_for_a_loop_settles_the_loops_future_with_the_value_or_the_exception() -> None:
    workers = own_workers()

    async def main() -> tuple[Any, ...]:
        loop = asyncio.get_running_loop()
        job, future = workers.submit_for(loop, lambda a, b: a + b, 2, 5)
        value = await future
        bad, failing = workers.submit_for(loop, {}.__getitem__, "missing")
        with pytest.raises(KeyError) as raised:
            await failing
        return value, job.done(), job.cancelled(), job.result(), raised.value is bad.exception()

    try:
        assert asyncio.run(main()) == (7, True, False, 7, True)
    finally:
        workers.close()


def test_a_job_cancelled_before_a_worker_takes_it_never_runs_and_cancels_its_future() -> None:
    workers = own_workers(1)
    release = threading.Event()
    started = threading.Event()
    ran: list[str] = []

    def hold() -> bool:
        started.set()
        return release.wait(30)

    async def main() -> tuple[Any, ...]:
        loop = asyncio.get_running_loop()
        busy, busy_future = workers.submit_for(loop, hold)
        assert started.wait(10)  # the only worker runs it: the next job stays queued
        queued, queued_future = workers.submit_for(loop, ran.append, "queued")
        first = queued.cancel()
        again = queued.cancel()
        taken = busy.cancel()  # already running: cannot be cancelled
        release.set()
        await busy_future
        with pytest.raises(asyncio.CancelledError):
            await queued_future
        _, after_future = workers.submit_for(loop, ran.append, "after")
        await after_future
        return first, again, taken, queued.cancelled(), queued.done(), busy.result()

    try:
        assert asyncio.run(main()) == (True, True, False, True, True, True)
        assert ran == ["after"]
    finally:
        release.set()
        workers.close()


def test_done_callbacks_run_once_and_one_that_raises_is_logged_while_the_worker_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    workers = own_workers(1)
    seen: list[Any] = []

    def broken(job: Any) -> None:
        raise ValueError("callback bug")

    release = threading.Event()
    job = workers.submit(release.wait, 30)
    job.add_done_callback(broken)
    job.add_done_callback(lambda j: seen.append(("pending", j.result())))
    release.set()
    follow = finished(workers, lambda: "next")
    job.add_done_callback(lambda j: seen.append(("done", j.result())))  # runs at once
    try:
        assert seen == [("pending", True), ("done", True)]
        assert follow.result() == "next"
        assert [r.getMessage() for r in caplog.records] == [
            "pedelec: a callback of a worker job raised"
        ]
    finally:
        workers.close()


def test_a_job_that_finishes_after_its_loop_closed_leaves_the_worker_serving() -> None:
    workers = own_workers(1)
    release = threading.Event()
    loop = asyncio.new_event_loop()
    job, future = workers.submit_for(loop, release.wait, 30)
    loop.close()
    release.set()
    follow = finished(workers, lambda: "still serving")
    try:
        assert (job.result(), follow.result(), future.done()) == (True, "still serving", False)
    finally:
        workers.close()


def test_mixed_deadlines_under_load_each_call_gets_its_own_outcome_and_none_is_left_pending(
    stuck: Stuck,
) -> None:
    # Agent-chosen timeouts in any order share the loop's one deadline timer: overrunning
    # calls with 100-300 ms deadlines (by timeoutMs) interleaved with quick ones, all at once.
    from pedelec._session.deadlines import deadlines_of

    session = stuck_session(stuck, max_workers=32, limits=Limits(max_abandoned_threads=16))
    plan = [("stuck", 300), ("fast", None), ("stuck", 100), ("fast", None), ("stuck", 200)] * 4

    async def main() -> tuple[list[Any], tuple[int, int]]:
        calls = [
            session.dispatch(tool, {} if ms is None else {"timeoutMs": ms}) for tool, ms in plan
        ]
        results = await asyncio.gather(*calls)
        return results, deadlines_of(asyncio.get_running_loop()).sizes()

    results, (pending, _) = asyncio.run(main())
    for (tool, ms), result in zip(plan, results, strict=True):
        if ms is None:
            assert result.error is None and result.value.startswith("pedelec-")
        else:
            timeout_of(result, tool, ms)
    assert (pending, session.status) == (0, "idle")
    stuck.release.set()
    session.end()
