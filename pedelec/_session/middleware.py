"""Middleware and the concurrency cap: the path of an admitted call on a session that has either.

A session without middleware and without ``max_concurrency`` never comes here (``Session._plain``
is checked once per call). Here a call runs as one coroutine, on the awaiting task (``await
dispatch``) or on the calling thread's private loop (``dispatch_sync``), under the call's
deadline, which covers the whole chain: every middleware, the wait for a concurrency slot and
the handler. The chain is an onion, the first middleware registered outermost; the innermost
``call_next`` waits for a slot (when the session has a cap) and runs the handler the way the
plain path would (async: awaited here; sync: in the workers under ``dispatch`` or with
``sync_dispatch="worker"``, else inline in the calling thread).

``call_next`` always returns a ``ToolResult``: a handler's failure, or a middleware's further
in, arrives as an error result, as it would reach the agent; only the cancellation of the call
itself travels as an exception. What the outermost middleware returns (or raises) is settled by
``outcome.settle`` like a handler's value, except that a ``ToolResult`` handed out by
``call_next`` is passed on as it is.

A sync middleware runs in a thread of its own (it blocks there while its ``call_next`` runs the
rest of the chain back on the loop), so a blocking middleware never holds up the loop; each
layer runs at most ``thread_cap`` (the session's worker count) such threads at once.
"""

from __future__ import annotations

import contextlib
from _thread import allocate_lock
from collections.abc import Callable
from time import monotonic
from typing import TYPE_CHECKING, Any, Final, TypeAlias, final

from pedelec._context import ToolCallContext, cancel
from pedelec._handlers import is_async_callable
from pedelec._result import ToolResult
from pedelec._session.events import PASSED
from pedelec._session.outcome import Overdue, settle
from pedelec.errors import INVALID_INPUT, PedelecError

if TYPE_CHECKING:
    from pedelec._handlers import HandlerSpec
    from pedelec._session.concurrency import Slots
    from pedelec._session.registry import Entry
    from pedelec._session.runners import Runner
    from pedelec.limits import Limits
    from pedelec.schema import Validator

__all__ = ["CallNext", "Flow", "Middleware", "ToolCall"]

#: What a middleware's ``call_next`` is: the async form awaits it, the sync form calls it.
CallNext: TypeAlias = Callable[["ToolCall"], Any]
#: ``async def middleware(call, call_next)`` or ``def middleware(call, call_next)``.
Middleware: TypeAlias = Callable[["ToolCall", Any], Any]
#: ``Session``'s admission of a call: entry, validated args, handler, timeout.
Admitted: TypeAlias = "tuple[Entry, dict[str, Any], HandlerSpec, int]"


@final
class ToolCall:
    """One admitted tool call, as a middleware sees it (read-only).

    Attributes:
        tool: The name of the tool being called.
        args: The validated arguments: the copy the handler receives (do not change it in
            place; pass ``call.with_args(...)`` to ``call_next`` instead).
        ctx: The call's ``ToolCallContext``, the same object the handler receives.

    Example:
        >>> from pedelec import Session
        >>> session = Session()
        >>> @session.on_tool("add", description="Add.", schema={"type": "object",
        ...     "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}})
        ... def add(args):
        ...     return args["a"] + args["b"]
        >>> async def audit(call, call_next):
        ...     print("calling", call.tool, call.args)
        ...     return await call_next(call)
        >>> unsubscribe = session.use(audit)
        >>> session.dispatch_sync("add", {"a": 1, "b": 2}).value
        calling add {'a': 1, 'b': 2}
        3
    """

    __slots__ = ("_args", "_chain", "_ctx")

    _args: dict[str, Any]
    _chain: _Chain
    _ctx: ToolCallContext

    def __init__(self) -> None:
        raise TypeError("pedelec builds ToolCall objects; a middleware receives one per call")

    @classmethod
    def _make(cls, chain: _Chain, args: dict[str, Any]) -> ToolCall:
        self: ToolCall = object.__new__(cls)
        self._chain = chain
        self._args = args
        self._ctx = chain.ctx
        return self

    @property
    def tool(self) -> str:
        """The name of the tool being called."""
        return self._chain.name

    @property
    def args(self) -> dict[str, Any]:
        """The validated arguments the handler will receive."""
        return self._args

    @property
    def ctx(self) -> ToolCallContext:
        """The call's context (the handler's ``ctx``)."""
        return self._ctx

    def with_args(self, args: dict[str, Any]) -> ToolCall:
        """This call with other arguments, copied and validated against the tool's schema.

        Raises:
            PedelecError: ``TOOL_ARGS_INVALID`` (the error an agent would get) when ``args``
                do not satisfy the schema, ``INVALID_INPUT`` when they are not JSON. Raised in
                a middleware, either becomes the call's result.

        Example:
            >>> async def clamp(call, call_next):
            ...     return await call_next(call.with_args({**call.args, "limit": 10}))
        """
        return ToolCall._make(self._chain, self._chain.checked(args))

    def __repr__(self) -> str:
        return f"ToolCall(tool={self.tool!r}, args={self._args!r})"


@final
class Flow:
    """A session's middleware and concurrency cap, and the runner of its calls through them."""

    __slots__ = (
        "_changed",
        "_layers",
        "_lock",
        "_threads",
        "limits",
        "runner",
        "slots",
        "thread_cap",
    )

    def __init__(
        self,
        runner: Runner,
        lock: Any,
        slots: Slots | None,
        limits: Limits,
        changed: Callable[[bool], None],
        thread_cap: int,
    ) -> None:
        self.runner = runner
        #: The most threads each sync middleware layer runs at once (its slots, by position).
        self.thread_cap = thread_cap
        self._threads: list[Slots] = []
        self._lock = lock
        self.slots = slots
        self.limits = limits
        #: (middleware, is_async), outermost first; replaced, never changed in place.
        self._layers: tuple[tuple[Middleware, bool], ...] = ()
        self._changed = changed  # told, under the lock, whether the session is now plain

    @property
    def active(self) -> bool:
        """Whether a call has more to pass than its runner: a middleware, or the cap."""
        return bool(self._layers) or self.slots is not None

    def add(self, middleware: Any) -> Callable[[], None]:
        """Append ``middleware`` (innermost so far) and return the function that removes it."""
        if not callable(middleware):
            raise PedelecError(
                INVALID_INPUT,
                f"A middleware must be callable as middleware(call, call_next), got "
                f"{type(middleware).__name__}.",
                {"field": "middleware"},
            )
        layer = (middleware, is_async_callable(middleware))
        with self._lock:
            self._layers = (*self._layers, layer)
            self._changed(False)

        def remove() -> None:
            with self._lock:
                layers = self._layers
                for index, item in enumerate(layers):
                    if item is layer:
                        self._layers = layers[:index] + layers[index + 1 :]
                        self._changed(not self._layers and self.slots is None)
                        return

        return remove

    def threads(self, index: int) -> Slots:
        """The thread slots of the layer at ``index``: one set a layer, so a call holding an
        outer layer's thread never waits on calls that hold the same layer (no deadlock)."""
        threads = self._threads
        if index < len(threads):
            return threads[index]
        from pedelec._session.concurrency import Slots

        with self._lock:
            while len(threads) <= index:
                threads.append(Slots(self.thread_cap))
        return threads[index]

    def run_sync(
        self, admitted: Admitted, rid: str | int, turn_id: str | None, threaded: bool
    ) -> ToolResult:
        """``dispatch_sync``: the chain on this thread's private loop, an inline sync handler
        run between two turns of it, with no loop running (see ``_Inline``)."""
        import asyncio

        from pedelec._session.runners import private_loop

        loop = private_loop()
        if threaded or admitted[2].is_async:
            call = self.run(admitted, rid, turn_id, threaded)
            return loop.run_until_complete(call)  # type: ignore[no-any-return]
        inline = _Inline()
        main = loop.create_task(self.run(admitted, rid, turn_id, False, inline))
        try:
            while True:
                inline.wake = loop.create_future()
                loop.run_until_complete(
                    asyncio.wait((main, inline.wake), return_when=asyncio.FIRST_COMPLETED)
                )
                if main.done():
                    return main.result()  # type: ignore[no-any-return]
                inline.run()
        except BaseException:  # KeyboardInterrupt in a handler: wind the chain down, re-raise
            if not main.done():
                main.cancel()
                with contextlib.suppress(BaseException):
                    loop.run_until_complete(main)
            raise

    async def run(
        self,
        admitted: Admitted,
        rid: str | int,
        turn_id: str | None,
        threaded: bool,
        inline: _Inline | None = None,
    ) -> ToolResult:
        """Run one admitted call through the middleware and the cap, under its deadline.

        ``threaded``: a sync handler runs in the workers (else by ``inline``'s driver).
        """
        entry, args, spec, timeout_ms = admitted
        runner = self.runner
        name = entry.name
        ctx = runner.context(name, rid, turn_id, timeout_ms)
        chain = _Chain(
            self, name, rid, spec, ctx, turn_id, timeout_ms, entry.validator, threaded, inline
        )
        events = runner.events
        runner.enter()
        try:
            deadline = ctx._deadline
            value, raised, overdue = await runner._await_rest(
                ctx, chain.step(0, ToolCall._make(chain, args)), deadline, timeout_ms
            )
            if overdue is None and (monotonic() > deadline or runner.ended):
                # Code that blocked the loop (an inline handler) ran past the deadline unseen.
                overdue = Overdue(timeout_ms, ctx, runner.ended)
            if overdue is not None:
                return settle(name, rid, None, raised, events, overdue)
            return chain.result(value, raised)
        finally:
            chain.over = True
            runner.leave()


@final
class _Chain:
    """The state of one call on its way through the middleware."""

    __slots__ = (
        "ctx",
        "flow",
        "inline",
        "issued",
        "layers",
        "name",
        "over",
        "rid",
        "runner",
        "spec",
        "threaded",
        "timeout_ms",
        "turn_id",
        "validator",
    )

    def __init__(
        self,
        flow: Flow,
        name: str,
        rid: str | int,
        spec: HandlerSpec,
        ctx: ToolCallContext,
        turn_id: str | None,
        timeout_ms: int,
        validator: Validator,
        threaded: bool,
        inline: _Inline | None,
    ) -> None:
        self.flow = flow
        self.inline = inline
        self.layers = flow._layers  # the middleware when the call started, whatever comes later
        self.runner = flow.runner
        self.name = name
        self.rid = rid
        self.spec = spec
        self.ctx = ctx
        self.turn_id = turn_id
        self.timeout_ms = timeout_ms
        self.validator = validator
        self.threaded = threaded
        #: The results ``call_next`` handed out: already settled, passed on as they are.
        self.issued: list[ToolResult] = []
        self.over = False  # the call has its result: nothing more may run for it

    def result(self, value: Any, raised: BaseException | None) -> ToolResult:
        """What a middleware returned or raised, as the call's result."""
        events = self.runner.events
        if raised is not None:
            return settle(self.name, self.rid, None, raised, events)
        if type(value) is ToolResult:
            for issued in self.issued:
                if value is issued:
                    return value
            # A result built by the middleware: checked like a handler's value or error.
            if value.error is not None and value.value is None:
                return settle(self.name, self.rid, None, value.error, events)
            return settle(self.name, self.rid, value.value, None, events)
        return settle(self.name, self.rid, value, None, events)

    def checked(self, args: Any) -> dict[str, Any]:
        """``ToolCall.with_args``: a JSON copy of ``args`` that satisfies the tool's schema."""
        from pedelec import _result
        from pedelec._json import NotJsonError, clone_json

        limits = self.flow.limits
        try:
            copy = clone_json(args, max_depth=limits.max_depth, max_values=limits.max_args_values)
        except NotJsonError as exc:
            error = _result.args_not_json(self.name, self.rid, exc).error
        else:
            if type(copy) is dict and self.validator.is_valid(copy):
                return copy
            problems = self.validator.errors(copy, max_errors=limits.max_errors)
            error = _result.args_invalid(self.name, self.rid, problems).error
        assert error is not None
        raise error

    async def through(self, index: int, call: Any) -> ToolResult:
        """Run the chain from ``index`` on and return its outcome as a result (never raises
        but for the call's own cancellation)."""
        if type(call) is not ToolCall or call._chain is not self:
            raise TypeError(
                "call_next() takes the ToolCall the middleware received (or its with_args() copy)"
            )
        if self.over:  # a call_next kept and called later would run a handler unbounded
            raise RuntimeError(f'call_next() was called after the call of "{self.name}" ended')
        import asyncio

        task = asyncio.current_task()
        base = task.cancelling() if task is not None else 0
        value: Any = None
        raised: BaseException | None = None
        try:
            value = await self.step(index, call)
        except BaseException as exc:
            if _passes(exc, base):
                raise
            raised = exc
        result = self.result(value, raised)
        self.issued.append(result)
        return result

    async def step(self, index: int, call: ToolCall) -> Any:
        """Middleware ``index`` (or the handler, past the last) on ``call``: what it returned."""
        layers = self.layers
        if index == len(layers):
            result = await self.handle(call)
            self.issued.append(result)
            return result
        middleware, is_async = layers[index]
        if is_async:

            async def call_next(call: ToolCall) -> ToolResult:
                return await self.through(index + 1, call)

            return await middleware(call, call_next)
        threads = self.flow.threads(index)
        await threads.acquire()
        return await _run_sync(middleware, call, _Bridge(self, index + 1), threads)

    async def handle(self, call: ToolCall) -> ToolResult:
        """The innermost step: a slot (with a cap), then the handler, as the plain path runs it."""
        slots = self.flow.slots
        if slots is None:
            return await self.run_handler(call.args)
        await slots.acquire()
        try:
            return await self.run_handler(call.args)
        finally:
            slots.release()

    async def run_handler(self, args: dict[str, Any]) -> ToolResult:
        spec = self.spec
        ctx = self.ctx
        runner = self.runner
        name = self.name
        if not spec.is_async and self.threaded:
            return await runner.run_threaded(
                name, self.rid, spec, args, self.turn_id, self.timeout_ms, ctx=ctx
            )
        fn = spec.args_only
        value: Any = None
        raised: BaseException | None = None
        if spec.is_async:
            import asyncio

            task = asyncio.current_task()
            base = task.cancelling() if task is not None else 0
            try:
                value = await (fn(args) if fn is not None else spec.call(args, ctx))
            except BaseException as exc:
                if _passes(exc, base):
                    raise
                raised = exc
        else:  # a sync handler under dispatch_sync: run by Flow.run_sync, off the loop
            assert self.inline is not None
            value, raised = await self.inline.park(self, args)
        return settle(name, self.rid, value, raised, runner.events)

    def call_inline(self, args: dict[str, Any]) -> tuple[Any, BaseException | None]:
        """Run the sync handler here, in the calling thread: ``(value, raised)``."""
        spec = self.spec
        ctx = self.ctx
        fn = spec.args_only
        live = self.runner.live
        live[ctx] = cancel  # end() reaches it from any thread, as on the plain path
        if self.runner.ended:
            cancel(ctx)
        try:
            return (fn(args) if fn is not None else spec.call(args, ctx)), None
        except BaseException as exc:
            if isinstance(exc, PASSED):
                raise
            return None, exc
        finally:
            live.pop(ctx, None)


@final
class _Inline:
    """The sync handlers a ``dispatch_sync`` chain asks its caller to run off the loop.

    Run on the loop, an inline handler would find a running event loop in its thread, so one
    that calls ``asyncio.run`` or ``dispatch_sync`` itself would fail where it works without
    middleware. The chain parks instead; ``Flow.run_sync`` stops the loop, runs the handler in
    the calling thread and resumes the chain with its outcome.
    """

    __slots__ = ("jobs", "wake")

    def __init__(self) -> None:
        self.jobs: list[tuple[_Chain, dict[str, Any], Any]] = []
        self.wake: Any = None

    async def park(self, chain: _Chain, args: dict[str, Any]) -> tuple[Any, BaseException | None]:
        import asyncio

        future = asyncio.get_running_loop().create_future()
        self.jobs.append((chain, args, future))
        if not self.wake.done():
            self.wake.set_result(None)
        outcome: tuple[Any, BaseException | None] = await future
        return outcome

    def run(self) -> None:
        """Run the parked handlers, here (no loop runs in this thread meanwhile)."""
        jobs, self.jobs = self.jobs, []
        for chain, args, future in jobs:
            if future.done():  # its call ended meanwhile (a deadline, end())
                continue
            outcome = chain.call_inline(args)
            if not future.done():
                future.set_result(outcome)


def _passes(exc: BaseException, base: int) -> bool:
    """Whether ``exc`` is not a step's outcome but must travel on: ``KeyboardInterrupt``,
    ``SystemExit``, the closing of the coroutine, or the cancellation of the call's task."""
    if isinstance(exc, (*PASSED, GeneratorExit)):
        return True
    import asyncio

    if isinstance(exc, asyncio.CancelledError):
        task = asyncio.current_task()
        return task is not None and task.cancelling() > base
    return False


async def _run_sync(middleware: Middleware, call: ToolCall, bridge: _Bridge, threads: Slots) -> Any:
    """A sync middleware, in a thread of its own; its outcome comes back to the loop.

    A daemon thread per call, not a pool: a middleware holds its thread while ``call_next``
    runs the rest (further sync middleware included), so a shared pool could fill with waiting
    middleware and stall every call; and one that blocks past its call's end must not keep the
    interpreter from exiting, as a pool joined at exit would. The thread holds one of
    ``threads`` (its layer's slots, taken by the caller) until the middleware returns, so
    however many calls an agent makes at once, the threads stay bounded.
    """
    import asyncio
    import contextvars
    import threading

    loop = asyncio.get_running_loop()
    bridge.loop = loop
    future = loop.create_future()
    run = contextvars.copy_context().run

    def work() -> None:
        outcome: tuple[Any, BaseException | None]
        try:
            outcome = (run(middleware, call, bridge.call_next), None)
        except BaseException as exc:  # the outcome of the middleware, judged on the loop
            outcome = (None, exc)
        finally:
            threads.release()
        with contextlib.suppress(RuntimeError):  # a closed loop: the call is long over
            loop.call_soon_threadsafe(_deliver, future, outcome)

    try:
        threading.Thread(target=work, name="pedelec-middleware", daemon=True).start()
    except BaseException:  # no thread to be had (RuntimeError): the middleware's failure
        threads.release()
        raise
    try:
        value, raised = await future
    except BaseException:
        # The call is over while the middleware runs: cancel the rest of the chain and let it
        # wind down (a threaded handler is told through its ctx) before the result goes out.
        tasks = bridge.close()
        if tasks:
            await asyncio.wait(tasks)
        raise
    if raised is not None:
        raise raised
    return value


def _deliver(future: Any, outcome: tuple[Any, BaseException | None]) -> None:
    if not future.done():
        future.set_result(outcome)


@final
class _Bridge:
    """The blocking ``call_next`` of a sync middleware: runs the rest of the chain on the loop."""

    __slots__ = ("chain", "closed", "index", "lock", "loop", "tasks")

    def __init__(self, chain: _Chain, index: int) -> None:
        self.chain = chain
        self.index = index
        self.loop: Any = None
        self.lock: Final = allocate_lock()
        self.closed = False
        self.tasks: list[Any] = []

    def call_next(self, call: ToolCall) -> ToolResult:
        import concurrent.futures
        import contextvars

        done: concurrent.futures.Future[ToolResult] = concurrent.futures.Future()
        context = contextvars.copy_context()  # the middleware's context, for the rest
        with self.lock:
            if self.closed:  # the call timed out or was cancelled: nothing more may run for it
                raise concurrent.futures.CancelledError
            if self.chain.over:  # kept and called later: the loop may never run again
                raise RuntimeError(
                    f'call_next() was called after the call of "{self.chain.name}" ended'
                )
            self.loop.call_soon_threadsafe(self._start, call, done, context)
        return done.result()

    def _start(self, call: ToolCall, done: Any, context: Any) -> None:
        """On the loop: run the rest of the chain as a task and report to ``done``."""
        import concurrent.futures

        with self.lock:
            if self.closed:
                done.set_exception(concurrent.futures.CancelledError())
                return
            task = self.loop.create_task(self.chain.through(self.index, call), context=context)
            self.tasks.append(task)

        def report(task: Any) -> None:
            if task.cancelled():
                done.set_exception(concurrent.futures.CancelledError())
            elif task.exception() is not None:
                done.set_exception(task.exception())
            else:
                done.set_result(task.result())

        task.add_done_callback(report)

    def close(self) -> list[Any]:
        """The call is over (its deadline, ``end()``, a cancel): cancel what runs for it."""
        with self.lock:
            self.closed = True
            tasks = list(self.tasks)
        for task in tasks:
            task.cancel()
        return tasks
