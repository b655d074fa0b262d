"""The session: its constructor, properties and dispatch.

The declaration methods (``on_tool``, ``tool``, manifests) are inherited from
``pedelec._session.declaring``, the status, events and ``end()`` from
``pedelec._session.observing``; this module keeps what every call goes through.

A call is admitted by ``_prepare`` (ended? known tool? args parsed or copied, ``timeoutMs``
read, args validated, handler chosen), then run: a sync handler under ``dispatch_sync``
inline, right here (that block is the whole overhead of a trivial call); an async handler, or a
sync one under ``dispatch``, by ``pedelec._session.runners``. Every run ends in
``pedelec._session.outcome.settle``. The tools live in ``pedelec._session.registry``, the
callbacks in ``pedelec._session.events``, the manifest shape in ``pedelec.manifest``; args
rules beyond JSON and the schema are in ``pedelec._args``, result texts in ``pedelec._result``.
"""

from __future__ import annotations

import sys
import weakref
from _thread import allocate_lock
from collections.abc import Callable, Iterable, Mapping
from time import monotonic
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from pedelec import _result
from pedelec._args import call_timeout, coerce_json_text, unknown_args
from pedelec._context import ToolCallContext, cancel
from pedelec._definitions import ToolDefinition
from pedelec._handlers import HandlerSpec
from pedelec._json import NotJsonError, clone_json, parse_json_args
from pedelec._json.wire import SAFE_INT
from pedelec._output import check_result
from pedelec._result import ToolResult, _new, next_request_number
from pedelec._session.approval import Approvals, Approving, check_approver
from pedelec._session.concurrency import Slots, check_max_concurrency
from pedelec._session.declaring import Declaring
from pedelec._session.events import PASSED, Events, SessionStatus
from pedelec._session.middleware import Flow, ToolCall
from pedelec._session.observing import Observing
from pedelec._session.outcome import Overdue, settle
from pedelec._session.registry import Entry, Quick, Registry
from pedelec._session.runners import Runner, private_loop
from pedelec._session.workers import default_workers
from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.limits import DEFAULT_LIMITS, Limits
from pedelec.manifest import definition_from_entry

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from pedelec._session.middleware import Middleware
    from pedelec.approval import Approver
    from pedelec.schema import ArgError

__all__ = ["Session", "SessionStatus", "ToolCall", "ToolCallContext", "ToolResult"]

#: A call admitted to run: its entry, its own copy of the validated args, the handler and the
#: call's timeout. A plain tuple, not a class: it is built once per call on the hot path.
Admission: TypeAlias = tuple[Entry, dict[str, Any], HandlerSpec, int]


def _loop_once_imported() -> object:
    """The thread's running event loop, or ``None``: ``dispatch_sync``'s check, asked through
    ``_running_loop`` so that ``import pedelec`` does not import ``asyncio``.

    Until ``asyncio`` is imported no loop can be running. Once it is, its own getter takes this
    function's place, and the check is one C call.
    """
    aio = sys.modules.get("asyncio")
    getter = getattr(aio, "_get_running_loop", None)  # None too while asyncio is half imported
    if getter is None:
        return None
    global _running_loop
    _running_loop = getter
    return getter()


_running_loop: Callable[[], object] = _loop_once_imported


class Session(Declaring, Observing, Approving):
    """A set of tools an agent can call, and the dispatcher that runs its calls.

    Args:
        tools: Tool definitions (``define_tool``, ``@tool``) or manifest-style dicts
            ``{"name", "description", "argsSchema", "timeoutMs"?, "handler"?}``.
        guidance: Text for the agent's system prompt about how to use the tools.
        session_id: The session's id (default: a random hex id).
        reject_unknown_args: Treat an argument the schema does not declare (at any depth) as
            ``TOOL_ARGS_INVALID``, naming the closest declared property. Off by default: JSON
            Schema allows undeclared properties, and a misspelled one is then silently ignored.
        lenient_json_args: Accept a top-level argument sent as JSON text where the schema
            expects an array or object, when the text parses to that type (some MCP clients
            send arguments that way). Off by default.
        limits: Bounds on the args of each call and on abandoned worker threads (default:
            ``DEFAULT_LIMITS``).
        sync_dispatch: Where ``dispatch_sync`` runs a sync handler: ``"inline"`` (default), in
            the calling thread, where a timeout cannot interrupt it; or ``"worker"``, in the
            session's worker threads, so the call returns ``TOOL_TIMEOUT`` at its deadline.
        executor: A ``concurrent.futures.Executor`` to run sync handlers in (under ``await
            dispatch``, and ``dispatch_sync`` with ``sync_dispatch="worker"``). The session
            uses it and never shuts it down; its capacity is the application's to size.
        max_workers: The size of the session's own worker pool (default ``min(32, cpus +
            4)``), when no ``executor`` is given.
        approver: Decides the calls of tools declared ``requires_approval``, after their args
            are validated: ``fn(request)`` (sync or async) gets a ``pedelec.ApprovalRequest``
            and answers ``True``, ``False`` or ``pedelec.Denied(reason)``. Without one such
            calls are deferred: ``TOOL_APPROVAL_REQUIRED`` with a token for ``resume``.
        max_concurrency: The most handlers of this session that run at once (default: no
            cap), across threads and event loops. A call over the cap waits for a running one
            to finish, first come first served; the wait counts against its timeout.

    Raises:
        PedelecError: ``INVALID_INPUT`` for a tool that breaks a rule, a duplicate name or a
            bad option.

    Example:
        >>> from pedelec import Session
        >>> session = Session(guidance="Use add to add numbers.")
        >>> @session.on_tool("add", description="Add two integers.", schema={
        ...     "type": "object",
        ...     "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        ...     "required": ["a", "b"],
        ... })
        ... def add(args):
        ...     return args["a"] + args["b"]
        >>> session.dispatch_sync("add", '{"a": 1, "b": 2}').to_json()
        3
    """

    def __init__(
        self,
        tools: Iterable[ToolDefinition[Any, Any] | Mapping[str, Any]] = (),
        guidance: str = "",
        session_id: str | None = None,
        *,
        reject_unknown_args: bool = False,
        lenient_json_args: bool = False,
        limits: Limits | None = None,
        sync_dispatch: Literal["inline", "worker"] = "inline",
        executor: Executor | None = None,
        max_workers: int | None = None,
        approver: Approver | None = None,
        max_concurrency: int | None = None,
    ) -> None:
        if not isinstance(guidance, str):
            raise PedelecError(
                INVALID_INPUT,
                f"guidance must be a string, got {type(guidance).__name__}.",
                {"field": "guidance"},
            )
        if session_id is None:
            import os

            session_id = os.urandom(16).hex()
        elif not isinstance(session_id, str) or not session_id:
            raise PedelecError(
                INVALID_INPUT,
                f"session_id must be a non-empty string, got {session_id!r}.",
                {"field": "session_id"},
            )
        if limits is None:
            limits = DEFAULT_LIMITS
        elif not isinstance(limits, Limits):
            raise PedelecError(
                INVALID_INPUT,
                f"limits must be a pedelec.Limits, got {type(limits).__name__}.",
                {"field": "limits"},
            )
        _check_workers(sync_dispatch, executor, max_workers)
        max_concurrency = check_max_concurrency(max_concurrency)
        self._guidance = guidance
        self._session_id = session_id
        self._sync_worker = sync_dispatch == "worker"
        self._reject_unknown = bool(reject_unknown_args)
        self._lenient = bool(lenient_json_args)
        self._limits = limits
        self._max_depth = limits.max_depth
        self._max_values = limits.max_args_values
        # The copier's room: values besides the root object, which max_args_values counts too.
        self._room = limits.max_args_values - 1
        self._max_bytes = limits.max_args_bytes
        # One lock for registration, subscriptions and end(): each takes it only briefly.
        lock = self._lock = allocate_lock()
        self._registry = Registry(lock, limits.max_pattern_length, limits.max_result_bytes)
        self._events = Events(lock, limits.max_result_bytes)
        self._runner = Runner(
            session_id,
            lock,
            self._events,
            executor=executor,
            max_workers=max_workers,
            max_abandoned=limits.max_abandoned_threads,
        )
        slots = None if max_concurrency is None else Slots(max_concurrency)
        #: True while no call needs more than admission and its runner (no middleware, no cap).
        self._plain = slots is None
        self._quick: dict[str, Quick] | None = None
        self._requick()
        self._events.changed = _requicker(self)
        self._flow = Flow(
            self._runner, lock, slots, limits, _plain_setter(self), max_workers or default_workers()
        )
        self._approvals = Approvals(
            check_approver(approver),
            limits,
            self._registry,
            self._runner,
            self._events,
            self._sync_worker,
            self._flow,
        )
        if isinstance(tools, (str, bytes, Mapping)):
            raise PedelecError(
                INVALID_INPUT,
                f"tools must be a list of tool definitions, got a single {type(tools).__name__}.",
                {"field": "tools"},
            )
        for index, item in enumerate(tools):
            self._registry.add(definition_from_entry(item, index))

    # --- properties -----------------------------------------------------------------------

    @property
    def session_id(self) -> str:
        """The session's id (``ctx.session_id`` in handlers)."""
        return self._session_id

    @property
    def guidance(self) -> str:
        """Text for the agent's system prompt about how to use the tools."""
        return self._guidance

    @property
    def limits(self) -> Limits:
        """The bounds applied to each call's args."""
        return self._limits

    @property
    def reject_unknown_args(self) -> bool:
        """Whether an argument the schema does not declare is ``TOOL_ARGS_INVALID`` (settable)."""
        return self._reject_unknown

    @reject_unknown_args.setter
    def reject_unknown_args(self, value: bool) -> None:
        with self._lock:  # as the flow's changes, which also end in _requick
            self._reject_unknown = bool(value)
            self._requick()

    @property
    def lenient_json_args(self) -> bool:
        """Whether a top-level array/object argument may arrive as JSON text (settable).

        ``pedelec serve`` turns it on, because some MCP clients send arguments that way.
        """
        return self._lenient

    @lenient_json_args.setter
    def lenient_json_args(self, value: bool) -> None:
        self._lenient = bool(value)

    @property
    def max_concurrency(self) -> int | None:
        """The most handlers that run at once, or ``None`` (no cap)."""
        slots = self._flow.slots
        return None if slots is None else slots.size

    def use(self, middleware: Middleware) -> Callable[[], None]:
        """Run ``middleware`` around every handler of this session; returns a function that
        removes it.

        ``async def middleware(call, call_next)`` or ``def middleware(call, call_next)``. It
        runs after admission (the tool is known, the args are validated; a call that fails
        there never reaches it), the first registered outermost. ``call`` is a ``ToolCall``
        (``tool``, validated ``args``, ``ctx``); ``await call_next(call)`` (plain
        ``call_next(call)`` in the sync form) runs the rest of the chain and the handler and
        returns their ``ToolResult`` (a handler's failure is an error result, never an
        exception). The middleware returns that result, another value (which becomes the
        result, checked like a handler's), or raises: a ``PedelecError`` becomes the error
        result with its own code, anything else ``TOOL_HANDLER_ERROR``. The call's timeout
        covers the whole chain. A sync middleware runs in a thread of its own, waiting there
        while ``call_next`` runs the rest (at most ``max_workers`` threads a middleware). Calls that started before ``use`` (or before the
        removal) keep the middleware they started with.

        Args:
            middleware: The middleware function.

        Returns:
            A function that removes the middleware (idempotent).

        Raises:
            PedelecError: ``INVALID_INPUT`` when ``middleware`` is not callable.

        Example:
            >>> from pedelec import PedelecError, Session
            >>> session = Session()
            >>> @session.on_tool("delete", description="Delete a file.", schema={
            ...     "type": "object", "properties": {"path": {"type": "string"}}})
            ... def delete(args):
            ...     return "deleted"
            >>> async def guard(call, call_next):
            ...     if call.args["path"].startswith("/etc"):
            ...         raise PedelecError("FORBIDDEN", "That path is off limits.")
            ...     return await call_next(call)
            >>> remove = session.use(guard)
            >>> session.dispatch_sync("delete", {"path": "/etc/passwd"}).error.code
            'FORBIDDEN'
            >>> remove()
            >>> session.dispatch_sync("delete", {"path": "/etc/passwd"}).value
            'deleted'
        """
        return self._flow.add(middleware)

    def __repr__(self) -> str:
        return (
            f"<pedelec Session {self._session_id!r} status={self.status!r} "
            f"tools={self._registry.names()!r}>"
        )

    # --- dispatch -------------------------------------------------------------------------

    def dispatch_sync(
        self,
        name: str,
        args: Any,
        *,
        turn_id: str | None = None,
        tool_request_id: str | None = None,
        _owned: bool = False,
    ) -> ToolResult:
        """Run one tool call from synchronous code and return its result; never raises for
        anything the agent sent.

        By default a sync handler runs in the calling thread (its thread-local state, database
        connections and request contexts work as usual). Python cannot stop a thread, so a
        timeout cannot interrupt it: when it overruns, the call waits for it and then reports
        ``TOOL_TIMEOUT`` (the same result ``dispatch`` gives), discarding the late value;
        ``ctx.cancelled`` turns true at the deadline for handlers that poll it. With
        ``Session(sync_dispatch="worker")`` it runs in the session's worker threads instead
        and the call returns ``TOOL_TIMEOUT`` at the deadline, as ``dispatch`` does. An async
        handler runs on a private event loop of the calling thread and is cancelled at its
        timeout.

        Args:
            name: The tool the agent called.
            args: The arguments: a dict, or JSON text (``str``/``bytes``) parsed strictly.
            turn_id: The agent turn this call belongs to (``ctx.turn_id``).
            tool_request_id: The provider's id for this call (default: a fresh unique id).

        Returns:
            The ``ToolResult``.

        Raises:
            RuntimeError: When called from a thread that is running an event loop (it would
                block the loop); use ``await session.dispatch(...)`` there.

        Example:
            >>> from pedelec import Session
            >>> session = Session()
            >>> @session.on_tool("double", description="Double n.", schema={
            ...     "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
            ... def double(args):
            ...     return args["n"] * 2
            >>> session.dispatch_sync("double", {"n": 21}).to_json()
            42
            >>> session.dispatch_sync("double", {"n": "21"}).error.message
            'Invalid arguments for tool "double": /n: expected integer, got string "21" (type). Correct the arguments and call the tool again.'
        """
        if _running_loop() is not None:
            raise RuntimeError(
                "Session.dispatch_sync() was called from a thread that is running an event "
                "loop, where it would block that loop; use `await session.dispatch(...)` "
                "instead."
            )
        rid = next_request_number() if tool_request_id is None else str(tool_request_id)
        quick = self._quick
        hit = None
        if quick is not None and not _owned:
            # The quick table is in use only while the session is not ended, nobody watches
            # its status and no setting adds to a call (``_requick``), so a hit needs no check
            # of those.
            try:
                hit = quick.get(name)
            except TypeError:  # an unhashable "name": admission reports it
                hit = None
        prepared: Admission | ToolResult | None = None
        if hit is None:
            prepared = self._prepare(name, args, rid, _owned)
        else:
            # A tool of the quick table (``Registry.quick``): the validating copy is all of
            # admission its usual call needs (see ``_prepare``), unless it has a timeoutMs.
            validator, fn, limit, timeout_ms, entry, spec = hit
            got = validator._copy(args, self._max_depth, self._room)
            if got is not False:
                args = got[0]
                if "timeoutMs" in args:
                    # What is left of admission is what ``_prepare`` does after this copy.
                    prepared = self._admit(entry, args, rid, True)
            elif type(args) is str or type(args) is bytes:
                # Text (which the copy declines) is parsed for this call, so the parsed args
                # need no copy: ``is_valid`` is all of admission the usual call needs.
                parsed = self._parsed_text(entry.name, args, rid)
                if (
                    type(parsed) is dict
                    and "timeoutMs" not in parsed
                    and validator.is_valid(parsed)
                ):
                    args = parsed
                elif type(parsed) is ToolResult:
                    return parsed
                else:
                    prepared = self._admit(entry, parsed, rid, False)
            else:  # invalid, too deep or too big: admission says exactly why
                prepared = self._prepare(name, args, rid, _owned)
        runner = self._runner
        if prepared is not None:
            if type(prepared) is ToolResult:
                return prepared
            entry, args, spec, timeout_ms = prepared
            if not entry.plain:
                held = self._approvals.gate_sync(entry, args, rid, turn_id, timeout_ms)
                if held is not None:
                    return held
            result: ToolResult
            if not self._plain:
                result = self._flow.run_sync(prepared, rid, turn_id, self._sync_worker)
                return result if entry.plain else self._checked(entry, result)
            if spec.is_async:
                result = private_loop().run_until_complete(
                    runner.run_async(entry.name, rid, spec, args, turn_id, timeout_ms)
                )
                return result if entry.plain else self._checked(entry, result)
            if self._sync_worker:
                result = runner.run_blocking(entry.name, rid, spec, args, turn_id, timeout_ms)
                return result if entry.plain else self._checked(entry, result)
            only = spec.args_only
            if only is None or runner.events.status or not entry.plain:
                return self._run_inline(entry, spec, args, rid, turn_id, timeout_ms)
            fn = only
            limit = timeout_ms / 1000
        # The inline runner's usual case: a handler of (args) alone, in a plain tool of a
        # session whose status nobody watches, run here in the calling thread. It is the whole
        # overhead of a trivial call, so it is written out rather than split into helpers.
        running = runner.running
        running.append(None)  # atomic: end() and the status count the running calls
        try:
            raised = None
            start = monotonic()
            try:
                value = fn(args)
            except BaseException as exc:  # the one boundary: settle decides what it means
                if isinstance(exc, PASSED):
                    raise
                value, raised = None, exc
            late = monotonic() - start > limit or runner.ended
            if (
                not late
                and raised is None
                and (value is None or (type(value) is int and -SAFE_INT < value < SAFE_INT))
            ):
                # settle's first case, without the calls: a result no wire rule or size bound
                # can touch (text and big ints go through settle, which checks them).
                # ``ok()`` written out: its call is a tenth of this path.
                done: ToolResult = _new(ToolResult)
                done.tool = entry.name
                done._rid = rid
                done.value = value
                done.error = None
                return done
            return self._settled(entry, rid, value, raised, timeout_ms, None, late)
        finally:
            running.pop()

    def _run_inline(
        self,
        entry: Entry,
        spec: HandlerSpec,
        args: dict[str, Any],
        rid: str | int,
        turn_id: str | None,
        timeout_ms: int,
    ) -> ToolResult:
        """The inline runner for the rest: a handler that takes ``ctx``, or a session whose
        status someone watches (``Runner.enter``/``leave``: the first running call emits
        ``waiting_tool_result``, the last ``idle``)."""
        runner = self._runner
        name = entry.name
        fn = spec.args_only
        ctx = None
        value: Any = None
        raised: BaseException | None = None
        runner.enter()
        try:
            start = monotonic()
            if fn is not None:
                try:
                    value = fn(args)
                except BaseException as exc:
                    if isinstance(exc, PASSED):
                        raise
                    raised = exc
            else:
                ctx = runner.context(name, rid, turn_id, timeout_ms)
                rid = ctx.tool_request_id
                live = runner.live
                live[ctx] = cancel  # dict stores are atomic; end() copies under the lock
                if runner.ended:
                    cancel(ctx)
                try:
                    value = spec.call(args, ctx)
                except BaseException as exc:
                    if isinstance(exc, PASSED):
                        raise
                    raised = exc
                finally:
                    del live[ctx]
            late = monotonic() - start > timeout_ms / 1000 or runner.ended
            return self._settled(entry, rid, value, raised, timeout_ms, ctx, late)
        finally:
            runner.leave()

    def _settled(
        self,
        entry: Entry,
        rid: str | int,
        value: Any,
        raised: BaseException | None,
        timeout_ms: int,
        ctx: ToolCallContext | None,
        late: bool,
    ) -> ToolResult:
        """The result of an inline call: ``settle`` (told when it ran late or past ``end()``),
        then the output schema's check for a tool that has one."""
        runner = self._runner
        overdue = Overdue(timeout_ms, ctx, runner.ended) if late else None
        result = settle(entry.name, rid, value, raised, runner.events, overdue)
        return result if entry.plain else self._checked(entry, result)

    async def dispatch(
        self,
        name: str,
        args: Any,
        *,
        turn_id: str | None = None,
        tool_request_id: str | None = None,
        _owned: bool = False,
    ) -> ToolResult:
        """Run one tool call and return its result; never raises for anything the agent sent.

        Order: session ended → ``SESSION_ENDED``; unknown tool → ``TOOL_NOT_FOUND``; args
        parsed (JSON text) or copied (dict), a top-level ``timeoutMs`` read as this call's
        timeout (and taken out unless the schema declares it); args validated → ``TOOL_ARGS_INVALID``;
        handler chosen (named → inline → fallback) → ``TOOL_HANDLER_NOT_FOUND``; handler run.
        An async handler runs in the awaiting task and is cancelled at its timeout; a sync
        handler runs in a worker thread of the session (a thread cannot be stopped: at the
        timeout the call returns ``TOOL_TIMEOUT``, ``ctx.cancel_event`` is set and the thread
        runs on until the handler returns, no longer counted against the workers other calls
        get, up to ``Limits.max_abandoned_threads``; past that bound a call that finds no
        worker gets ``TOOL_WORKERS_EXHAUSTED``). Whatever a handler raises becomes its
        call's result, except ``KeyboardInterrupt``, ``SystemExit`` and the cancellation of
        the awaiting task itself.

        Args:
            name: The tool the agent called.
            args: The arguments: a dict, or JSON text (``str``/``bytes``) parsed strictly.
            turn_id: The agent turn this call belongs to (``ctx.turn_id``).
            tool_request_id: The provider's id for this call (default: a fresh unique id).

        Returns:
            The ``ToolResult``. Cancelling the awaiting task still raises ``CancelledError`` (a
            ``CancelledError`` a handler raises on its own, say from a task it cancelled, is
            its ``TOOL_HANDLER_ERROR``).

        Example:
            >>> import asyncio
            >>> from pedelec import Session
            >>> session = Session()
            >>> @session.on_tool("wait", description="Wait a bit.", timeout_ms=10,
            ...                  schema={"type": "object"})
            ... async def wait(args):
            ...     await asyncio.sleep(1)
            >>> asyncio.run(session.dispatch("wait", {})).error.code
            'TOOL_TIMEOUT'
        """
        rid = next_request_number() if tool_request_id is None else str(tool_request_id)
        prepared = self._prepare(name, args, rid, _owned)
        if type(prepared) is ToolResult:
            return prepared
        entry, args, spec, timeout_ms = prepared
        if not entry.plain:
            held = await self._approvals.gate(entry, args, rid, turn_id, timeout_ms)
            if held is not None:
                return held
        if not self._plain:
            result = await self._flow.run(prepared, rid, turn_id, True)
            return result if entry.plain else self._checked(entry, result)
        if spec.is_async:
            result = await self._runner.run_async(entry.name, rid, spec, args, turn_id, timeout_ms)
        else:
            result = await self._runner.run_threaded(
                entry.name, rid, spec, args, turn_id, timeout_ms
            )
        return result if entry.plain else self._checked(entry, result)

    def _requick(self) -> None:
        """Let ``dispatch_sync`` use the registry's quick table, or not, after a setting changed:
        only while a call needs no middleware, no cap, no worker and no check of unknown args,
        the session is not ended and nobody watches its status (a watched call goes through
        ``Runner.enter``/``leave``, which emit the changes).

        Called with the session's lock held (or from ``__init__``), so two settings changed at
        once in two threads cannot leave the table in use after the one that turns it off.
        ``end()`` and a status subscription reach it through ``Events.changed``.
        """
        inline = (
            self._plain
            and not self._sync_worker
            and not self._reject_unknown
            and not self._runner.ended
            and not self._events.status
        )
        self._quick = self._registry.quick if inline else None

    def _checked(self, entry: Entry, result: ToolResult) -> ToolResult:
        """``result``, checked against the tool's output schema (a tool that is not plain)."""
        events = self._events
        return check_result(
            entry.output, result, events.report, events.result_limit, self._limits.max_errors
        )

    def _prepare(
        self, name: Any, args: Any, rid: str | int, owned: bool = False
    ) -> Admission | ToolResult:
        """Admission, everything before the handler runs: the ``Admission`` of a call that may
        run, or the ``ToolResult`` of one that stops here.

        ``owned``: ``args`` was parsed from JSON text for this call (by an adapter, ``serve``
        or the CLI), so it is used as it is instead of being copied.
        """
        if self._runner.ended:
            return _result.session_ended(name, rid)
        registry = self._registry
        try:
            entry = registry.get(name)
        except TypeError:  # an unhashable "name"
            entry = None
        if entry is None:
            return _result.tool_not_found(name, rid, registry.names())
        name = entry.name
        kind = type(args)
        checked = False  # validated already, by the generated copier or for owned args
        validator = entry.validator
        if kind is dict and owned and validator.is_valid(args):
            # Parsed from JSON text by our caller, for this call only: nobody else holds it, so
            # it needs no copy (and, like text, is bounded by its size, not max_args_values).
            checked = entry.prepare is None
        elif kind is dict:
            # One generated walk validates the args and copies them by the schema's shape; it
            # declines (False) whatever is invalid, too deep or too big, and then the general
            # clone below reports exactly why, before validation, as always.
            got = validator._copy(args, self._max_depth, self._room)
            if got is False:
                try:
                    args = clone_json(args, max_depth=self._max_depth, max_values=self._max_values)
                except NotJsonError as exc:
                    return _result.args_not_json(name, rid, exc)
            else:
                args = got[0]
                if "timeoutMs" not in args and entry.prepare is None and not self._reject_unknown:
                    # The usual call, admitted: nothing below applies to it but the handler.
                    spec = entry.named or entry.inline or registry.fallback
                    if spec is not None:
                        return entry, args, spec, entry.timeout_ms
                checked = entry.prepare is None
        elif kind is str or kind is bytes or kind is bytearray:
            args = self._parsed_text(name, args, rid)
            if type(args) is ToolResult:
                return args
            if (
                type(args) is dict
                and "timeoutMs" not in args
                and entry.prepare is None
                and not self._reject_unknown
                and validator.is_valid(args)
            ):
                # The usual call sent as text, admitted: parsed for this call, so not copied.
                spec = entry.named or entry.inline or registry.fallback
                if spec is not None:
                    return entry, args, spec, entry.timeout_ms
                checked = True
        else:
            try:
                args = clone_json(args, max_depth=self._max_depth, max_values=self._max_values)
            except NotJsonError as exc:
                return _result.args_not_json(name, rid, exc)
        return self._admit(entry, args, rid, checked)

    def _parsed_text(self, name: str, text: str | bytes | bytearray, rid: str | int) -> Any:
        """Args sent as JSON text, parsed strictly for this call (so no one else holds them), or
        the ``ToolResult`` that refuses them: text that is not strict JSON, or that holds a lone
        surrogate (a parsed JSON value is never a ``ToolResult``)."""
        try:
            args = parse_json_args(text, max_bytes=self._max_bytes, max_depth=self._max_depth)
        except PedelecError as exc:
            return _result.args_unparsable(name, rid, exc)
        # A lone surrogate can only come from a \uD800-style escape (or a str holding one).
        if (b"\\u" in text) if type(text) is not str else ("\\u" in text or not text.isascii()):
            refused = _result.args_unsendable(name, rid, args)
            if refused is not None:
                return refused
        return args

    def _admit(
        self, entry: Entry, args: Any, rid: str | int, checked: bool
    ) -> Admission | ToolResult:
        """The rest of admission, for args that are not the usual already-copied call: the typed
        tool's preparation, a per-call ``timeoutMs``, validation, unknown args, the handler."""
        name = entry.name
        registry = self._registry
        validator = entry.validator
        prepare = entry.prepare
        if prepare is not None:
            args = prepare(args)
        timeout_ms = entry.timeout_ms
        problems: list[ArgError] | None = None
        if type(args) is dict and "timeoutMs" in args:
            # As upstream's ToolRegistry::normalize_tool_call (pedelec-core/src/lib.rs): a
            # top-level timeoutMs is the call's timeout, declared or not, and is removed before
            # validation only when the schema does not declare it. Read after ``prepare`` so a
            # typed tool's null for an optional timeoutMs means "not given", not a bad timeout.
            raw = args["timeoutMs"] if entry.takes_timeout else args.pop("timeoutMs")
            given = call_timeout(raw, self._limits.max_call_timeout_ms)
            if isinstance(given, int):
                timeout_ms = given
            else:
                problems = [given]
        if not checked and not validator.is_valid(args):
            invalid = True
            if self._lenient and entry.lenient and type(args) is dict:
                args = coerce_json_text(args, entry.lenient, self._max_bytes, self._max_depth)
                invalid = not validator.is_valid(args)
            if invalid:
                problems = (problems or []) + validator.errors(
                    args, max_errors=self._limits.max_errors
                )
        if self._reject_unknown:
            problems = (problems or []) + unknown_args(
                validator.schema, args, self._limits.max_errors
            )
        if problems:
            return _result.args_invalid(name, rid, problems[: self._limits.max_errors])
        spec = entry.named or entry.inline or registry.fallback
        if spec is None:
            return self._events.report(_result.handler_not_found(name, rid))
        return entry, args, spec, timeout_ms


def _requicker(session: Session) -> Callable[[], None]:
    """``Events.changed`` of the session: ``_requick`` after ``end()`` or a status subscription
    changed (called with the lock held). It holds the session weakly, as ``_plain_setter``."""
    ref = weakref.ref(session)

    def requick() -> None:
        live = ref()
        if live is not None:
            live._requick()

    return requick


def _plain_setter(session: Session) -> Callable[[bool], None]:
    """How the session's ``Flow`` tells it whether a call is plain (no middleware, no cap).

    It holds the session weakly: a bound method would make a reference cycle (session, flow,
    method, session), which only a full garbage collection frees, so a session nobody ended or
    kept would hold its worker threads until then.
    """
    ref = weakref.ref(session)

    def set_plain(plain: bool) -> None:
        live = ref()
        if live is not None:
            live._plain = plain
            live._requick()

    return set_plain


def _check_workers(sync_dispatch: Any, executor: Any, max_workers: Any) -> None:
    """Refuse a bad ``sync_dispatch``/``executor``/``max_workers`` with ``INVALID_INPUT``."""
    if sync_dispatch not in ("inline", "worker"):
        raise PedelecError(
            INVALID_INPUT,
            f'sync_dispatch must be "inline" or "worker", got {sync_dispatch!r}.',
            {"field": "sync_dispatch"},
        )
    if executor is not None:
        if not callable(getattr(executor, "submit", None)):
            raise PedelecError(
                INVALID_INPUT,
                f"executor must be a concurrent.futures.Executor, got {type(executor).__name__}.",
                {"field": "executor"},
            )
        if max_workers is not None:
            raise PedelecError(
                INVALID_INPUT,
                "Give executor or max_workers, not both: max_workers sizes the session's own pool.",
                {"field": "max_workers"},
            )
    if max_workers is not None and (type(max_workers) is not int or max_workers < 1):
        raise PedelecError(
            INVALID_INPUT,
            f"max_workers must be a positive integer, got {max_workers!r}.",
            {"field": "max_workers"},
        )
