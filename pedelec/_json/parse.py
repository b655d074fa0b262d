"""Strict parse of tool args sent as JSON text, within the size and depth bounds.

The stdlib C parser does the work, with hooks that make it strict (no NaN or infinities, no
float overflow, no duplicate keys); only when it refuses a text does ``explain`` scan it again
to say where and why. ``json`` is imported on first use, which keeps ``import pedelec`` light.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from itertools import accumulate
from typing import Any, Final

from pedelec._json.locate import INVALID, SPACE, explain, line_column, nests_deeper
from pedelec.errors import TOOL_ARGS_INVALID, PedelecError

__all__ = ["parse_json_args"]

# A JSON string, or a run of text with no bracket and no quote: removing both leaves only the
# brackets that nest (in valid JSON text).
_STRINGS_AND_FILLER: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[^\[\]{}"]+')
_NESTING: Final = {"[": 1, "{": 1, "]": -1, "}": -1}


class _Rejected(ValueError):
    """Raised by the ``json.loads`` hooks; ``explain`` then finds where and why."""


def _reject_constant(name: str) -> Any:
    raise _Rejected(name)


def _finite_float(text: str) -> float:
    number = float(text)
    if number - number != 0.0:
        raise _Rejected(text)
    return number


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _Rejected("duplicate key")
    return result


def _nesting(text: str) -> int:
    """The deepest nesting of brackets in ``text``, or -1 when the text is not valid JSON."""
    brackets = _STRINGS_AND_FILLER.sub("", text)
    if '"' in brackets:
        return -1
    return max(accumulate(map(_NESTING.__getitem__, brackets)), default=0)


def parse_json_args(
    text: str | bytes | bytearray, *, max_bytes: int | None = None, max_depth: int | None = None
) -> Any:
    """Parse tool args sent as JSON text, strictly, with errors an agent can act on.

    Rejects what ``json.loads`` lets through: NaN and the infinities, numbers too large for a
    float (``1e400``), duplicate keys, and bytes that are not UTF-8. Any failure is located by
    JSON pointer, line and column. The stdlib C parser does the work; finding where a problem
    is takes a slower scan that only runs on failure.

    Args:
        text: The JSON text, as ``str`` or UTF-8 bytes.
        max_bytes: Most UTF-8 bytes allowed, checked before parsing.
        max_depth: Most nesting of arrays and objects (the root container is depth 1).

    Returns:
        The parsed value (any JSON value, not only an object).

    Raises:
        PedelecError: ``TOOL_ARGS_INVALID``; ``details`` has ``"pointer"``, ``"line"`` and
            ``"column"`` when the problem has a place.

    Example:
        >>> parse_json_args('{"delta": 3}')
        {'delta': 3}
        >>> parse_json_args('{"a": 1, "a": 2}')
        Traceback (most recent call last):
        ...
        pedelec.errors.PedelecError: TOOL_ARGS_INVALID: args are not valid JSON: duplicate key "a" \
in the object at the root (line 1, column 10); send each key once.
    """
    if isinstance(text, str):
        if max_bytes is not None and _longer_than(text, max_bytes):
            raise _too_large(max_bytes)
    elif isinstance(text, bytes | bytearray | memoryview):
        if max_bytes is not None and len(text) > max_bytes:
            raise _too_large(max_bytes)
        raw = text
        try:
            text = str(raw, "utf-8")
        except UnicodeDecodeError as exc:
            raise _not_utf8(bytes(raw), exc.start) from None
    else:
        raise TypeError(f"parse_json_args() takes str or bytes, not {type(text).__name__}")

    try:
        value = _decode(text)
    except RecursionError:
        # Without max_depth, or with one beyond the recursion the C parser has.
        problem = None if max_depth is None else explain(text, max_depth, _scanner())
        if problem is not None:
            raise problem.error(text) from None
        depth = _nesting(text)
        how_deep = f"{depth} levels deep, " if depth > 0 else ""
        raise PedelecError(
            TOOL_ARGS_INVALID,
            f"args are nested too deeply: the JSON text is nested {how_deep}deeper than the "
            "parser can go; send flatter args.",
            {"depth": depth} if depth > 0 else None,
        ) from None
    except (ValueError, StopIteration) as exc:
        problem = explain(text, sys.maxsize if max_depth is None else max_depth, _scanner())
        if problem is not None:
            raise problem.error(text) from None
        raise PedelecError(TOOL_ARGS_INVALID, f"{INVALID}: {exc}.") from None
    if (
        max_depth is not None
        and _may_nest_deeper(text, max_depth)
        and nests_deeper(value, max_depth)
    ):
        problem = explain(text, max_depth, _scanner())
        if problem is not None:
            raise problem.error(text)
    return value


_scanners: list[Callable[[str, int], tuple[Any, int]]] = []


def _scanner() -> Callable[[str, int], tuple[Any, int]]:
    """The C scanner of a ``JSONDecoder`` with the strict hooks, made once."""
    if not _scanners:
        import json

        decoder = json.JSONDecoder(
            parse_float=_finite_float,
            parse_constant=_reject_constant,
            object_pairs_hook=_unique_pairs,
        )
        _scanners.append(decoder.scan_once)  # type: ignore[attr-defined]
    return _scanners[0]


def _decode(text: str) -> Any:
    """``json.loads`` with the strict hooks, minus its per-call set-up.

    Raises ``ValueError`` or ``StopIteration`` on any problem, ``RecursionError`` when the
    nesting is too deep for the C scanner.
    """
    scan = _scanner()
    try:
        value, end = scan(text, 0)
    except StopIteration:
        start = SPACE.match(text).end()  # type: ignore[union-attr]
        if not start:
            raise
        value, end = scan(text, start)
    if end != len(text) and text[end:].strip(" \t\n\r"):
        raise _Rejected("extra data")
    return value


def _may_nest_deeper(text: str, most: int) -> bool:
    """A cheap upper bound on the nesting of ``text`` (valid JSON) is above ``most``.

    Every ``[`` or ``{`` may open a level, but in ``},{`` (a container closed, then its next
    sibling opened) the open only returns to the level of the close; such pairs are counted
    on the text as it is (a pair inside a string also holds a bracket inside that string, so
    the bound stays an upper bound).
    """
    bound = text.count("{") + text.count("[")
    for pair in _SIBLING_PAIRS:
        if bound <= most:
            return False
        bound -= text.count(pair)
    return bound > most


# Most frequent first: arrays of objects, compact or as json.dumps writes them.
_SIBLING_PAIRS: Final = ("},{", "}, {", "],[", "], [")


def _longer_than(text: str, max_bytes: int) -> bool:
    """Whether ``text`` has more than ``max_bytes`` bytes of UTF-8, encoding only if unsure."""
    if len(text) > max_bytes:
        return True  # every character is at least one byte
    if text.isascii() or len(text) * 4 <= max_bytes:
        return False  # one byte each, or at most four
    return len(text.encode("utf-8", "surrogatepass")) > max_bytes


def _too_large(max_bytes: int) -> PedelecError:
    return PedelecError(
        TOOL_ARGS_INVALID,
        f"args are too large: the JSON text is longer than {max_bytes} bytes of UTF-8; "
        "send smaller args.",
        {"maxBytes": max_bytes},
    )


def _not_utf8(data: bytes, start: int) -> PedelecError:
    before = data[:start].decode("utf-8")
    line, column = line_column(before, len(before))
    return PedelecError(
        TOOL_ARGS_INVALID,
        f"{INVALID}: byte {start} (line {line}, column {column}) is not valid UTF-8; "
        "send the text as UTF-8.",
        {"line": line, "column": column, "byte": start},
    )
