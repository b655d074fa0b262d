"""Resource bounds applied to what an agent sends and what its calls hold, and every default.

Agent-generated arguments are untrusted input. Every bound below stops a hostile or broken call
early, with a ``TOOL_ARGS_INVALID`` result that says which bound was crossed, instead of letting it
exhaust memory, recursion or CPU.

Each default is one named constant here, so a number means one thing and changes in one place;
the ``Limits`` defaults, the keyword defaults of ``compile_schema`` and typed-tool inference, and
the bounds checked at registration all read them.
"""

from __future__ import annotations

from typing import Any, Final, final

__all__ = [
    "DEFAULT_APPROVAL_TIMEOUT_MS",
    "DEFAULT_LIMITS",
    "DEFAULT_MAX_ABANDONED_THREADS",
    "DEFAULT_MAX_ARGS_BYTES",
    "DEFAULT_MAX_ARGS_VALUES",
    "DEFAULT_MAX_CALL_TIMEOUT_MS",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_ERRORS",
    "DEFAULT_MAX_PATTERN_LENGTH",
    "DEFAULT_MAX_PENDING_APPROVALS",
    "DEFAULT_MAX_RESULT_BYTES",
    "DEFAULT_TIMEOUT_MS",
    "MAX_SCHEMA_DEPTH",
    "MAX_TIMEOUT_MS",
    "MAX_TYPED_VALUE_DEPTH",
    "MIN_RESULT_BYTES",
    "Limits",
]

# --- per-call bounds: the defaults of ``Limits`` ------------------------------------------------

#: Largest args JSON text accepted, in UTF-8 bytes (1 MB).
DEFAULT_MAX_ARGS_BYTES: Final = 1_000_000
#: Most JSON values (containers and scalars) in args given as a Python dict.
DEFAULT_MAX_ARGS_VALUES: Final = 100_000
#: Deepest nesting of arrays and objects in an agent's args.
DEFAULT_MAX_DEPTH: Final = 64
#: Longest string, in code points, a schema ``pattern`` is run on; every accepted pattern runs in
#: time linear in the string (the measured worst cases are in docs/performance.md).
DEFAULT_MAX_PATTERN_LENGTH: Final = 1024
#: Most validation errors reported for one call.
DEFAULT_MAX_ERRORS: Final = 50
#: Largest per-call ``timeoutMs`` an agent may ask for (ten minutes).
DEFAULT_MAX_CALL_TIMEOUT_MS: Final = 600_000
#: Most worker threads still running a sync handler whose call is over (it overran its timeout,
#: or the session ended) that do not count against the session's workers: each is replaced, so
#: the other calls keep their capacity. Past it they count, and once they hold every worker a
#: call gets ``TOOL_WORKERS_EXHAUSTED``.
DEFAULT_MAX_ABANDONED_THREADS: Final = 32
#: Largest result JSON text sent back, in UTF-8 bytes (1 MiB): upstream's Core refuses any
#: local IPC message over ``MAX_CORE_IPC_MESSAGE_BYTES = 1024 * 1024``
#: (``desktop/crates/pedelec-ipc/src/lib.rs``), so a larger result never reached its agent.
DEFAULT_MAX_RESULT_BYTES: Final = 1024 * 1024
#: How long a decision on a call that needs approval may take, in milliseconds (15 minutes): an
#: approver's answer, or the ``session.resume`` of a deferred call, after which its token expires.
DEFAULT_APPROVAL_TIMEOUT_MS: Final = 900_000
#: Most deferred calls a session holds waiting for ``resume`` (each keeps its args).
DEFAULT_MAX_PENDING_APPROVALS: Final = 100
#: Smallest ``max_result_bytes`` allowed: room for the error that says a result was too large.
MIN_RESULT_BYTES: Final = 1024

# --- tools ----------------------------------------------------------------------------------

#: The timeout of a tool that sets none, in milliseconds.
DEFAULT_TIMEOUT_MS: Final = 60_000
#: Largest timeout, in milliseconds, a tool may declare and ``max_call_timeout_ms`` may allow:
#: 2**53 - 1, the largest integer a JavaScript number holds exactly (``Number.MAX_SAFE_INTEGER``),
#: so a manifest the port writes reads back unchanged in the TypeScript SDK (``JSON.parse``) and
#: its Core (a ``u64``). About 285 000 years: a bound against nonsense such as ``10**400``, whose
#: conversion to seconds would overflow a float at every call, not a limit anyone meets.
MAX_TIMEOUT_MS: Final = 2**53 - 1

# --- registration bounds (fixed, not per session) ----------------------------------------------

#: Deepest nesting of schema nodes accepted (the root node is level 1). Real schemas stay far
#: below it; the bound keeps compiling and validating free of deep recursion.
MAX_SCHEMA_DEPTH: Final = 64
#: Deepest nesting of a typed parameter's default or example turned into JSON; deeper (or a
#: value that contains itself) is refused at registration.
MAX_TYPED_VALUE_DEPTH: Final = 64


@final
class Limits:
    """Bounds on one tool call's arguments and on the threads calls may hold, set per session.

    Args:
        max_args_bytes: Largest args JSON text accepted, in UTF-8 bytes (default 1 MB).
        max_args_values: Largest number of JSON values (containers and scalars) in args given as
            a Python dict, the dict-input counterpart of ``max_args_bytes`` (default 100 000).
        max_depth: Deepest nesting of arrays and objects in args (default 64).
        max_pattern_length: Longest string, in code points, that a schema ``pattern`` is run on;
            a longer string fails ``pattern`` without being searched (default 1024; every
            accepted pattern runs in time linear in the string).
        max_errors: Most validation errors reported for one call (default 50).
        max_call_timeout_ms: Largest per-call ``timeoutMs`` an agent may ask for (default
            600 000, ten minutes), so an agent cannot lift a tool's timeout for good; at most
            ``MAX_TIMEOUT_MS``.
        max_abandoned_threads: Most worker threads, still running a sync handler whose call
            is over (a thread cannot be stopped), that the session replaces so other calls
            keep their capacity (default 32). Past it such threads count against the workers;
            once they hold all of them, a call gets ``TOOL_WORKERS_EXHAUSTED``.
        max_result_bytes: Largest result JSON text, in UTF-8 bytes, sent back to the agent
            (default 1 MiB, upstream's message cap; at least 1024). A larger result becomes a
            ``TOOL_RESULT_TOO_LARGE`` error result, reported to ``on_error``.
        approval_timeout_ms: How long a decision on a call that needs approval may take
            (default 900 000, 15 minutes): an async approver that has not answered by then is a
            ``TOOL_APPROVAL_DENIED``, and a deferred call's token expires
            (``TOOL_APPROVAL_INVALID``); at most ``MAX_TIMEOUT_MS``.
        max_pending_approvals: Most deferred calls the session holds for ``resume`` (default
            100); past it a call that needs approval is ``TOOL_APPROVAL_DENIED`` at once.

    Example:
        >>> from pedelec import Limits, Session
        >>> session = Session(limits=Limits(max_depth=16, max_errors=10))
    """

    __slots__ = (
        "approval_timeout_ms",
        "max_abandoned_threads",
        "max_args_bytes",
        "max_args_values",
        "max_call_timeout_ms",
        "max_depth",
        "max_errors",
        "max_pattern_length",
        "max_pending_approvals",
        "max_result_bytes",
    )

    max_args_bytes: int
    max_args_values: int
    max_depth: int
    max_pattern_length: int
    max_errors: int
    max_call_timeout_ms: int
    max_abandoned_threads: int
    max_result_bytes: int
    approval_timeout_ms: int
    max_pending_approvals: int

    def __init__(
        self,
        *,
        max_args_bytes: int = DEFAULT_MAX_ARGS_BYTES,
        max_args_values: int = DEFAULT_MAX_ARGS_VALUES,
        max_depth: int = DEFAULT_MAX_DEPTH,
        max_pattern_length: int = DEFAULT_MAX_PATTERN_LENGTH,
        max_errors: int = DEFAULT_MAX_ERRORS,
        max_call_timeout_ms: int = DEFAULT_MAX_CALL_TIMEOUT_MS,
        max_abandoned_threads: int = DEFAULT_MAX_ABANDONED_THREADS,
        max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES,
        approval_timeout_ms: int = DEFAULT_APPROVAL_TIMEOUT_MS,
        max_pending_approvals: int = DEFAULT_MAX_PENDING_APPROVALS,
    ) -> None:
        values = {
            "max_args_bytes": max_args_bytes,
            "max_args_values": max_args_values,
            "max_depth": max_depth,
            "max_pattern_length": max_pattern_length,
            "max_errors": max_errors,
            "max_call_timeout_ms": max_call_timeout_ms,
            "max_abandoned_threads": max_abandoned_threads,
            "max_result_bytes": max_result_bytes,
            "approval_timeout_ms": approval_timeout_ms,
            "max_pending_approvals": max_pending_approvals,
        }
        for name, value in values.items():
            # Zero abandoned threads is a real choice: every overrunning handler keeps counting.
            least = 0 if name == "max_abandoned_threads" else 1
            if type(value) is not int or value < least:
                # Imported here: errors is tiny, but limits must not depend on import order.
                from pedelec.errors import INVALID_INPUT, PedelecError

                raise PedelecError(
                    INVALID_INPUT,
                    f"Limits({name}=...) must be a "
                    f"{'non-negative' if least == 0 else 'positive'} integer, got {value!r}.",
                    {"limit": name},
                )
            object.__setattr__(self, name, value)
        if max_result_bytes < MIN_RESULT_BYTES:
            from pedelec.errors import INVALID_INPUT, PedelecError

            raise PedelecError(
                INVALID_INPUT,
                f"Limits(max_result_bytes=...) must be at least {MIN_RESULT_BYTES}, room for the "
                f"error that says a result was too large, got {max_result_bytes}.",
                {"limit": "max_result_bytes"},
            )
        for name in ("max_call_timeout_ms", "approval_timeout_ms"):
            if getattr(self, name) > MAX_TIMEOUT_MS:
                from pedelec._json.render import render
                from pedelec.errors import INVALID_INPUT, PedelecError

                raise PedelecError(
                    INVALID_INPUT,
                    f"Limits({name}=...) may be at most {MAX_TIMEOUT_MS} "
                    "(pedelec.limits.MAX_TIMEOUT_MS), the longest timeout a tool may declare, "
                    f"got {render(getattr(self, name))}.",
                    {"limit": name},
                )

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Limits is immutable; build a new one with Limits({name}=...)")

    def as_dict(self) -> dict[str, int]:
        """Return the bounds as a plain dict (for logs and docs)."""
        return {name: getattr(self, name) for name in sorted(self.__slots__)}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Limits):
            return NotImplemented
        return self.as_dict() == other.as_dict()

    def __hash__(self) -> int:
        return hash(tuple(self.as_dict().items()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v}" for k, v in self.as_dict().items())
        return f"Limits({inner})"


#: The bounds a ``Session`` uses when none are given.
DEFAULT_LIMITS: Final = Limits()
