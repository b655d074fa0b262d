"""``pedelec serve``'s launcher: stdio in this process, or HTTP in one or N worker processes.

Kept apart from :mod:`pedelec._mcp.server` (the server itself) so the layers stay one way:
the launcher uses both the server and :mod:`pedelec.cli._http`, whose app is
:func:`pedelec.serve.asgi_app`, which builds on the server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pedelec._mcp.server import DEFAULT_NAME

if TYPE_CHECKING:
    import socket

    from pedelec.session import Session

__all__ = ["serve"]


def serve(
    session: Session,
    *,
    transport: Literal["stdio", "http"] = "stdio",
    sock: socket.socket | None = None,
    name: str = DEFAULT_NAME,
    version: str | None = None,
    heartbeat: float | None = None,
    stateless: bool = False,
    allowed_hosts: list[str] | None = None,
    allowed_origins: list[str] | None = None,
    workers: int = 1,
    target: str | None = None,
    log_level: str = "warning",
    traceback: bool = False,
) -> None:
    """Serve ``session`` over MCP until the client disconnects (stdio) or the process stops.

    Over HTTP the endpoint is ``http://HOST:PORT/mcp`` (streamable HTTP, the app of
    :func:`pedelec.serve.asgi_app`) on ``sock``, a socket from :func:`pedelec._mcp.server.listen`. Once listening,
    one line on stderr gives the URL.

    Args:
        session: The session whose tools to serve.
        transport: ``"stdio"`` or ``"http"``.
        sock: The listening socket, for ``"http"``.
        name: The server's name in ``serverInfo``.
        version: The server's version in ``serverInfo`` (default: pedelec's version).
        heartbeat: Seconds between progress heartbeats of a long call, see
            :func:`pedelec._mcp.server.build_server`; ``None``: no heartbeat.
        stateless: HTTP: every request stands alone (no MCP session).
        allowed_hosts: HTTP: the Host headers accepted (default: loopback's when bound to
            loopback, any otherwise, as the SDK does); see :func:`pedelec.serve.asgi_app`.
        allowed_origins: HTTP: the Origin headers accepted (default: those of the hosts).
        workers: HTTP: how many worker processes (more than one: stateless, from ``target``).
        target: The TARGET the session came from, which each worker process loads.
        log_level: The ``pedelec`` logger's level in each worker process.
        traceback: Whether worker processes log tracebacks.

    Example:
        >>> serve(session, transport="http", sock=listen("127.0.0.1", 8000))  # doctest: +SKIP
    """
    import anyio

    if transport == "stdio":
        from pedelec._mcp.server import _run_stdio, build_server

        server = build_server(session, name=name, version=version, heartbeat=heartbeat)
        anyio.run(_run_stdio, server)
        return

    from pedelec.cli._http import HttpOptions, run_http

    assert sock is not None, "serve over http needs a socket from listen()"
    options = HttpOptions(
        name=name,
        version=version,
        heartbeat=heartbeat,
        stateless=stateless,
        allowed_hosts=allowed_hosts,
        allowed_origins=allowed_origins,
    )
    run_http(
        session,
        sock,
        options,
        workers=workers,
        target=target,
        log_level=log_level,
        traceback=traceback,
    )
