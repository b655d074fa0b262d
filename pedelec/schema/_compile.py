"""Schema patterns with ECMA-262 meaning and their fast paths.

``ecma_pattern`` compiles a ``pattern`` so Python's ``re`` matches it as JSON Schema's dialect
does; ``_literal_pattern`` and ``_char_class_pattern`` recognise the patterns the generated code
tests with ``str`` methods instead.
"""

from __future__ import annotations

import functools
import re
import sys
from typing import Any, Final

__all__ = ["ecma_pattern"]


# ECMA-262 (non-unicode mode, no flags) meanings of the escapes and of "." where Python's differ.
_ECMA_SPACE: Final = (
    "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
)
_ECMA_OUTSIDE: Final = {
    ".": "[^\\n\\r\\u2028\\u2029]",
    "$": "\\Z",
    "\\d": "[0-9]",
    "\\D": "[^0-9]",
    "\\w": "[A-Za-z0-9_]",
    "\\W": "[^A-Za-z0-9_]",
    "\\s": f"[{_ECMA_SPACE}]",
    "\\S": f"[^{_ECMA_SPACE}]",
}
_ECMA_INSIDE: Final = {"\\d": "0-9", "\\w": "A-Za-z0-9_", "\\s": _ECMA_SPACE}


# Distinct patterns whose compiled form is kept; a bound on memory, unrelated to the pattern
# length bound that shares its number.
_COMPILED_PATTERNS: Final = 1024


@functools.lru_cache(maxsize=_COMPILED_PATTERNS)
def ecma_pattern(source: str) -> re.Pattern[str]:
    """Compile a schema ``pattern`` so that it matches as ECMA-262 (JSON Schema's dialect) does.

    Python's ``re`` differs from JavaScript's in ways an agent could use to slip past a
    pattern: ``$`` also matches before a final newline (``"123\\n"`` passes ``^[0-9]+$``),
    ``.`` matches ``\\r``, and ``\\d``/``\\w`` match non-ASCII digits and letters. The source
    is rewritten token by token (outside and inside character classes) and compiled with
    ``re.ASCII`` for ``\\b``; everything else means the same in both dialects for the portable
    syntax the registration check allows.
    """
    out: list[str] = []
    i, n, in_class = 0, len(source), False
    while i < n:
        ch = source[i]
        token = source[i : i + 2] if ch == "\\" else ch
        if in_class:
            if token == "]":
                in_class = False
            out.append(_ECMA_INSIDE.get(token, token))
        elif token == "[":
            in_class = True
            # "[^" and a "]" right after the opening bracket belong to the class's start.
            j = i + 1
            j += source.startswith("^", j)
            j += source.startswith("]", j)
            out.append(source[i:j])
            i = j
            continue
        else:
            out.append(_ECMA_OUTSIDE.get(token, token))
        i += len(token)
    return re.compile("".join(out), re.ASCII)


def _literal_pattern(source: str) -> tuple[str, str] | None:
    """Recognise a pattern that is plain text with optional anchors: ``^https://``, ``\\.pdf$``.

    Returns ``(how, text)`` with ``how`` one of ``prefix``, ``suffix``, ``exact``, ``inside``;
    with ECMA-262 semantics ``$`` is the very end, so these are ``startswith``, ``endswith``,
    ``==`` and ``in``.
    """
    import importlib

    c: Any = importlib.import_module("re._constants")
    parser: Any = importlib.import_module("re._parser")
    try:
        items = list(parser.parse(source))
    except Exception:  # pragma: no cover - the schema check only lets compiling patterns in
        return None
    start = bool(items) and items[0] == (c.AT, c.AT_BEGINNING)
    end = bool(items) and items[-1] == (c.AT, c.AT_END)
    body = items[int(start) : len(items) - int(end)]
    if not body or any(op is not c.LITERAL for op, _ in body):
        return None
    text = "".join(chr(code) for _, code in body)
    how = {(True, True): "exact", (True, False): "prefix", (False, True): "suffix"}
    return how.get((start, end), "inside"), text


def _char_class_pattern(source: str) -> tuple[str, str, int, int] | None:
    """Recognise ``^prefix[...]{m,n}$`` patterns that ``str.strip`` can test without regexes.

    Returns ``(prefix, allowed characters, min count, max count)`` for a pattern that is exactly
    a start anchor, optional literal text, one repeated character class of printable ASCII
    literals and ranges (not negated), and ``$``; otherwise ``None``. With ECMA-262 semantics
    (see ``ecma_pattern``) such a pattern matches ``s`` exactly when ``s`` starts with the
    prefix, every later character is allowed, and their count is within the bounds.
    """
    import importlib

    # Private modules of re, without stubs; the result is checked shape by shape below.
    c: Any = importlib.import_module("re._constants")
    _parser: Any = importlib.import_module("re._parser")

    try:
        items = list(_parser.parse(source))
    except Exception:  # pragma: no cover - the schema check only lets compiling patterns in
        return None
    if (
        len(items) < 3
        or items[0] != (c.AT, c.AT_BEGINNING)
        or items[-1] != (c.AT, c.AT_END)
        or items[-2][0] is not c.MAX_REPEAT
        or any(op is not c.LITERAL for op, _ in items[1:-2])
    ):
        return None
    prefix = "".join(chr(code) for _, code in items[1:-2])
    low, high, body = items[-2][1]
    body = list(body)
    if len(body) != 1 or body[0][0] is not c.IN:
        return None
    chars: list[str] = []
    for op, arg in body[0][1]:
        if op is c.LITERAL and 0x20 <= arg <= 0x7E:
            chars.append(chr(arg))
        elif op is c.RANGE and 0x20 <= arg[0] <= arg[1] <= 0x7E:
            chars.extend(chr(code) for code in range(arg[0], arg[1] + 1))
        else:
            return None
    upper = sys.maxsize if high is c.MAXREPEAT else int(high)
    return prefix, "".join(sorted(set(chars))), int(low), upper
