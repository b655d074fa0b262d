"""The one step from what a handler did (returned a value, raised, or overran) to its result.

Every runner ends in ``settle``, so the rules live here once: a value is copied out as plain
JSON and checked for what the wire can carry (an int the interpreter will not write as text, a
lone surrogate: ``SUBMIT_TOOL_RESULT_FAILED``), a raised ``PedelecError`` passes with its own
code, anything else raised becomes ``TOOL_HANDLER_ERROR`` (logged), and a call that outlived
its deadline or its session gets ``TOOL_TIMEOUT`` or ``SESSION_ENDED`` whatever the handler did.
This is the exception boundary: the runners hand ``settle`` every ``BaseException`` a handler
raised except ``KeyboardInterrupt``, ``SystemExit`` (``PASSED``) and the caller's own
cancellation, and ``settle`` itself cannot raise.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from pedelec import _result
from pedelec._args import flat_copy
from pedelec._context import cancel
from pedelec._json import NotJsonError, clone_json
from pedelec._json.wire import SAFE_INT, has_surrogate, wire_problem
from pedelec._result import ToolResult
from pedelec._session.events import log_error
from pedelec.errors import PedelecError

if TYPE_CHECKING:
    from pedelec._context import ToolCallContext
    from pedelec._session.events import Events

__all__ = ["Overdue", "cancelled_type", "discard", "settle"]

#: A dict result with fewer keys than this is checked and copied flat, without a walk: large
#: enough for the usual result objects, small enough that the flat pass stays cheaper.
_FLAT_RESULT_KEYS: Final = 64

_LOW: Final = -SAFE_INT


class Overdue(NamedTuple):
    """Why a call's caller stopped waiting before the handler finished."""

    timeout_ms: int
    ctx: ToolCallContext | None
    ended: bool


def settle(
    name: str,
    rid: str | int,
    value: Any,
    raised: BaseException | None,
    events: Events,
    overdue: Overdue | None = None,
) -> ToolResult:
    """The result of a handler that returned ``value`` or raised ``raised``; never raises.

    Args:
        name: The tool's name.
        rid: The call's request id (a number still to render, or the given text).
        value: What the handler returned (ignored when it raised).
        raised: The exception the handler raised, or ``None``.
        events: Where developer-facing failures are reported (``on_error``).
        overdue: Set when the call ended after its deadline or after ``end()``; its result
            then says so, and the handler's value is discarded.
    """
    if overdue is not None:
        discard(value)
        return _overdue(name, rid, raised, events, overdue)
    if raised is not None:
        if isinstance(raised, PedelecError):
            return _domain_error(name, rid, raised, events)
        return _failed(name, rid, raised, events)
    t = type(value)
    limit = events.result_limit
    # The usual results, checked without a walk: a bounded int, ASCII text, a small flat dict.
    # A number's text is under MIN_RESULT_BYTES; text within ``limit`` by the worst case of
    # 6 bytes a code point (a ``\u00XX`` escape) needs no measuring either.
    if t is int:
        if _LOW < value < SAFE_INT:
            return ToolResult(name, rid, value)
    elif t is str:
        if (value.isascii() or not has_surrogate(value)) and 6 * len(value) + 2 <= limit:
            return ToolResult(name, rid, value)
    elif value is None or t is bool or (t is float and value - value == 0.0):
        return ToolResult(name, rid, value)
    elif t is dict and len(value) < _FLAT_RESULT_KEYS:
        copy = flat_copy(value)
        if (
            copy is not None
            and _sendable_flat(copy, limit)
            and not (len(copy) == 1 and "error" in copy)
        ):
            return ToolResult(name, rid, copy)
    try:
        result = _result.from_value(name, rid, value)
    except Exception as exc:  # a value hostile to being looked at (its __class__ raises)
        result = _result.result_unreadable(name, rid, exc)
    if result.value is None and result.error is not None:
        events.report(result)  # only a value that is not JSON gets here
        return result
    text: str | None = getattr(result, "_text", None)
    size = _result.text_bytes(text if text is not None else result.to_text())
    if size > limit:
        return events.report(_result.result_too_large(name, rid, size, limit))
    return result


def _sendable_flat(copy: dict[str, Any], limit: int) -> bool:
    """Whether a flat dict of JSON scalars holds no over-long int and no surrogate, and its
    text is surely within ``limit`` bytes (else the slow path measures it)."""
    chars = 0
    for key, item in copy.items():
        if not key.isascii() and has_surrogate(key):
            return False
        chars += len(key)
        kind = type(item)
        if kind is str:
            if not item.isascii() and has_surrogate(item):
                return False
            chars += len(item)
        elif kind is int and not _LOW < item < SAFE_INT:
            return False
    # Worst case: 6 bytes a code point, and 640 digits plus punctuation for each number.
    return 6 * chars + 650 * len(copy) + 2 <= limit


def _failed(name: str, rid: str | int, raised: BaseException, events: Events) -> ToolResult:
    log_error('pedelec: the handler of tool "%s" raised', name, exc=raised)
    return events.report(_result.handler_failed(name, rid, raised))


def _domain_error(name: str, rid: str | int, exc: PedelecError, events: Events) -> ToolResult:
    """A ``PedelecError`` the handler raised: passed on with its code, details copied."""
    try:
        code, message, details = str(exc.code), str(exc.message), exc.details
    except Exception:  # a code or message whose __str__ raises
        return _failed(name, rid, exc, events)
    if details is not None:
        try:
            details = clone_json(details)
        except NotJsonError as bad:
            return events.report(_result.details_not_json(name, rid, exc, bad))
        except Exception:
            return _failed(name, rid, exc, events)
        problem = wire_problem(details)
        if problem is not None:
            return events.report(_result.details_unsendable(name, rid, exc, problem))
    return ToolResult(name, rid, None, PedelecError(code, message, details))


def _overdue(
    name: str, rid: str | int, raised: BaseException | None, events: Events, overdue: Overdue
) -> ToolResult:
    if overdue.ctx is not None:
        cancel(overdue.ctx)
    if raised is not None and not isinstance(raised, (PedelecError, cancelled_type())):
        log_error(
            'pedelec: the handler of tool "%s" raised after its call was over', name, exc=raised
        )
    if overdue.ended:
        return _result.session_ended(name, rid, running=True)
    return events.report(_result.timed_out(name, rid, overdue.timeout_ms))


def discard(value: Any) -> None:
    """Close a coroutine a sync handler returned but nobody will await (no warning leaks)."""
    import inspect

    if inspect.iscoroutine(value):
        value.close()


def cancelled_type() -> type[BaseException]:
    """``asyncio.CancelledError``, without importing asyncio where nothing else has."""
    aio = sys.modules.get("asyncio")
    return aio.CancelledError if aio is not None else _NeverRaised


class _NeverRaised(BaseException):
    """Stands in for ``asyncio.CancelledError`` while asyncio is not even imported."""
