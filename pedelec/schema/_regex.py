"""Rules for ``pattern`` strings in tool schemas.

A pattern must compile with Python's :mod:`re`; it must use only syntax that means the same in
ECMA-262 (JavaScript) regular expressions, because providers and agents read the schema as JSON
Schema; and it must not be able to backtrack catastrophically on the strings an agent sends.

The backtracking check reads the pattern as written, not the tree ``re`` builds: Python
folds ``(\\d|\\w)`` into the class ``[\\d\\w]``, but a JavaScript engine backtracks over both
branches. The pattern becomes a position automaton (Glushkov) whose edges count derivations,
so ``(a*)*`` keeps its two ways from ``a`` back to ``a`` and ``(?:(?:|)a)+`` its two ways
through the empty alternation. A pattern is rejected when a loop of that automaton can read
the same text along two different paths (exponential degree of ambiguity), found with the
usual product construction. A bounded repeat counts as a loop when it iterates a lot (nested
maxima multiplying past ``_LARGE_REPEAT``), contains a loop or sits in one, so ``(a+){2}`` is
read like ``(a+)+`` while ``(a|a){2}`` is left alone. Patterns that are only polynomially
ambiguous, such as ``\\d+\\d+``, are accepted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

__all__ = ["pattern_problem"]

_Intervals = tuple[tuple[int, int], ...]
_Item = tuple[int, int] | str  # a code point range, or a class letter ("d", "W", "." ...)
_Recipe = tuple[bool, tuple[_Item, ...]]  # (negated, items) of one character set
_H = TypeVar("_H", bound=Hashable)

_MAX_QUOTE = 60
_MAX_NODES = 20_000
_MAX_WORK = 150_000
_UNBOUNDED = -1
_LARGE_REPEAT = 8
_MAX_CODE = 0x10FFFF

_SYNTAX = frozenset("^$\\.*+?()[]{}|/")  # escapable in ECMA-262 unicode mode
_CLASS_SYNTAX = _SYNTAX | {"-"}
_DIGITS = frozenset("0123456789")
_OCTAL = frozenset("01234567")
_HEX = frozenset("0123456789abcdefABCDEF")
_CONTROL = {"f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B}
_PY_FLAGS = "aiLmsux"
_FLAG_FIXES = {
    "i": 'remove it and spell out both cases instead, e.g. "[Aa]"',
    "s": 'remove it and write "[\\s\\S]" where a dot must also match a newline',
    "m": 'remove it and match line breaks explicitly with "\\n"',
    "x": "remove it and delete the whitespace and comments it allowed",
    "a": 'remove it and write ASCII classes such as "[0-9]" explicitly',
    "u": "remove it; Unicode matching is already the default",
    "L": "remove it",
    "-": 'remove it and use a plain non-capturing group "(?:...)"',
}

# ECMA-262 \s: WhiteSpace and LineTerminator.
_JS_SPACE: _Intervals = (
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
_JS_SETS: dict[str, _Intervals] = {
    "d": ((0x30, 0x39),),
    "w": ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)),
    "s": _JS_SPACE,
}
_JS_DOT_EXCLUDES: _Intervals = ((0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029))
_PY_DOT_EXCLUDES: _Intervals = ((0x0A, 0x0A),)

_CHAR, _SEQ, _ALT, _GROUP, _LOOK, _REPEAT, _EMPTY = range(7)


def pattern_problem(pattern: str) -> str | None:
    """Say why a ``pattern`` cannot be used in a tool schema.

    Checks, in order: syntax that is not portable to ECMA-262 (JavaScript) regular
    expressions, compilation with Python's :mod:`re`, and catastrophic backtracking.

    Args:
        pattern: The ``pattern`` keyword's value.

    Returns:
        ``None`` when the pattern may be used, else one sentence (no trailing period) naming
        the problem and the fix, for the developer who wrote the schema.

    Example:
        >>> pattern_problem(r"^[a-z]+(-[a-z]+)*$") is None
        True
        >>> print(pattern_problem(r"\\Ad+"))
        pattern "\\Ad+" uses "\\A" at position 0, which is not portable to ECMA-262 regular expressions (JavaScript, JSON Schema); use "^" instead
    """
    shown = _quote(pattern)
    tree: _Node | None
    try:
        tree = _Parser(pattern).parse()
    except _Unportable as exc:
        return (
            f"pattern {shown} uses {exc.what} at position {exc.pos}, which is not portable to "
            f"ECMA-262 regular expressions (JavaScript, JSON Schema); {exc.fix}"
        )
    except _Invalid:
        tree = None  # re.compile says what is wrong
    except _TooComplex:
        return _too_complex(shown)
    error = _compile_error(pattern)
    if error is not None:
        return f"pattern {shown} does not compile: {error}"
    if tree is None:  # pragma: no cover - the parser follows every pattern re accepts
        return _too_complex(shown)
    try:
        return _backtracking_problem(pattern, shown, tree)
    except _TooComplex:
        return _too_complex(shown)


def _too_complex(shown: str) -> str:
    return (
        f"pattern {shown} is too complex to check for catastrophic backtracking; "
        "simplify its repeated groups"
    )


def _quote(text: str) -> str:
    """Quote a pattern or a piece of one for a message: one line, bounded length."""
    if len(text) > _MAX_QUOTE:
        text = text[: _MAX_QUOTE - 1] + "…"
    if not text.isprintable():
        text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)
    return f'"{text}"'


def _compile_error(pattern: str) -> str | None:
    """Why re.compile refuses the pattern, and the fix, or None."""
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"{exc}; fix the regular expression syntax"
    except OverflowError as exc:  # re raises it for counts such as a{99999999999}
        return f"{exc}; use a smaller count"
    except RecursionError:
        return "it nests groups too deeply for Python's re; use fewer nested groups"
    return None


class _Unportable(Exception):
    def __init__(self, what: str, pos: int, fix: str) -> None:
        super().__init__(what)
        self.what = what
        self.pos = pos
        self.fix = fix


class _Invalid(Exception):
    """Python's re rejects the text; re.compile words the reason."""


class _TooComplex(Exception):
    """The analysis would need more work than a registration check should spend."""


class _Node:
    __slots__ = (
        "big",
        "cyclic",
        "end",
        "first",
        "hi",
        "kids",
        "kind",
        "last",
        "lo",
        "null",
        "pos",
        "recipe",
        "start",
        "weight",
    )

    def __init__(
        self,
        kind: int,
        start: int,
        end: int,
        kids: list[_Node] | None = None,
        recipe: _Recipe | None = None,
        lo: int = 0,
        hi: int = 0,
    ) -> None:
        self.kind = kind
        self.start = start
        self.end = end
        self.kids: list[_Node] = kids if kids is not None else []
        self.recipe = recipe
        self.lo = lo
        self.hi = hi
        self.pos = -1
        self.null = 0
        self.weight = 1  # the most iterations of bounded repeats nested below, multiplied
        self.big = False  # an unbounded or large repeat is here or below (lookarounds apart)
        self.cyclic = False  # a repeat the analysis reads as a loop
        self.first: dict[int, int] = {}
        self.last: dict[int, int] = {}


class _Frame:
    __slots__ = ("alts", "index", "kind", "start")

    def __init__(self, kind: int, start: int, index: int = 0) -> None:
        self.kind = kind
        self.start = start
        self.index = index  # capturing group number, 0 when not capturing
        self.alts: list[list[_Node]] = [[]]


def _literal(start: int, end: int, code: int) -> _Node:
    return _Node(_CHAR, start, end, recipe=(False, ((code, code),)))


class _Parser:
    """Reads a pattern the way Python's re does and rejects syntax ECMA-262 reads otherwise.

    Iterative, so nesting depth never meets the recursion limit. Raises ``_Unportable`` for
    the first construct that is not portable, ``_Invalid`` where re would refuse the text.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.groups: dict[int, _Node] = {}
        self.group_count = 0
        self.nodes = 0

    def parse(self) -> _Node:
        text = self.text
        n = len(text)
        stack = [_Frame(_SEQ, 0)]
        i = 0
        while i < n:
            c = text[i]
            frame = stack[-1]
            seq = frame.alts[-1]
            if c == "(":
                i = self._open(i, stack)
            elif c == ")":
                if len(stack) == 1:
                    raise _Invalid
                stack.pop()
                stack[-1].alts[-1].append(self._close(frame, i + 1))
                i += 1
            elif c == "|":
                frame.alts.append([])
                i += 1
            elif c in "*+?":
                lo, hi = {"*": (0, _UNBOUNDED), "+": (1, _UNBOUNDED), "?": (0, 1)}[c]
                i = self._quantify(seq, i, i + 1, lo, hi)
            elif c == "{":
                i = self._brace(seq, i)
            elif c == "[":
                i = self._class(seq, i)
            elif c == "\\":
                i = self._escape(seq, i)
            elif c == ".":
                seq.append(_Node(_CHAR, i, i + 1, recipe=(False, (".",))))
                i += 1
            elif c in "^$":
                seq.append(_Node(_EMPTY, i, i + 1))
                i += 1
            elif c in "]}":
                raise _Unportable(
                    f"the unescaped {_quote(c)}", i, f"escape it as {_quote(chr(92) + c)}"
                )
            else:
                seq.append(_literal(i, i + 1, ord(c)))
                i += 1
        if len(stack) != 1:
            raise _Invalid
        return self._close(stack[0], n)

    def _count(self, more: int = 1) -> None:
        self.nodes += more
        if self.nodes > _MAX_NODES:
            raise _TooComplex

    def _close(self, frame: _Frame, end: int) -> _Node:
        seqs = [_Node(_SEQ, frame.start, end, kids) for kids in frame.alts]
        self._count(len(seqs) + 2)
        body = seqs[0] if len(seqs) == 1 else _Node(_ALT, frame.start, end, seqs)
        if frame.kind == _SEQ:  # the whole pattern
            return body
        node = _Node(frame.kind, frame.start, end, [body])
        if frame.index:
            self.groups[frame.index] = node
        return node

    def _open(self, i: int, stack: list[_Frame]) -> int:
        text = self.text
        if not text.startswith("(?", i):
            self.group_count += 1
            stack.append(_Frame(_GROUP, i, self.group_count))
            return i + 1
        c = text[i + 2 : i + 3]
        if c == ":":
            stack.append(_Frame(_GROUP, i))
            return i + 3
        if c in ("=", "!"):
            stack.append(_Frame(_LOOK, i))
            return i + 3
        if c == "<" and text[i + 3 : i + 4] in ("=", "!"):
            stack.append(_Frame(_LOOK, i))
            return i + 4
        if c == "P" and text[i + 3 : i + 4] == "<":
            close = text.find(">", i)
            shown = text[i : close + 1] + "...)" if close > 0 else "(?P<name>...)"
            raise _Unportable(
                f"the named group {_quote(shown)}", i, 'use a plain group "(...)" instead'
            )
        if c == "P" and text[i + 3 : i + 4] == "=":
            close = text.find(")", i)
            shown = text[i : close + 1] if close > 0 else "(?P=name)"
            raise _Unportable(
                f"the named backreference {_quote(shown)}",
                i,
                'refer to a plain group by its number instead, e.g. "\\1"',
            )
        if c == "#":
            raise _Unportable('the comment group "(?#...)"', i, "remove it")
        if c == "(":
            close = text.find(")", i + 3)
            shown = text[i : close + 1] + "...)" if close > 0 else "(?(...)...)"
            raise _Unportable(
                f"the conditional group {_quote(shown)}",
                i,
                'rewrite it as an alternation "(?:...|...)"',
            )
        if c == ">":
            raise _Unportable(
                'the atomic group "(?>...)"', i, 'use a non-capturing group "(?:...)" instead'
            )
        if c and (c in _PY_FLAGS or c == "-"):
            j = i + 2
            while j < len(text) and (text[j] in _PY_FLAGS or text[j] == "-"):
                j += 1
            shown = text[i:j]
            if text[j : j + 1] == ")":
                shown += ")"
            elif text[j : j + 1] == ":":
                shown += ":...)"
            raise _Unportable(f"the inline flags {_quote(shown)}", i, _FLAG_FIXES[c])
        raise _Invalid

    def _quantify(self, seq: list[_Node], start: int, after: int, lo: int, hi: int) -> int:
        if not seq or seq[-1].kind in (_EMPTY, _REPEAT):
            raise _Invalid  # nothing to repeat, or multiple repeat
        text = self.text
        quantifier = text[start:after]
        if text[after : after + 1] == "+":
            raise _Unportable(
                f"the possessive quantifier {_quote(quantifier + '+')}",
                start,
                f"use {_quote(quantifier)} instead",
            )
        if text[after : after + 1] == "?":
            after += 1
        item = seq[-1]
        if item.kind == _LOOK:
            raise _Unportable(
                f"the quantifier {_quote(quantifier)} on a lookaround assertion",
                start,
                "remove the quantifier",
            )
        self._count()
        seq[-1] = _Node(_REPEAT, item.start, after, [item], lo=lo, hi=hi)
        return after

    def _brace(self, seq: list[_Node], i: int) -> int:
        text = self.text
        n = len(text)
        j = i + 1
        while j < n and text[j] in _DIGITS:
            j += 1
        low = text[i + 1 : j]
        high = low
        comma = j < n and text[j] == ","
        if comma:
            j += 1
            k = j
            while j < n and text[j] in _DIGITS:
                j += 1
            high = text[k:j]
        if j < n and text[j] == "}" and j > i + 1:
            shown = text[i : j + 1]
            if not low:
                fix = '"*"' if not high else _quote("{0," + high + "}")
                raise _Unportable(f"the quantifier {_quote(shown)}", i, f"use {fix} instead")
            lo = _count_value(low)
            hi = _count_value(high) if high else _UNBOUNDED
            return self._quantify(seq, i, j + 1, lo, hi)
        fix = 'escape it as "\\{"'
        close = text.find("}", i, i + 24)
        if close > 0:
            inside = text[i + 1 : close]
            if any(c.isspace() for c in inside) and all(
                c in _DIGITS or c == "," or c.isspace() for c in inside
            ):
                fix = (
                    f"remove the spaces from {_quote(text[i : close + 1])} if it is meant as a "
                    'quantifier, or escape the brace as "\\{"'
                )
        raise _Unportable('the unescaped "{"', i, fix)

    def _class(self, seq: list[_Node], i: int) -> int:
        text = self.text
        n = len(text)
        j = i + 1
        if text[j : j + 1] == "[":
            raise _Unportable('"[" inside a character class', j, 'escape it as "\\["')
        negate = text[j : j + 1] == "^"
        if negate:
            j += 1
        items: list[_Item] = []
        while True:
            if j >= n:
                raise _Invalid
            c = text[j]
            first: int | str
            if c == "]" and items:
                j += 1
                break
            if c == "]":
                raise _Unportable(
                    '"]" as the first character of a character class', j, 'escape it as "\\]"'
                )
            if c == "\\":
                first, j = self._class_escape(j)
            else:
                if items and c in "-&~|" and text[j + 1 : j + 2] == c:
                    raise _Unportable(*_doubled(c, j))
                first = ord(c)
                j += 1
            if text[j : j + 1] == "-":
                if j + 1 >= n:
                    raise _Invalid
                that = text[j + 1]
                if that == "]":
                    items.append(first if isinstance(first, str) else (first, first))
                    items.append((0x2D, 0x2D))
                    j += 2
                    break
                second: int | str
                if that == "\\":
                    second, j = self._class_escape(j + 1)
                else:
                    if that == "-":
                        raise _Unportable(*_doubled("-", j))
                    second = ord(that)
                    j += 2
                if isinstance(first, str) or isinstance(second, str) or second < first:
                    raise _Invalid
                items.append((first, second))
            else:
                items.append(first if isinstance(first, str) else (first, first))
        self._count()
        seq.append(_Node(_CHAR, i, j, recipe=(negate, tuple(items))))
        return j

    def _class_escape(self, j: int) -> tuple[int | str, int]:
        """Read an escape inside a class at ``j``; a class letter or a code point."""
        text = self.text
        c = text[j + 1 : j + 2]
        if not c:
            raise _Invalid
        if c in "dDsSwW":
            return c, j + 2
        if c == "b":
            return 0x08, j + 2
        if c in _CONTROL:
            return _CONTROL[c], j + 2
        if c in "xuUNa":
            return self._code_escape(j)
        if c in _OCTAL:
            k = j + 2
            while k < j + 4 and text[k : k + 1] in _OCTAL:
                k += 1
            if k == j + 2 and c == "0" and text[k : k + 1] not in _DIGITS:
                return 0, k
            raise _Unportable(*_octal(text, j, k))
        if c in _DIGITS or (c.isascii() and c.isalpha()):
            raise _Invalid
        if c in _CLASS_SYNTAX:
            return ord(c), j + 2
        raise _Unportable(*_identity(c, j))

    def _code_escape(self, j: int) -> tuple[int, int]:
        """Read \\x, \\u, \\U, \\N or \\a at ``j``, all of which mean a code point in Python."""
        text = self.text
        c = text[j + 1]
        if c == "a":
            raise _Unportable('the escape "\\a"', j, 'use "\\x07" instead')
        if c == "N":
            close = text.find("}", j)
            shown = text[j : close + 1] if text[j + 2 : j + 3] == "{" and close > 0 else "\\N"
            raise _Unportable(
                f"the escape {_quote(shown)}", j, "write the character itself instead"
            )
        width = {"x": 2, "u": 4, "U": 8}[c]
        digits = text[j + 2 : j + 2 + width]
        if len(digits) != width or not set(digits) <= _HEX:
            raise _Invalid
        code = int(digits, 16)
        if code > _MAX_CODE:
            raise _Invalid
        shown = _quote(text[j : j + 2 + width])
        if c == "U":
            fix = (
                f'use "\\u{code:04x}" instead'
                if code <= 0xFFFF
                else "write the character itself instead"
            )
            raise _Unportable(f"the escape {shown}", j, fix)
        if 0xD800 <= code <= 0xDFFF:
            raise _Unportable(
                f"the surrogate escape {shown}", j, "write the character itself instead"
            )
        return code, j + 2 + width

    def _escape(self, seq: list[_Node], i: int) -> int:
        text = self.text
        c = text[i + 1 : i + 2]
        if not c:
            raise _Invalid
        if c in "dDsSwW":
            seq.append(_Node(_CHAR, i, i + 2, recipe=(False, (c,))))
            return i + 2
        if c in "bB":
            seq.append(_Node(_EMPTY, i, i + 2))
            return i + 2
        if c == "A":
            raise _Unportable('"\\A"', i, 'use "^" instead')
        if c in "Zz":
            raise _Unportable(_quote("\\" + c), i, 'use "$" instead')
        if c in _CONTROL:
            seq.append(_literal(i, i + 2, _CONTROL[c]))
            return i + 2
        if c in "xuUNa":
            code, end = self._code_escape(i)
            seq.append(_literal(i, end, code))
            return end
        if c == "0":
            k = i + 2
            while k < i + 4 and text[k : k + 1] in _OCTAL:
                k += 1
            if k == i + 2 and text[k : k + 1] not in _DIGITS:
                seq.append(_literal(i, k, 0))
                return k
            raise _Unportable(*_octal(text, i, k))
        if c in _DIGITS:
            k = i + 2
            if text[k : k + 1] in _DIGITS:
                if c in _OCTAL and text[k] in _OCTAL and text[k + 1 : k + 2] in _OCTAL:
                    raise _Unportable(*_octal(text, i, k + 2))
                k += 1
            group = self.groups.get(int(text[i + 1 : k]))
            if group is None:
                raise _Invalid
            copy = self._copy(group)
            copy.start, copy.end = i, k
            seq.append(copy)
            return k
        if c.isascii() and c.isalpha():
            raise _Invalid
        if c in _SYNTAX:
            seq.append(_literal(i, i + 2, ord(c)))
            return i + 2
        raise _Unportable(*_identity(c, i))

    def _copy(self, root: _Node) -> _Node:
        """Copy a group for a backreference, which can match what the group matches."""
        copies: dict[int, _Node] = {}
        for node in _postorder(root):
            self._count()
            kids = [copies[id(kid)] for kid in node.kids]
            copies[id(node)] = _Node(
                node.kind, node.start, node.end, kids, node.recipe, node.lo, node.hi
            )
        return copies[id(root)]


def _count_value(digits: str) -> int:
    # re refuses counts this large anyway; avoid int() on thousands of digits
    return int(digits) if len(digits) <= 10 else 1 << 32


def _identity(c: str, pos: int) -> tuple[str, int, str]:
    shown = _quote(c)
    return f"the escape {_quote(chr(92) + c)}", pos, f"write {shown} without the backslash"


def _octal(text: str, start: int, end: int) -> tuple[str, int, str]:
    digits = text[start + 1 : end]
    if digits == "0":  # \0 and then a digit that is not octal
        return '"\\0" followed by a digit', start, 'use "\\x00" instead'
    code = int(digits, 8)
    fix = f'use "\\x{code:02x}" instead' if code <= 0xFF else 'use "\\x" or "\\u" escapes instead'
    return f"the octal escape {_quote(text[start:end])}", start, fix


def _doubled(c: str, pos: int) -> tuple[str, int, str]:
    fix = 'escape the second one as "\\-"' if c == "-" else f"list {_quote(c)} only once"
    return f"{_quote(c + c)} inside a character class", pos, fix


def _postorder(root: _Node) -> list[_Node]:
    out: list[_Node] = []
    stack: list[tuple[_Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            out.append(node)
            continue
        stack.append((node, True))
        stack.extend((kid, False) for kid in reversed(node.kids))
    return out


def _preorder(root: _Node, skip: Callable[[_Node], bool]) -> list[_Node]:
    """Nodes in source order, without the subtrees below the nodes ``skip`` accepts."""
    out: list[_Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        out.append(node)
        if not skip(node):
            stack.extend(reversed(node.kids))
    return out


def _iterates(node: _Node) -> bool:
    return node.kind == _REPEAT and (node.hi == _UNBOUNDED or node.hi >= 2)


def _is_dead(node: _Node) -> bool:
    return node.kind == _REPEAT and node.hi == 0


# --- character sets --------------------------------------------------------------------------

_py_sets: dict[str, _Intervals] | None = None


def _python_sets() -> dict[str, _Intervals]:
    """Python's Unicode \\d, \\s and \\w as ranges, read from re itself once per process."""
    global _py_sets
    if _py_sets is None:
        import array
        import sys

        codes = array.array("I", range(_MAX_CODE + 1))
        if codes.itemsize == 4:
            codec = "utf-32-le" if sys.byteorder == "little" else "utf-32-be"
            every = codes.tobytes().decode(codec, "surrogatepass")
        else:  # pragma: no cover - platforms with a 2-byte C int
            every = "".join(map(chr, range(_MAX_CODE + 1)))
        _py_sets = {
            letter: tuple((m.start(), m.end() - 1) for m in re.finditer(f"\\{letter}+", every))
            for letter in "dsw"
        }
    return _py_sets


def _union(parts: Iterable[_Intervals]) -> _Intervals:
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(r for part in parts for r in part):
        if merged and lo <= merged[-1][1] + 1:
            if hi > merged[-1][1]:
                merged[-1] = (merged[-1][0], hi)
        else:
            merged.append((lo, hi))
    return tuple(merged)


def _complement(ranges: _Intervals) -> _Intervals:
    out: list[tuple[int, int]] = []
    nxt = 0
    for lo, hi in ranges:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= _MAX_CODE:
        out.append((nxt, _MAX_CODE))
    return tuple(out)


def _overlaps(a: _Intervals, b: _Intervals) -> bool:
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i][1] < b[j][0]:
            i += 1
        elif b[j][1] < a[i][0]:
            j += 1
        else:
            return True
    return False


def _letter_set(letter: str, js: bool) -> _Intervals:
    if letter == ".":
        return _complement(_JS_DOT_EXCLUDES if js else _PY_DOT_EXCLUDES)
    base = _JS_SETS[letter.lower()] if js else _python_sets()[letter.lower()]
    return base if letter.islower() else _complement(base)


def _resolve(recipe: _Recipe) -> _Intervals:
    """The code points a set can match in Python or in JavaScript (both engines read it)."""
    negate, items = recipe
    ranges = tuple(item for item in items if isinstance(item, tuple))
    letters = [item for item in items if isinstance(item, str)]
    variants = []
    for js in (False, True) if letters else (False,):
        chars = _union([ranges, *(_letter_set(letter, js) for letter in letters)])
        variants.append(_complement(chars) if negate else chars)
    return _union(variants)


# --- backtracking ----------------------------------------------------------------------------


class _Analysis:
    """The position automaton of one pattern, and the ambiguity tests on its loops.

    Every count below is a number of derivations capped at 2, because two ways to read the
    same text are what a backtracking engine pays for: ``null`` counts the ways a node matches
    the empty string, ``first``/``last`` map each position to the ways a match can start/end
    there, and an edge counts the ways to go from one position straight to the next. Counts
    follow Python's engine, the more generous of the two (ECMA-262 refuses an empty iteration
    once the minimum is met; Python runs one more before its guard applies).
    """

    def __init__(self, root: _Node) -> None:
        self.work = 0
        self.labels: list[int] = []  # position -> label; equal character sets share a label
        self.recipes: list[_Recipe] = []
        self.sets: dict[int, _Intervals] = {}
        self.overlap_memo: dict[tuple[int, int], bool] = {}
        self.label_of: dict[_Recipe, int] = {}
        for node in _postorder(root):
            self._summarise(node)
            self._size(node)
        stack = [(root, False)]
        while stack:
            node, inside = stack.pop()
            if _is_dead(node):
                continue  # never runs, so it can never backtrack
            node.cyclic = _iterates(node) and (node.big or inside)
            inside = node.kind != _LOOK and (inside or node.cyclic)
            stack.extend((kid, inside) for kid in node.kids)

    @staticmethod
    def _size(node: _Node) -> None:
        """A bounded repeat counts as a loop when it, or what it sits in, iterates a lot.

        ``(a|a){2}`` costs a backtracking engine four tries, but ``(a|a){99}``, and ``(a+){2}``
        (a bounded repeat around an unbounded one), cost as much as a real loop.
        """
        if node.kind == _LOOK or _is_dead(node):
            return
        node.weight = max((kid.weight for kid in node.kids), default=1)
        node.big = any(kid.big for kid in node.kids)
        if _iterates(node):
            if node.hi == _UNBOUNDED:
                node.big = True
            else:
                node.weight = min(node.weight * node.hi, _LARGE_REPEAT + 1)
                node.big = node.big or node.weight > _LARGE_REPEAT

    def spend(self, amount: int) -> None:
        self.work += amount
        if self.work > _MAX_WORK:
            raise _TooComplex

    def _summarise(self, node: _Node) -> None:
        kind = node.kind
        kids = node.kids
        if kind == _CHAR:
            assert node.recipe is not None
            node.pos = len(self.labels)
            label = self.label_of.setdefault(node.recipe, len(self.label_of))
            if label == len(self.recipes):
                self.recipes.append(node.recipe)
            self.labels.append(label)
            node.first = node.last = {node.pos: 1}
        elif kind in (_EMPTY, _LOOK) or _is_dead(node):
            node.null = 1
        elif kind == _SEQ:
            null = 1
            for kid in kids:
                null = min(2, null * kid.null)
            node.null = null
            node.first = self._ends(kids, at_start=True)
            node.last = self._ends(kids, at_start=False)
        elif kind == _ALT:
            node.null = min(2, sum(kid.null for kid in kids))
            node.first = self._merge([kid.first for kid in kids])
            node.last = self._merge([kid.last for kid in kids])
        elif kind == _GROUP:
            kid = kids[0]
            node.null, node.first, node.last = kid.null, kid.first, kid.last
        else:  # a _REPEAT that can run
            kid = kids[0]
            empty = kid.null
            if not _iterates(node):  # X? or X{1}
                node.null = min(2, empty + (node.lo == 0))
                node.first, node.last = kid.first, kid.last
            else:
                # Python's engine guards against empty iterations only after the first
                # optional one, so a nullable body adds ways: an empty iteration may come
                # before the first character (minimum of at least one) and after the last
                node.null = min(2, 1 + empty if node.lo == 0 else empty * (1 + empty))
                node.first = _scaled(kid.first, 1 + empty if node.lo >= 1 else 1)
                node.last = _scaled(kid.last, 1 + empty)

    def _ends(self, kids: list[_Node], *, at_start: bool) -> dict[int, int]:
        """Where a sequence's match can start (``at_start``) or end: skip nullable kids."""
        ends: dict[int, int] = {}
        ways = 1
        for kid in kids if at_start else reversed(kids):
            here = kid.first if at_start else kid.last
            self.spend(len(here))
            for p, count in here.items():
                ends[p] = min(2, ends.get(p, 0) + ways * count)
            ways = min(2, ways * kid.null)
            if not ways:
                break
        return ends

    def _merge(self, parts: list[dict[int, int]]) -> dict[int, int]:
        merged: dict[int, int] = {}
        for part in parts:
            self.spend(len(part))
            merged.update(part)  # the kids of an alternation own disjoint positions
        return merged

    def edges(
        self, root: _Node, flat: frozenset[int] = frozenset(), *, inside: bool = False
    ) -> dict[tuple[int, int], int]:
        """Follow edges, with derivation counts, that can lie on a cycle below ``root``.

        Loops whose id is in ``flat`` are read as if they ran at most once; ``inside`` reads
        ``root`` as if it sat in a loop, so that all its edges count.
        """
        edges: dict[tuple[int, int], int] = {}

        def link(sources: dict[int, int], targets: dict[int, int], ways: int = 1) -> None:
            self.spend(len(sources) * len(targets))
            for p, before in sources.items():
                for q, after in targets.items():
                    edges[p, q] = min(2, edges.get((p, q), 0) + before * after * ways)

        stack: list[tuple[_Node, bool]] = [(root, inside)]
        while stack:
            node, in_loop = stack.pop()
            self.spend(1)
            kind = node.kind
            if kind == _LOOK:  # a lookaround runs on its own; outer loops never re-enter it
                stack.append((node.kids[0], False))
            elif kind == _REPEAT:
                if _is_dead(node):
                    continue
                kid = node.kids[0]
                looping = node.cyclic and id(node) not in flat
                if looping:
                    # an empty iteration can sit between two others only up to the minimum
                    link(kid.last, kid.first, 1 + kid.null if node.lo >= 2 else 1)
                stack.append((kid, in_loop or looping))
            elif kind == _SEQ:
                if in_loop:
                    before: dict[int, int] = {}
                    for kid in node.kids:
                        link(before, kid.first)
                        before = _scaled(before, kid.null)
                        for p, count in kid.last.items():
                            before[p] = min(2, before.get(p, 0) + count)
                stack.extend((kid, in_loop) for kid in node.kids)
            else:
                stack.extend((kid, in_loop) for kid in node.kids)
        return edges

    def chars(self, label: int) -> _Intervals:
        """The code points of a label, resolved on first use (most never are)."""
        found = self.sets.get(label)
        if found is None:
            found = self.sets[label] = _resolve(self.recipes[label])
        return found

    def overlap(self, a: int, b: int) -> bool:
        """Whether labels ``a`` and ``b`` share a character."""
        key = (a, b) if a <= b else (b, a)
        found = self.overlap_memo.get(key)
        if found is None:
            found = self.overlap_memo[key] = _overlaps(self.chars(a), self.chars(b))
        return found

    def branches(self, edges: dict[tuple[int, int], int]) -> bool:
        """Whether some position has two ways on that can read the same character."""
        succ = _successors(edges)
        for targets in succ.values():
            if any(count > 1 and self.chars(self.labels[q]) for q, count in targets):
                return True
            if len(targets) < 2:
                continue
            spans = sorted((lo, hi, q) for q, _ in targets for lo, hi in self.chars(self.labels[q]))
            self.spend(len(spans))
            top, owner = -1, -1
            for lo, hi, q in spans:
                if lo <= top and owner != q:
                    return True
                if hi > top:
                    top, owner = hi, q
        return False

    def ambiguous_once(self, loop: _Node) -> bool:
        """Whether one iteration of ``loop`` can read the same text along two paths.

        Walks pairs of paths that start on the body's first positions together, remembering
        whether they have parted, until both stand on last positions.
        """
        body = loop.kids[0]
        succ = _successors(self.edges(loop, frozenset({id(loop)}), inside=True))
        todo: list[tuple[int, int, bool]] = []
        starts = list(body.first.items())
        for i, (p, count) in enumerate(starts):
            for p2, _ in starts[i:]:
                if self.overlap(self.labels[p], self.labels[p2]):
                    todo.append((p, p2, p != p2 or count > 1))
        seen = set(todo)
        while todo:
            p, p2, parted = todo.pop()
            if p in body.last and p2 in body.last and (parted or body.last[p] > 1):
                return True
            for r, count in succ.get(p, ()):
                for r2, _ in succ.get(p2, ()):
                    self.spend(1)
                    if not self.overlap(self.labels[r], self.labels[r2]):
                        continue
                    state = (min(r, r2), max(r, r2), parted or p != p2 or r != r2 or count > 1)
                    if state not in seen:
                        seen.add(state)
                        todo.append(state)
        return False

    def exponential(self, edges: dict[tuple[int, int], int]) -> bool:
        """Whether a cycle can read the same text along two different paths.

        Walks the product automaton from every pair (p, p), keeping pairs ordered because
        the product is symmetric, and looks for a strongly connected part of it that holds
        both such a pair and a step where the two paths differ.
        """
        if not self.branches(edges):
            return False
        succ = _successors(edges)
        component = _components(list(succ), lambda p: (q for q, _ in succ.get(p, ())))
        for (p, q), count in edges.items():
            if count > 1 and component[p] == component[q] and self.chars(self.labels[q]):
                return True  # two ways along one edge of a cycle: no product needed
        # the ways on from each position that stay in its component, grouped by label so
        # that labels which share no character are skipped as a whole
        ways: dict[int, list[tuple[int, list[tuple[int, int]]]]] = {}
        for p, targets in succ.items():
            grouped: dict[int, list[tuple[int, int]]] = {}
            for q, count in targets:
                if component[q] == component[p]:
                    grouped.setdefault(self.labels[q], []).append((q, count))
            ways[p] = list(grouped.items())
        pairs: dict[tuple[int, int], list[tuple[int, int]]] = {}
        distinct: list[tuple[tuple[int, int], tuple[int, int]]] = []
        todo = [(p, p) for p in succ]
        seen = set(todo)
        while todo:
            pair = todo.pop()
            p, p2 = pair
            outs: list[tuple[int, int]] = []
            for label, targets in ways.get(p, ()):
                for label2, targets2 in ways.get(p2, ()):
                    self.spend(1)
                    if not self.overlap(label, label2):
                        continue
                    self.spend(len(targets) * len(targets2))
                    for r, count in targets:
                        for r2, _ in targets2:
                            step = (r, r2) if r <= r2 else (r2, r)
                            outs.append(step)
                            if p != p2 or r != r2 or count > 1:
                                distinct.append((pair, step))
                            if step not in seen:
                                seen.add(step)
                                todo.append(step)
            pairs[pair] = outs
        if not distinct:
            return False
        product = _components(list(pairs), lambda pair: pairs.get(pair, ()))
        looped = {product[p, p] for p in succ}
        return any(product[a] == product[b] and product[a] in looped for a, b in distinct)


def _scaled(ways: dict[int, int], factor: int) -> dict[int, int]:
    if factor == 1:
        return ways
    return {p: min(2, count * factor) for p, count in ways.items() if factor}


def _successors(edges: dict[tuple[int, int], int]) -> dict[int, list[tuple[int, int]]]:
    succ: dict[int, list[tuple[int, int]]] = {}
    for (p, q), count in edges.items():
        succ.setdefault(p, []).append((q, count))
    return succ


def _components(nodes: list[_H], succ: Callable[[_H], Iterable[_H]]) -> dict[_H, int]:
    """Strongly connected components (iterative Tarjan): node -> component number."""
    index: dict[_H, int] = {}
    low: dict[_H, int] = {}
    component: dict[_H, int] = {}
    stack: list[_H] = []
    on_stack: set[_H] = set()
    counter = 0
    for root in nodes:
        if root in index:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(succ(root)))]
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(succ(child))))
                    advanced = True
                    break
                if child in on_stack and index[child] < low[node]:
                    low[node] = index[child]
            if advanced:
                continue
            work.pop()
            if work and low[node] < low[work[-1][0]]:
                low[work[-1][0]] = low[node]
            if low[node] == index[node]:
                number = len(component)
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component[member] = number
                    if member == node:
                        break
    return component


def _backtracking_problem(pattern: str, shown: str, root: _Node) -> str | None:
    analysis = _Analysis(root)
    for node in _preorder(root, _is_dead):
        if _iterates(node) and node.kids[0].null > 1:
            # each level of such nesting multiplies the ways to match nothing, whatever the input
            return (
                f"pattern {shown} can backtrack catastrophically on agent input: the repeat "
                f"{_quote(pattern[node.start : node.end])} at position {node.start} repeats "
                "something that can match the empty string in more than one way, so it can match "
                "the same input in many ways; rewrite it so that the repeated part must match at "
                "least one character"
            )
    if not analysis.branches(analysis.edges(root)):
        return None  # no position can go on two ways: every match is unambiguous
    for loop in _postorder(root):  # innermost first, so the message names the smallest culprit
        if loop.cyclic and analysis.exponential(analysis.edges(loop)):
            return _culprit_message(pattern, shown, analysis, loop)
    return None


def _culprit_message(pattern: str, shown: str, analysis: _Analysis, loop: _Node) -> str:
    """Name the likeliest cause of the ambiguity found in ``loop`` and a fix for it."""

    def src(node: _Node) -> str:
        return pattern[node.start : node.end]

    body = _preorder(loop.kids[0], lambda node: node.kind == _LOOK or _is_dead(node))
    head = (
        f"pattern {shown} can backtrack catastrophically on agent input: "
        f"the repeat {_quote(src(loop))} at position {loop.start}"
    )
    many = "so it can match the same input in many ways"
    for node in body:
        if node.kind == _ALT and node.null > 1:
            return (
                f"{head} contains {_quote(src(node))}, whose alternatives can each match the empty "
                f"string, {many}; rewrite it so that at most one alternative can match the empty "
                "string"
            )
        if node.kind == _REPEAT and node.kids[0].null:
            return _empty_body_message(f"{head} contains {_quote(src(node))}, which", node, src)
    has_alternatives = any(node.kind == _ALT for node in body)
    overlapping = (
        f"{head} has alternatives that can match the same text, {many}; rewrite the "
        "alternatives so that they start with different characters"
    )
    if has_alternatives and analysis.ambiguous_once(loop):
        return overlapping
    if analysis.ambiguous_once(loop):
        return (
            f"{head} can match a single repetition in more than one way, and repeating it "
            "multiplies the ways; rewrite the repeated part so that any text matches it only one "
            "way"
        )
    inner = [node for node in body if node.cyclic]
    if inner and not analysis.exponential(analysis.edges(loop, frozenset(map(id, inner)))):
        culprit = next(
            (
                m
                for m in inner
                if not analysis.exponential(analysis.edges(loop, frozenset({id(m)})))
            ),
            inner[0],
        )
        example = (
            f"by ending each repetition with a character that {_quote(src(culprit))} cannot match"
        )
        if _unwrap(loop.kids[0]) is culprit:
            merged = _merged_quantifier(loop, culprit)
            if merged:
                example = _quote(src(culprit.kids[0]) + merged)
        return (
            f"{head} contains the repeat {_quote(src(culprit))}, so the same text can be split "
            f"between them in many ways; rewrite it without the nested quantifier, e.g. {example}"
        )
    if has_alternatives:
        return overlapping
    if loop.kids[0].null:
        return _empty_body_message(head, loop, src)
    return (
        f"{head} has parts that can match the same characters, {many}; rewrite it so that "
        "consecutive parts match different characters"
    )


def _empty_body_message(head: str, node: _Node, src: Callable[[_Node], str]) -> str:
    """The message for a repeat or optional part whose body can match the empty string."""
    does, part = (
        ("repeats something", "repeated")
        if _iterates(node)
        else ("makes optional something", "optional")
    )
    fix = f"rewrite it so that the {part} part must match at least one character"
    kid = _unwrap(node.kids[0])
    if kid.kind == _REPEAT and not kid.kids[0].null:
        merged = _merged_quantifier(node, kid)
        if merged:
            fix = f"rewrite it as one quantifier, e.g. {_quote(src(kid.kids[0]) + merged)}"
    return (
        f"{head} {does} that can match the empty string, "
        f"so it can match the same input in many ways; {fix}"
    )


def _unwrap(node: _Node) -> _Node:
    """The node a group or a one-item sequence stands for."""
    while node.kind in (_GROUP, _SEQ) and len(node.kids) == 1:
        node = node.kids[0]
    return node


def _merged_quantifier(outer: _Node, inner: _Node) -> str:
    """One of ``?``, ``*``, ``+`` equal to ``(X<inner>)<outer>`` when both are such, else ""."""
    for node in (outer, inner):
        if node.lo not in (0, 1) or node.hi not in (1, _UNBOUNDED):
            return ""
    if _UNBOUNDED not in (outer.hi, inner.hi):
        return "?"
    return "+" if outer.lo == inner.lo == 1 else "*"
