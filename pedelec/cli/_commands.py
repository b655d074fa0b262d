"""The commands behind ``pedelec``: each takes the parsed arguments and stdout, returns an exit code."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final, TextIO

from pedelec.cli._lint import describe_load_error, lint_session
from pedelec.cli._target import TargetError, load_target
from pedelec.errors import TOOL_ARGS_INVALID, PedelecError

if TYPE_CHECKING:
    from pedelec.session import Session

__all__ = [
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_USAGE",
    "FORMATS",
    "MCP_INSTALL",
    "Fail",
    "check",
    "manifest",
    "serve",
    "tool_call",
    "tool_spec",
    "tools",
]

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_USAGE: Final = 2

MCP_INSTALL: Final = (
    "pip install 'mcp>=2.0,<3' (or, in a pedelec checkout, pip install -e '.[mcp]')"
)

FORMATS: Final = ("pedelec", "openai", "openai-responses", "anthropic", "mcp")


class Fail(Exception):
    """Stop the command: print ``message`` on stderr and exit with ``code``."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def _dumps(value: Any) -> str:
    import json

    return json.dumps(value, indent=2, ensure_ascii=False)


def _load(target: str) -> Session:
    # stdout carries the command's JSON (or, under serve, the MCP protocol): whatever the
    # target prints while loading goes to stderr instead.
    try:
        with contextlib.redirect_stdout(sys.stderr):
            return load_target(target)
    except TargetError as exc:
        raise Fail(str(exc), EXIT_USAGE if exc.usage else EXIT_FAILED) from exc


# --- tools, tool-spec, tool-call, manifest ------------------------------------------------------


def tools(ns: argparse.Namespace, out: TextIO) -> int:
    """``pedelec tools``: one line per tool, its name and the first line of its description."""
    session = _load(ns.target)
    specs = session.manifest()["tools"]
    width = max((len(spec["name"]) for spec in specs), default=0)
    for spec in specs:
        lines = spec["description"].strip().splitlines()
        first = lines[0].strip() if lines else ""
        print(f"{spec['name']:<{width}}  {first}".rstrip(), file=out)
    return EXIT_OK


def _usage(out: TextIO, usage: str) -> int:
    from pedelec.cli._envelope import failure

    print(failure(PedelecError(TOOL_ARGS_INVALID, usage)), file=out)
    return EXIT_OK


def tool_spec(ns: argparse.Namespace, out: TextIO) -> int:
    """``pedelec tool-spec``: upstream's ``pedelec-cli tool-spec`` envelope for one tool."""
    from pedelec.cli._tool_cli import load_envelope, spec_envelope

    if ns.name is None or ns.extra:
        return _usage(out, "usage: pedelec tool-spec TARGET <tool_name>")
    session = load_envelope(ns.target)
    print(session if isinstance(session, str) else spec_envelope(session, ns.name), file=out)
    return EXIT_OK


def tool_call(ns: argparse.Namespace, out: TextIO) -> int:
    """``pedelec tool-call``: call a tool the way an agent would; upstream's envelope."""
    from pedelec.cli._tool_cli import call_envelope, load_envelope

    if ns.args is None or ns.extra:
        return _usage(out, "usage: pedelec tool-call TARGET <tool_name> '<json_args>'")
    session = load_envelope(ns.target)
    if isinstance(session, str):
        print(session, file=out)
        return EXIT_OK
    raw = None if ns.args == "-" else ns.args
    print(call_envelope(session, ns.name, raw, traceback=ns.traceback), file=out)
    return EXIT_OK


def _export(session: Session, fmt: str) -> Any:
    if fmt == "openai":
        from pedelec.adapters.openai import chat_tools

        return chat_tools(session)
    if fmt == "openai-responses":
        from pedelec.adapters.openai import responses_tools

        return responses_tools(session)
    if fmt == "anthropic":
        from pedelec.adapters.anthropic import tools as anthropic_tools

        return anthropic_tools(session)
    if fmt == "mcp":
        from pedelec.adapters.mcp import tools as mcp_tools

        return mcp_tools(session)
    return session.manifest()


def manifest(ns: argparse.Namespace, out: TextIO) -> int:
    """``pedelec manifest``: the tools as the pedelec manifest or one provider's tool list."""
    session = _load(ns.target)
    try:
        exported = _export(session, ns.format)
    except PedelecError as exc:
        raise Fail(str(exc), EXIT_FAILED) from exc
    print(_dumps(exported), file=out)
    return EXIT_OK


# --- check --------------------------------------------------------------------------------------


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def check(ns: argparse.Namespace, out: TextIO) -> int:
    """``pedelec check``: load the session, print its findings and a one-line summary."""
    try:
        with contextlib.redirect_stdout(sys.stderr):
            session = load_target(ns.target)
    except TargetError as exc:
        if exc.usage or exc.error is None:
            raise Fail(str(exc), EXIT_USAGE if exc.usage else EXIT_FAILED) from exc
        print(f"error: {describe_load_error(exc.error)}", file=out)
        print("1 error", file=out)
        return EXIT_FAILED
    findings = lint_session(session, getattr(ns, "provider", None))
    for finding in findings:
        print(finding, file=out)
    errors = sum(f.severity == "error" for f in findings)
    warnings = len(findings) - errors
    print(
        f"{_plural(len(session.tool_names()), 'tool')} checked: {_plural(errors, 'error')}, "
        f"{_plural(warnings, 'warning')}",
        file=out,
    )
    if errors or (warnings and ns.strict):
        return EXIT_FAILED
    return EXIT_OK


# --- serve --------------------------------------------------------------------------------------


def _port(text: str) -> int:
    try:
        port = int(text, 10)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise Fail(f"--port must be a number from 0 to 65535, got {text!r}", EXIT_USAGE)
    return port


def _heartbeat(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < 86_400:
        raise Fail(
            f"--heartbeat must be a number of seconds above 0 and below 86400, got {text!r}",
            EXIT_USAGE,
        )
    return seconds


def _workers(text: str) -> int:
    from pedelec.cli._http import MAX_WORKERS

    try:
        workers = int(text, 10)
    except ValueError:
        workers = 0
    if not 1 <= workers <= MAX_WORKERS:
        raise Fail(f"--workers must be a number from 1 to {MAX_WORKERS}, got {text!r}", EXIT_USAGE)
    return workers


@contextlib.contextmanager
def _worker_failure() -> Iterator[None]:
    from pedelec.cli._http import WorkersFailed

    try:
        yield
    except WorkersFailed as exc:
        raise Fail(str(exc), EXIT_FAILED) from None


def serve(ns: argparse.Namespace, out: TextIO) -> int:
    """``pedelec serve``: serve the session's tools over MCP until stopped."""
    from pedelec._mcp import server as _serve
    from pedelec.cli import _launch

    port = _port(ns.port)
    heartbeat = _heartbeat(ns.heartbeat)
    workers = _workers(ns.workers)
    if ns.transport != "http":
        given = [
            flag
            for flag, value in (
                ("--stateless", ns.stateless),
                ("--workers", workers > 1),
                ("--allow-host", ns.allow_hosts),
                ("--allow-origin", ns.allow_origins),
            )
            if value
        ]
        if given:
            verb = "needs" if len(given) == 1 else "need"
            raise Fail(f"{', '.join(given)} {verb} --transport http", EXIT_USAGE)
    if not _serve.mcp_available():
        raise Fail(f"pedelec serve needs the MCP SDK; install it with: {MCP_INSTALL}", EXIT_USAGE)
    if ns.allow_hosts is not None or ns.allow_origins is not None:
        from pedelec.serve import _security

        try:
            _security(ns.allow_hosts, ns.allow_origins)
        except ValueError as exc:
            message = str(exc).replace("allowed_hosts=['*']", "--allow-host '*'")
            raise Fail(message, EXIT_USAGE) from None
    session = _load(ns.target)
    session.lenient_json_args = True
    sock = None
    if ns.transport == "http":
        try:
            sock = _serve.listen(ns.host, port)
        except OSError as exc:  # gaierror included: a host that does not resolve
            reason = exc.strerror or str(exc)
            raise Fail(f"cannot listen on {ns.host}:{port}: {reason}", EXIT_USAGE) from exc
        from pedelec.cli._http import uses_loopback

        if ns.allow_origins and not ns.allow_hosts and not uses_loopback(sock.getsockname()[0]):
            # Beyond loopback no Host is checked by default, and the SDK checks Origin only
            # together with Host.
            sock.close()
            raise Fail("--allow-origin needs --allow-host when --host is not loopback", EXIT_USAGE)
    # Ctrl-C is how a server is stopped, not a failure.
    with contextlib.suppress(KeyboardInterrupt), _worker_failure():
        _launch.serve(
            session,
            transport=ns.transport,
            sock=sock,
            name=ns.name,
            version=ns.server_version,
            heartbeat=heartbeat,
            stateless=ns.stateless,
            allowed_hosts=ns.allow_hosts,
            allowed_origins=ns.allow_origins,
            workers=workers,
            target=ns.target,
            log_level=ns.log_level,
            traceback=ns.traceback,
        )
    return EXIT_OK


# --- convert ------------------------------------------------------------------------------------


def convert(ns: argparse.Namespace, out: TextIO) -> int:
    """``pedelec convert``: a foreign JSON Schema as the closest Tool Args Schema, with changes."""
    from pedelec.schema import convert_text

    path: str = ns.file
    try:
        if path == "-":
            text: str | bytes = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as handle:
                text = handle.read()
    except OSError as exc:
        raise Fail(f"cannot read {path}: {exc.strerror or exc}", EXIT_USAGE) from None
    try:
        schema, changes = convert_text(text)
    except PedelecError as exc:
        raise Fail(exc.message, EXIT_FAILED) from None
    print(_dumps({"schema": schema, "changes": [c.to_dict() for c in changes]}), file=out)
    return EXIT_OK
