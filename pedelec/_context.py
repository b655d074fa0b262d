"""The context a handler receives with each tool call, and its cancellation signal.

Kept apart from ``pedelec.session`` so that ``pedelec.tools`` and typed inference can name
``ToolCallContext`` without importing the dispatcher.
"""

from __future__ import annotations

from _thread import allocate_lock
from time import monotonic, time as _wall_clock
from typing import TYPE_CHECKING, Any, final

from pedelec.limits import DEFAULT_TIMEOUT_MS

if TYPE_CHECKING:
    import threading

__all__ = ["ToolCallContext", "cancel", "cancel_requested"]

# One lock for every context's lazily created event: contexts are many and short-lived, and the
# lock is only taken on the rare paths (first ``cancel_event`` access, cancellation). ``_thread``
# is loaded at interpreter start; ``threading`` is not, and is only needed for the event itself.
_event_lock: Any = allocate_lock()


@final
class ToolCallContext:
    """What a handler knows about the call it is serving (read-only).

    A handler declared as ``fn(args, ctx)`` receives one per call.

    Attributes:
        session_id: The id of the session that dispatched the call.
        tool_request_id: Unique id of this call (the provider's tool-call id when the caller
            passed one to ``dispatch``).
        tool: The name of the tool being called.
        turn_id: The agent turn the call belongs to, as passed to ``dispatch`` (or ``None``).
        started_at: When the call started, in seconds since the epoch (``time.time()``).
        timeout_ms: The timeout that applies to this call, in milliseconds (the tool's, or the
            call's own ``timeoutMs``).

    Example:
        >>> from pedelec import Session
        >>> session = Session()
        >>> @session.on_tool("whoami", description="Echo the call context.",
        ...                  schema={"type": "object", "properties": {}})
        ... def whoami(args, ctx):
        ...     return {"tool": ctx.tool, "turn": ctx.turn_id, "cancelled": ctx.cancelled}
        >>> session.dispatch_sync("whoami", {}, turn_id="t1").value
        {'tool': 'whoami', 'turn': 't1', 'cancelled': False}
    """

    # Private slots behind read-only properties: building a context is on the dispatch hot
    # path, and plain slot stores are several times cheaper than a frozen ``__setattr__``.
    __slots__ = (
        "_deadline",
        "_event",
        "_flag",
        "_rid",
        "_sid",
        "_started",
        "_timeout",
        "_tool",
        "_turn",
    )

    def __init__(
        self,
        session_id: str,
        tool_request_id: str,
        tool: str,
        turn_id: str | None = None,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        started_at: float | None = None,
    ) -> None:
        self._sid = session_id
        self._rid = tool_request_id
        self._tool = tool
        self._turn = turn_id
        self._timeout = timeout_ms
        self._started = _wall_clock() if started_at is None else started_at
        self._deadline = monotonic() + timeout_ms / 1000
        self._flag = False
        self._event: Any = None

    @property
    def session_id(self) -> str:
        """The id of the session that dispatched the call."""
        return self._sid

    @property
    def tool_request_id(self) -> str:
        """Unique id of this call."""
        return self._rid

    @property
    def tool(self) -> str:
        """The name of the tool being called."""
        return self._tool

    @property
    def turn_id(self) -> str | None:
        """The agent turn the call belongs to (``None`` when not given)."""
        return self._turn

    @property
    def started_at(self) -> float:
        """When the call started, in seconds since the epoch."""
        return self._started

    @property
    def timeout_ms(self) -> int:
        """The timeout of this call in milliseconds."""
        return self._timeout

    @property
    def cancelled(self) -> bool:
        """True once the caller stopped waiting: the call timed out or the session ended.

        Also true as soon as the call's deadline has passed, so a long-running synchronous
        handler can poll it even where no timer sets ``cancel_event`` (see ``dispatch_sync``).
        """
        if self._flag:
            return True
        return monotonic() >= self._deadline

    @property
    def cancel_event(self) -> threading.Event:
        """A ``threading.Event`` set when the call ends without the handler's answer.

        For a handler in a worker thread (``await dispatch``, or ``dispatch_sync`` with
        ``sync_dispatch="worker"``) that is any way its call ends early: the deadline,
        ``end()``, or the cancellation of the awaiting task (an MCP client's cancel included).
        Threaded handlers can ``ctx.cancel_event.wait(seconds)`` instead of sleeping. The event
        is created on first access.
        """
        event: threading.Event | None = self._event
        if event is None:
            with _event_lock:
                event = self._event
                if event is None:
                    import threading

                    event = threading.Event()
                    if self._flag:
                        event.set()
                    self._event = event
        return event

    def __repr__(self) -> str:
        return (
            f"ToolCallContext(session_id={self.session_id!r}, "
            f"tool_request_id={self.tool_request_id!r}, tool={self.tool!r}, "
            f"turn_id={self.turn_id!r}, started_at={self.started_at!r}, "
            f"timeout_ms={self.timeout_ms!r}, cancelled={self.cancelled!r})"
        )


def cancel(ctx: ToolCallContext) -> None:
    """Mark the call as cancelled: ``ctx.cancelled`` turns true, ``ctx.cancel_event`` is set.

    A function of this module rather than a method, so the dispatcher's side of the context
    stays off the handler's public face.
    """
    with _event_lock:
        ctx._flag = True
        event = ctx._event
    if event is not None:
        event.set()


def cancel_requested(ctx: ToolCallContext) -> bool:
    """Whether ``cancel`` was called (the deadline alone does not count, unlike ``cancelled``)."""
    return ctx._flag
