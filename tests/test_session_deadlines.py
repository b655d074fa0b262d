"""The per-loop deadlines of awaited calls (``pedelec._session.deadlines``): one timer for all
the calls of a loop, armed for the earliest deadline, real event loops throughout.

What a timeout means to a caller (``TOOL_TIMEOUT`` at the deadline, ``end()``) is pinned by the
session tests; these pin the mechanism: the order calls expire in, that a call that returned
never expires, that the heap stays bounded by the calls in flight, and that a loop's deadlines
go with the loop.
"""

from __future__ import annotations

import asyncio
import gc
import weakref
from typing import Any

import pytest

from pedelec import Session
from pedelec._session import deadlines
from pedelec._session.deadlines import Deadlines, deadlines_of


class Recorder:
    def __init__(self, name: str, log: list[str]) -> None:
        self.name = name
        self.log = log

    def expire(self) -> None:
        self.log.append(self.name)


def test_calls_expire_in_deadline_order_and_a_call_that_returned_never_expires() -> None:
    log: list[str] = []

    async def main() -> tuple[int, int]:
        loop = asyncio.get_running_loop()
        box = Deadlines()
        now = loop.time()
        box.add(loop, now + 0.06, Recorder("late", log))
        gone = box.add(loop, now + 0.02, Recorder("returned", log))
        box.add(loop, now + 0.04, Recorder("middle", log))
        box.add(loop, now + 0.01, Recorder("earliest, re-armed for", log))
        box.add(loop, now + 0.04, Recorder("middle, same deadline", log))
        box.remove(gone)
        box.remove(gone)  # twice is once
        await asyncio.sleep(0.2)
        return box.sizes()

    assert asyncio.run(main()) == (0, 0)
    assert log == ["earliest, re-armed for", "middle", "middle, same deadline", "late"]


def test_husks_of_returned_calls_are_swept_so_the_heap_follows_the_calls_in_flight() -> None:
    async def main() -> list[tuple[int, ...]]:
        loop = asyncio.get_running_loop()
        box = Deadlines()
        log: list[str] = []
        live = [box.add(loop, loop.time() + 60, Recorder(f"live {i}", log)) for i in range(3)]
        seen: list[tuple[int, ...]] = []
        for round_ in range(1000):
            entry = box.add(loop, loop.time() + 60, Recorder(f"call {round_}", log))
            box.remove(entry)
            if round_ in (0, 999):
                seen.append(box.sizes())
        for entry in live:
            box.remove(entry)
        seen.append(box.sizes()[:1])
        return seen

    first, last, after = asyncio.run(main())
    assert first == (3, 4)
    assert last[0] == 3 and last[1] <= 2 * 3 + 65  # never more than about twice what is live
    assert after == (0,)


def test_calls_with_a_timeout_share_the_loops_one_timer_and_still_time_out() -> None:
    session = Session()

    @session.tool(timeout_ms=50)
    async def slow(seconds: float) -> str:
        """Sleep."""
        await asyncio.sleep(seconds)
        return "woke"

    async def main() -> tuple[list[Any], tuple[int, int]]:
        loop = asyncio.get_running_loop()
        results = await asyncio.gather(
            session.dispatch("slow", {"seconds": 0.0}),
            session.dispatch("slow", {"seconds": 5.0}),
            session.dispatch("slow", {"seconds": 0.001}),
            session.dispatch("slow", {"seconds": 5.0}),
        )
        summary = [r.error.code if r.error else r.value for r in results]
        return summary, deadlines_of(loop).sizes()

    summary, sizes = asyncio.run(main())
    assert summary == ["woke", "TOOL_TIMEOUT", "woke", "TOOL_TIMEOUT"]
    assert sizes == (0, 0)


def test_a_loops_deadlines_go_with_the_loop() -> None:
    async def main() -> None:
        deadlines_of(asyncio.get_running_loop())  # made, with nothing pending

    loop = asyncio.new_event_loop()
    loop.run_until_complete(main())
    gone = weakref.ref(loop)
    assert loop in deadlines._by_loop
    loop.close()
    del loop
    gc.collect()
    assert gone() is None


class NoWeakLoop:
    """A loop-like object no weak reference can name (as a C-extension loop may be)."""

    __slots__ = ("cancelled", "timers")

    def __init__(self) -> None:
        self.timers: list[Any] = []
        self.cancelled = 0

    def time(self) -> float:
        return 0.0

    def call_at(self, when: float, fn: Any, *args: Any) -> Any:
        loop = self

        class Handle:
            def cancel(self) -> None:
                loop.cancelled += 1

        handle = Handle()
        self.timers.append((when, handle))
        return handle


def test_a_loop_without_weak_references_gets_a_timer_per_call_cancelled_on_return() -> None:
    loop = NoWeakLoop()
    first, second = deadlines_of(loop), deadlines_of(loop)
    assert first is not second
    entry = first.add(loop, 5.0, Recorder("x", []))
    first.remove(entry)
    assert (len(loop.timers), loop.cancelled, first.sizes()) == (1, 1, (0, 1))


@pytest.mark.parametrize("count", [1, 3])
def test_the_timer_left_after_the_last_call_fires_once_and_arms_nothing(count: int) -> None:
    async def main() -> tuple[int, int]:
        loop = asyncio.get_running_loop()
        box = Deadlines()
        for _ in range(count):
            box.remove(box.add(loop, loop.time() + 0.01, Recorder("x", [])))
        await asyncio.sleep(0.05)
        return box.sizes()

    assert asyncio.run(main()) == (0, 0)


class Broken:
    def expire(self) -> None:
        raise RuntimeError("cannot expire")


def test_a_call_whose_expiry_raises_is_logged_and_the_calls_due_with_it_still_expire(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log: list[str] = []

    async def main() -> tuple[int, int]:
        loop = asyncio.get_running_loop()
        box = Deadlines()
        when = loop.time() + 0.01
        box.add(loop, when, Broken())
        box.add(loop, when, Recorder("after the broken one", log))
        box.add(loop, when + 0.02, Recorder("later", log))
        await asyncio.sleep(0.1)
        return box.sizes()

    assert asyncio.run(main()) == (0, 0)
    assert log == ["after the broken one", "later"]
    assert [r.getMessage() for r in caplog.records] == [
        "pedelec: expiring a call at its deadline raised"
    ]
