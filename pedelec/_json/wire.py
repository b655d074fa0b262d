"""What the wire can carry: JSON values whose every int Python can write and every string UTF-8
can encode.

Results, args and schemas all cross a wire (a provider API, MCP, a CLI's stdout) as UTF-8 JSON
text; an int past ``sys.get_int_max_str_digits()`` or a string holding a lone surrogate makes the
encoder fail far from where the value came in, so each way in asks here first.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, Final

__all__ = ["SAFE_INT", "has_surrogate", "int_fits", "wire_problem", "wire_text"]

_Path = tuple[str | int, ...]
#: Below this magnitude an int is writable under every ``sys.set_int_max_str_digits`` (at
#: least 640 digits, or 0 for no limit); past it, ``int_fits`` asks the interpreter.
SAFE_INT: Final = 10**639
_surrogate_search: Callable[[str], Any] | None = None


def _has_surrogate(text: str) -> bool:
    """Whether ``text`` holds a surrogate code point (UTF-8 cannot encode one)."""
    global _surrogate_search
    search = _surrogate_search
    if search is None:
        import re

        search = _surrogate_search = re.compile("[\ud800-\udfff]").search
    return search(text) is not None


def has_surrogate(text: str) -> bool:
    """``_has_surrogate`` behind the one-instruction ASCII test most text passes."""
    return not text.isascii() and _has_surrogate(text)


def _escape_surrogates(text: str) -> str:
    """``text`` with each surrogate written as its JSON escape (lossless inside JSON text)."""
    if text.isascii() or not _has_surrogate(text):
        return text
    import re

    return re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", text)


def int_fits(number: int) -> bool:
    """Whether the interpreter can write ``number`` as decimal text (``int_max_str_digits``)."""
    if -SAFE_INT < number < SAFE_INT:
        return True
    try:
        int.__repr__(number)
    except ValueError:
        return False
    return True


def _int_reason() -> str:
    return (
        f"an integer with more than {sys.get_int_max_str_digits()} digits, more than Python "
        "writes as text (sys.get_int_max_str_digits())"
    )


def _surrogate_reason(text: str, what: str) -> str:
    code = next(ord(c) for c in text if 0xD800 <= ord(c) <= 0xDFFF)
    return f"{what} holds a lone surrogate (U+{code:04X}), which UTF-8 cannot encode"


def wire_text(value: Any) -> str | None:
    """The compact JSON text of a JSON ``value``, or ``None`` when the wire cannot carry it.

    The ``json`` encoder (C) is the walk: it refuses an over-long int, and a surrogate shows
    in its output. ``wire_problem`` then finds where, on the failure path only.
    """
    from pedelec._json.dump import dumps_compact

    try:
        text = dumps_compact(value)
    except ValueError:
        return None
    if text.isascii() or not _has_surrogate(text):
        return text
    return None


def wire_problem(value: Any) -> tuple[_Path, str] | None:
    """The path and reason of the first part of a JSON ``value`` the wire cannot carry.

    That is an int longer than the interpreter writes as text, or a string or object key
    holding a surrogate. Depth first in document order, without recursion.
    """
    stack: list[tuple[_Path, Any]] = [((), value)]
    while stack:
        path, item = stack.pop()
        kind = type(item)
        if kind is str:
            if has_surrogate(item):
                return path, _surrogate_reason(item, "the string")
        elif kind is int:
            if not int_fits(item):
                return path, _int_reason()
        elif kind is dict:
            for key in item:
                if has_surrogate(key):
                    return (*path, key), _surrogate_reason(key, "the object key")
            stack.extend(((*path, k), v) for k, v in reversed(item.items()))
        elif kind is list:
            stack.extend(((*path, i), item[i]) for i in range(len(item) - 1, -1, -1))
    return None
