"""Concurrency controls: the session-wide cap on running handlers, and sequential tools in a batch.

``Slots`` is a counting semaphore that any thread and any event loop can wait on (a session's
calls come from the application's loop, from ``dispatch_sync`` callers' private loops and from
worker threads at once), so neither ``asyncio.Semaphore`` (one loop) nor
``threading.Semaphore`` (blocks a loop) fits. Waiters are served first come, first served; a
waiter that stops waiting (its call's timeout, ``end()``, its task cancelled) passes a slot it
was granted on to the next one, so no slot is ever lost.

``batches`` splits a batch of provider tool calls at its sequential tools: a sequential call
waits for every call before it and runs before any call after it.
"""

from __future__ import annotations

from _thread import allocate_lock
from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeVar, final

from pedelec.errors import INVALID_INPUT, PedelecError

if TYPE_CHECKING:
    from pedelec._session.registry import Registry

__all__ = ["Slots", "batches", "check_max_concurrency"]


class _BatchCall(Protocol):
    """What ``batches`` reads of an adapter's normalised call."""

    name: str
    error: PedelecError | None


_T = TypeVar("_T", bound=_BatchCall)


def check_max_concurrency(value: Any) -> int | None:
    """``Session(max_concurrency=...)``: ``None`` or a positive int (a bool is not one)."""
    if value is None or (type(value) is int and value >= 1):
        return value
    raise PedelecError(
        INVALID_INPUT,
        f"max_concurrency must be a positive integer (the most handlers that run at once), "
        f"got {value!r}.",
        {"field": "max_concurrency"},
    )


@final
class _Waiter:
    """One call waiting for a slot, on its own event loop."""

    __slots__ = ("future", "granted", "loop")

    def __init__(self, loop: Any) -> None:
        self.loop = loop
        self.future = loop.create_future()
        self.granted = False

    def wake(self) -> None:
        if not self.future.done():
            self.future.set_result(None)


@final
class Slots:
    """At most ``size`` holders at a time, across threads and event loops (FIFO)."""

    __slots__ = ("_free", "_lock", "_waiting", "size")

    def __init__(self, size: int) -> None:
        self.size: Final = size
        self._free = size
        self._lock = allocate_lock()
        self._waiting: deque[_Waiter] = deque()

    async def acquire(self) -> None:
        """Wait for a slot; a cancellation while waiting leaves the slots as they were."""
        import asyncio

        with self._lock:
            if self._free and not self._waiting:
                self._free -= 1
                return
            waiter = _Waiter(asyncio.get_running_loop())
            self._waiting.append(waiter)
        try:
            await waiter.future
        except BaseException:
            with self._lock:
                granted = waiter.granted
                if not granted:
                    self._waiting.remove(waiter)
            if granted:  # released to us just as we stopped waiting: hand it on
                self.release()
            raise

    def release(self) -> None:
        """Give a slot back: to the longest waiting call, or to the pool."""
        while True:
            with self._lock:
                if not self._waiting:
                    self._free += 1
                    return
                waiter = self._waiting.popleft()
                waiter.granted = True
            try:
                waiter.loop.call_soon_threadsafe(waiter.wake)
                return
            except RuntimeError:  # its loop is closed: nobody is left to take the slot
                continue


def batches(registry: Registry, calls: Sequence[_T]) -> list[list[_T]] | None:
    """``calls`` cut into groups to run one after another, or ``None`` when none is sequential.

    Each sequential call is a group of its own; the calls between two of them form one group
    that runs concurrently. ``calls`` are ``pedelec.adapters._calls.Call`` objects; one that
    carries an error (it will not run) never waits for anything.
    """
    get = registry.get
    groups: list[list[_T]] | None = None
    group: list[_T] = []
    for call in calls:
        entry = get(call.name) if call.error is None else None
        if entry is not None and entry.definition.sequential:
            if groups is None:
                groups = []
            if group:
                groups.append(group)
                group = []
            groups.append([call])
        else:
            group.append(call)
    if groups is None:
        return None
    if group:
        groups.append(group)
    return groups
