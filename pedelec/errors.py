"""Errors raised and returned by pedelec.

Every failure pedelec reports carries one of the error codes below, the same codes as the
TypeScript SDK ``@kaoruisaac/pedelec``::

    Exception
     └── PedelecError(code, message, details)
           code ∈ INVALID_INPUT              a schema or tool definition breaks a rule (developer)
                  TOOL_NOT_FOUND             the agent called a tool the session does not have
                  TOOL_ARGS_INVALID          the agent's args do not match the tool's schema
                  TOOL_HANDLER_NOT_FOUND     the tool exists but no handler is registered
                  TOOL_HANDLER_ERROR         the handler raised an exception
                  TOOL_TIMEOUT               the handler did not finish in time
                  TOOL_WORKERS_EXHAUSTED     no worker thread was free to run a sync handler
                                             (handlers that overran their timeout hold them)
                  SUBMIT_TOOL_RESULT_FAILED  the handler returned something that is not JSON,
                                             or that breaks the tool's output schema
                  TOOL_RESULT_TOO_LARGE      the result's JSON text is over Limits.max_result_bytes
                  SESSION_ENDED              the session was ended before the call
                  TOOL_APPROVAL_REQUIRED     the call waits for a person's approval (not run yet)
                  TOOL_APPROVAL_DENIED       the call was not approved, so it was not run
                  TOOL_APPROVAL_INVALID      an approval token is unknown, used or expired

``INVALID_INPUT`` is raised to the developer (at registration, at export). The other codes are
what an agent sees: ``session.dispatch`` never raises them, it returns them inside a
``ToolResult``.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = [
    "ERROR_CODES",
    "INVALID_INPUT",
    "SESSION_ENDED",
    "SUBMIT_TOOL_RESULT_FAILED",
    "TOOL_APPROVAL_DENIED",
    "TOOL_APPROVAL_INVALID",
    "TOOL_APPROVAL_REQUIRED",
    "TOOL_ARGS_INVALID",
    "TOOL_HANDLER_ERROR",
    "TOOL_HANDLER_NOT_FOUND",
    "TOOL_NOT_FOUND",
    "TOOL_RESULT_TOO_LARGE",
    "TOOL_TIMEOUT",
    "TOOL_WORKERS_EXHAUSTED",
    "PedelecError",
]

INVALID_INPUT: Final = "INVALID_INPUT"
TOOL_NOT_FOUND: Final = "TOOL_NOT_FOUND"
TOOL_ARGS_INVALID: Final = "TOOL_ARGS_INVALID"
TOOL_HANDLER_NOT_FOUND: Final = "TOOL_HANDLER_NOT_FOUND"
TOOL_HANDLER_ERROR: Final = "TOOL_HANDLER_ERROR"
TOOL_TIMEOUT: Final = "TOOL_TIMEOUT"
SUBMIT_TOOL_RESULT_FAILED: Final = "SUBMIT_TOOL_RESULT_FAILED"
SESSION_ENDED: Final = "SESSION_ENDED"
#: pedelec's own code (not the TypeScript SDK's): a Python thread cannot be stopped, so a
#: threaded handler that overruns its timeout keeps its thread; past the session's bound on such
#: threads a call is refused with this code rather than a ``TOOL_TIMEOUT`` it never ran into.
TOOL_WORKERS_EXHAUSTED: Final = "TOOL_WORKERS_EXHAUSTED"
#: pedelec's own code: upstream has none for a tool result (its Core's ``MESSAGE_TOO_LARGE``
#: refuses a whole IPC message and closes the connection); here the call gets an error result
#: the agent can read, with ``details`` ``{"tool", "bytes", "limit"}``.
TOOL_RESULT_TOO_LARGE: Final = "TOOL_RESULT_TOO_LARGE"
#: A tool declared ``requires_approval`` was called in a session without an approver: it has not
#: run, and ``details["token"]`` lets ``session.resume(token, approve=...)`` decide it once.
TOOL_APPROVAL_REQUIRED: Final = "TOOL_APPROVAL_REQUIRED"
#: The approver (or a person, through ``resume``) refused the call, or no decision could be had;
#: the handler did not run, and the agent should not send the same call again.
TOOL_APPROVAL_DENIED: Final = "TOOL_APPROVAL_DENIED"
#: ``session.resume`` got a token that is unknown, already used or expired.
TOOL_APPROVAL_INVALID: Final = "TOOL_APPROVAL_INVALID"

#: Every error code pedelec itself produces, in the order of DESIGN §7.
ERROR_CODES: Final = (
    INVALID_INPUT,
    TOOL_NOT_FOUND,
    TOOL_ARGS_INVALID,
    TOOL_HANDLER_NOT_FOUND,
    TOOL_HANDLER_ERROR,
    TOOL_TIMEOUT,
    SUBMIT_TOOL_RESULT_FAILED,
    SESSION_ENDED,
    TOOL_WORKERS_EXHAUSTED,
    TOOL_RESULT_TOO_LARGE,
    TOOL_APPROVAL_REQUIRED,
    TOOL_APPROVAL_DENIED,
    TOOL_APPROVAL_INVALID,
)


class PedelecError(Exception):
    """An error with a machine-readable code, a message and optional JSON details.

    Handlers may raise it to report a domain error: the code, message and details reach the
    agent unchanged.

    Args:
        code: An error code, one of ``ERROR_CODES`` or an application's own (``"INVALID_DELTA"``).
        message: One sentence saying what is wrong and how to fix it.
        details: Optional JSON data (a dict, list or scalar) that explains the error.

    Example:
        >>> err = PedelecError("INVALID_DELTA", "delta must be between -100 and 100.")
        >>> err.to_dict()
        {'code': 'INVALID_DELTA', 'message': 'delta must be between -100 and 100.'}
    """

    code: str
    message: str
    details: Any

    def __init__(self, code: str, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"code", "message", "details"?}``; ``details`` is left out when ``None``."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details is not None:
            out["details"] = self.details
        return out

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def __repr__(self) -> str:
        if self.details is None:
            return f"PedelecError({self.code!r}, {self.message!r})"
        return f"PedelecError({self.code!r}, {self.message!r}, {self.details!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.code, self.message, self.details))
