"""How a handler runs: the async and threaded runners, deadlines, cancellation, private loops.

The inline runner (a sync handler under ``dispatch_sync``) is written out in
``Session.dispatch_sync`` itself, being the whole overhead of a trivial call; every runner ends
in ``outcome.settle``.

* ``Runner.run_async``: an async handler, in the awaiting task (``dispatch``) or on a private
  per-thread event loop (``dispatch_sync``); its first step runs eagerly and a timer is only
  armed if it suspends, so a handler that never awaits costs no more than a function call;
* ``Runner.run_threaded``: a sync handler under ``dispatch``, in the session's worker threads;
* ``Runner.run_blocking``: a sync handler under ``dispatch_sync`` with
  ``sync_dispatch="worker"``, in the same threads, its caller waiting on an event until the
  deadline.

Timeouts and ``end()`` cancel an awaited call the way ``asyncio.timeout`` does: by cancelling the
task that awaits it and taking the cancellation back (``uncancel``) once the handler has stopped,
so the caller gets a result while a cancellation from elsewhere still propagates; a
``CancelledError`` with no cancellation request of the task behind it is the handler's own
outcome. A threaded handler's outcome travels back as a value, never as the future's exception
(see ``_call_unless_cancelled``). The worker threads are ``Workers``, the session's own pool
that replaces threads held by overrunning handlers, or ``Borrowed``, an executor the
application gave. Nothing here imports ``asyncio`` or ``threading`` at module level.
"""

from __future__ import annotations

from _thread import allocate_lock
from collections.abc import Callable, Generator
from time import monotonic
from typing import TYPE_CHECKING, Any, Final, final

from pedelec import _result
from pedelec._context import ToolCallContext, cancel, cancel_requested
from pedelec._json.wire import SAFE_INT
from pedelec._result import ok, request_id
from pedelec._session.deadlines import deadlines_of
from pedelec._session.events import PASSED, Events, log_error, safe_call
from pedelec._session.outcome import Overdue, settle
from pedelec._session.workers import Borrowed, Refused, Workers, default_workers
from pedelec.errors import PedelecError
from pedelec.limits import DEFAULT_MAX_ABANDONED_THREADS

if TYPE_CHECKING:
    from pedelec._handlers import HandlerSpec
    from pedelec._result import ToolResult

__all__ = ["Runner", "private_loop"]


@final
class Runner:
    """The running calls of one session: counting, deadlines, ``end()`` and the worker threads."""

    __slots__ = (
        "_executor",
        "_lock",
        "_max_abandoned",
        "_max_workers",
        "_workers",
        "ended",
        "events",
        "live",
        "running",
        "session_id",
    )

    def __init__(
        self,
        session_id: str,
        lock: Any,
        events: Events,
        *,
        executor: Any = None,
        max_workers: int | None = None,
        max_abandoned: int = DEFAULT_MAX_ABANDONED_THREADS,
    ) -> None:
        self.session_id = session_id
        self._lock = lock
        self.events = events
        # One entry per running handler: ``append``/``pop`` are atomic, so counting needs no lock
        # unless someone listens for status changes (then transitions are computed under it).
        self.running: list[None] = []
        self.ended = False
        # Calls end() must cancel: key -> a function that cancels that key from any thread.
        self.live: dict[Any, Callable[[Any], None]] = {}
        self._executor = executor
        self._max_workers = max_workers
        self._max_abandoned = max_abandoned
        self._workers: Workers | Borrowed | None = None

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
            self.events.changed()  # the session's quick path stops at once
            live = list(self.live.items())
            workers, self._workers = self._workers, None
            ended_cbs = self.events.take_ended()
        for key, stop in live:
            safe_call(stop, key)
        if workers is not None:
            workers.close()
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
            try:
                self.events.emit_status("waiting_tool_result")
            except BaseException:  # KeyboardInterrupt in a callback: the call does not run
                self.leave()
                raise

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
        raised: BaseException | None = None
        watched = self.events.status  # the subscribers, a tuple: empty (false) when none
        if watched:
            self.enter()
        else:
            self.running.append(None)
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
            except BaseException as exc:
                # Nothing can have cancelled the caller yet: its cancellation is delivered at
                # a suspension, and the handler has not suspended. So this is the handler's.
                if isinstance(exc, PASSED):
                    raise
                raised = exc
            else:
                # The handler suspended: from here on a timer (and end()) may cancel it.
                deadline = start + timeout_ms / 1000
                value, raised, overdue = await self._await_rest(
                    ctx, Resume(it, first), deadline, timeout_ms
                )
                return settle(name, rid, value, raised, self.events, overdue)
            if monotonic() - start > timeout_ms / 1000 or self.ended:
                overdue = Overdue(timeout_ms, ctx, self.ended)
                return settle(name, rid, value, raised, self.events, overdue)
            if raised is None and (
                value is None or (type(value) is int and -SAFE_INT < value < SAFE_INT)
            ):
                # settle's first case, without the calls (as in Session.dispatch_sync)
                return ok(name, rid, value)
            return settle(name, rid, value, raised, self.events)
        finally:
            if watched:
                self.leave()
            else:
                self.running.pop()

    async def run_threaded(
        self,
        name: str,
        rid: str | int,
        spec: HandlerSpec,
        args: dict[str, Any],
        turn_id: str | None,
        timeout_ms: int,
        ctx: ToolCallContext | None = None,
    ) -> ToolResult:
        import asyncio

        # Always a context here: its flag tells a worker that picks the call up late not to
        # start it, and its event tells a running handler that nobody waits any more. The
        # middleware chain passes the one its middleware saw.
        if ctx is None:
            ctx = self.context(name, rid, turn_id, timeout_ms)
        self.enter()
        try:
            start = monotonic()
            workers = self._get_workers()
            if workers is None:  # the session ended meanwhile
                return _result.session_ended(name, rid)
            deadline = start + timeout_ms / 1000
            # Queued for a worker only as the caller suspends (see Submission).
            submission = Submission(workers, ctx, spec, args, asyncio.get_running_loop())
            try:
                outcome, raised, overdue = await self._await_rest(
                    ctx, submission, deadline, timeout_ms
                )
            except BaseException:  # the caller's own cancellation: nobody waits any more
                cancel(ctx)
                job = submission.job
                if job is not None:
                    workers.abandon(job)
                    job.add_done_callback(lambda f: _log_late(name, f))
                raise
            job = submission.job
            if job is None and isinstance(raised, Refused):  # the workers refused the call
                return self._refused(name, rid, raised)
            if overdue is None and raised is not None:
                # Only a future cancelled by a borrowed executor's shutdown gets here.
                return self.events.report(_result.workers_refused(name, rid, type(raised).__name__))
            return self._threaded_result(name, rid, ctx, job, workers, outcome, overdue)
        finally:
            self.leave()

    def run_blocking(
        self,
        name: str,
        rid: str | int,
        spec: HandlerSpec,
        args: dict[str, Any],
        turn_id: str | None,
        timeout_ms: int,
    ) -> ToolResult:
        """A sync handler under ``dispatch_sync`` with ``sync_dispatch="worker"``: in a worker
        thread, the caller waiting at most until the deadline (or ``end()``)."""
        import threading

        ctx = self.context(name, rid, turn_id, timeout_ms)
        self.enter()
        try:
            start = monotonic()
            workers = self._get_workers()
            if workers is None:
                return _result.session_ended(name, rid)
            try:
                job, _ = _submit(workers, ctx, spec, args, None)
            except Refused as refused:
                return self._refused(name, rid, refused)
            waiter = Waiter(ctx, threading.Event())
            job.add_done_callback(waiter.wake)
            with self._lock:
                ended = self.ended
                if not ended:
                    self.live[waiter] = Waiter.end
            try:
                if not ended:
                    waiter.event.wait(max(0.0, start + timeout_ms / 1000 - monotonic()))
            except BaseException:  # KeyboardInterrupt while waiting
                cancel(ctx)
                workers.abandon(job)
                raise
            finally:
                with self._lock:
                    self.live.pop(waiter, None)
            overdue = None
            outcome: Any = None
            if job.done() and not self.ended:
                if job.cancelled():  # by a borrowed executor's shutdown
                    return self.events.report(_result.workers_refused(name, rid, "CancelledError"))
                outcome = job.result()  # (value, raised); KeyboardInterrupt/SystemExit re-raise
            else:
                overdue = Overdue(timeout_ms, ctx, self.ended)
            return self._threaded_result(name, rid, ctx, job, workers, outcome, overdue)
        finally:
            self.leave()

    def _threaded_result(
        self,
        name: str,
        rid: str | int,
        ctx: ToolCallContext,
        job: Any,
        workers: Workers | Borrowed,
        outcome: Any,
        overdue: Overdue | None,
    ) -> ToolResult:
        """The result of a threaded call its caller stopped waiting for (done, or overdue)."""
        if overdue is None:
            return settle(name, rid, outcome[0], outcome[1], self.events)
        cancel(ctx)
        started = workers.abandon(job)
        if not started and not overdue.ended:
            held = workers.starved()
            if held:
                return self.events.report(_result.workers_exhausted(name, rid, False, held))
        job.add_done_callback(lambda f: _log_late(name, f))
        return settle(name, rid, None, None, self.events, overdue)

    def _refused(self, name: str, rid: str | int, refused: Refused) -> ToolResult:
        if self.ended:  # end() raced the call: the pool was closed under it
            return _result.session_ended(name, rid)
        return self.events.report(refused.result(name, rid))

    def _get_workers(self) -> Workers | Borrowed | None:
        workers = self._workers
        if workers is None:
            with self._lock:
                if self.ended:
                    return None
                workers = self._workers
                if workers is None:
                    if self._executor is not None:
                        workers = Borrowed(self._executor)
                    else:
                        workers = Workers(
                            f"pedelec-{self.session_id[:8]}",
                            self._max_workers or default_workers(),
                            self._max_abandoned,
                        )
                    self._workers = workers
        return workers

    async def _await_rest(
        self,
        ctx: ToolCallContext | None,
        awaitable: Any,
        deadline: float,
        timeout_ms: int,
    ) -> tuple[Any, BaseException | None, Overdue | None]:
        """Await a running handler under its deadline and ``end()``: (value, raised, overdue).

        What the handler raised is returned, whatever it is, except ``KeyboardInterrupt``,
        ``SystemExit`` and the caller's own cancellation or close, which propagate. A
        ``CancelledError`` is the caller's when its task has more cancellation requests than
        when the call started, not counting the one a timer or ``end()`` made here.
        """
        import asyncio

        value: Any = None
        raised: BaseException | None = None
        loop = asyncio.get_running_loop()
        task = asyncio.current_task(loop)
        if task is None:  # driven by something other than an asyncio task: no timer possible
            try:
                value = await awaitable
            except BaseException as exc:
                if isinstance(exc, PASSED) or _closed_by_caller(awaitable, exc):
                    raise
                raised = exc
            return value, raised, None
        call = Call(loop, task, ctx)
        cancelling = task.cancelling()
        deadlines = deadlines_of(loop)
        entry = deadlines.add(loop, loop.time() + (deadline - monotonic()), call)
        with self._lock:
            ended = self.ended
            if not ended:
                self.live[call] = Call.end
        if ended:
            call.cancel("ended")
        try:
            value = await awaitable
        except BaseException as exc:
            if isinstance(exc, PASSED) or _closed_by_caller(awaitable, exc):
                raise
            raised = exc
            if ctx is not None and isinstance(exc, asyncio.CancelledError) and call.reason is None:
                # The caller was cancelled (an MCP client's cancel, a task group): a threaded
                # handler cannot be interrupted, so it is told through ctx.cancel_event now.
                cancel(ctx)
        finally:
            call.done = True
            deadlines.remove(entry)
            with self._lock:
                self.live.pop(call, None)
        overdue = None
        if call.reason is not None:
            # Take our cancellation back; re-raise when someone else cancelled the task too.
            if task.uncancel() > cancelling and isinstance(raised, asyncio.CancelledError):
                raise raised
            overdue = Overdue(timeout_ms, ctx, self.ended)
        elif isinstance(raised, asyncio.CancelledError) and task.cancelling() > cancelling:
            raise raised  # the caller was cancelled: that is not the handler's outcome
        elif self.ended:  # ended while the handler ran, too late to cancel it
            overdue = Overdue(timeout_ms, ctx, True)
        return value, raised, overdue


def _closed_by_caller(awaitable: Any, exc: BaseException) -> bool:
    """Whether ``exc`` is the ``GeneratorExit`` of the caller closing the call's coroutine.

    A ``Resume`` knows when it was closed; a worker's future never raises one of its own.
    """
    if not isinstance(exc, GeneratorExit):
        return False
    return not isinstance(awaitable, Resume) or awaitable.closed


def _submit(
    workers: Workers | Borrowed, ctx: ToolCallContext, spec: HandlerSpec, args: Any, loop: Any
) -> tuple[Any, Any]:
    """Hand the call to a worker: the job, and (given ``loop``) the loop's future it settles."""
    import contextvars

    run = contextvars.copy_context().run
    fn = spec.args_only
    call = (
        (_call_unless_cancelled, ctx, fn, args)
        if fn is not None
        else (_call_unless_cancelled, ctx, spec.call, args, ctx)
    )
    if loop is None:
        return workers.submit(run, *call), None
    return workers.submit_for(loop, run, *call)


@final
class Submission:
    """A threaded call, handed to a worker only when its caller suspends to await it.

    The caller first sets up the rest of the call (its deadline, its place among the calls
    ``end()`` stops); a worker woken earlier would wait for the GIL while that runs, and the
    hand-off would cost an extra wake-up of a thread. ``job`` is ``None`` until the call is
    queued, and stays ``None`` when the workers refuse it (the ``Refused`` is raised).
    """

    __slots__ = ("args", "ctx", "job", "loop", "spec", "workers")

    def __init__(
        self,
        workers: Workers | Borrowed,
        ctx: ToolCallContext,
        spec: HandlerSpec,
        args: Any,
        loop: Any,
    ) -> None:
        self.workers = workers
        self.ctx = ctx
        self.spec = spec
        self.args = args
        self.loop = loop
        self.job: Any = None

    def __await__(self) -> Generator[Any, Any, Any]:
        job, future = _submit(self.workers, self.ctx, self.spec, self.args, self.loop)
        self.job = job
        return (yield from future.__await__())


@final
class Waiter:
    """A ``dispatch_sync`` caller waiting for a worker thread (``sync_dispatch="worker"``)."""

    __slots__ = ("ctx", "event")

    def __init__(self, ctx: ToolCallContext, event: Any) -> None:
        self.ctx = ctx
        self.event = event

    def wake(self, _future: Any = None) -> None:
        self.event.set()

    def end(self) -> None:
        """``end()``: the handler is told, and its caller stops waiting."""
        cancel(self.ctx)
        self.event.set()


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

    __slots__ = ("closed", "first", "it")

    def __init__(self, it: Any, first: Any) -> None:
        self.it = it
        self.first = first
        self.closed = False  # set when the caller closed the awaiting coroutine

    def __await__(self) -> Generator[Any, Any, Any]:
        return self.drive()

    def drive(self) -> Generator[Any, Any, Any]:
        # ``yield from it`` after its first ``send``: every value goes up to the task, every
        # value or exception the task sends (cancellation included) goes down to the handler.
        it = self.it
        yielded = self.first
        while True:
            try:
                sent = yield yielded
            except GeneratorExit:
                self.closed = True
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


def _call_unless_cancelled(
    ctx: ToolCallContext, fn: Callable[..., Any], *args: Any
) -> tuple[Any, BaseException | None]:
    """Run a threaded handler: ``(value, None)`` or ``(None, what it raised)``.

    The outcome is returned, never raised, because a ``Future`` cannot carry every exception:
    ``StopIteration`` cannot be set on an asyncio future (the call would hang to its timeout),
    and ``concurrent.futures.CancelledError`` turns into the awaiting task's own cancellation.
    """
    # A worker that picks the call up late (all workers busy, session ended) must not start a
    # handler whose caller has already stopped waiting.
    if cancel_requested(ctx):
        return None, None
    try:
        return fn(*args), None
    except BaseException as exc:
        if isinstance(exc, PASSED):
            raise
        return None, exc


def _log_late(name: str, future: Any) -> None:
    """Log the exception of a threaded handler that failed after its call had timed out."""
    if future.cancelled():
        return
    exc = future.exception()
    if exc is None:
        exc = future.result()[1]
    if exc is not None and not isinstance(exc, PedelecError):
        log_error('pedelec: the handler of tool "%s" raised after its call was over', name, exc=exc)
