"""Strict parse of tool args sent as JSON text, within the size and depth bounds.

The stdlib C parser does the work, with hooks that make it strict (no NaN or infinities, no
float overflow, no duplicate keys); only when it refuses a text does ``explain`` scan it again
to say where and why. A text with many objects is first decoded without the per-object and
per-float hooks and then checked at C speed (``_census``); only a doubt sends it down the
strict path. ``json`` is imported on first use, which keeps ``import pedelec`` light.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from itertools import accumulate, chain, compress, repeat
from operator import is_
from typing import Any, Final

from pedelec._json.locate import INVALID, SPACE, explain, line_column, nests_deeper
from pedelec.errors import TOOL_ARGS_INVALID, PedelecError

__all__ = ["parse_json_args"]

# A JSON string, or a run of text with no bracket and no quote: removing both leaves only the
# brackets that nest (in valid JSON text).
_STRINGS_AND_FILLER: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[^\[\]{}"]+')
_NESTING: Final = {"[": 1, "{": 1, "]": -1, "}": -1}

# Below this many "{" in a text the strict hooks cost less than the census, whose every level
# of nesting has a fixed cost of its own.
_FEW_OBJECTS: Final = 8
_SCALARS: Final = frozenset((str, int, bool, type(None)))
# What may stand right before a ":" that separates a key from its value.
_BEFORE_COLON: Final = ('":', " :", "\t:", "\n:", "\r:")


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

    if text.count("{") > _FEW_OBJECTS:
        value = _quick(text, max_depth)
        if value is not _UNSURE:
            return value
    try:
        value = _decode(text, _scanner())
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


Scan = Callable[[str, int], tuple[Any, int]]
_scanners: list[Scan] = []


def _scanner() -> Scan:
    """The C scanner of a ``JSONDecoder`` with the strict hooks, made once."""
    if not _scanners:
        _make_scanners()
    return _scanners[0]


def _plain_scanner() -> Scan:
    """The C scanner with no hook but the one for NaN and the infinities, which costs nothing
    on a text without them."""
    if not _scanners:
        _make_scanners()
    return _scanners[1]


def _make_scanners() -> None:
    import json

    strict = json.JSONDecoder(
        parse_float=_finite_float,
        parse_constant=_reject_constant,
        object_pairs_hook=_unique_pairs,
    )
    plain = json.JSONDecoder(parse_constant=_reject_constant)
    _scanners[:] = [strict.scan_once, plain.scan_once]  # type: ignore[attr-defined]


#: What ``_quick`` returns when it cannot vouch for a text; ``None`` is a JSON value.
_UNSURE: Final = object()


def _quick(text: str, max_depth: int | None) -> Any:
    """Decode ``text`` without the per-object and per-float hooks, then check what they check.

    A duplicate key is the one thing a plain decode hides: it leaves the object one key short.
    Every ":" between a key and its value follows the key's closing quote or a space, so the
    count of those pairs in the text bounds the number of members from above; when the keys
    decoded reach that bound, no member was lost. A ":" inside a string can only raise the
    bound, so it can cost a fall back to the strict path, never a duplicate let through.

    Returns:
        The value, or ``_UNSURE`` when the text may break a rule (a syntax error, a duplicate
        key, a float beyond the float range, too deep); the strict path then decides and
        explains.
    """
    try:
        value = _decode(text, _plain_scanner())
    except (ValueError, StopIteration, RecursionError):
        return _UNSURE
    census = _census(value)
    if census is None:
        return _UNSURE
    keys, depth = census
    if max_depth is not None and depth > max_depth:
        return _UNSURE
    if keys != text.count(":") and keys != sum(map(text.count, _BEFORE_COLON)):
        return _UNSURE
    return value


def _census(value: Any) -> tuple[int, int] | None:
    """The number of keys in all objects of a decoded value and its depth, or ``None`` when
    it holds an infinity (a float literal beyond the float range).

    One level of nesting at a time, each step a C-level pass over the whole level, so a wide
    value costs a few C calls per level rather than a Python step per item.
    """
    if type(value) is dict and _SCALARS.issuperset(map(type, value.values())):
        return len(value), 1
    keys = depth = 0
    level = [value]
    while True:
        types = list(map(type, level))
        kinds = set(types)
        if float in kinds:
            total = sum(level if len(kinds) == 1 else _only(float, level, types))
            if total - total != 0.0:  # an infinity, or finite floats whose sum overflows
                return None
        if list in kinds:
            depth += 1
            items = chain.from_iterable(_only(list, level, types))
            if dict in kinds:
                objects = list(_only(dict, level, types))
                keys += sum(map(len, objects))
                level = [*chain.from_iterable(map(dict.values, objects)), *items]
            else:
                level = list(items)
        elif dict in kinds:
            depth += 1
            objects = level if len(kinds) == 1 else list(_only(dict, level, types))
            keys += sum(map(len, objects))
            level = list(chain.from_iterable(map(dict.values, objects)))
        else:
            return keys, depth


def _only(kind: type, level: list[Any], types: list[type]) -> Iterator[Any]:
    """The items of ``level`` whose type (listed in ``types``) is exactly ``kind``."""
    return compress(level, map(is_, types, repeat(kind)))


def _decode(text: str, scan: Scan) -> Any:
    """``json.loads`` with the hooks of ``scan``, minus its per-call set-up.

    Raises ``ValueError`` or ``StopIteration`` on any problem, ``RecursionError`` when the
    nesting is too deep for the C scanner.
    """
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
