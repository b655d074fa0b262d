"""Sets of code points as sorted, disjoint, inclusive ranges, and what the class letters mean.

``\\d``, ``\\w``, ``\\s`` and ``.`` mean different sets in ECMA-262 (u-flag, no other flag) and
in Python's :mod:`re`: ECMA-262 keeps ``\\d``/``\\w`` ASCII, counts the Unicode spaces
(NBSP, U+FEFF, U+3000 and every Zs) and the line terminators in ``\\s``, and keeps all four
line terminators out of ``.``. The validator matches with the ECMA-262 meaning
(:func:`ecma_set`); the backtracking check reads a set as either engine would
(:func:`either_set`), the more generous of the two.
"""

from __future__ import annotations

from collections.abc import Iterable

from pedelec.schema.patterns.tree import Item

__all__ = [
    "ECMA_CLASSES",
    "ECMA_DOT_EXCLUDES",
    "MAX_CODE",
    "Intervals",
    "complement",
    "ecma_set",
    "either_set",
    "overlaps",
    "python_classes",
    "union",
]

Intervals = tuple[tuple[int, int], ...]
"""Sorted, disjoint, non-adjacent inclusive ranges of code points."""

MAX_CODE = 0x10FFFF

# ECMA-262 \s: WhiteSpace (TAB, VT, FF, SP, NBSP, ZWNBSP and every Zs) and LineTerminator.
_ECMA_SPACE: Intervals = (
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
)
ECMA_CLASSES: dict[str, Intervals] = {
    "d": ((0x30, 0x39),),
    "w": ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)),
    "s": _ECMA_SPACE,
}
"""The lower-case class letters in ECMA-262; upper case is the complement."""

ECMA_DOT_EXCLUDES: Intervals = ((0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029))
"""The line terminators, which ``.`` does not match without the s-flag."""

_PY_DOT_EXCLUDES: Intervals = ((0x0A, 0x0A),)

_py_sets: dict[str, Intervals] | None = None


def union(parts: Iterable[Intervals]) -> Intervals:
    """The code points in any of ``parts``."""
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(r for part in parts for r in part):
        if merged and lo <= merged[-1][1] + 1:
            if hi > merged[-1][1]:
                merged[-1] = (merged[-1][0], hi)
        else:
            merged.append((lo, hi))
    return tuple(merged)


def complement(ranges: Intervals) -> Intervals:
    """The code points up to ``MAX_CODE`` not in ``ranges``."""
    out: list[tuple[int, int]] = []
    nxt = 0
    for lo, hi in ranges:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= MAX_CODE:
        out.append((nxt, MAX_CODE))
    return tuple(out)


def overlaps(a: Intervals, b: Intervals) -> bool:
    """Whether ``a`` and ``b`` share a code point."""
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i][1] < b[j][0]:
            i += 1
        elif b[j][1] < a[i][0]:
            j += 1
        else:
            return True
    return False


def python_classes() -> dict[str, Intervals]:
    """Python's Unicode \\d, \\s and \\w as ranges, read from re itself once per process."""
    global _py_sets
    if _py_sets is None:
        import array
        import re
        import sys

        codes = array.array("I", range(MAX_CODE + 1))
        if codes.itemsize == 4:
            codec = "utf-32-le" if sys.byteorder == "little" else "utf-32-be"
            every = codes.tobytes().decode(codec, "surrogatepass")
        else:  # pragma: no cover - platforms with a 2-byte C int
            every = "".join(map(chr, range(MAX_CODE + 1)))
        _py_sets = {
            letter: tuple((m.start(), m.end() - 1) for m in re.finditer(f"\\{letter}+", every))
            for letter in "dsw"
        }
    return _py_sets


def _letter_set(letter: str, ecma: bool) -> Intervals:
    if letter == ".":
        return complement(ECMA_DOT_EXCLUDES if ecma else _PY_DOT_EXCLUDES)
    base = ECMA_CLASSES[letter.lower()] if ecma else python_classes()[letter.lower()]
    return base if letter.islower() else complement(base)


def _resolve(negated: bool, items: tuple[Item, ...], ecma: bool) -> Intervals:
    ranges = tuple(item for item in items if isinstance(item, tuple))
    chars = union([ranges, *(_letter_set(item, ecma) for item in items if isinstance(item, str))])
    return complement(chars) if negated else chars


def ecma_set(negated: bool, items: tuple[Item, ...]) -> Intervals:
    """The code points a :class:`~pedelec.schema.patterns.parse.CharSet` matches in ECMA-262."""
    return _resolve(negated, items, ecma=True)


def either_set(negated: bool, items: tuple[Item, ...]) -> Intervals:
    """The code points a set can match in Python or in ECMA-262 (both engines read it)."""
    if all(isinstance(item, tuple) for item in items):
        return _resolve(negated, items, ecma=False)
    return union([_resolve(negated, items, ecma=False), _resolve(negated, items, ecma=True)])
