"""The session's worker threads: its own pool, which replaces threads held by overrunning
handlers (up to ``Limits.max_abandoned_threads``), or an executor the application gave.

A thread cannot be stopped, so a sync handler that overruns its timeout keeps its thread; the
pool starts a replacement so other calls keep their capacity, and refuses a call (``Refused``,
answered as ``TOOL_WORKERS_EXHAUSTED``) only when overrunning handlers hold every thread it may
have. Nothing here imports ``threading`` at module level.
"""

from __future__ import annotations

from _thread import allocate_lock
from collections.abc import Callable
from contextlib import suppress
from typing import TYPE_CHECKING, Any, final

from pedelec import _result
from pedelec._session.events import log_error

if TYPE_CHECKING:
    from pedelec._result import ToolResult

__all__ = ["Borrowed", "Refused", "Workers", "default_workers"]


# --- worker threads ------------------------------------------------------------------------------


def default_workers() -> int:
    """The worker threads of a session that sets no size (``ThreadPoolExecutor``'s default).

    Read once per process: ``os.cpu_count()`` reads a file under ``/sys`` on Linux (about
    12 µs, a third of building a ``Session``), and the processors do not come and go.
    """
    global _default_workers
    if _default_workers == 0:
        import os

        _default_workers = min(32, (os.cpu_count() or 1) + 4)
    return _default_workers


_default_workers = 0


class Refused(Exception):
    """No worker can take a call: the pool is held by overrunning handlers, or an executor
    the session was given refused it."""

    def __init__(self, held: int, cause: BaseException | None = None) -> None:
        super().__init__(held)
        self.held = held
        self.cause = cause

    def result(self, name: str, rid: str | int) -> ToolResult:
        if self.cause is not None:
            return _result.workers_refused(name, rid, type(self.cause).__name__)
        return _result.workers_exhausted(name, rid, True, self.held)


# The states of a ``Job``.
_PENDING, _RUNNING, _CANCELLED, _DONE = range(4)


@final
class Job:
    """A call handed to a worker thread of the session's own pool.

    The part of ``concurrent.futures.Future`` the runner uses (``cancel``, ``done``,
    ``cancelled``, ``result``, ``exception``, ``add_done_callback``), guarded by the pool's lock.
    A job submitted for an event loop also carries that loop's future, which the worker settles
    with one ``call_soon_threadsafe``. Awaiting a ``Future`` through ``asyncio.wrap_future``
    chains two futures, each with its own callbacks and lock: with it the pool alone read about
    ``run_in_executor``, without it 0.48-0.57x (``benchmarks/bench_dispatch.py``, the hand-off
    table, in ``docs/performance.md``).
    """

    __slots__ = (
        "args",
        "callbacks",
        "error",
        "fn",
        "lock",
        "outcome",
        "overdue",
        "state",
        "target",
    )

    def __init__(
        self,
        lock: Any,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        target: tuple[Any, Any] | None,
    ) -> None:
        self.lock = lock
        self.fn = fn
        self.args = args
        self.state = _PENDING
        self.overdue = False  # its caller stopped waiting while it ran
        self.outcome: Any = None
        self.error: BaseException | None = None
        self.callbacks: list[Callable[[Job], object]] = []
        self.target = target  # (loop, its future) that waits for this, if any

    def cancel(self) -> bool:
        """Cancel the job unless a worker took it: True when it will never run."""
        with self.lock:
            state = self.state
            if state != _PENDING:
                return state == _CANCELLED
            self.state = _CANCELLED
            callbacks, self.callbacks = self.callbacks, []
        self.settle(callbacks)
        return True

    def done(self) -> bool:
        return self.state >= _CANCELLED

    def cancelled(self) -> bool:
        return self.state == _CANCELLED

    def result(self) -> Any:
        """The value the call returned (only once ``done()``); re-raises what it raised."""
        if self.error is not None:
            raise self.error
        return self.outcome

    def exception(self) -> BaseException | None:
        return self.error

    def add_done_callback(self, fn: Callable[[Job], object]) -> None:
        """Call ``fn(job)`` when the job is done or cancelled (now, if it already is)."""
        with self.lock:
            if self.state < _CANCELLED:
                self.callbacks.append(fn)
                return
        _call_back(fn, self)

    def finish(self, outcome: Any, error: BaseException | None) -> None:
        """Record the outcome (the worker, holding the pool's lock)."""
        self.outcome = outcome
        self.error = error
        self.state = _DONE

    def settle(self, callbacks: list[Callable[[Job], object]]) -> None:
        """Tell the waiting loop and the callbacks that the job is over (a worker, or
        ``cancel``; outside the lock)."""
        target = self.target
        if target is not None:
            self.target = None
            loop, future = target
            # A closed loop raises RuntimeError: nobody awaits its future any more.
            with suppress(RuntimeError):
                loop.call_soon_threadsafe(_settle_future, future, self)
        for fn in callbacks:
            _call_back(fn, self)


def _settle_future(future: Any, job: Job) -> None:
    """On the loop: the job's outcome onto the future the caller awaits, unless the caller
    already stopped waiting (its cancellation cancelled the future)."""
    if future.done():
        return
    if job.state == _CANCELLED:
        future.cancel()
    elif job.error is not None:
        future.set_exception(job.error)
    else:
        future.set_result(job.outcome)


def _call_back(fn: Callable[[Job], object], job: Job) -> None:
    try:
        fn(job)
    except Exception as exc:  # a callback's bug must not stop the worker that runs it
        log_error("pedelec: a callback of a worker job raised", exc=exc)


@final
class Workers:
    """The session's own worker threads, sized ``size``, whose capacity overruns cannot take.

    A thread still running a handler whose call is over (timed out, ended, cancelled) is
    *abandoned*: up to ``spare`` of them do not count against ``size``, so a replacement thread
    serves the other calls. Past ``spare`` they count again; a call that then finds every
    counted thread held by such handlers is refused at once (``Refused``), and one that waited
    in the queue reports the same at its deadline, instead of a ``TOOL_TIMEOUT`` for a handler
    that never ran. Threads are daemons, so a handler stuck for good cannot hold up the exit
    of the process. The pool goes with ``close()`` or when the session is collected.
    """

    __slots__ = ("__weakref__", "_pool")

    def __init__(self, prefix: str, size: int, spare: int) -> None:
        import weakref

        self._pool = _Pool(prefix, size, spare)
        weakref.finalize(self, self._pool.close)

    def submit(self, fn: Callable[..., Any], *args: Any) -> Job:
        return self._pool.submit(fn, args, None)

    def submit_for(self, loop: Any, fn: Callable[..., Any], *args: Any) -> tuple[Job, Any]:
        """Submit for a caller on ``loop``: the job, and the loop's future it settles."""
        future = loop.create_future()
        return self._pool.submit(fn, args, (loop, future)), future

    def abandon(self, job: Any) -> bool:
        """The caller stopped waiting for ``job``: True when its handler had started."""
        if job.cancel():
            return False
        self._pool.abandon(job)
        return True

    def starved(self) -> int:
        return self._pool.starved()

    def close(self) -> None:
        self._pool.close()


@final
class Borrowed:
    """An executor the application gave the session: used, never shut down, not counted."""

    __slots__ = ("_executor",)

    def __init__(self, executor: Any) -> None:
        self._executor = executor

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return self._executor.submit(fn, *args)
        except Exception as exc:  # shut down, or a custom executor's own refusal
            raise Refused(0, exc) from None

    def submit_for(self, loop: Any, fn: Callable[..., Any], *args: Any) -> tuple[Any, Any]:
        """Submit for a caller on ``loop``: the executor's future, and one of the loop's."""
        import asyncio

        job = self.submit(fn, *args)
        return job, asyncio.wrap_future(job, loop=loop)

    def abandon(self, job: Any) -> bool:
        return not job.cancel()

    def starved(self) -> int:
        return 0

    def close(self) -> None:
        return None


@final
class _Pool:
    """The state the threads of ``Workers`` share (they hold this, not ``Workers``)."""

    __slots__ = (
        "busy",
        "closed",
        "idle",
        "lock",
        "named",
        "overdue",
        "prefix",
        "queue",
        "queued",
        "size",
        "spare",
    )

    def __init__(self, prefix: str, size: int, spare: int) -> None:
        from queue import SimpleQueue

        self.lock = allocate_lock()
        self.queue: SimpleQueue[Any] = SimpleQueue()
        self.prefix = prefix
        self.size = size
        self.spare = spare
        self.idle = 0  # threads waiting for a job (or about to)
        self.busy = 0  # threads running a job whose caller still waits
        self.overdue = 0  # threads running a job whose caller stopped waiting
        self.queued = 0  # jobs in the queue, not yet taken
        self.named = 0
        self.closed = False

    def held(self) -> int:
        """Threads that count against ``size``: abandoned ones only past ``spare``."""
        return self.idle + self.busy + max(0, self.overdue - self.spare)

    def starved(self) -> int:
        """The threads held by overrunning handlers when they leave no capacity, else 0."""
        with self.lock:
            if self.busy == 0 and self.idle == 0 and self.held() >= self.size:
                return self.overdue
            return 0

    def submit(
        self, fn: Callable[..., Any], args: tuple[Any, ...], target: tuple[Any, Any] | None
    ) -> Job:
        job = Job(self.lock, fn, args, target)
        with self.lock:
            if self.closed:
                raise Refused(0, RuntimeError("the session's workers were shut down"))
            spawn = False
            if self.queued >= self.idle:  # no idle thread is left for this job
                if self.held() < self.size:
                    spawn = True
                    self.idle += 1
                elif self.busy == 0 and self.idle == 0:
                    raise Refused(self.overdue)
            self.queued += 1
        if spawn and not self._start():
            with self.lock:
                self.queued -= 1
            raise Refused(self.overdue, RuntimeError("no new thread could be started"))
        self.queue.put(job)
        return job

    def abandon(self, job: Job) -> None:
        with self.lock:
            if job.state == _DONE or job.overdue:
                return
            job.overdue = True
            self.busy -= 1
            self.overdue += 1
            spawn = self.queued > self.idle and self.held() < self.size and not self.closed
            if spawn:
                self.idle += 1
        if spawn:
            self._start()

    def _start(self) -> bool:
        """Start one thread, already counted as idle; False (uncounted again) if it fails."""
        import threading

        with self.lock:
            self.named += 1
            name = f"{self.prefix}_{self.named}"
        try:
            threading.Thread(target=self.work, name=name, daemon=True).start()
        except RuntimeError:  # the interpreter cannot start another thread
            with self.lock:
                self.idle -= 1
            return False
        return True

    def work(self) -> None:
        queue = self.queue
        lock = self.lock
        while True:
            outcome: Any = None
            error: BaseException | None = None
            job: Job | None = queue.get()
            with lock:
                self.idle -= 1
                if job is None:
                    return
                self.queued -= 1
                running = job.state == _PENDING
                if running:
                    job.state = _RUNNING
                    self.busy += 1
            if running:
                try:
                    outcome = job.fn(*job.args)
                except BaseException as exc:  # KeyboardInterrupt/SystemExit: the caller's
                    error = exc
            with lock:
                callbacks: list[Callable[[Job], object]] = []
                if running:
                    job.finish(outcome, error)
                    callbacks, job.callbacks = job.callbacks, []
                    if job.overdue:
                        self.overdue -= 1
                    else:
                        self.busy -= 1
                stay = not self.closed and self.held() < self.size
                if stay:
                    self.idle += 1
            if running:
                job.settle(callbacks)
            del job, outcome, error, callbacks  # hold nothing of a call while waiting
            if not stay:
                return

    def close(self) -> None:
        with self.lock:
            if self.closed:
                return
            self.closed = True
            waiting = self.idle
        for _ in range(waiting):
            self.queue.put(None)
