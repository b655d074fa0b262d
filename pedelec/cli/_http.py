"""``pedelec serve --transport http``: one process, or N uvicorn worker processes on one socket.

Both run the app of :func:`pedelec.serve.asgi_app`. With ``--workers N`` (N > 1) the parent
keeps the listening socket and uvicorn's supervisor starts N processes that accept on it, each
building the app with the factory ``pedelec.cli._http:_worker_app``: a session cannot cross a
process boundary, so the parent hands over the TARGET and the options in an environment
variable and every worker loads the target itself. Several processes share no MCP session, so
workers are always stateless. SIGINT or SIGTERM to the parent stops every worker; a worker whose
parent is gone stops by itself.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any, Final

from typing_extensions import TypedDict

if TYPE_CHECKING:
    import socket

    from pedelec.serve import McpApp
    from pedelec.session import Session

__all__ = [
    "MAX_WORKERS",
    "HttpOptions",
    "WorkersFailed",
    "absolute_target",
    "run_http",
    "uses_loopback",
]

#: The most worker processes ``--workers`` starts.
MAX_WORKERS: Final = 64

#: The environment variable that hands ``pedelec serve --workers N`` its target and options
#: over to each worker process (:func:`_worker_app`).
_WORKER_ENV: Final = "PEDELEC_SERVE_WORKER"

# Seconds a stopping server waits for open requests (an SSE stream stays open as long as its
# client does) before it closes them, so a stop never hangs on a client.
_GRACE: Final = 5


class WorkersFailed(Exception):
    """A worker process failed to start, so the supervisor stopped them all."""


class HttpOptions(TypedDict):
    """What ``asgi_app`` is given, as JSON can carry it to a worker process."""

    name: str
    version: str | None
    heartbeat: float | None
    stateless: bool
    allowed_hosts: list[str] | None
    allowed_origins: list[str] | None


def uses_loopback(host: str) -> bool:
    """Whether ``host`` (an address the socket is bound to) is this machine only."""
    import ipaddress

    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def absolute_target(target: str) -> str:
    """``target`` with a file path made absolute, so another process finds the same file."""
    from pedelec.cli._target import _is_file_target

    ref, sep, attr = target.rpartition(":")
    if sep and ref and _is_file_target(ref):
        return f"{os.path.abspath(ref)}:{attr}"
    return target


def _announce(session: Session, host: str, port: int, workers: int, stateless: bool) -> None:
    shown = f"[{host}]" if ":" in host else host
    count = len(session.tool_names())
    print(
        f"pedelec: serving {count} tool{'' if count == 1 else 's'} over MCP at "
        f"http://{shown}:{port}/mcp",
        file=sys.stderr,
        flush=True,
    )
    if workers > 1 or stateless:
        how = f"{workers} worker processes" if workers > 1 else "one process"
        print(f"pedelec: {how}, stateless HTTP", file=sys.stderr, flush=True)


def run_http(
    session: Session,
    sock: socket.socket,
    options: HttpOptions,
    *,
    workers: int = 1,
    target: str | None = None,
    log_level: str = "warning",
    traceback: bool = False,
) -> None:
    """Serve ``session`` on ``sock`` until SIGINT or SIGTERM.

    Raises:
        WorkersFailed: When a worker process failed to start (its reason is on stderr).
    """
    import uvicorn

    host, port = sock.getsockname()[:2]
    if options["allowed_hosts"] is None and not uses_loopback(host):
        # As the SDK does for a server bound beyond loopback: no Host check unless asked for.
        options = {**options, "allowed_hosts": ["*"]}
    if workers == 1:
        import anyio

        from pedelec.serve import asgi_app

        app = asgi_app(session, **options)
        _announce(session, host, port, 1, options["stateless"])
        config = uvicorn.Config(
            app, log_level="warning", lifespan="on", timeout_graceful_shutdown=_GRACE
        )
        anyio.run(lambda: uvicorn.Server(config).serve(sockets=[sock]))
        return

    import json

    from uvicorn.config import STARTUP_FAILURE
    from uvicorn.supervisors import Multiprocess

    assert target is not None, "workers load the session from its TARGET"
    handed: dict[str, Any] = {
        "target": absolute_target(target),
        "options": {**options, "stateless": True},
        "log_level": log_level,
        "traceback": traceback,
        "parent": os.getpid(),
    }
    os.environ[_WORKER_ENV] = json.dumps(handed)
    config = uvicorn.Config(
        "pedelec.cli._http:_worker_app",
        factory=True,
        workers=workers,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=_GRACE,
    )
    _announce(session, host, port, workers, True)
    supervisor = Multiprocess(config, sockets=[sock])
    supervisor.run()
    if any(process.exitcode == STARTUP_FAILURE for process in supervisor.processes):
        raise WorkersFailed("a worker process failed to start; its reason is above")


# --- the worker processes of ``pedelec serve --workers N`` ----------------------------------------


def _worker_app() -> McpApp:
    """The app of one ``pedelec serve --workers N`` worker: uvicorn's factory, by import string.

    The parent hands over the TARGET and the options in an environment variable; each worker loads
    the target itself (a session cannot cross a process boundary), and stops when its parent
    is gone, however the parent ended.
    """
    import json
    import os
    import sys

    from uvicorn.config import STARTUP_FAILURE

    from pedelec._logs import quiet_logging
    from pedelec.cli._target import load_target
    from pedelec.serve import asgi_app

    try:
        handed = json.loads(os.environ[_WORKER_ENV])
        # The worker's stderr is the parent's: the same logger settings for the process's life.
        _kept.enter_context(quiet_logging(handed["log_level"], traceback=handed["traceback"]))
        _watch_parent(handed["parent"])
        with contextlib.redirect_stdout(sys.stderr):
            session = load_target(handed["target"])
        session.lenient_json_args = True
        return asgi_app(session, **handed["options"])
    except Exception as exc:
        # Uvicorn's supervisor stops every worker on this exit code instead of restarting one
        # that would fail the same way again.
        print(f"pedelec: error: a worker could not start: {exc}", file=sys.stderr, flush=True)
        sys.exit(STARTUP_FAILURE)


_kept = contextlib.ExitStack()


def _watch_parent(parent: int) -> None:
    """Stop this process (as SIGTERM would) once ``parent`` is no longer its parent."""
    import os
    import signal
    import threading

    def watch() -> None:
        while os.getppid() == parent:
            threading.Event().wait(0.5)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="pedelec-parent-watch", daemon=True).start()
