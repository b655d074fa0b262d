"""The session's callbacks: subscribing, and calling them so that one that raises is only logged.

Each kind keeps a tuple of one-element tokens, replaced (never mutated) under the session's lock:
emitting reads the tuple without the lock, and unsubscribing removes exactly the token it added,
even when the same callback was subscribed twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Literal, final

from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.limits import DEFAULT_MAX_RESULT_BYTES

if TYPE_CHECKING:
    from pedelec._result import ToolResult

__all__ = ["PASSED", "Events", "SessionStatus", "log_error", "logger"]

#: What is let through every boundary (a handler's, a callback's): the process is stopping.
PASSED: Final = (KeyboardInterrupt, SystemExit)

#: ``idle``: no call is running; ``waiting_tool_result``: at least one handler is running;
#: ``ended``: ``end()`` was called. A failed call is only that call's result, so there is no
#: session-wide error status (see ``on_error``).
SessionStatus = Literal["idle", "waiting_tool_result", "ended"]

Kind = Literal["status", "errors", "ended"]


def logger() -> Any:
    """The ``pedelec`` logger (``logging`` is imported on first use)."""
    import logging

    log = logging.getLogger("pedelec")
    if not log.handlers:
        # Library convention: without this, Python's last-resort handler would print the
        # tracebacks pedelec logs on the application's stderr when it configured no logging.
        log.addHandler(logging.NullHandler())
    return log


def log_error(message: str, *args: Any, exc: BaseException) -> None:
    """Log ``exc`` to the ``pedelec`` logger; a logging setup that raises is ignored, so that it
    can never turn a call's result into an exception."""
    from contextlib import suppress

    with suppress(Exception):
        logger().error(message, *args, exc_info=exc)


@final
class Events:
    """The callbacks of one session: ``on_status``, ``on_error`` and ``on_ended``."""

    __slots__ = ("changed", "ended", "errors", "lock", "result_limit", "status")

    def __init__(self, lock: Any, result_limit: int = DEFAULT_MAX_RESULT_BYTES) -> None:
        self.lock = lock
        # ``Limits.max_result_bytes``: kept here because every runner hands ``settle`` this object.
        self.result_limit = result_limit
        self.status: tuple[tuple[Callable[[SessionStatus], object]], ...] = ()
        self.errors: tuple[tuple[Callable[[ToolResult], object]], ...] = ()
        self.ended: tuple[tuple[Callable[[], object]], ...] = ()
        #: Told, with the lock held, when ``status`` gains or loses a callback or the session
        #: ends (``Runner.end``): the session's quick path depends on both.
        self.changed: Callable[[], None] = noop

    def subscribe(self, kind: Kind, callback: Any) -> Callable[[], None]:
        """Add ``callback`` to ``kind``; returns the function that removes it again."""
        if not callable(callback):
            raise PedelecError(
                INVALID_INPUT,
                f"A callback must be callable, got {type(callback).__name__}.",
                {"field": "callback"},
            )
        token = (callback,)
        with self.lock:
            setattr(self, kind, (*getattr(self, kind), token))
            if kind == "status":
                self.changed()

        def unsubscribe() -> None:
            with self.lock:
                setattr(self, kind, tuple(t for t in getattr(self, kind) if t is not token))
                if kind == "status":
                    self.changed()

        return unsubscribe

    def take_ended(self) -> tuple[tuple[Callable[[], object]], ...]:
        """The ``on_ended`` callbacks, removed: they fire once (call under the lock)."""
        ended, self.ended = self.ended, ()
        return ended

    def emit_status(self, status: SessionStatus) -> None:
        for (cb,) in self.status:
            safe_call(cb, status)

    def report(self, result: ToolResult) -> ToolResult:
        """Tell the ``on_error`` callbacks about ``result``, and return it."""
        for (cb,) in self.errors:
            safe_call(cb, result)
        return result


def safe_call(callback: Callable[..., object], *args: Any) -> None:
    """Call a developer's callback; what it raises is logged, never passed on to the caller.

    Any ``BaseException`` but ``KeyboardInterrupt`` and ``SystemExit`` is contained: a callback
    cannot change a call's result, and the status bookkeeping around it always completes.
    """
    try:
        callback(*args)
    except BaseException as exc:
        if isinstance(exc, PASSED):
            raise
        log_error("pedelec: a session callback raised; it was ignored", exc=exc)


def noop() -> None:
    return None
