"""``Session``'s observation API: its status, callbacks on changes, and ``end()``.

A base class of ``pedelec.session.Session``, kept apart so the session module is the
constructor and the dispatch hot path. It only reads the runner and events the session's
``__init__`` sets up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pedelec._session.events import noop, safe_call

if TYPE_CHECKING:
    from collections.abc import Callable

    from pedelec._result import ToolResult
    from pedelec._session.events import Events, SessionStatus
    from pedelec._session.runners import Runner


class Observing:
    """The status, event subscription and lifecycle methods of ``Session``."""

    _runner: Runner
    _events: Events

    @property
    def status(self) -> SessionStatus:
        """``"idle"``, ``"waiting_tool_result"`` (a handler is running) or ``"ended"``.

        A call counts as running until its caller has its result: a threaded handler that
        overran its timeout and still runs in its worker thread no longer counts.
        """
        runner = self._runner
        if runner.ended:
            return "ended"
        return "waiting_tool_result" if runner.running else "idle"

    # --- events ---------------------------------------------------------------------------

    def on_status(self, callback: Callable[[SessionStatus], object]) -> Callable[[], None]:
        """Call ``callback(status)`` on every status change; returns an unsubscribe function.

        Callbacks run in the thread that caused the change; with calls in several threads,
        two changes may be delivered out of order, so read ``session.status`` for the latest.
        A callback that raises is logged to the ``pedelec`` logger and otherwise ignored.

        Example:
            >>> from pedelec import Session
            >>> session = Session()
            >>> seen = []
            >>> unsubscribe = session.on_status(seen.append)
            >>> session.end()
            >>> seen
            ['ended']
        """
        return self._events.subscribe("status", callback)

    def on_error(self, callback: Callable[[ToolResult], object]) -> Callable[[], None]:
        """Call ``callback(result)`` when a call fails in a way the developer should see.

        That is ``TOOL_HANDLER_ERROR``, ``TOOL_TIMEOUT``, ``SUBMIT_TOOL_RESULT_FAILED`` and
        ``TOOL_HANDLER_NOT_FOUND``; not the agent's own mistakes (``TOOL_NOT_FOUND``,
        ``TOOL_ARGS_INVALID``), domain errors a handler raised or returned, or
        ``SESSION_ENDED``. Returns an unsubscribe function; a callback that raises is logged.
        """
        return self._events.subscribe("errors", callback)

    def on_ended(self, callback: Callable[[], object]) -> Callable[[], None]:
        """Call ``callback()`` once when the session ends (at once if it already has).

        Returns an unsubscribe function; a callback that raises is logged.
        """
        events = self._events
        with events.lock:
            ended = self._runner.ended
        if ended:
            safe_call(callback)
            return noop
        return events.subscribe("ended", callback)

    # --- lifecycle ------------------------------------------------------------------------

    def end(self) -> None:
        """End the session: new calls get ``SESSION_ENDED``, running calls are cancelled.

        Awaited calls (async handlers, and sync handlers under ``dispatch``) return
        ``SESSION_ENDED`` at once; the context's ``cancel_event`` of every running call is set.
        A sync handler already running in a thread cannot be stopped: it finishes, and its
        result is discarded. ``on_ended`` callbacks fire once; calling ``end()`` again does
        nothing.

        Example:
            >>> from pedelec import Session
            >>> session = Session()
            >>> session.end(); session.end()
            >>> session.status
            'ended'
        """
        self._runner.end()
