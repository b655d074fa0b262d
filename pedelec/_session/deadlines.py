"""The deadlines of the calls awaited on one event loop, under one timer.

A timer per call (``loop.call_at``, cancelled when the call returns) added 8-27 µs to a call
handed to a worker thread in one-off scripts on the machine of ``docs/performance.md``, far
more than its own few microseconds of work (the hand-off table of
``benchmarks/bench_dispatch.py`` reads the two ways within its noise). So the calls of a loop
share one timer, armed for the earliest deadline and re-armed for the next one when it fires:
calls that all have the same timeout arm it once per timeout, not once per call.

A call that returns leaves a husk in the heap, swept once husks are more than half of it, so
the heap holds at most about twice the calls in flight. The timer left armed after the last
call fires once, finds nothing due and arms no other. Nothing here imports ``asyncio``.
"""

from __future__ import annotations

from heapq import heapify, heappop, heappush
from itertools import count
from typing import Any, Final, Protocol, final

__all__ = ["Deadlines", "deadlines_of"]

#: Husks a heap keeps before it is swept (and only when they are half of it).
_MIN_SWEEP: Final = 64


class _Expiring(Protocol):
    def expire(self) -> None: ...


@final
class Deadlines:
    """The deadlines of one loop's awaited calls (used on that loop's thread only).

    ``shared=False`` is for a loop no weak reference can name (it cannot be a key of
    ``_by_loop``): then the object serves one call and ``remove`` cancels its timer.
    """

    __slots__ = ("_armed", "_dead", "_handle", "_heap", "_order", "_shared")

    def __init__(self, shared: bool = True) -> None:
        # Entries are [when, order, call]: ``order`` keeps equal deadlines from comparing the
        # calls, and ``call`` becomes None once the call has returned or expired.
        self._heap: list[list[Any]] = []
        self._order = count()
        self._armed = float("inf")  # when the armed timer fires (inf: none armed)
        self._handle: Any = None  # a weak reference to it: the loop alone keeps it
        self._dead = 0  # husks in the heap
        self._shared = shared

    def add(self, loop: Any, when: float, call: _Expiring) -> list[Any]:
        """Expire ``call`` at ``when`` (the loop's clock); the entry to ``remove`` it with."""
        entry = [when, next(self._order), call]
        heappush(self._heap, entry)
        if when < self._armed:
            self._arm(loop, when)
        return entry

    def remove(self, entry: list[Any]) -> None:
        """The call returned: it cannot expire any more."""
        if entry[2] is None:  # expired already
            return
        entry[2] = None
        if not self._shared:
            self._disarm()
            return
        self._dead += 1
        heap = self._heap
        if self._dead > _MIN_SWEEP and 2 * self._dead > len(heap):
            heap[:] = [e for e in heap if e[2] is not None]
            heapify(heap)
            self._dead = 0

    def sizes(self) -> tuple[int, int]:
        """(calls that may still expire, entries held): for tests."""
        return sum(1 for e in self._heap if e[2] is not None), len(self._heap)

    def _arm(self, loop: Any, when: float) -> None:
        import weakref

        self._disarm()
        self._armed = when
        self._handle = weakref.ref(loop.call_at(when, self._fire, loop))

    def _disarm(self) -> None:
        ref = self._handle
        if ref is not None:
            self._handle = None
            self._armed = float("inf")
            handle = ref()
            if handle is not None:
                handle.cancel()

    def _fire(self, loop: Any) -> None:
        """The timer: expire every call due (the timer may fire a clock tick early), then arm
        for the next deadline."""
        now = max(self._armed, loop.time())
        self._handle = None
        self._armed = float("inf")
        heap = self._heap
        due = []
        while heap and (heap[0][0] <= now or heap[0][2] is None):
            entry = heappop(heap)
            call = entry[2]
            if call is None:
                self._dead -= 1
            else:
                entry[2] = None
                due.append(call)
        if heap:
            self._arm(loop, heap[0][0])
        for call in due:
            # Each due call is expired even if one before it fails: a call left unexpired
            # would wait past its deadline for good.
            try:
                call.expire()
            except Exception as exc:
                from pedelec._session.events import log_error

                log_error("pedelec: expiring a call at its deadline raised", exc=exc)


_by_loop: Any = None


def deadlines_of(loop: Any) -> Deadlines:
    """The ``Deadlines`` of ``loop``, made on first use; it goes with the loop."""
    global _by_loop
    if _by_loop is None:
        import weakref

        _by_loop = weakref.WeakKeyDictionary()
    try:
        deadlines: Deadlines = _by_loop[loop]
    except KeyError:
        deadlines = _by_loop[loop] = Deadlines()
    except TypeError:  # a loop without weak references: a timer of its own for each call
        return Deadlines(shared=False)
    return deadlines
