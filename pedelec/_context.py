"""The context a handler receives with each tool call, and its cancellation signal.

Kept apart from ``pedelec.session`` so that ``pedelec.tools`` and typed inference can name
``ToolCallContext`` without importing the dispatcher.
"""

from __future__ import annotations

from _thread import allocate_lock
from contextvars import ContextVar, Token
from time import monotonic, time as _wall_clock
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol, final

from pedelec.limits import DEFAULT_TIMEOUT_MS

if TYPE_CHECKING:
    import threading

__all__ = [
    "LOG_LEVELS",
    "LogLevel",
    "Reporter",
    "ToolCallContext",
    "cancel",
    "cancel_requested",
    "report_to",
]

#: The levels of ``ctx.log``, lowest first: MCP's, which are syslog's (RFC 5424).
LogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
LOG_LEVELS: Final[tuple[LogLevel, ...]] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)
_INF: Final = float("inf")

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

    def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Tell the client how far the call has got; a no-op where no transport carries it.

        Under ``pedelec serve`` it becomes an MCP ``notifications/progress``, sent only when
        the client asked for progress (a ``progressToken`` in the request). Callable from
        sync, threaded and async handlers alike; it never blocks and never raises for a
        client that has gone.

        Args:
            progress: How far the call has got: a number that grows with each report.
            total: The value ``progress`` will reach at the end, when known.
            message: A short text for the user (``"3 of 10 files"``).

        Raises:
            TypeError: When ``progress`` or ``total`` is not a number (``True`` is not one).
            ValueError: When ``progress`` or ``total`` is not finite.

        Example:
            >>> def copy(args, ctx):
            ...     for done, name in enumerate(args["files"], 1):
            ...         ctx.report_progress(done, len(args["files"]), f"copied {name}")
        """
        _check_number("progress", progress)
        if total is not None:
            _check_number("total", total)
        if message is not None and type(message) is not str:
            raise TypeError(f"message must be a string, got {type(message).__name__}")
        reporter = _reporter.get()
        if reporter is not None:
            reporter.progress(progress, total, message)

    def log(self, level: LogLevel, message: str, **data: Any) -> None:
        """Send a log message to the client; a no-op where no transport carries it.

        Under ``pedelec serve`` it becomes an MCP ``notifications/message`` (logger: the
        tool's name; data: ``{"message": message, **data}``), sent when ``level`` is at or
        above the level the client set with ``logging/setLevel``. Callable from sync,
        threaded and async handlers alike; it never blocks.

        Args:
            level: One of ``"debug"``, ``"info"``, ``"notice"``, ``"warning"``, ``"error"``,
                ``"critical"``, ``"alert"``, ``"emergency"`` (the MCP and syslog levels).
            message: The text of the message.
            **data: JSON values to send along with it.

        Raises:
            ValueError: When ``level`` is not one of the levels above.

        Example:
            >>> def fetch(args, ctx):
            ...     ctx.log("info", "fetching", url=args["url"])
        """
        if level not in LOG_LEVELS:
            raise ValueError(f"level must be one of {', '.join(LOG_LEVELS)}, got {level!r}")
        reporter = _reporter.get()
        if reporter is not None:
            reporter.log(self._tool, level, message, data)


def _check_number(what: str, value: Any) -> None:
    kind = type(value)
    if kind is not int and kind is not float:
        raise TypeError(f"{what} must be a number, got {kind.__name__}")
    if kind is float and not -_INF < value < _INF:
        raise ValueError(f"{what} must be a finite number, got {value!r}")


class Reporter(Protocol):
    """Where a transport takes the progress and log messages of the calls it serves.

    Both methods may be called from any thread (a threaded handler runs in a worker) and must
    return at once.
    """

    def progress(self, progress: float, total: float | None, message: str | None) -> None:
        """One ``ctx.report_progress``."""

    def log(self, tool: str, level: LogLevel, message: str, data: dict[str, Any]) -> None:
        """One ``ctx.log``."""


#: The reporter of the calls dispatched from the current context (``None``: nobody listens).
#: A context variable reaches every handler without a step on the dispatch path: the awaiting
#: task runs async handlers, and the threaded runner runs sync ones in a copy of the context.
_reporter: ContextVar[Reporter | None] = ContextVar("pedelec_reporter", default=None)


def report_to(reporter: Reporter | None) -> Token[Reporter | None]:
    """Send the progress and logs of the calls dispatched from this context to ``reporter``.

    A transport calls it before ``session.dispatch`` in the task that serves one request, and
    ``_reporter.reset(token)`` after it, unless that task ends with the request anyway.
    """
    return _reporter.set(reporter)


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
