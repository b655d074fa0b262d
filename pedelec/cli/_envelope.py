"""The TypeScript SDK's ``pedelec-cli`` envelope, byte for byte, for ``tool-spec`` and ``tool-call``.

Upstream (``desktop/crates/pedelec-cli/src/lib.rs``, ``ToolCliResponse`` and ``run``) prints
one line, ``serde_json::to_string`` of ``{"ok", "result"?, "error"?}``: compact, the envelope's
fields in that order, the error's as ``PedelecError`` declares them (``code``, ``message``,
``details``?; ``pedelec-shared/src/error.rs``), and every JSON object *inside* ``result`` and
``details`` with its keys sorted, because those pass through ``serde_json::Value``, whose map is
a ``BTreeMap`` (the workspace's ``Cargo.lock`` gives ``serde_json`` no ``indexmap``, so no
``preserve_order``). Numbers are written as ``serde_json`` writes them: integers that fit
``i64``/``u64`` as digits, every other number as the shortest ``f64`` text.

``ok`` says the call reached a handler and got an answer (``send_cli_request``: the Core
answered the IPC request); a handler's error is an answer, so it is ``ok: true`` with
``result: {"error": {...}}``. What the Core refuses before a handler runs (an unknown tool,
arguments that are not valid, a timeout: ``pedelec-core/src/lib.rs`` ``normalize_tool_call``,
``pedelec-ipc/src/lib.rs`` ``handle_tool_call_request``) is ``ok: false``.
"""

from __future__ import annotations

import contextlib
import json
import sys
from typing import TYPE_CHECKING, Any, Final

from pedelec._logs import summary
from pedelec.errors import (
    SESSION_ENDED,
    SUBMIT_TOOL_RESULT_FAILED,
    TOOL_ARGS_INVALID,
    TOOL_NOT_FOUND,
    TOOL_TIMEOUT,
    PedelecError,
)

if TYPE_CHECKING:
    from pedelec.session import ToolResult

__all__ = [
    "NOT_DELIVERED",
    "PEDELEC_TARGET_INVALID",
    "PEDELEC_TARGET_NOT_FOUND",
    "dumps_value",
    "failure",
    "result_envelope",
    "stdout_gone",
    "success",
]

#: The CLI's own codes for a session it cannot find: upstream's ``PEDELEC_THREAD_ID_NOT_FOUND``
#: (``thread_id_from_env``) names the missing variable the same way.
PEDELEC_TARGET_NOT_FOUND: Final = "PEDELEC_TARGET_NOT_FOUND"
PEDELEC_TARGET_INVALID: Final = "PEDELEC_TARGET_INVALID"

#: Codes that mean no handler answered: upstream's Core returns these as the IPC error, so the
#: CLI prints them as ``ok: false``. ``SUBMIT_TOOL_RESULT_FAILED`` is here because upstream's
#: SDK never submits a result it cannot send (``handleToolCall``), and the CLI then gets the
#: Core's ``TOOL_TIMEOUT``.
NOT_DELIVERED: Final = frozenset(
    {TOOL_NOT_FOUND, TOOL_ARGS_INVALID, TOOL_TIMEOUT, SESSION_ENDED, SUBMIT_TOOL_RESULT_FAILED}
)

_I64_MIN: Final = -(2**63)
_U64_MAX: Final = 2**64 - 1


def _float(x: float) -> str:
    """``x`` as ``serde_json`` writes an ``f64``: the shortest digits that read back as ``x``.

    The digits are Python's ``repr`` digits (both are shortest round-trip); only the layout
    differs: ``1e16``, ``1.5e-7`` and ``0.00001`` where Python writes ``1e+16``, ``1.5e-07`` and
    ``1e-05``.
    """
    if x != x or x in (float("inf"), float("-inf")):
        raise ValueError(f"{x!r} is not a JSON number")
    if x == 0:
        return "-0.0" if str(x).startswith("-") else "0.0"
    sign = "-" if x < 0 else ""
    mantissa, _, exp = repr(abs(x)).partition("e")
    whole, _, frac = mantissa.partition(".")
    every = whole + frac
    digits = every.lstrip("0")
    # The decimal point sits `point` digits into `digits` (negative: zeros before them).
    point = len(whole) + int(exp or 0) - (len(every) - len(digits))
    digits = digits.rstrip("0")
    length = len(digits)
    if length <= point <= 16:
        return f"{sign}{digits}{'0' * (point - length)}.0"
    if 0 < point <= 16:
        return f"{sign}{digits[:point]}.{digits[point:]}"
    if -5 < point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    rest = f".{digits[1:]}" if length > 1 else ""
    return f"{sign}{digits[0]}{rest}e{point - 1}"


def _string(s: str, escape: bool = False) -> str:
    if escape:
        try:
            s.encode("utf-8")
        except UnicodeEncodeError:
            # pedelec's own messages can hold an agent-sent name from a command line that was
            # not UTF-8: escaping keeps the line valid JSON and writable.
            return json.dumps(s)
    return json.dumps(s, ensure_ascii=False)


def dumps_value(value: Any, *, escape: bool = False) -> str:
    """``value`` as ``serde_json::to_string`` writes a ``serde_json::Value``: compact, keys sorted.

    ``escape`` writes a lone surrogate as a ``\\u`` escape; without it the text keeps it, and
    encoding the text as UTF-8 fails, as it must for a handler's answer.

    Raises:
        ValueError: For what no JSON text holds (NaN, an int too large for a ``f64``).
        TypeError: For a value that is not JSON.
        RecursionError: For a value nested deeper than the interpreter allows.
    """
    if value is None or isinstance(value, bool):
        return "null" if value is None else "true" if value else "false"
    if isinstance(value, str):
        return _string(value, escape)
    if isinstance(value, int):
        if _I64_MIN <= value <= _U64_MAX:
            return str(value)
        # serde_json reads such an integer as an f64 (OverflowError past its range).
        return _float(float(value))
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, dict):
        items = sorted(value.items())
        inner = (f"{_string(k, escape)}:{dumps_value(v, escape=escape)}" for k, v in items)
        return "{" + ",".join(inner) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(dumps_value(v, escape=escape) for v in value) + "]"
    raise TypeError(f"{type(value).__name__} is not a JSON value")


def _error(error: PedelecError) -> str:
    text = f'{{"code":{_string(error.code, True)},"message":{_string(error.message, True)}'
    if error.details is not None:
        text += f',"details":{dumps_value(error.details, escape=True)}'
    return text + "}"


def failure(error: PedelecError) -> str:
    """``{"ok":false,"error":{...}}``: the call was not delivered to a handler."""
    return f'{{"ok":false,"error":{_error(error)}}}'


def success(result: Any) -> str:
    """``{"ok":true,"result":...}``; a ``null`` result is left out, as upstream's ``Option``."""
    if result is None:
        return '{"ok":true}'
    return f'{{"ok":true,"result":{dumps_value(result)}}}'


def result_envelope(result: ToolResult) -> str:
    """The envelope for what ``dispatch`` returned, or ``SUBMIT_TOOL_RESULT_FAILED`` when the
    handler's answer cannot be written as JSON text (a huge int, a lone surrogate, NaN)."""
    error = result.error
    if error is not None and result.value is None and error.code in NOT_DELIVERED:
        return failure(error)
    answer = result.to_json()
    try:
        text = success(answer)
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        reason = f"a lone surrogate U+{ord(exc.object[exc.start]):04X}"
    except (ValueError, TypeError, ArithmeticError, RecursionError) as exc:
        reason = summary(exc)
    else:
        return text
    return failure(
        PedelecError(
            SUBMIT_TOOL_RESULT_FAILED,
            f'The result of tool "{result.tool}" cannot be written as JSON text ({reason}); '
            "return plain JSON values.",
            {"tool": result.tool},
        )
    )


def stdout_gone() -> int:
    """The reader left early (``pedelec manifest ... | head``): stop quietly, and point stdout
    at /dev/null so the interpreter's final flush does not complain either."""
    import os

    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 1  # EXIT_FAILED: the command's output did not all arrive
