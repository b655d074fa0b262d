"""``tool-spec`` and ``tool-call`` as upstream's ``pedelec-cli`` runs them, and that console script.

Both ``pedelec tool-call TARGET ...`` and ``pedelec-cli tool-call ...`` (session from
``PEDELEC_TARGET``) end in :func:`spec_envelope` / :func:`call_envelope`, so the two print the
same line for the same call. Every outcome is one JSON line on stdout and exit status 0, as
upstream's ``run`` prints its ``ToolCliResponse`` and returns (``desktop/crates/pedelec-cli``).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any, Final

from pedelec.cli._envelope import (
    PEDELEC_TARGET_INVALID,
    PEDELEC_TARGET_NOT_FOUND,
    failure,
    result_envelope,
    success,
)
from pedelec.cli._target import TargetError, load_target
from pedelec.errors import TOOL_ARGS_INVALID, PedelecError

if TYPE_CHECKING:
    from pedelec.session import Session, ToolResult

__all__ = [
    "TARGET_ENV",
    "call_envelope",
    "load_envelope",
    "read_stdin",
    "run_contained",
    "spec_envelope",
    "tool_cli_main",
]

TARGET_ENV: Final = "PEDELEC_TARGET"

# upstream's parse_tool_cli_args, parse_tool_call_args and parse_tool_spec_args, word for word
_USAGE: Final = (
    "usage: pedelec-cli tool-spec <tool_name> OR pedelec-cli tool-call <tool_name> '<json_args>'"
)
_USAGE_CALL: Final = "usage: pedelec-cli tool-call <tool_name> '<json_args>'"
_USAGE_SPEC: Final = "usage: pedelec-cli tool-spec <tool_name>"


def load_envelope(target: str) -> Session | str:
    """The session ``target`` names, or the ``ok: false`` line saying why there is none."""
    try:
        # stdout carries the envelope: whatever the target prints while loading goes to stderr.
        with contextlib.redirect_stdout(sys.stderr):
            return load_target(target)
    except TargetError as exc:
        details: dict[str, Any] = {"target": target}
        if exc.error is not None:
            details["error"] = exc.error.to_dict()
        return failure(PedelecError(PEDELEC_TARGET_INVALID, str(exc), details))


def spec_envelope(session: Session, name: str) -> str:
    """``{"ok":true,"result":{argsSchema, description, name, timeoutMs}}``, the default
    ``timeoutMs`` filled in as upstream's ``ToolDefinition`` always carries one."""
    from pedelec.limits import DEFAULT_TIMEOUT_MS

    try:
        spec = session.tool_spec(name)
    except PedelecError as exc:  # TOOL_NOT_FOUND, with the session's "did you mean" hint
        return failure(exc)
    spec.setdefault("timeoutMs", DEFAULT_TIMEOUT_MS)
    return success(spec)


def read_stdin(limit: int) -> bytes | str:
    """At most ``limit + 1`` bytes of stdin, so an oversized input is refused unread."""
    stream: IO[bytes] | None = getattr(sys.stdin, "buffer", None)
    if stream is None:  # a text stream put in place of stdin (tests, embedding)
        return sys.stdin.read(limit + 1)
    return stream.read(limit + 1)


def _raw_arg(text: str) -> bytes | str:
    # A command-line argument that was not UTF-8 reaches Python with surrogate escapes; giving
    # the parser the original bytes makes it say so instead of echoing the bad characters.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape")
    return text


def run_contained(
    session: Session, name: str, args: Any, *, traceback: bool, owned: bool = False
) -> ToolResult:
    """``session.dispatch_sync`` that never raises: whatever escapes it is the handler's
    failure, ``TOOL_HANDLER_ERROR`` (``KeyboardInterrupt`` and ``SystemExit`` still stop us).

    ``owned``: ``args`` was parsed for this call, so the session need not copy it.
    """
    from pedelec._result import handler_failed

    try:
        # A handler's prints must not break the envelope on stdout.
        with contextlib.redirect_stdout(sys.stderr):
            return session.dispatch_sync(name, args, _owned=owned)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:
        if traceback:
            import traceback as tb

            tb.print_exception(exc, file=sys.stderr)
        return handler_failed(name, "", exc)


def call_envelope(
    session: Session, name: str, raw: str | bytes | None, *, traceback: bool = False
) -> str:
    """One ``tool-call``: parse ``raw`` (``None`` reads stdin) under the session's limits, the
    way upstream parses before the Core looks the tool up, then run it and wrap the result."""
    from pedelec._json import parse_json_args

    limits = session.limits
    if raw is None:
        raw = read_stdin(limits.max_args_bytes)
    elif isinstance(raw, str):
        raw = _raw_arg(raw)
    try:
        args = parse_json_args(raw, max_bytes=limits.max_args_bytes, max_depth=limits.max_depth)
    except PedelecError as exc:
        return failure(exc)
    from pedelec._result import args_unsendable

    refused = args_unsendable(name, "cli", args)  # a lone surrogate from a \ud800 escape
    if refused is not None:
        return result_envelope(refused)
    return result_envelope(run_contained(session, name, args, traceback=traceback, owned=True))


def _target_from(environ: Mapping[str, str], command: str) -> str | PedelecError:
    # upstream's thread_id_from_env: trimmed, and blank counts as missing
    target = environ.get(TARGET_ENV, "").strip()
    if not target:
        return PedelecError(
            PEDELEC_TARGET_NOT_FOUND, f"{TARGET_ENV} is required for pedelec-cli {command}."
        )
    return target


def _respond(argv: Sequence[str], environ: Mapping[str, str]) -> str:
    command = argv[1] if len(argv) > 1 else None
    if command == "tool-call":
        if len(argv) != 4:
            return failure(PedelecError(TOOL_ARGS_INVALID, _USAGE_CALL))
    elif command == "tool-spec":
        if len(argv) != 3:
            return failure(PedelecError(TOOL_ARGS_INVALID, _USAGE_SPEC))
    else:
        return failure(PedelecError(TOOL_ARGS_INVALID, _USAGE))
    target = _target_from(environ, command)
    if isinstance(target, PedelecError):
        return failure(target)
    session = load_envelope(target)
    if isinstance(session, str):
        return session
    if command == "tool-spec":
        return spec_envelope(session, argv[2])
    return call_envelope(session, argv[2], argv[3])


def tool_cli_main(
    argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None
) -> int:
    """Run ``pedelec-cli``: ``tool-spec NAME`` or ``tool-call NAME 'JSON'``, session from
    ``PEDELEC_TARGET`` (``path/to/file.py:attr`` or ``module:attr``).

    Prints one JSON line on stdout for every outcome and returns 0, as upstream's does.

    Args:
        argv: The whole command line, program name first; ``None`` reads ``sys.argv``.
        environ: The environment; ``None`` reads ``os.environ``.

    Example:
        >>> tool_cli_main(["pedelec-cli", "tool-spec", "update_counter"],
        ...               {"PEDELEC_TARGET": "examples/counter.py:session"})
        {"ok":true,"result":{"argsSchema":...,"timeoutMs":60000}}
        0
    """
    from pedelec._logs import quiet_logging, summary

    with quiet_logging("warning", traceback=False):
        try:
            line = _respond(
                list(sys.argv if argv is None else argv), os.environ if environ is None else environ
            )
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # a bug of ours: still one line, never a traceback
            print(f"pedelec-cli: error: {summary(exc)}", file=sys.stderr)
            return 0
    try:
        print(line, flush=True)
    except BrokenPipeError:
        from pedelec.cli._envelope import stdout_gone

        stdout_gone()
    return 0
