"""A session's tools as a streamable-HTTP MCP endpoint: an ASGI app for your own server.

:func:`asgi_app` returns the same server ``pedelec serve --transport http`` runs (the MCP SDK's
low-level server, see :mod:`pedelec.adapters.mcp`), as an app that uvicorn, hypercorn or any
ASGI server runs directly, or that mounts inside a Starlette or FastAPI app. The SDK's session
manager needs a running task group, so the app has a lifespan: an ASGI server that runs the app
directly starts it by itself; a host app that mounts it passes :meth:`McpApp.lifespan` as its
own lifespan (or enters it in its lifespan).

``mcp`` is imported when :func:`asgi_app` is called, not when this module is.

Example:
    >>> from starlette.applications import Starlette
    >>> from starlette.routing import Mount
    >>> from pedelec.serve import asgi_app
    >>> mcp = asgi_app(session, name="counter")
    >>> app = Starlette(routes=[Mount("/tools", app=mcp)], lifespan=mcp.lifespan)
    >>> # uvicorn module:app  ->  MCP at http://127.0.0.1:8000/tools/mcp
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from mcp.server.transport_security import TransportSecuritySettings

    from pedelec._mcp.wire import ASGIApp, Receive, Scope, Send
    from pedelec.session import Session

__all__ = ["McpApp", "asgi_app"]

#: The Host headers an app accepts unless told otherwise: this machine only (the MCP SDK's own
#: default for a server on loopback), so a page on another site cannot reach it by DNS rebinding.
_LOOPBACK_HOSTS: Final = ("127.0.0.1:*", "localhost:*", "[::1]:*")

_NOT_RUNNING: Final = (
    b"pedelec: this MCP app is not running: its lifespan was not started. A host app that "
    b"mounts it runs it, e.g. Starlette(routes=[Mount('/tools', app=mcp)], lifespan=mcp.lifespan)."
)
_INF: Final = float("inf")


def _security(
    allowed_hosts: Sequence[str] | None, allowed_origins: Sequence[str] | None
) -> TransportSecuritySettings:
    """The SDK's Host/Origin check for these lists (see :func:`asgi_app`)."""
    from mcp.server.transport_security import TransportSecuritySettings

    for label, given in (("allowed_hosts", allowed_hosts), ("allowed_origins", allowed_origins)):
        if given is not None and (
            not isinstance(given, list | tuple) or not all(isinstance(v, str) and v for v in given)
        ):
            raise TypeError(f"{label} must be a list of non-empty strings, got {given!r}")
    hosts = list(_LOOPBACK_HOSTS if allowed_hosts is None else allowed_hosts)
    if allowed_origins is not None and "*" in allowed_origins:
        raise ValueError(
            "allowed_origins cannot hold '*'; allowed_hosts=['*'] turns the Host and Origin "
            "checks off together"
        )
    if "*" in hosts:
        if len(hosts) > 1 or allowed_origins is not None:
            raise ValueError(
                "allowed_hosts=['*'] turns the Host and Origin checks off, so it stands alone "
                f"(got allowed_hosts={hosts!r}, allowed_origins={allowed_origins!r})"
            )
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    origins = (
        [f"{scheme}://{host}" for host in hosts for scheme in ("http", "https")]
        if allowed_origins is None
        else list(allowed_origins)
    )
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


class McpApp:
    """A streamable-HTTP MCP endpoint as an ASGI app; made by :func:`asgi_app`.

    Call it as an ASGI app. It answers MCP at its ``path`` while its lifespan runs (an ASGI
    server running it directly starts the lifespan; a host app that mounts it runs
    :meth:`lifespan`), and ``503`` with a line saying so before.
    """

    def __init__(
        self,
        source: Session | Callable[[], Session],
        *,
        name: str,
        version: str | None,
        heartbeat: float | None,
        stateless: bool,
        security: TransportSecuritySettings,
        path: str,
        max_body: int,
    ) -> None:
        self._source = source
        self._name = name
        self._version = version
        self._heartbeat = heartbeat
        self._stateless = stateless
        self._security = security
        self._path = path
        self._max_body = max_body
        self._app: ASGIApp | None = None
        self._busy = False

    @property
    def stateless(self) -> bool:
        """Whether every request stands alone (no MCP session), so any process can answer it."""
        return self._stateless

    @property
    def path(self) -> str:
        """Where the endpoint is, under the app's mount point."""
        return self._path

    @property
    def running(self) -> bool:
        """Whether the lifespan runs, so requests are answered."""
        return self._app is not None

    @contextlib.asynccontextmanager
    async def lifespan(self, app: object = None) -> AsyncIterator[None]:
        """Run the endpoint while the context is open: a host app's ``lifespan``.

        A factory given to :func:`asgi_app` is called here, and the session it made is ended
        on the way out; a session given itself is left running. One lifespan at a time.

        Args:
            app: The host app (Starlette passes it); unused.

        Raises:
            RuntimeError: When this app's lifespan already runs.
            TypeError: When the factory returns something other than a ``Session``.

        Example:
            >>> @contextlib.asynccontextmanager
            ... async def lifespan(app):
            ...     async with mcp.lifespan(app):
            ...         yield
            >>> api = FastAPI(lifespan=lifespan)
            >>> api.mount("/tools", mcp)
        """
        from mcp.server.streamable_http_manager import (
            StreamableHTTPASGIApp,
            StreamableHTTPSessionManager,
        )
        from starlette.applications import Starlette
        from starlette.routing import Route

        from pedelec._mcp.server import build_server
        from pedelec._mcp.wire import checked_asgi
        from pedelec.session import Session

        if self._busy:
            raise RuntimeError("this MCP app's lifespan already runs; it runs once at a time")
        self._busy = True
        made: Session | None = None
        try:
            if isinstance(self._source, Session):
                session = self._source
            else:
                session = self._source()
                if not isinstance(session, Session):
                    raise TypeError(
                        f"the session factory returned a {type(session).__name__}, not a Session"
                    )
                made = session
            server = build_server(
                session, name=self._name, version=self._version, heartbeat=self._heartbeat
            )
            # A fresh manager each time: the SDK's runs once, and a lifespan may run again
            # (a test client, a server that restarts the app).
            manager = StreamableHTTPSessionManager(
                app=server,
                stateless=self._stateless,
                security_settings=self._security,
                max_request_body_size=self._max_body,
            )
            routes = [Route(self._path, endpoint=StreamableHTTPASGIApp(manager))]
            inner = checked_asgi(Starlette(routes=routes), self._max_body)
            async with manager.run():
                self._app = inner
                try:
                    yield
                finally:
                    self._app = None
        finally:
            self._busy = False
            if made is not None:
                made.end()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._serve_lifespan(receive, send)
            return
        app = self._app
        if app is not None:
            await app(scope, receive, send)
        elif scope["type"] == "http":
            headers = [(b"content-type", b"text/plain; charset=utf-8")]
            await send({"type": "http.response.start", "status": 503, "headers": headers})
            await send({"type": "http.response.body", "body": _NOT_RUNNING})
        else:
            await send({"type": "websocket.close", "code": 1013})

    async def _serve_lifespan(self, receive: Receive, send: Send) -> None:
        """The ASGI lifespan protocol, for a server that runs this app directly."""
        from pedelec._logs import summary

        await receive()  # lifespan.startup
        running = self.lifespan()
        try:
            await running.__aenter__()
        except Exception as exc:
            await send({"type": "lifespan.startup.failed", "message": summary(exc)})
            return
        await send({"type": "lifespan.startup.complete"})
        try:
            await receive()  # lifespan.shutdown
        except BaseException as exc:  # the server gave up waiting: still close in this task
            with contextlib.suppress(Exception):
                await running.__aexit__(type(exc), exc, exc.__traceback__)
            raise
        try:
            await running.__aexit__(None, None, None)
        except Exception as exc:
            await send({"type": "lifespan.shutdown.failed", "message": summary(exc)})
            return
        await send({"type": "lifespan.shutdown.complete"})


def asgi_app(
    session: Session | Callable[[], Session],
    *,
    name: str = "pedelec",
    version: str | None = None,
    heartbeat: float | None = None,
    stateless: bool = False,
    allowed_hosts: Sequence[str] | None = None,
    allowed_origins: Sequence[str] | None = None,
    path: str = "/mcp",
    max_body: int | None = None,
) -> McpApp:
    """Serve ``session`` over MCP's streamable HTTP as an ASGI app.

    Args:
        session: The session whose tools to serve, or a function that takes no arguments and
            returns one: called when the app's lifespan starts, in the process that serves (so
            each worker process builds its own), and the session ended when it stops.
        name: The server's name in ``serverInfo``.
        version: The server's version in ``serverInfo`` (default: pedelec's version).
        heartbeat: Seconds between progress heartbeats of a long call (see ``pedelec serve
            --heartbeat``); ``None``: no heartbeat.
        stateless: Every request stands alone: no ``Mcp-Session-Id``, nothing kept between
            requests, so any process behind a load balancer can answer any request. A level
            set with ``logging/setLevel`` then holds for nothing after it, and server-to-client
            requests cannot be sent.
        allowed_hosts: The ``Host`` headers to accept, as the SDK matches them (``"host"``,
            ``"host:port"``, ``"host:*"`` for any port); others get ``421``. Default: this
            machine only (``127.0.0.1:*``, ``localhost:*``, ``[::1]:*``). ``["*"]`` turns the
            Host and Origin checks off, for a proxy in front that checks them.
        allowed_origins: The ``Origin`` headers to accept (a request without one passes);
            others get ``403``. Default: ``http://`` and ``https://`` of each allowed host.
        path: Where the endpoint is, under the app's mount point.
        max_body: The largest request body in bytes (default: the SDK's, 4 MiB); larger ones
            get ``413``.

    Returns:
        The app; run it with any ASGI server, or mount it and run :meth:`McpApp.lifespan`.

    Raises:
        ImportError: When the MCP SDK is not installed.
        TypeError: When ``session`` is neither a ``Session`` nor callable, or a host list is
            not a list of strings.
        ValueError: When ``heartbeat`` is not a positive number, ``path`` does not start with
            ``/``, ``max_body`` is not a positive integer, or ``"*"`` is mixed with other hosts
            or origins.

    Example:
        >>> app = asgi_app(session, stateless=True, allowed_hosts=["tools.example.com"])
        >>> # uvicorn.run(app, host="0.0.0.0", port=8000)
    """
    from pedelec._mcp.server import mcp_available
    from pedelec.session import Session

    if not mcp_available():
        raise ImportError(
            "pedelec.serve needs the MCP SDK: pip install 'pedelec[mcp]' (or 'mcp>=2.0,<3')"
        )
    from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE

    if not isinstance(session, Session) and not callable(session):
        raise TypeError(
            f"asgi_app takes a Session or a function returning one, got {type(session).__name__}"
        )
    if heartbeat is not None and not (
        isinstance(heartbeat, int | float)
        and not isinstance(heartbeat, bool)
        and 0 < heartbeat < _INF
    ):
        raise ValueError(f"heartbeat must be a positive number of seconds, got {heartbeat!r}")
    if not isinstance(path, str) or not path.startswith("/"):
        raise ValueError(f"path must start with '/', got {path!r}")
    if max_body is None:
        max_body = DEFAULT_MAX_REQUEST_BODY_SIZE
    elif isinstance(max_body, bool) or not isinstance(max_body, int) or max_body <= 0:
        raise ValueError(f"max_body must be a positive number of bytes, got {max_body!r}")
    return McpApp(
        session,
        name=name,
        version=version,
        heartbeat=heartbeat,
        stateless=bool(stateless),
        security=_security(allowed_hosts, allowed_origins),
        path=path,
        max_body=max_body,
    )
