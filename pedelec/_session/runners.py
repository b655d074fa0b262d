"""How a handler runs: the async and threaded runners, deadlines, cancellation, private loops.

The inline runner (a sync handler under ``dispatch_sync``) is written out in
``Session.dispatch_sync`` itself, being the whole overhead of a trivial call; every runner ends
in ``outcome.settle``.

* ``Runner.run_async``: an async handler, in the awaiting task (``dispatch``) or on a private
  per-thread event loop (``dispatch_sync``); its first step runs eagerly and a timer is only
  armed if it suspends, so a handler that never awaits costs no more than a function call;
* ``Runner.run_threaded``: a sync handler under ``dispatch``, in the session's worker threads.

Timeouts and ``end()`` cancel an awaited call the way ``asyncio.timeout`` does: by cancelling the
task that awaits it and taking the cancellation back (``uncancel``) once the handler has stopped,
so the caller gets a result while a cancellation from elsewhere still propagates. Nothing here
imports ``asyncio`` or ``threading`` at module level.
"""

from __future__ import annotations

from _thread import allocate_lock
from collections.abc import Callable, Generator
from time import monotonic
from typing import TYPE_CHECKING, Any, Final, final

from pedelec import _result
from pedelec._context import ToolCallContext, cancel, cancel_requested
from pedelec._result import request_id
from pedelec._session.events import Events, logger, safe_call
from pedelec._session.outcome import Overdue, settle

if TYPE_CHECKING:
    from pedelec._handlers import HandlerSpec
    from pedelec._result import ToolResult

__all__ = ["Runner", "private_loop"]

#: The results after which a threaded handler still runs on, unobserved.
_LATE_CODES: Final = frozenset({"TOOL_TIMEOUT", "SESSION_ENDED"})


@final
class Runner:
    """The running calls of one session: counting, deadlines, ``end()`` and the worker threads."""

    __slots__ = ("_executor", "_lock", "ended", "events", "live", "running", "session_id")

    def __init__(self, session_id: str, lock: Any, events: Events) -> None:
        self.session_id = session_id
        self._lock = lock
        self.events = events
        # One entry per running handler: ``append``/``pop`` are atomic, so counting needs no lock
        # unless someone listens for status changes (then transitions are computed under it).
        self.running: list[None] = []
        self.ended = False
        # Calls end() must cancel: key -> a function that cancels that key from any thread.
        self.live: dict[Any, Callable[[Any], None]] = {}
        self._executor: Any = None

    def context(
        self, name: str, rid: str | int, turn_id: str | None, timeout_ms: int
    ) -> ToolCallContext:
        return ToolCallContext(self.session_id, request_id(rid), name, turn_id, timeout_ms)

    def end(self) -> bool:
        """Stop: cancel every awaited call, let the workers go; False when already ended.

        Takes the ``on_ended`` callbacks under the same lock, so each fires once.
        """
        with self._lock:
            if self.ended:
                return False
            self.ended = True
            live = list(self.live.items())
            executor, self._executor = self._executor, None
            ended_cbs = self.events.take_ended()
        for key, stop in live:
            safe_call(stop, key)
        if executor is not None:
            executor.shutdown(wait=False)
        self.events.emit_status("ended")
        for (cb,) in ended_cbs:
            safe_call(cb)
        return True

    def enter(self) -> None:
        if not self.events.status:
            self.running.append(None)
            return
        with self._lock:
            self.running.append(None)
            first = len(self.running) == 1 and not self.ended
        if first:
            self.events.emit_status("waiting_tool_result")

    def leave(self) -> None:
        if not self.events.status:
            self.running.pop()
            return
        with self._lock:
            self.running.pop()
            last = not self.running and not self.ended
        if last:
            self.events.emit_status("idle")

    async def run_async(
        self,
        name: str,
        rid: str | int,
        spec: HandlerSpec,
        args: dict[str, Any],
        turn_id: str | None,
        timeout_ms: int,
    ) -> ToolResult:
        fn = spec.args_only
        ctx = None
        value: Any = None
        raised: Exception | None = None
        self.enter()
        try:
            start = monotonic()
            try:
                if fn is not None:
                    awaitable = fn(args)
                else:
                    ctx = self.context(name, rid, turn_id, timeout_ms)
                    awaitable = spec.call(args, ctx)
                it = awaitable.__await__()
                first = it.send(None)
            except StopIteration as stop:
                value = stop.value
            except Exception as exc:
                raised = exc
            else:
                # The handler suspended: from here on a timer (and end()) may cancel it.
                deadline = start + timeout_ms / 1000
                return await self._await_rest(
                    name, rid, ctx, Resume(it, first), deadline, timeout_ms
                )
            overdue = None
            if monotonic() - start > timeout_ms / 1000 or self.ended:
                overdue = Overdue(timeout_ms, ctx, self.ended)
            return settle(name, rid, value, raised, self.events, overdue)
        finally:
            self.leave()

    async def run_threaded(
        self,
        name: str,
        rid: str | int,
        spec: HandlerSpec,
        args: dict[str, Any],
        turn_id: str | None,
        timeout_ms: int,
    ) -> ToolResult:
        import asyncio
        import contextvars

        # Always a context here: its flag tells a worker that picks the call up late not to
        # start it, and its event tells a running handler that nobody waits any more.
        ctx = self.context(name, rid, turn_id, timeout_ms)
        self.enter()
        try:
            start = monotonic()
            executor = self._get_executor()
            if executor is None:  # the session ended meanwhile
                return _result.session_ended(name, rid)
            run = contextvars.copy_context().run
            fn = spec.args_only
            if fn is not None:
                future = executor.submit(run, _call_unless_cancelled, ctx, fn, args)
            else:
                future = executor.submit(run, _call_unless_cancelled, ctx, spec.call, args, ctx)
            deadline = start + timeout_ms / 1000
            result = await self._await_rest(
                name, rid, ctx, asyncio.wrap_future(future), deadline, timeout_ms
            )
            if result.error is not None and result.error.code in _LATE_CODES:
                future.add_done_callback(lambda f: _log_late(name, f))
            return result
        finally:
            self.leave()

    def _get_executor(self) -> Any:
        executor = self._executor
        if executor is None:
            from concurrent.futures import ThreadPoolExecutor

            with self._lock:
                if self.ended:
                    return None
                executor = self._executor
                if executor is None:
                    executor = self._executor = ThreadPoolExecutor(
                        thread_name_prefix=f"pedelec-{self.session_id[:8]}"
                    )
        return executor

    async def _await_rest(
        self,
        name: str,
        rid: str | int,
        ctx: ToolCallContext | None,
        awaitable: Any,
        deadline: float,
        timeout_ms: int,
    ) -> ToolResult:
        """Await a running handler under its deadline and ``end()``; turn it into a result."""
        import asyncio

        value: Any = None
        raised: BaseException | None = None
        loop = asyncio.get_running_loop()
        task = asyncio.current_task(loop)
        if task is None:  # driven by something other than an asyncio task: no timer possible
            try:
                value = await awaitable
            except Exception as exc:
                raised = exc
            return settle(name, rid, value, raised, self.events)
        call = Call(loop, task, ctx)
        cancelling = task.cancelling()
        handle = loop.call_at(loop.time() + (deadline - monotonic()), call.expire)
        with self._lock:
            ended = self.ended
            if not ended:
                self.live[call] = Call.end
        if ended:
            call.cancel("ended")
        try:
            value = await awaitable
        except asyncio.CancelledError as exc:
            if call.reason is None:
                raise
            raised = exc
        except Exception as exc:
            raised = exc
        finally:
            call.done = True
            handle.cancel()
            with self._lock:
                self.live.pop(call, None)
        overdue = None
        if call.reason is not None:
            # Take our cancellation back; re-raise when someone else cancelled the task too.
            if task.uncancel() > cancelling and isinstance(raised, asyncio.CancelledError):
                raise raised
            overdue = Overdue(timeout_ms, ctx, self.ended)
        elif self.ended:  # ended while the handler ran, too late to cancel it
            overdue = Overdue(timeout_ms, ctx, True)
        return settle(name, rid, value, raised, self.events, overdue)


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
            cancel(self.ctx)
        self.task.cancel()

    def expire(self) -> None:
        self.cancel("timeout")

    def end(self) -> None:
        """Cancel from any thread (``end()``)."""
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


def _call_unless_cancelled(ctx: ToolCallContext, fn: Callable[..., Any], *args: Any) -> Any:
    # A worker that picks the call up late (all workers busy, session ended) must not start a
    # handler whose caller has already stopped waiting.
    if cancel_requested(ctx):
        return None
    return fn(*args)


def _log_late(name: str, future: Any) -> None:
    """Log the exception of a threaded handler that failed after its call had timed out."""
    if future.cancelled():
        return
    exc = future.exception()
    if exc is not None:
        logger().error(
            'pedelec: the handler of tool "%s" raised after its call was over', name, exc_info=exc
        )
