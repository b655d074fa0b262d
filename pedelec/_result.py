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

from pedelec._json.wire import (
    _escape_surrogates,
    _has_surrogate,
    wire_problem,
    wire_text,
)
from pedelec.errors import (
    SESSION_ENDED,
    SUBMIT_TOOL_RESULT_FAILED,
    TOOL_ARGS_INVALID,
    TOOL_HANDLER_ERROR,
    TOOL_HANDLER_NOT_FOUND,
    TOOL_NOT_FOUND,
    TOOL_TIMEOUT,
    TOOL_WORKERS_EXHAUSTED,
    PedelecError,
)

if TYPE_CHECKING:
    from pedelec._json import NotJsonError
    from pedelec.schema import ArgError

__all__ = ["ToolResult", "closest_name", "request_id", "wire_problem", "wire_text"]

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

    # ``_text``: the JSON text of a nested value, written while checking it (``wire_text``);
    # left unset otherwise, so building a result on the hot path stores no more than before.
    __slots__ = ("_rid", "_text", "error", "tool", "value")

    tool: str
    value: Any
    error: PedelecError | None
    _text: str

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
        Never raises, whatever the result holds.
        """
        if self.error is None or self.value is not None:
            return self.value
        try:
            return {"error": self.error.to_dict()}
        except Exception:  # an error object that cannot describe itself
            return _unsendable(self.tool)

    def to_text(self) -> str:
        """``to_json()`` as compact JSON text (key order kept, non-ASCII kept).

        Never raises, and the text always encodes as UTF-8: a lone surrogate in an error
        message is written as its ``\\u`` escape, and a value that cannot be written at all
        (only possible in a ``ToolResult`` built by hand: dispatch checks what it returns)
        becomes a ``SUBMIT_TOOL_RESULT_FAILED`` envelope.
        """
        text: str | None = getattr(self, "_text", None)  # set for a checked nested value
        if text is not None:
            return text
        from pedelec._json import dumps_compact

        try:
            text = dumps_compact(self.to_json())
        except Exception:
            text = dumps_compact(_unsendable(self.tool))
        if text.isascii() or not _has_surrogate(text):
            return text
        return _escape_surrogates(text)

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
    from pedelec._json.render import SHOWN_NAME_CHARS, render

    return render(tool, SHOWN_NAME_CHARS) if isinstance(tool, str) else f"<{type(tool).__name__}>"


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
        close = closest_name(tool, available) if isinstance(tool, str) else None
        if close is not None:
            hint = f'. Did you mean "{close}"?'
        else:
            shown = ", ".join(f'"{n}"' for n in available[:20])
            more = f" and {len(available) - 20} more" if len(available) > 20 else ""
            hint = f". Available tools: {shown}{more}."
    return _err(
        tool, rid, TOOL_NOT_FOUND, f"Unknown tool {_name(tool)}{hint}", {"tool": _tool_detail(tool)}
    )


#: How much of a name ``closest_name`` compares: an agent chooses the unknown name's length.
_COMPARED: Final = 64


def closest_name(name: str, names: Sequence[str]) -> str | None:
    """The declared name a misspelled ``name`` most likely meant, or ``None``.

    A name within a few edits (insert, delete, replace, swap two neighbours: one edit per four
    characters, at most three) of the first 64 characters of ``name``; the first such name
    wins a tie. The cost is bounded by construction: names whose length differs by more than
    the edits left are skipped on their length, and every comparison stops as soon as the
    edits run out, so it is O(len(names)) with a small constant whatever the agent sends
    (``difflib`` here was quadratic in the length and took seconds for long names).

    Example:
        >>> closest_name("update_countr", ["update_counter", "reset"])
        'update_counter'
        >>> closest_name("nope", ["update_counter", "explode"]) is None
        True
    """
    query = name[:_COMPARED]
    size = len(query)
    if size < 3:
        return None
    allowed = min(3, max(1, size // 4))
    best: str | None = None
    for candidate in names:
        other = candidate[:_COMPARED]
        if abs(len(other) - size) > allowed:
            continue
        distance = _edits(query, other, allowed)
        if distance <= allowed:
            best, allowed = candidate, distance - 1
            if allowed < 0:
                break
    return best


def _edits(a: str, b: str, most: int) -> int:
    """Edits (optimal string alignment) from ``a`` to ``b``, or ``most + 1`` once past ``most``.

    Only the cells within ``most`` of the diagonal are computed, and a row whose every cell is
    past ``most`` ends the walk: the cost is O(len(a) * most) at worst, and a few rows for
    names that are not alike.
    """
    over = most + 1
    width = len(b)
    before: list[int] = []
    previous = list(range(width + 1))
    for i in range(1, len(a) + 1):
        char = a[i - 1]
        row = [over] * (width + 1)
        row[0] = i
        low = max(1, i - most)
        high = min(width, i + most)
        best = i if low == 1 else over
        for j in range(low, high + 1):
            other = b[j - 1]
            value = previous[j - 1]
            if char != other:  # (equal characters: the diagonal is the least, as it stands)
                if previous[j] < value:
                    value = previous[j]
                if row[j - 1] < value:
                    value = row[j - 1]
                value += 1
                if j > 1 and i > 1 and char == b[j - 2] and a[i - 2] == other:
                    swap = before[j - 2] + 1
                    if swap < value:
                        value = swap
            row[j] = value
            if value < best:
                best = value
        if best > most:
            return over
        before, previous = previous, row
    return min(previous[width], over)


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


def args_unsendable(tool: str, rid: str | int, args: Any) -> ToolResult | None:
    """``TOOL_ARGS_INVALID`` for args holding what no JSON text can carry (a lone surrogate,
    an int past the digit limit), naming its path; ``None`` for args the wire can carry.

    Such args would reach the handler and fail far from the call (a result echoing them cannot
    be sent); the agent is told instead, where it can fix them.
    """
    problem = wire_problem(args)
    if problem is None:
        return None
    from pedelec.schema import ArgError

    return args_invalid(tool, rid, [ArgError(problem[0], "type", problem[1])])


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


def text_bytes(text: str) -> int:
    """The size of ``text`` in UTF-8 bytes (a checked result text: it always encodes)."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def result_too_large(tool: str, rid: str | int, size: int, limit: int) -> ToolResult:
    """A result whose JSON text is over ``Limits.max_result_bytes``; its own text stays under.

    The tool's name is left out of the message when a very long one would push the error
    itself past the limit (the smallest limit, 1024 bytes, always holds the rest).
    """
    from pedelec.errors import TOOL_RESULT_TOO_LARGE

    advice = (
        f"returned a result of {size} bytes of JSON text, over the limit of {limit} bytes "
        "(Limits.max_result_bytes); return less, such as one page, a summary or an id to "
        "fetch the rest by."
    )
    result = _err(
        tool,
        rid,
        TOOL_RESULT_TOO_LARGE,
        f'Tool "{tool}" {advice}',
        {"tool": tool, "bytes": size, "limit": limit},
    )
    if text_bytes(result.to_text()) <= limit:
        return result
    return _err(
        tool, rid, TOOL_RESULT_TOO_LARGE, f"The tool {advice}", {"bytes": size, "limit": limit}
    )


def result_unreadable(tool: str, rid: str | int, exc: BaseException) -> ToolResult:
    """A handler's value that raised while it was being examined (a hostile ``__class__``)."""
    return _err(
        tool,
        rid,
        SUBMIT_TOOL_RESULT_FAILED,
        f'Tool "{tool}" returned a result that could not be examined: {type(exc).__name__}.',
        {"tool": tool, "pointer": ""},
    )


def result_unsendable(tool: str, rid: str | int, problem: tuple[_Path, str]) -> ToolResult:
    """A JSON result the wire cannot carry (an over-long int, a lone surrogate)."""
    where = _visible_pointer(problem[0])
    return _err(
        tool,
        rid,
        SUBMIT_TOOL_RESULT_FAILED,
        f'Tool "{tool}" returned a result that cannot be sent as JSON text: '
        f"{where or '(root)'}: {problem[1]}.",
        {"tool": tool, "pointer": where},
    )


def details_unsendable(
    tool: str, rid: str | int, exc: PedelecError, problem: tuple[_Path, str]
) -> ToolResult:
    """A handler's ``PedelecError`` whose JSON ``details`` the wire cannot carry."""
    where = _visible_pointer(problem[0])
    return _err(
        tool,
        rid,
        SUBMIT_TOOL_RESULT_FAILED,
        f'Tool "{tool}" raised PedelecError({_escape_surrogates(str(exc.code))!r}) whose details '
        f"cannot be sent as JSON text: {where or '(root)'}: {problem[1]}.",
        {"tool": tool, "pointer": where},
    )


def workers_exhausted(tool: str, rid: str | int, at_once: bool, held: int) -> ToolResult:
    """A threaded call that found no worker: every one is held by an overrunning handler."""
    when = "" if at_once else " within its timeout"
    return _err(
        tool,
        rid,
        TOOL_WORKERS_EXHAUSTED,
        f'Tool "{tool}" was not run{when}: every worker thread is held by a handler that '
        f"overran its timeout (threads held: {held}).",
        {"tool": tool, "heldThreads": held},
    )


def workers_refused(tool: str, rid: str | int, why: str) -> ToolResult:
    """The executor refused the call (a borrowed one was shut down, most likely)."""
    return _err(
        tool,
        rid,
        TOOL_WORKERS_EXHAUSTED,
        f'Tool "{tool}" was not run: the session\'s executor refused it ({why}).',
        {"tool": tool},
    )


def from_value(tool: str, rid: str | int, value: Any) -> ToolResult:
    """Turn a handler's return value into a result: copy it as JSON, check that the wire can
    carry it, spot an error envelope.

    Returns a ``SUBMIT_TOOL_RESULT_FAILED`` result when the value is not plain JSON or cannot
    be written as UTF-8 JSON text. The text written by the check is kept for ``to_text()``.
    """
    from pedelec._json import NotJsonError, clone_json

    try:
        value = clone_json(value)
    except NotJsonError as exc:
        return result_not_json(tool, rid, value, exc)
    text = wire_text(value)
    if text is None:
        return result_unsendable(tool, rid, wire_problem(value) or ((), _UNWRITABLE))
    result = ToolResult(tool, rid, value)
    result._text = text
    if type(value) is dict and len(value) == 1 and "error" in value:
        inner = value["error"]
        if (
            type(inner) is dict
            and type(inner.get("code")) is str
            and type(inner.get("message")) is str
        ):
            result.error = PedelecError(inner["code"], inner["message"], inner.get("details"))
    return result


# --- what the wire can carry ---------------------------------------------------------------------

_Path = tuple[str | int, ...]
_UNWRITABLE: Final = "it cannot be written as JSON text"


def _visible_pointer(path: _Path) -> str:
    """The JSON pointer of ``path``, surrogates written as escapes so the text is sendable."""
    from pedelec._json import pointer

    return _escape_surrogates(pointer(path))


def _unsendable(tool: Any) -> dict[str, Any]:
    """The envelope ``to_text`` falls back on for a value no JSON text can hold."""
    return {
        "error": {
            "code": SUBMIT_TOOL_RESULT_FAILED,
            "message": f"Tool {_name(tool)} produced a result that cannot be written as JSON text.",
            "details": {"tool": _tool_detail(tool)},
        }
    }
