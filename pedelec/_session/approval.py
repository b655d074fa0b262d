"""Human approval of a call, between admission and the handler: ask, defer, resume.

The dispatcher comes here only for an entry that is not ``plain`` (``Entry.plain``), after the
args are valid and the handler chosen: a tool without approval costs nothing. For a call that
needs approval (``requires_approval`` is ``True``, or its function says so for these args):

* with ``Session(approver=fn)``, ``fn`` gets an ``ApprovalRequest`` holding a *copy* of the
  validated args; ``True`` runs the handler with the original, ``False`` or ``Denied(reason)``
  answers ``TOOL_APPROVAL_DENIED``. An approver that raises, answers something else, or (async)
  does not answer within ``Limits.approval_timeout_ms`` is a denial too: the call never runs
  on a failure (fail closed), and a raising or ill-answering approver is reported to
  ``on_error``;
* without one, the call is deferred: its args are kept under a token from ``secrets``, and
  ``resume(token, approve=...)`` claims it once. Claiming is one ``dict.pop`` under the lock,
  so of any number of racing resumes of one token (threads or tasks) exactly one gets the call.
  The store is bounded (``Limits.max_pending_approvals``), its tokens expire
  (``Limits.approval_timeout_ms``), and ``end()`` drops it.
"""

from __future__ import annotations

import inspect
from _thread import allocate_lock
from collections.abc import Callable
from time import monotonic
from typing import TYPE_CHECKING, Any, Final, final

from pedelec import _result
from pedelec._context import cancel
from pedelec._json import clone_json
from pedelec._json.render import render
from pedelec._output import check_result
from pedelec._result import ToolResult
from pedelec._session.events import PASSED, log_error
from pedelec._session.outcome import Overdue, settle
from pedelec._session.runners import private_loop
from pedelec.approval import ApprovalRequest, Denied
from pedelec.errors import (
    INVALID_INPUT,
    TOOL_APPROVAL_DENIED,
    TOOL_APPROVAL_INVALID,
    TOOL_APPROVAL_REQUIRED,
    PedelecError,
)

if TYPE_CHECKING:
    from pedelec._context import ToolCallContext
    from pedelec._handlers import HandlerSpec
    from pedelec._session.events import Events
    from pedelec._session.middleware import Flow
    from pedelec._session.registry import Entry, Registry
    from pedelec._session.runners import Runner
    from pedelec.approval import Approver
    from pedelec.limits import Limits

__all__ = ["Approvals", "Approving", "check_approver"]

#: Bytes of randomness in a token (``secrets.token_urlsafe``): 192 bits, 32 characters.
_TOKEN_BYTES: Final = 24
#: Longest denial reason put in a message; a person's note, not a document.
_SHOWN_REASON: Final = 1000


@final
class Pending:
    """A deferred call: everything needed to run it later, exactly as it was admitted."""

    __slots__ = ("args", "expires", "rid", "timeout_ms", "tool", "turn_id")

    def __init__(
        self,
        tool: str,
        args: dict[str, Any],
        rid: str | int,
        turn_id: str | None,
        timeout_ms: int,
        expires: float,
    ) -> None:
        self.tool = tool
        self.args = args
        self.rid = rid
        self.turn_id = turn_id
        self.timeout_ms = timeout_ms
        self.expires = expires


def check_approver(approver: Any) -> Approver | None:
    """Refuse an approver that is not callable (``INVALID_INPUT``)."""
    if approver is None or callable(approver):
        return approver  # type: ignore[no-any-return]
    raise PedelecError(
        INVALID_INPUT,
        f"approver must be a function (request) -> bool | Denied, got {type(approver).__name__}.",
        {"field": "approver"},
    )


def _clearing(pending: dict[str, Pending], lock: Any) -> Callable[[], None]:
    """``Approvals.clear`` for the session's ``ended`` callbacks, holding the pending calls and
    their lock rather than the ``Approvals``: the events do not hold it, so no reference cycle
    keeps a session alive until a full garbage collection."""

    def clear() -> None:
        with lock:
            pending.clear()

    return clear


@final
class Approvals:
    """The approval step of one session: its approver, and the calls waiting for ``resume``."""

    __slots__ = (
        "_lock",
        "_pending",
        "approver",
        "events",
        "flow",
        "limit",
        "max_errors",
        "registry",
        "runner",
        "sync_worker",
        "timeout_ms",
    )

    def __init__(
        self,
        approver: Approver | None,
        limits: Limits,
        registry: Registry,
        runner: Runner,
        events: Events,
        sync_worker: bool,
        flow: Flow,
    ) -> None:
        self.approver = approver
        self.timeout_ms = limits.approval_timeout_ms
        self.limit = limits.max_pending_approvals
        self.max_errors = limits.max_errors
        self.registry = registry
        self.runner = runner
        self.events = events
        self.sync_worker = sync_worker
        #: The session's middleware chain and concurrency cap: a resumed call passes them too.
        self.flow = flow
        self._lock = allocate_lock()
        # Insertion order is expiry order (one lifetime for all), so expired calls are in front.
        self._pending: dict[str, Pending] = {}
        events.subscribe("ended", _clearing(self._pending, self._lock))

    # --- the gate between admission and the handler ------------------------------------------

    def gate_sync(
        self, entry: Entry, args: dict[str, Any], rid: str | int, turn_id: str | None, timeout: int
    ) -> ToolResult | None:
        """``None`` when the call may run now; else its result (deferred, denied)."""
        asked = self._ask(entry, args, rid, turn_id, timeout)
        if inspect.isawaitable(asked):
            asked = private_loop().run_until_complete(self._wait(entry.name, rid, asked))
        return self._verdict(entry.name, rid, asked)

    async def gate(
        self, entry: Entry, args: dict[str, Any], rid: str | int, turn_id: str | None, timeout: int
    ) -> ToolResult | None:
        """``gate_sync`` for ``await dispatch``: an async approver is awaited here."""
        asked = self._ask(entry, args, rid, turn_id, timeout)
        if inspect.isawaitable(asked):
            asked = await self._wait(entry.name, rid, asked)
        return self._verdict(entry.name, rid, asked)

    def _ask(
        self, entry: Entry, args: dict[str, Any], rid: str | int, turn_id: str | None, timeout: int
    ) -> Any:
        """``True`` (run), a result, or the approver's answer (maybe still to be awaited)."""
        need = entry.approval
        if need is False:
            return True
        name = entry.name
        ctx = self.runner.context(name, rid, turn_id, timeout)
        if need is not True and not _needed(need, name, args, ctx):
            return True
        approver = self.approver
        if approver is None:
            return self.defer(name, args, rid, turn_id, timeout)
        try:
            return approver(ApprovalRequest(name, clone_json(args), ctx))
        except BaseException as exc:
            if isinstance(exc, PASSED):
                raise
            return self._failed(name, rid, exc)

    async def _wait(self, name: str, rid: str | int, awaitable: Any) -> Any:
        """An async approver's answer, within ``approval_timeout_ms``."""
        import asyncio

        try:
            async with asyncio.timeout(self.timeout_ms / 1000) as within:
                return await awaitable
        except TimeoutError as exc:
            if within.expired():
                return _denied(
                    name,
                    rid,
                    f'Tool "{name}" was not run: no approval came within {self.timeout_ms} ms '
                    "(Limits.approval_timeout_ms). Ask the user before calling it again.",
                    {"tool": name, "timeoutMs": self.timeout_ms},
                )
            return self._failed(name, rid, exc)
        except Exception as exc:
            return self._failed(name, rid, exc)

    def _verdict(self, name: str, rid: str | int, answer: Any) -> ToolResult | None:
        if answer is True:
            if self.runner.ended:  # ended while the approver thought it over
                return _result.session_ended(name, rid)
            return None
        if type(answer) is ToolResult:
            return answer
        if answer is False:
            return denied(name, rid, None)
        if type(answer) is Denied:
            return denied(name, rid, answer.reason)
        return self.events.report(
            _denied(
                name,
                rid,
                f'Tool "{name}" was not run: its approver answered {render(answer, 60)}, '
                "which is neither True, False nor Denied(reason).",
                {"tool": name, "answer": type(answer).__name__},
            )
        )

    def _failed(self, name: str, rid: str | int, exc: BaseException) -> ToolResult:
        log_error('pedelec: the approver raised on a call of tool "%s"', name, exc=exc)
        kind = type(exc).__name__
        return self.events.report(
            _denied(
                name,
                rid,
                f'Tool "{name}" was not run: its approval could not be had (the approver raised '
                f"{kind}). Do not call it again with the same arguments.",
                {"tool": name, "exception": kind},
            )
        )

    # --- deferred calls ------------------------------------------------------------------------

    def defer(
        self,
        name: str,
        args: dict[str, Any],
        rid: str | int,
        turn_id: str | None,
        timeout_ms: int,
    ) -> ToolResult:
        """Keep the call for ``resume`` and answer ``TOOL_APPROVAL_REQUIRED`` with its token."""
        import secrets

        token = secrets.token_urlsafe(_TOKEN_BYTES)
        store = self._pending
        with self._lock:
            now = monotonic()
            if len(store) >= self.limit:
                for key in [k for k, p in store.items() if p.expires < now]:
                    del store[key]
            held = len(store)
            if held < self.limit and not self.runner.ended:
                store[token] = Pending(
                    name, args, rid, turn_id, timeout_ms, now + self.timeout_ms / 1000
                )
        if self.runner.ended:
            with self._lock:
                store.pop(token, None)
            return _result.session_ended(name, rid)
        if held >= self.limit:
            return self.events.report(
                _denied(
                    name,
                    rid,
                    f'Tool "{name}" was not run: {held} calls already wait for a person\'s '
                    "approval, the most this session holds (Limits.max_pending_approvals); let "
                    "the user decide those before calling it again.",
                    {"tool": name, "pending": held, "limit": self.limit},
                )
            )
        return _err(
            name,
            rid,
            TOOL_APPROVAL_REQUIRED,
            f'Tool "{name}" needs a person\'s approval before it runs, and has not run yet: '
            "tell the user it waits for their approval; do not call it again.",
            {"tool": name, "token": token},
        )

    def claim(self, token: Any) -> Pending | ToolResult:
        """Take the deferred call of ``token`` out of the store, once; else the invalid result."""
        if type(token) is str:
            with self._lock:
                pending = self._pending.pop(token, None)
            if pending is not None:
                if monotonic() <= pending.expires:
                    return pending
                return _err(
                    pending.tool,
                    pending.rid,
                    TOOL_APPROVAL_INVALID,
                    f'The approval of tool "{pending.tool}" expired after {self.timeout_ms} ms '
                    "(Limits.approval_timeout_ms), so it was not run; call the tool again to "
                    "ask for a new approval.",
                    {"tool": pending.tool},
                )
        return ToolResult(
            "",
            _result.next_request_number(),
            None,
            PedelecError(
                TOOL_APPROVAL_INVALID,
                "The approval token is unknown, already used or expired, so nothing was run; "
                "call the tool again to ask for a new approval.",
            ),
        )

    def peek(self, token: str) -> Pending | None:
        """The deferred call of ``token``, left in place (``pedelec serve`` shows it to a person)."""
        return self._pending.get(token)

    def pending_count(self) -> int:
        return len(self._pending)

    def clear(self) -> None:
        """Drop every deferred call (``end()``): their tokens are invalid from now on."""
        with self._lock:
            self._pending.clear()

    # --- running a claimed call ----------------------------------------------------------------

    def _decided(
        self, token: Any, approve: Any, reason: Any
    ) -> tuple[Pending, HandlerSpec] | ToolResult:
        """The claimed call and its handler, or the result that ends it here."""
        if type(approve) is not bool:
            raise PedelecError(
                INVALID_INPUT,
                f"resume(approve=...) must be True or False, got {type(approve).__name__}.",
                {"field": "approve"},
            )
        if reason is not None and not isinstance(reason, str):
            raise PedelecError(
                INVALID_INPUT,
                f"resume(reason=...) must be a string or None, got {type(reason).__name__}.",
                {"field": "reason"},
            )
        pending = self.claim(token)
        if type(pending) is ToolResult:
            return pending
        assert isinstance(pending, Pending)
        if not approve:
            return denied(pending.tool, pending.rid, reason)
        if self.runner.ended:
            return _result.session_ended(pending.tool, pending.rid)
        entry = self.registry.get(pending.tool)
        spec = None if entry is None else (entry.named or entry.inline or self.registry.fallback)
        if spec is None:
            return self.events.report(_result.handler_not_found(pending.tool, pending.rid))
        return pending, spec

    async def resume(self, token: Any, approve: Any, reason: Any) -> ToolResult:
        return self._checked(await self._resume(token, approve, reason))

    def resume_sync(self, token: Any, approve: Any, reason: Any) -> ToolResult:
        return self._checked(self._resume_sync(token, approve, reason))

    def _checked(self, result: ToolResult) -> ToolResult:
        """``result`` checked against its tool's output schema, as ``dispatch`` checks it."""
        entry = self.registry.get(result.tool) if result.error is None else None
        if entry is None or entry.output is None:
            return result
        events = self.events
        return check_result(
            entry.output, result, events.report, events.result_limit, self.max_errors
        )

    async def _resume(self, token: Any, approve: Any, reason: Any) -> ToolResult:
        decided = self._decided(token, approve, reason)
        if type(decided) is ToolResult:
            return decided
        assert isinstance(decided, tuple)
        p, spec = decided
        flow = self.flow
        if flow.active:
            return await flow.run(self._admitted(p, spec), p.rid, p.turn_id, True)
        runner = self.runner
        if spec.is_async:
            return await runner.run_async(p.tool, p.rid, spec, p.args, p.turn_id, p.timeout_ms)
        return await runner.run_threaded(p.tool, p.rid, spec, p.args, p.turn_id, p.timeout_ms)

    def _resume_sync(self, token: Any, approve: Any, reason: Any) -> ToolResult:
        decided = self._decided(token, approve, reason)
        if type(decided) is ToolResult:
            return decided
        assert isinstance(decided, tuple)
        p, spec = decided
        flow = self.flow
        if flow.active:
            return flow.run_sync(self._admitted(p, spec), p.rid, p.turn_id, self.sync_worker)
        runner = self.runner
        if spec.is_async:
            return private_loop().run_until_complete(  # type: ignore[no-any-return]
                runner.run_async(p.tool, p.rid, spec, p.args, p.turn_id, p.timeout_ms)
            )
        if self.sync_worker:
            return runner.run_blocking(p.tool, p.rid, spec, p.args, p.turn_id, p.timeout_ms)
        return self._inline(p, spec)

    def _admitted(self, p: Pending, spec: HandlerSpec) -> Any:
        """The deferred call as the middleware chain takes an admitted one."""
        return (self.registry.get(p.tool), p.args, spec, p.timeout_ms)

    def _inline(self, p: Pending, spec: HandlerSpec) -> ToolResult:
        """A sync handler in the calling thread, as ``dispatch_sync`` runs one by default."""
        runner = self.runner
        ctx = runner.context(p.tool, p.rid, p.turn_id, p.timeout_ms)
        value: Any = None
        raised: BaseException | None = None
        runner.enter()
        try:
            runner.live[ctx] = cancel
            start = monotonic()
            try:
                value = spec.call(p.args, ctx)
            except BaseException as exc:
                if isinstance(exc, PASSED):
                    raise
                raised = exc
            finally:
                runner.live.pop(ctx, None)
            overdue = None
            if monotonic() - start > p.timeout_ms / 1000 or runner.ended:
                overdue = Overdue(p.timeout_ms, ctx, runner.ended)
            return settle(p.tool, p.rid, value, raised, runner.events, overdue)
        finally:
            runner.leave()


def _needed(need: Any, name: str, args: dict[str, Any], ctx: ToolCallContext) -> bool:
    """What a per-call ``requires_approval`` function says; anything but ``False`` is a yes."""
    try:
        verdict = need(clone_json(args), ctx)
    except BaseException as exc:
        if isinstance(exc, PASSED):
            raise
        log_error(
            'pedelec: requires_approval of tool "%s" raised; the call needs approval', name, exc=exc
        )
        return True
    if inspect.iscoroutine(verdict):
        verdict.close()
    return verdict is not False


def denied(tool: str, rid: str | int, reason: str | None) -> ToolResult:
    """A call a person (or the approver) refused: tells the agent not to send it unchanged."""
    details: dict[str, Any] = {"tool": tool}
    because = ""
    if reason is not None and reason.strip():
        shown = reason if len(reason) <= _SHOWN_REASON else reason[:_SHOWN_REASON] + "…"
        because = f": {shown.rstrip('.')}"
        details["reason"] = shown
    return _denied(
        tool,
        rid,
        f'The call of tool "{tool}" was denied{because}. It was not run; do not call it again '
        "with the same arguments, ask the user what to do instead.",
        details,
    )


def _denied(tool: str, rid: str | int, message: str, details: dict[str, Any]) -> ToolResult:
    return _err(tool, rid, TOOL_APPROVAL_DENIED, message, details)


def _err(tool: str, rid: str | int, code: str, message: str, details: dict[str, Any]) -> ToolResult:
    return ToolResult(tool, rid, None, PedelecError(code, message, details))


class Approving:
    """``Session.resume`` and ``Session.resume_sync``: deciding a deferred call."""

    _approvals: Approvals

    async def resume(self, token: str, *, approve: bool, reason: str | None = None) -> ToolResult:
        """Decide a call that was deferred for approval (``TOOL_APPROVAL_REQUIRED``).

        With ``approve=True`` the tool's handler runs, exactly once, with the args stored when
        the call was deferred (never args sent again), and its result is returned; with
        ``approve=False`` the result is ``TOOL_APPROVAL_DENIED`` carrying ``reason``. Either way
        the token is used up: a second resume, an unknown token, or one older than
        ``Limits.approval_timeout_ms`` gets ``TOOL_APPROVAL_INVALID``. Of concurrent resumes of
        one token, one decides it and the others get ``TOOL_APPROVAL_INVALID``. The result
        keeps the original call's ``tool_request_id``.

        Args:
            token: ``result.error.details["token"]`` of the deferred call.
            approve: Whether a person approved the call.
            reason: Why it was refused, for the agent (with ``approve=False``).

        Returns:
            The handler's ``ToolResult``, or the denial or invalid-token result.

        Raises:
            PedelecError: ``INVALID_INPUT`` when ``approve`` is not a bool or ``reason`` not a
                string.

        Example:
            >>> import asyncio
            >>> from pedelec import Session
            >>> session = Session()
            >>> @session.on_tool("wipe", description="Wipe a disk.", requires_approval=True,
            ...                  schema={"type": "object", "properties": {"disk": {"type": "string"}}})
            ... def wipe(args):
            ...     return f"wiped {args['disk']}"
            >>> deferred = session.dispatch_sync("wipe", {"disk": "sdb"})
            >>> token = deferred.error.details["token"]
            >>> asyncio.run(session.resume(token, approve=True)).value
            'wiped sdb'
        """
        return await self._approvals.resume(token, approve, reason)

    def resume_sync(self, token: str, *, approve: bool, reason: str | None = None) -> ToolResult:
        """``resume`` from synchronous code: a sync handler runs as under ``dispatch_sync``.

        Raises:
            RuntimeError: When called from a thread that is running an event loop.
            PedelecError: ``INVALID_INPUT`` for a bad ``approve`` or ``reason``.

        Example:
            >>> from pedelec import Session
            >>> session = Session()
            >>> @session.on_tool("wipe", description="Wipe a disk.", requires_approval=True,
            ...                  schema={"type": "object", "properties": {"disk": {"type": "string"}}})
            ... def wipe(args):
            ...     return f"wiped {args['disk']}"
            >>> token = session.dispatch_sync("wipe", {"disk": "sdb"}).error.details["token"]
            >>> session.resume_sync(token, approve=False, reason="Not that disk.").error.message
            'The call of tool "wipe" was denied: Not that disk. It was not run; do not call it again with the same arguments, ask the user what to do instead.'
            >>> session.resume_sync(token, approve=True).error.code
            'TOOL_APPROVAL_INVALID'
        """
        import sys

        aio = sys.modules.get("asyncio")
        if aio is not None and aio._get_running_loop() is not None:
            raise RuntimeError(
                "Session.resume_sync() was called from a thread that is running an event loop, "
                "where it would block that loop; use `await session.resume(...)` instead."
            )
        return self._approvals.resume_sync(token, approve, reason)
