"""What a tool call returns (``ToolResult``), and the error results pedelec itself produces.

Every agent-facing failure is built here, so the wording of all error messages lives in one
place. Messages say what went wrong and where, in one sentence an agent can act on; ``details``
carries the same facts as data (always with the tool name).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, final

from pedelec.errors import (
    SESSION_ENDED,
    SUBMIT_TOOL_RESULT_FAILED,
    TOOL_ARGS_INVALID,
    TOOL_HANDLER_ERROR,
    TOOL_HANDLER_NOT_FOUND,
    TOOL_NOT_FOUND,
    TOOL_TIMEOUT,
    PedelecError,
)

if TYPE_CHECKING:
    from pedelec._json import NotJsonError
    from pedelec.schema import ArgError

__all__ = ["ToolResult", "request_id"]

# Request ids: a per-process random prefix plus a counter. ``next()`` on ``itertools.count`` is
# atomic under the GIL, and ids stay unique across every session of the process. The dispatcher
# draws the number per call and renders the text only when someone reads it.
next_request_number: Final = itertools.count(1).__next__
_PREFIX: Final = "call_" + os.urandom(4).hex() + "_"


def request_id(rid: str | int) -> str:
    """The text of a tool request id (a number from ``next_request_number`` or a given id)."""
    return rid if type(rid) is str else _PREFIX + str(rid)


@final
class ToolResult:
    """The outcome of one tool call: the value to send back to the agent, or an error.

    Attributes:
        tool: The tool name the agent called (as given, even when no such tool exists).
        tool_request_id: The id of this call (also ``ctx.tool_request_id``).
        value: The handler's result as plain JSON (a private copy), or ``None`` when pedelec
            produced an error before or instead of a result. For a handler that returned an
            error envelope, the envelope.
        error: The error as a ``PedelecError``, or ``None`` on success. A handler-returned
            envelope ``{"error": {"code", "message", "details"?}}`` is turned into one too.

    Example:
        >>> from pedelec import Session
        >>> session = Session()
        >>> result = session.dispatch_sync("nope", {})
        >>> result.is_error, result.error.code
        (True, 'TOOL_NOT_FOUND')
        >>> result.to_json()
        {'error': {'code': 'TOOL_NOT_FOUND', 'message': 'Unknown tool "nope"; this session has no tools.', 'details': {'tool': 'nope'}}}
    """

    __slots__ = ("_rid", "error", "tool", "value")

    tool: str
    value: Any
    error: PedelecError | None

    def __init__(
        self,
        tool: str,
        tool_request_id: str | int,
        value: Any = None,
        error: PedelecError | None = None,
    ) -> None:
        self.tool = tool
        self._rid = tool_request_id
        self.value = value
        self.error = error

    @property
    def tool_request_id(self) -> str:
        """The id of this call (also ``ctx.tool_request_id``)."""
        return request_id(self._rid)

    @property
    def is_error(self) -> bool:
        """True for every error, including an error envelope the handler returned itself."""
        return self.error is not None

    def to_json(self) -> Any:
        """What goes back to the agent: the result, or ``{"error": {"code", "message", "details"?}}``.

        The returned object is the result's own (not a copy); copy it before changing it.
        """
        if self.error is None or self.value is not None:
            return self.value
        return {"error": self.error.to_dict()}

    def to_text(self) -> str:
        """``to_json()`` as compact JSON text (key order kept, non-ASCII kept)."""
        from pedelec._json import dumps_compact

        return dumps_compact(self.to_json())

    def __repr__(self) -> str:
        if self.error is None:
            return f"ToolResult(tool={self.tool!r}, value={self.value!r})"
        return f"ToolResult(tool={self.tool!r}, error={self.error!r})"


_new = object.__new__


def ok(tool: str, rid: str | int, value: Any) -> ToolResult:
    """``ToolResult(tool, rid, value)`` without the constructor call: the dispatcher's success
    path, where a call's fixed cost is counted in tens of nanoseconds."""
    result: ToolResult = _new(ToolResult)
    result.tool = tool
    result._rid = rid
    result.value = value
    result.error = None
    return result


# --- error results -------------------------------------------------------------------------------


def _err(tool: Any, rid: str | int, code: str, message: str, details: dict[str, Any]) -> ToolResult:
    return ToolResult(tool, rid, None, PedelecError(code, message, details))


def _name(tool: Any) -> str:
    """An agent-sent tool name, quoted and shortened for a message."""
    from pedelec._json import short_repr

    return short_repr(tool, 80) if isinstance(tool, str) else f"<{type(tool).__name__}>"


def _tool_detail(tool: Any) -> Any:
    if isinstance(tool, str):
        return str(tool) if len(tool) <= 200 else tool[:200] + "…"
    return repr(type(tool).__name__)


def session_ended(tool: Any, rid: str | int, *, running: bool = False) -> ToolResult:
    if running:
        message = f"The session ended while tool {_name(tool)} was running; it was cancelled."
    else:
        message = f"The session has ended; tool {_name(tool)} was not run."
    return _err(tool, rid, SESSION_ENDED, message, {"tool": _tool_detail(tool)})


def tool_not_found(tool: Any, rid: str | int, available: Sequence[str]) -> ToolResult:
    if not available:
        hint = "; this session has no tools."
    else:
        close: list[str] = []
        if isinstance(tool, str) and len(tool) <= 200:  # difflib is quadratic in the length
            import difflib

            close = difflib.get_close_matches(tool, available, n=1)
        if close:
            hint = f'. Did you mean "{close[0]}"?'
        else:
            shown = ", ".join(f'"{n}"' for n in available[:20])
            more = f" and {len(available) - 20} more" if len(available) > 20 else ""
            hint = f". Available tools: {shown}{more}."
    return _err(
        tool, rid, TOOL_NOT_FOUND, f"Unknown tool {_name(tool)}{hint}", {"tool": _tool_detail(tool)}
    )


_AGAIN: Final = "Correct the arguments and call the tool again."


def args_invalid(tool: str, rid: str | int, errors: Sequence[ArgError]) -> ToolResult:
    listed = "; ".join(str(e) for e in errors)
    return _err(
        tool,
        rid,
        TOOL_ARGS_INVALID,
        f'Invalid arguments for tool "{tool}": {listed}. {_AGAIN}',
        {"tool": tool, "errors": [e.to_dict() for e in errors]},
    )


def args_not_json(tool: str, rid: str | int, exc: NotJsonError) -> ToolResult:
    from pedelec.schema import ArgError

    return args_invalid(tool, rid, [ArgError(exc.path, "type", exc.reason)])


def args_unparsable(tool: str, rid: str | int, exc: PedelecError) -> ToolResult:
    details = dict(exc.details) if isinstance(exc.details, dict) else {}
    return _err(
        tool,
        rid,
        TOOL_ARGS_INVALID,
        f'Invalid arguments for tool "{tool}": {exc.message.rstrip(".")}. {_AGAIN}',
        {"tool": tool, **details},
    )


def handler_not_found(tool: str, rid: str | int) -> ToolResult:
    return _err(
        tool,
        rid,
        TOOL_HANDLER_NOT_FOUND,
        f'Tool "{tool}" has no handler registered, so it cannot be run.',
        {"tool": tool},
    )


def handler_failed(tool: str, rid: str | int, exc: BaseException) -> ToolResult:
    kind = type(exc).__name__
    try:
        text = _exception_text(exc)
    except Exception:  # an exception whose __str__ fails still becomes a result
        text = ""
    message = f'Tool "{tool}" failed: {kind}: {text}' if text else f'Tool "{tool}" failed: {kind}'
    return _err(tool, rid, TOOL_HANDLER_ERROR, message, {"tool": tool, "exception": kind})


def _exception_text(exc: BaseException) -> str:
    """What an exception says, minus the server's file names that some exceptions add.

    ``OSError`` appends the file it failed on (``[Errno 2] No such file or directory:
    '/srv/app/secrets.yaml'``) and ``SyntaxError`` the file and line; the agent gets the reason,
    and the ``pedelec`` logger keeps the whole exception.
    """
    if isinstance(exc, OSError) and (exc.filename is not None or exc.filename2 is not None):
        return str(exc.strerror or "")
    if isinstance(exc, SyntaxError) and exc.filename is not None:
        return str(exc.msg or "")
    return str(exc)


def details_not_json(tool: str, rid: str | int, exc: PedelecError, bad: NotJsonError) -> ToolResult:
    """A handler raised a ``PedelecError`` whose ``details`` cannot be sent as JSON."""
    return _err(
        tool,
        rid,
        SUBMIT_TOOL_RESULT_FAILED,
        f'Tool "{tool}" raised PedelecError({str(exc.code)!r}) whose details are not JSON: '
        f"{bad.pointer or '(root)'}: {bad.reason}.",
        {"tool": tool, "pointer": bad.pointer},
    )


def timed_out(tool: str, rid: str | int, timeout_ms: int) -> ToolResult:
    return _err(
        tool,
        rid,
        TOOL_TIMEOUT,
        f'Tool "{tool}" did not finish within {timeout_ms} ms.',
        {"tool": tool, "timeoutMs": timeout_ms},
    )


def result_not_json(tool: str, rid: str | int, value: Any, exc: NotJsonError) -> ToolResult:
    import inspect

    if inspect.isawaitable(value):
        if inspect.iscoroutine(value):
            value.close()  # never awaited: close it rather than leak a warning
        reason = "it returned an awaitable; declare the handler with async def so pedelec awaits it"
        return _err(
            tool,
            rid,
            SUBMIT_TOOL_RESULT_FAILED,
            f'Tool "{tool}" returned a result that is not JSON: {reason}.',
            {"tool": tool, "pointer": ""},
        )
    where = exc.pointer or "(root)"
    return _err(
        tool,
        rid,
        SUBMIT_TOOL_RESULT_FAILED,
        f'Tool "{tool}" returned a result that is not JSON: {where}: {exc.reason}.',
        {"tool": tool, "pointer": exc.pointer},
    )


def from_value(tool: str, rid: str | int, value: Any) -> ToolResult:
    """Turn a handler's return value into a result: copy it as JSON, spot an error envelope.

    Returns a ``SUBMIT_TOOL_RESULT_FAILED`` result when the value is not plain JSON.
    """
    from pedelec._json import NotJsonError, clone_json

    try:
        value = clone_json(value)
    except NotJsonError as exc:
        return result_not_json(tool, rid, value, exc)
    if type(value) is dict and len(value) == 1 and "error" in value:
        inner = value["error"]
        if (
            type(inner) is dict
            and type(inner.get("code")) is str
            and type(inner.get("message")) is str
        ):
            return ToolResult(
                tool,
                rid,
                value,
                PedelecError(inner["code"], inner["message"], inner.get("details")),
            )
    return ToolResult(tool, rid, value)
