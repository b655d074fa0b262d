"""Progress and log notifications of one ``tools/call`` under ``pedelec serve``, and the heartbeat.

A handler's ``ctx.report_progress`` and ``ctx.log`` reach a :class:`CallNotices` (the call's
:class:`pedelec._context.Reporter`) from whatever thread the handler runs in; the notices hand
each message over to the server's event loop, where one task sends them in order. Everything a
call reported before it returned is sent before its result, and nothing after it: the client
would drop a notification for a request it already has the answer to.

The MCP SDK is only reached through the request context it hands the ``tools/call`` handler
(``ctx.session``, ``ctx.meta``, ``ctx.request_id``), so this module imports none of it.
"""

from __future__ import annotations

import math
from _thread import get_ident
from collections import deque
from typing import TYPE_CHECKING, Any, Final

from pedelec._context import LOG_LEVELS, LogLevel

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Awaitable

__all__ = ["LEVEL_KEY", "CallNotices", "ranked"]

#: Where a connection keeps the level its client set with ``logging/setLevel``
#: (in the SDK's per-connection ``state``).
LEVEL_KEY: Final = "pedelec.log_level"

_RANK: Final = {level: rank for rank, level in enumerate(LOG_LEVELS)}


def ranked(level: str) -> int:
    """The rank of an MCP log level, lowest (``debug``) first."""
    return _RANK[level]  # type: ignore[index]


class CallNotices:
    """The progress and log notifications of one ``tools/call``, sent in order on the loop."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        request: Any,
        *,
        min_level: int,
        allowed: frozenset[str],
        heartbeat: float | None,
    ) -> None:
        self._loop = loop
        self._thread = get_ident()
        self._request = request
        meta = request.meta or {}
        # The SDK's validated ``_meta`` names the key by its field; the wire, by its alias.
        token = meta.get("progress_token", meta.get("progressToken"))
        self._wants_progress = token is not None and not isinstance(token, bool)
        self._min_level = min_level
        self._allowed = allowed
        self._heartbeat = heartbeat
        self._queue: deque[tuple[Any, ...]] = deque()
        self._sender: asyncio.Task[None] | None = None
        self._closed = False
        # The last progress sent (``None``: none yet), so each value sent is larger than the one
        # before it, as the specification wants.
        self._last: tuple[float, float | None, str | None] | None = None
        # How many progress reports the handler made, so the heartbeat knows when it was quiet.
        self._reported = 0

    # --- the Reporter side: any thread ---------------------------------------------------------

    def progress(self, progress: float, total: float | None, message: str | None) -> None:
        if self._wants_progress and not self._closed:
            self._hand_over(("report", progress, total, message))

    def log(self, tool: str, level: LogLevel, message: str, data: dict[str, Any]) -> None:
        if self._closed or _RANK[level] < self._min_level or level not in self._allowed:
            return
        self._hand_over(("log", tool, level, {"message": message, **data}))

    def _hand_over(self, item: tuple[Any, ...]) -> None:
        if get_ident() == self._thread:
            self._put(item)
            return
        try:
            self._loop.call_soon_threadsafe(self._put, item)
        except RuntimeError:  # the loop is closed: the server has stopped
            return

    # --- the loop side -------------------------------------------------------------------------

    def _put(self, item: tuple[Any, ...]) -> None:
        if self._closed:
            return
        if item[0] == "report":
            self._reported += 1
            item = ("progress", *item[1:])
        self._queue.append(item)
        if self._sender is None:
            self._sender = self._loop.create_task(self._send_all())

    async def _send_all(self) -> None:
        import logging

        from mcp import types

        try:
            while self._queue:
                item = self._queue.popleft()
                try:
                    if item[0] == "progress":
                        await self._send_progress(*item[1:])
                    else:
                        _, tool, level, data = item
                        await self._request.session.send_notification(
                            types.LoggingMessageNotification(
                                params=types.LoggingMessageNotificationParams(
                                    level=level, logger=tool, data=data
                                )
                            ),
                            related_request_id=self._request.request_id,
                        )
                except Exception as exc:  # data that is not JSON, a transport that went away
                    logging.getLogger("pedelec").warning(
                        "pedelec: a %s notification could not be sent: %s: %s",
                        item[0],
                        type(exc).__name__,
                        exc,
                    )
        finally:
            self._sender = None

    async def _send_progress(
        self, progress: float, total: float | None, message: str | None
    ) -> None:
        last = self._last
        if last is not None and not progress > last[0]:
            progress = math.nextafter(last[0], math.inf)
        self._last = (progress, total, message)
        await self._request.session.report_progress(progress, total, message)

    async def _beat(self, interval: float) -> None:
        """Repeat the last progress whenever nothing was sent during an interval.

        The repeat keeps ``total`` and ``message`` and raises ``progress`` by the smallest step a
        float can take, so the value still grows; before the handler reports anything it is 0.
        """
        import asyncio

        loop = self._loop
        start = loop.time()
        beats = 0
        seen = self._reported
        while True:
            beats += 1
            # From the start, not from the last beat: a busy loop makes one beat late, not all.
            await asyncio.sleep(max(0.0, start + beats * interval - loop.time()))
            if self._reported == seen:
                progress, total, message = self._last or (0, None, None)
                self._put(("progress", progress, total, message))
            seen = self._reported

    async def run(self, call: Awaitable[Any]) -> Any:
        """Await ``call`` with the heartbeat going; send what it reported before returning."""
        import asyncio

        beat = None
        if self._heartbeat is not None and self._wants_progress:
            beat = self._loop.create_task(self._beat(self._heartbeat))
        try:
            result = await call
        except BaseException:
            # Cancelled (the client gave up) or failed: nobody reads notifications any more.
            self._closed = True
            self._queue.clear()
            raise
        finally:
            if beat is not None:
                beat.cancel()
        self._closed = True
        sender = self._sender
        if sender is not None:
            await asyncio.shield(sender)
        return result
