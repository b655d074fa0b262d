"""Serve a session over MCP with the official ``mcp`` SDK (the ``pedelec[mcp]`` extra).

The server is the SDK's low-level ``Server`` with three handlers: ``tools/list`` returns
:func:`pedelec.adapters.mcp.tools`, ``tools/call`` runs :func:`pedelec.adapters.mcp.dispatch_tool_call`,
so every error of a call (invalid arguments, a handler that raised or timed out) reaches the
model as a result with ``isError: true`` that it can act on, and ``logging/setLevel`` sets the
level of the handlers' ``ctx.log`` messages. An unknown tool or a cursor that was never issued
is a JSON-RPC error (``-32602``), as the specification lists them. Requests are handled
concurrently by the SDK; each ``tools/call`` is one ``session.dispatch``, whose
``ctx.tool_request_id`` is the request's JSON-RPC id.

``mcp`` is imported only when a server is built, so ``import pedelec.cli`` works without it.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Awaitable
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import socket

    from mcp.server.lowlevel import Server

    from pedelec.session import Session

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_NAME",
    "DEFAULT_PORT",
    "build_server",
    "listen",
    "mcp_available",
]

#: Where ``pedelec serve --transport http`` listens unless told otherwise: this machine only.
DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8000
#: The server's name in ``serverInfo`` unless ``--name`` says otherwise.
DEFAULT_NAME: Final = "pedelec"

_INF: Final = float("inf")

# Connections the kernel queues while the server starts (the usual ``SOMAXCONN`` floor).
_LISTEN_BACKLOG: Final = 128


def mcp_available() -> bool:
    """Whether the MCP SDK can be imported."""
    try:
        import mcp.server.lowlevel  # noqa: F401
    except ImportError:
        return False
    return True


def build_server(
    session: Session,
    *,
    name: str = DEFAULT_NAME,
    version: str | None = None,
    heartbeat: float | None = None,
) -> Server[Any]:
    """Build an MCP server (low-level ``mcp.server.lowlevel.Server``) for ``session``.

    The session's ``guidance`` becomes the server's ``instructions``. Handlers' progress and
    logs (``ctx.report_progress``, ``ctx.log``) become ``notifications/progress`` (for a request
    that carried a ``progressToken``) and ``notifications/message`` (at or above the level set
    with ``logging/setLevel``; every level until one is set).

    Args:
        session: The session whose tools to serve.
        name: The server's name in ``serverInfo``.
        version: The server's version in ``serverInfo`` (default: pedelec's version).
        heartbeat: Seconds between heartbeats: while a call whose request carried a
            ``progressToken`` runs, a progress notification goes out whenever the handler
            reported none for that long, so a client's idle timeout does not end the call.
            ``None``: no heartbeat.

    Returns:
        A server ready for ``server.run(...)`` over stdio or ``server.streamable_http_app()``.

    Raises:
        ValueError: When ``heartbeat`` is not a positive number.

    Example:
        >>> server = build_server(session, name="counter", heartbeat=10)
        >>> server.name
        'counter'
    """
    import asyncio

    from mcp import types
    from mcp.server.connection import allowed_log_levels
    from mcp.server.context import ServerRequestContext
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    from pedelec import __version__
    from pedelec._context import report_to
    from pedelec._mcp.approve import ServeApprovals
    from pedelec._mcp.notify import LEVEL_KEY, CallNotices, ranked
    from pedelec._mcp.wire import duplicate_of, duplicate_result
    from pedelec.adapters import mcp as adapter

    if heartbeat is not None and not (isinstance(heartbeat, int | float) and 0 < heartbeat < _INF):
        raise ValueError(f"heartbeat must be a positive number of seconds, got {heartbeat!r}")

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        if params is not None and params.cursor is not None:
            # Every tool is on the one page, so no cursor was ever issued.
            error = adapter.unknown_cursor(params.cursor)
            raise MCPError(error["code"], error["message"], error["data"])
        return types.ListToolsResult(
            tools=[types.Tool.model_validate(tool) for tool in adapter.tools(session)]
        )

    approvals = ServeApprovals(session)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        unknown = adapter.unknown_tool(session, params.name)
        if unknown is not None:
            raise MCPError(unknown["code"], unknown["message"], unknown["data"])
        duplicate = duplicate_of(params.meta)
        if duplicate is not None:
            result = adapter.call_tool_result(duplicate_result(params.name, *duplicate))
            return types.CallToolResult.model_validate(result)

        def run(call: Awaitable[Any]) -> Awaitable[Any]:
            # A fresh set of notices for each run: an approved call runs after the first run.
            notices = CallNotices(
                asyncio.get_running_loop(),
                ctx,
                min_level=_state(ctx).get(LEVEL_KEY, 0),
                allowed=allowed_log_levels(ctx.session.protocol_version, ctx.meta),
                heartbeat=heartbeat,
            )
            # The task serving this request ends with it, so the reporter is never reset.
            report_to(notices)
            return notices.run(call)

        rid = None if ctx.request_id is None else str(ctx.request_id)
        # The SDK's parsed arguments are copied by the tool's generated copier (no dearer than
        # validating them), not taken as owned: that copy is also what holds them to the
        # session's depth and size bounds, which the SDK's parser does not apply.
        # A call that needs approval is put to the client's user (pedelec._mcp.approve).
        return await approvals.call(
            ctx,
            params,
            lambda: run(
                adapter.dispatch_tool_call(
                    session, params.name, params.arguments, tool_request_id=rid
                )
            ),
            run,
        )

    async def set_level(
        ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        _state(ctx)[LEVEL_KEY] = ranked(params.level)
        return types.EmptyResult()

    def input_schema(name: str) -> dict[str, Any] | None:
        if name not in session.tool_names():
            return None
        schema: dict[str, Any] = session.tool_spec(name)["argsSchema"]
        return schema

    server: Server[Any] = Server(
        name,
        version=__version__ if version is None else version,
        instructions=session.guidance or None,
        get_tool_input_schema=input_schema,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    # Registered after construction: the constructor's ``on_set_logging_level`` warns that the
    # 2026-07-28 revision drops logging, which the 2025 revisions clients speak today still have.
    server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, set_level)
    return server


_fallback_state: dict[str, Any] = {}


def _state(ctx: Any) -> dict[str, Any]:
    """The per-connection state of the request's client (the SDK's ``Connection.state``)."""
    connection = getattr(ctx.session, "_connection", None)
    state = getattr(connection, "state", None)
    # An SDK that moved it: one level for every client rather than none honoured.
    return state if isinstance(state, dict) else _fallback_state


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port`` (port 0: a free one).

    Raises:
        OSError: When the host does not resolve or the port cannot be had (in use, no
            permission); ``str(err)`` is the system's reason.
    """
    import socket

    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        # Listening before the announcement means a client that reads the URL and connects
        # at once waits in the backlog instead of being refused.
        sock.listen(_LISTEN_BACKLOG)
    except BaseException:
        sock.close()
        raise
    return sock


class _CheckedLines:
    """The stdio transport's input lines, each passed through ``mark_duplicates``."""

    def __init__(self, lines: AsyncIterable[str]) -> None:
        self._lines = lines

    async def __aiter__(self) -> AsyncIterator[str]:
        from pedelec._mcp.wire import mark_duplicates

        async for line in self._lines:
            checked = mark_duplicates(line)
            yield checked if isinstance(checked, str) else checked.decode("utf-8")


async def _run_stdio(server: Server[Any]) -> None:
    import io
    import os

    import anyio
    from mcp.server.stdio import stdio_server

    # The protocol's own copy of fd 0; fd 0 itself reads the null device while serving, so a
    # handler that reads stdin gets EOF instead of the client's messages (as the SDK does when
    # it owns stdin).
    wire = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    saved = os.dup(0)
    os.dup2(null, 0)
    os.close(null)
    try:
        raw = io.TextIOWrapper(os.fdopen(wire, "rb"), encoding="utf-8", errors="replace")
        lines: Any = _CheckedLines(anyio.wrap_file(raw))
        async with stdio_server(stdin=lines) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        os.dup2(saved, 0)
        os.close(saved)
