"""How a handler runs: the eager first step of a coroutine, cancellation of an awaited call by a
timer or ``end()``, private event loops for ``dispatch_sync``, and worker-thread helpers.

Timeouts and ``end()`` cancel an awaited call the way ``asyncio.timeout`` does: by cancelling the
task that awaits it and taking the cancellation back (``uncancel``) once the handler has stopped,
so the caller gets a result while a cancellation from elsewhere still propagates. Nothing here
imports ``asyncio`` or ``threading`` at module level.
"""

from __future__ import annotations

import sys
from _thread import allocate_lock
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any, Final, final

if TYPE_CHECKING:
    from pedelec._context import ToolCallContext

__all__ = [
    "Call",
    "Resume",
    "call_unless_cancelled",
    "cancelled_type",
    "discard",
    "log_late",
    "logger",
    "private_loop",
]


def logger() -> Any:
    """The ``pedelec`` logger (``logging`` is imported on first use)."""
    import logging

    return logging.getLogger("pedelec")


@final
class Call:
    """An awaited call that a timer or ``end()`` may cancel (used on the loop's thread)."""

    __slots__ = ("ctx", "done", "loop", "reason", "task")

    def __init__(self, loop: Any, task: Any, ctx: ToolCallContext | None) -> None:
        self.loop = loop
        self.task = task
        self.ctx = ctx
        self.reason: str | None = None
        self.done = False

    def cancel(self, reason: str) -> None:
        if self.done or self.reason is not None:
            return
        self.reason = reason
        if self.ctx is not None:
            self.ctx._cancel()
        self.task.cancel()

    def expire(self) -> None:
        self.cancel("timeout")

    def end(self) -> None:
        """Cancel from any thread (``Session.end``)."""
        try:
            self.loop.call_soon_threadsafe(self.cancel, "ended")
        except RuntimeError:  # the loop is closed: nothing is waiting any more
            return


class Resume:
    """Await the rest of an awaitable whose first step was already taken."""

    __slots__ = ("first", "it")

    def __init__(self, it: Any, first: Any) -> None:
        self.it = it
        self.first = first

    def __await__(self) -> Generator[Any, Any, Any]:
        return drive(self.it, self.first)


def drive(it: Any, yielded: Any) -> Generator[Any, Any, Any]:
    # ``yield from it`` after its first ``send``: every value goes up to the task, every value
    # or exception the task sends (cancellation included) goes down to the handler.
    while True:
        try:
            sent = yield yielded
        except GeneratorExit:
            close = getattr(it, "close", None)
            if close is not None:
                close()
            raise
        except BaseException as exc:
            throw = getattr(it, "throw", None)
            if throw is None:
                raise
            try:
                yielded = throw(exc)
            except StopIteration as stop:
                return stop.value
        else:
            try:
                yielded = it.send(sent)
            except StopIteration as stop:
                return stop.value


# --- private event loops for async handlers under dispatch_sync --------------------------------

_loops: Any = None
_loops_lock: Final = allocate_lock()


class _LoopHolder:
    """A thread's private event loop, closed when the thread (and so its holder) goes away."""

    def __init__(self) -> None:
        import asyncio

        self.loop = asyncio.new_event_loop()

    def close(self) -> None:
        loop = self.loop
        if not loop.is_running() and not loop.is_closed():
            loop.close()

    def __del__(self) -> None:
        self.close()


def private_loop() -> Any:
    global _loops
    if _loops is None:
        with _loops_lock:
            if _loops is None:
                import threading

                _loops = threading.local()
    holder = getattr(_loops, "holder", None)
    if holder is None:
        holder = _loops.holder = _LoopHolder()
        import threading

        if threading.current_thread() is threading.main_thread():
            # Other threads' holders go with their thread; the main thread's lives to the end.
            import atexit

            atexit.register(holder.close)
    return holder.loop


def call_unless_cancelled(ctx: ToolCallContext, fn: Callable[..., Any], *args: Any) -> Any:
    # A worker that picks the call up late (all workers busy, session ended) must not start a
    # handler whose caller has already stopped waiting.
    if ctx._flag:
        return None
    return fn(*args)


def discard(value: Any) -> None:
    """Close a coroutine a sync handler returned but nobody will await (no warning leaks)."""
    import inspect

    if inspect.iscoroutine(value):
        value.close()


def cancelled_type() -> type[BaseException]:
    """``asyncio.CancelledError``, without importing asyncio where nothing else has."""
    aio = sys.modules.get("asyncio")
    return aio.CancelledError if aio is not None else _NeverRaised


class _NeverRaised(BaseException):
    """Stands in for ``asyncio.CancelledError`` while asyncio is not even imported."""


def log_late(name: str, future: Any) -> None:
    """Log the exception of a threaded handler that failed after its call had timed out."""
    if future.cancelled():
        return
    exc = future.exception()
    if exc is not None:
        logger().error(
            'pedelec: the handler of tool "%s" raised after its call was over', name, exc_info=exc
        )
