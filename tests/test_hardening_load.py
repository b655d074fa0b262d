"""Load and faults: 50 000 dispatches at once, and ``end()`` while calls are in flight.

The load test runs 50 000 calls from four threads (``dispatch_sync``) and from asyncio tasks on
the main thread's loop (``await dispatch``) at the same time, over a mix of valid, invalid,
raising, non-JSON-returning and slow handlers (sync and async; the slow ones overrun a 1-2 ms
per-call ``timeoutMs``). It checks every result against the plan, the exact count of each
result code, that the status is back to ``idle``, and that no thread and no task is left behind.
Most calls are cheap so the test stays within seconds on two cores; the slow ones are a few
hundred. Nothing is timed.

The cancellation tests call ``end()`` while async handlers, threaded sync handlers and calls on
other threads' private loops are in flight: each of them observes its cancellation, every caller
gets ``SESSION_ENDED``, new calls get ``SESSION_ENDED`` and ``on_ended`` fires once.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from typing import Any

import pytest

from pedelec import Session, ToolCallContext, ToolResult

NUMBER: Any = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}

THREADS = 4
PER_THREAD = 8_000  # 32 000 calls through dispatch_sync
TASKS = 18_000  # and 18 000 through await dispatch
BATCH = 1_000  # tasks in flight at once


class Counts:
    """What the handlers saw, counted under a lock (handlers run in many threads)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.cancelled = 0  # async handlers that received CancelledError
        self.slow_started = 0  # sync slow handlers that started
        self.told = 0  # threaded handlers whose cancel_event was set

    def add(self, attribute: str) -> None:
        with self.lock:
            setattr(self, attribute, getattr(self, attribute) + 1)


def load_session(counts: Counts) -> Session:
    session = Session()

    @session.on_tool("double", description="Double n.", schema=NUMBER)
    def double(args: dict[str, Any]) -> Any:
        return {"n": args["n"] * 2}

    @session.on_tool("double_async", description="Double n.", schema=NUMBER)
    async def double_async(args: dict[str, Any]) -> Any:
        await asyncio.sleep(0)
        return {"n": args["n"] * 2}

    @session.on_tool("fail", description="Fail.", schema=NUMBER)
    def fail(args: dict[str, Any]) -> Any:
        raise ValueError(f"n={args['n']}")

    @session.on_tool("fail_async", description="Fail.", schema=NUMBER)
    async def fail_async(args: dict[str, Any]) -> Any:
        await asyncio.sleep(0)
        raise KeyError(args["n"])

    @session.on_tool("junk", description="Junk.", schema=NUMBER)
    def junk(args: dict[str, Any]) -> Any:
        return {args["n"]}

    @session.on_tool("junk_async", description="Junk.", schema=NUMBER)
    async def junk_async(args: dict[str, Any]) -> Any:
        return float("nan")

    @session.on_tool("slow", description="Slow, sync.", schema=NUMBER)
    def slow(args: dict[str, Any], ctx: ToolCallContext) -> Any:
        # Inline under dispatch_sync it cannot be interrupted: it overruns and returns. In a
        # worker thread under dispatch, the timer sets cancel_event and it stops at once.
        counts.add("slow_started")
        if ctx.cancel_event.wait(args["n"] / 1000):
            counts.add("told")
        return "too late"

    @session.on_tool("slow_async", description="Slow, async.", schema=NUMBER)
    async def slow_async(args: dict[str, Any]) -> Any:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            counts.add("cancelled")
            raise
        return "too late"

    return session


# (tool, args, expected code or "ok") for call i; "ok" results are {"n": 2n}.
def plan_sync(i: int) -> tuple[str, Any, str]:
    """Calls made with dispatch_sync from the threads."""
    slot = i % 100
    if slot < 55:
        return "double", {"n": i}, "ok"
    if slot < 60:
        return "double", f'{{"n": {i}}}', "ok"  # JSON text
    if slot < 64:
        return "double_async", {"n": i}, "ok"  # on the thread's private loop
    if slot < 74:
        return "double", {"n": str(i)}, "TOOL_ARGS_INVALID"
    if slot < 77:
        return "double", '{"n": 1, "n": 2}', "TOOL_ARGS_INVALID"
    if slot < 80:
        return "nope", {"n": i}, "TOOL_NOT_FOUND"
    if slot < 88:
        return "fail", {"n": i}, "TOOL_HANDLER_ERROR"
    if slot < 89:
        return "fail_async", {"n": i}, "TOOL_HANDLER_ERROR"
    if slot < 97:
        return "junk", {"n": i}, "SUBMIT_TOOL_RESULT_FAILED"
    if slot < 98:
        return "junk_async", {"n": i}, "SUBMIT_TOOL_RESULT_FAILED"
    if i % 1000 == 998:  # 8 per thread: sleeps 3 ms inline, past its 1 ms timeout
        return "slow", {"n": 3, "timeoutMs": 1}, "TOOL_TIMEOUT"
    if i % 1000 == 999:  # 8 per thread, cancelled on the private loop
        return "slow_async", {"n": i, "timeoutMs": 1}, "TOOL_TIMEOUT"
    return "double", {"n": -i}, "ok"


def plan_async(i: int) -> tuple[str, Any, str]:
    """Calls made with await dispatch from tasks on the main loop."""
    slot = i % 100
    if slot < 60:
        return "double_async", {"n": i}, "ok"
    if slot < 65:
        return "double", {"n": i}, "ok"  # a worker thread
    if slot < 75:
        return "double_async", {"n": None}, "TOOL_ARGS_INVALID"
    if slot < 78:
        return "nope", "{}", "TOOL_NOT_FOUND"
    if slot < 85:
        return "fail_async", {"n": i}, "TOOL_HANDLER_ERROR"
    if slot < 86:
        return "fail", {"n": i}, "TOOL_HANDLER_ERROR"
    if slot < 93:
        return "junk_async", {"n": i}, "SUBMIT_TOOL_RESULT_FAILED"
    if slot < 94:
        return "junk", {"n": i}, "SUBMIT_TOOL_RESULT_FAILED"
    if slot < 95:  # 180: cancelled at 2 ms
        return "slow_async", {"n": i, "timeoutMs": 2}, "TOOL_TIMEOUT"
    if slot < 96 and i % 200 < 100:  # 90: a worker thread told to stop at 2 ms
        return "slow", {"n": 5_000, "timeoutMs": 2}, "TOOL_TIMEOUT"
    return "double_async", {"n": -i}, "ok"


def check(result: ToolResult, planned: tuple[str, Any, str]) -> str:
    tool, args, code = planned
    assert result.tool == tool
    if code == "ok":
        assert result.error is None, result.error
        n = args["n"] if isinstance(args, dict) else int(args.split(":")[1].rstrip("}"))
        assert result.value == {"n": n * 2}
    else:
        assert result.error is not None, result
        assert result.error.code == code, (planned, result.error)
    return code


def expected_counts() -> Counter[str]:
    counts: Counter[str] = Counter()
    for t in range(THREADS):
        counts.update(plan_sync(i)[2] for i in range(t * PER_THREAD, (t + 1) * PER_THREAD))
    counts.update(plan_async(i)[2] for i in range(TASKS))
    return counts


def test_the_plan_covers_every_outcome() -> None:
    counts = expected_counts()
    assert sum(counts.values()) == 50_000
    assert counts["TOOL_TIMEOUT"] == 2 * 8 * THREADS + 180 + 90
    assert sorted(counts) == [
        "SUBMIT_TOOL_RESULT_FAILED",
        "TOOL_ARGS_INVALID",
        "TOOL_HANDLER_ERROR",
        "TOOL_NOT_FOUND",
        "TOOL_TIMEOUT",
        "ok",
    ]


def test_50000_dispatches_across_threads_and_tasks() -> None:
    counts = Counts()
    session = load_session(counts)
    threads_before = set(threading.enumerate())
    tallies: list[Counter[str]] = []
    failures: list[BaseException] = []

    def worker(t: int) -> None:
        tally: Counter[str] = Counter()
        try:
            for i in range(t * PER_THREAD, (t + 1) * PER_THREAD):
                planned = plan_sync(i)
                tally[check(session.dispatch_sync(planned[0], planned[1]), planned)] += 1
        except BaseException as exc:  # reported below with the thread's context
            failures.append(exc)
        tallies.append(tally)

    async def tasks() -> Counter[str]:
        tally: Counter[str] = Counter()
        for start in range(0, TASKS, BATCH):
            plans = [plan_async(i) for i in range(start, start + BATCH)]
            results = await asyncio.gather(*(session.dispatch(p[0], p[1]) for p in plans))
            for result, planned in zip(results, plans, strict=True):
                tally[check(result, planned)] += 1
        # Every handler task was awaited to its end: only this one is left.
        assert asyncio.all_tasks() == {asyncio.current_task()}
        return tally

    threads = [threading.Thread(target=worker, args=(t,), name=f"load-{t}") for t in range(THREADS)]
    for thread in threads:
        thread.start()
    tallies.append(asyncio.run(tasks()))
    for thread in threads:
        thread.join(120)
        assert not thread.is_alive()
    assert failures == []

    total: Counter[str] = Counter()
    for tally in tallies:
        total.update(tally)
    assert total == expected_counts()
    assert sum(total.values()) == 50_000
    assert session.status == "idle"
    assert counts.cancelled == 180 + 8 * THREADS  # every async timeout was cancelled

    # The session's worker threads (for sync handlers under dispatch) go with end(); the
    # load threads and their private loops are gone already.
    session.end()
    leftover = [t for t in threading.enumerate() if t not in threads_before]
    for thread in leftover:
        thread.join(10)
    assert set(threading.enumerate()) <= threads_before  # (earlier tests' may have ended)
    # A timed-out threaded handler runs on after its caller has the result; once the workers
    # are gone, every one that started was told through cancel_event. (One still queued when
    # its call timed out is never started: the 8 inline ones under dispatch_sync always are.)
    assert 8 * THREADS < counts.slow_started <= 8 * THREADS + 90
    assert counts.told == counts.slow_started - 8 * THREADS


def test_status_listeners_see_a_consistent_end_state_under_load() -> None:
    # With a status listener the running count is kept under the lock; every "waiting" has
    # its "idle", and the last word is "idle".
    session = load_session(Counts())
    seen: list[str] = []
    lock = threading.Lock()

    def record(status: str) -> None:
        with lock:
            seen.append(status)

    session.on_status(record)

    def worker(t: int) -> None:
        for i in range(t * 500, (t + 1) * 500):
            planned = plan_sync(i)
            check(session.dispatch_sync(planned[0], planned[1]), planned)

    async def tasks() -> None:
        plans = [plan_async(i) for i in range(2_000)]
        results = await asyncio.gather(*(session.dispatch(p[0], p[1]) for p in plans))
        for result, planned in zip(results, plans, strict=True):
            check(result, planned)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(THREADS)]
    for thread in threads:
        thread.start()
    asyncio.run(tasks())
    for thread in threads:
        thread.join(60)
    assert session.status == "idle"
    assert seen[-1] == "idle"
    assert seen.count("waiting_tool_result") == seen.count("idle") >= 1
    assert set(seen) == {"waiting_tool_result", "idle"}
    session.end()


# --- end() while calls are in flight ---------------------------------------------------------


class Waiters:
    """Handlers that wait until they are cancelled, and what each of them observed."""

    def __init__(self, expected: int) -> None:
        self.lock = threading.Lock()
        self.started = 0
        self.expected = expected
        self.all_started = threading.Event()
        self.cancelled_error = 0
        self.ctx_cancelled = 0
        self.event_set = 0

    def start(self) -> None:
        with self.lock:
            self.started += 1
            if self.started == self.expected:
                self.all_started.set()


def waiting_session(waiters: Waiters) -> Session:
    session = Session()
    schema: Any = {"type": "object"}

    @session.on_tool("wait", description="Wait until cancelled.", schema=schema)
    async def wait(args: dict[str, Any], ctx: ToolCallContext) -> Any:
        waiters.start()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            with waiters.lock:
                waiters.cancelled_error += 1
                waiters.ctx_cancelled += ctx.cancelled
            raise
        return "finished"

    @session.on_tool("block", description="Block until told.", schema=schema)
    def block(args: dict[str, Any], ctx: ToolCallContext) -> Any:
        waiters.start()
        if ctx.cancel_event.wait(30):
            with waiters.lock:
                waiters.event_set += 1
        return "finished"

    return session


RUNNING_ENDED = 'The session ended while tool "{}" was running; it was cancelled.'
NOT_RUN = 'The session has ended; tool "{}" was not run.'


def ended(result: ToolResult, tool: str, message: str) -> None:
    assert result.error is not None
    assert result.error.code == "SESSION_ENDED"
    assert result.error.message == message.format(tool)
    assert result.error.details == {"tool": tool}


@pytest.mark.parametrize("from_thread", [False, True], ids=["end-on-the-loop", "end-from-a-thread"])
def test_end_cancels_every_call_in_flight(from_thread: bool) -> None:
    # Threaded calls stay below the session's worker pool (at least 5 threads), so all of them
    # are running, not queued, when end() comes.
    async_calls, threaded_calls, sync_threads = 300, 4, 3
    waiters = Waiters(async_calls + threaded_calls + sync_threads)
    session = waiting_session(waiters)
    ended_calls: list[int] = []
    statuses: list[str] = []
    session.on_ended(lambda: ended_calls.append(1))
    session.on_status(statuses.append)
    threads_before = set(threading.enumerate())
    sync_results: list[ToolResult] = []

    def sync_caller() -> None:  # an async handler on this thread's private loop
        sync_results.append(session.dispatch_sync("wait", {}))

    callers = [threading.Thread(target=sync_caller) for _ in range(sync_threads)]
    for caller in callers:
        caller.start()

    async def scenario() -> list[ToolResult]:
        calls = [asyncio.ensure_future(session.dispatch("wait", {})) for _ in range(async_calls)]
        calls += [
            asyncio.ensure_future(session.dispatch("block", {})) for _ in range(threaded_calls)
        ]
        for _ in range(10_000):  # a bound, so a broken test fails instead of hanging
            if waiters.all_started.is_set():
                break
            await asyncio.sleep(0.001)
        assert waiters.all_started.is_set()
        if from_thread:
            # end() from many threads at once: it still runs once.
            enders = [threading.Thread(target=session.end) for _ in range(8)]
            for ender in enders:
                ender.start()
            for ender in enders:
                ender.join(10)
        else:
            session.end()
            session.end()
        results = await asyncio.gather(*calls)
        assert asyncio.all_tasks() == {asyncio.current_task()}
        return list(results)

    results = asyncio.run(scenario())
    for caller in callers:
        caller.join(10)
        assert not caller.is_alive()

    for result in results[:async_calls]:
        ended(result, "wait", RUNNING_ENDED)
    for result in results[async_calls:]:
        ended(result, "block", RUNNING_ENDED)
    assert len(sync_results) == sync_threads
    for result in sync_results:
        ended(result, "wait", RUNNING_ENDED)
    # Every async handler was cancelled, and saw its context cancelled, before its caller got
    # the result.
    assert waiters.cancelled_error == async_calls + sync_threads
    assert waiters.ctx_cancelled == async_calls + sync_threads
    # New calls, any kind, any way in.
    ended(session.dispatch_sync("wait", {}), "wait", NOT_RUN)
    ended(session.dispatch_sync("block", {}), "block", NOT_RUN)
    ended(asyncio.run(session.dispatch("wait", {})), "wait", NOT_RUN)
    ended(session.dispatch_sync("nope", "{}"), "nope", NOT_RUN)
    session.end()
    assert ended_calls == [1]
    assert session.status == "ended"
    assert statuses[0] == "waiting_tool_result"
    assert statuses.count("ended") == 1 and statuses[-1] == "ended"
    assert "idle" not in statuses[statuses.index("ended") :]
    leftover = [t for t in threading.enumerate() if t not in threads_before]
    for thread in leftover:
        thread.join(10)
    assert set(threading.enumerate()) <= threads_before  # (earlier tests' may have ended)
    # A threaded handler cannot be stopped, only told: each one was, and then returned.
    assert waiters.event_set == threaded_calls


def test_on_ended_registered_after_the_end_fires_once_at_once() -> None:
    session = Session()
    session.end()
    fired: list[int] = []
    session.on_ended(lambda: fired.append(1))
    session.end()
    assert fired == [1]


@pytest.mark.asyncio
async def test_calls_racing_end_get_a_result_each() -> None:
    # Calls started while end() runs on another thread: each one either finishes, or reports
    # SESSION_ENDED (not run, or cancelled while running); none raises or hangs.
    waiters = Waiters(10**9)
    session = waiting_session(waiters)

    @session.on_tool("quick", description="Quick.", schema={"type": "object"})
    async def quick(args: dict[str, Any]) -> Any:
        await asyncio.sleep(0)
        return "done"

    calls = [asyncio.ensure_future(session.dispatch("quick", {})) for _ in range(2_000)]
    ender = threading.Thread(target=lambda: (time.sleep(0.002), session.end()))
    ender.start()
    results = await asyncio.gather(*calls)
    ender.join(10)
    outcomes = Counter("done" if r.error is None else r.error.message for r in results)
    assert sum(outcomes.values()) == 2_000
    assert set(outcomes) <= {"done", RUNNING_ENDED.format("quick"), NOT_RUN.format("quick")}
    assert session.status == "ended"
