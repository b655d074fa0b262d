"""The project's one parser of ``pattern`` strings.

A pattern is read the way Python's :mod:`re` reads it, and any construct ECMA-262 (JavaScript,
the dialect of JSON Schema) reads differently is refused, so a tree that comes back
(:mod:`pedelec.schema.patterns.tree`) means the same in both engines except for the
character-set and ``$`` meanings that :mod:`pedelec.schema.patterns.translate` rewrites.
"""

from __future__ import annotations

from pedelec._json.render import SHOWN_NAME_CHARS, quote as quote_text
from pedelec.schema.patterns.tree import (
    UNBOUNDED,
    Alt,
    Anchor,
    Backref,
    CharSet,
    Group,
    Item,
    Look,
    Node,
    Repeat,
    Seq,
    walk,
)

__all__ = ["Invalid", "TooComplex", "Unportable", "parse", "quote"]

_MAX_NODES = 20_000
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


# --- errors ----------------------------------------------------------------------------------


class Unportable(Exception):
    """The pattern uses ``what`` at ``pos``, which ECMA-262 does not read as Python does."""

    def __init__(self, what: str, pos: int, fix: str) -> None:
        super().__init__(what)
        self.what = what
        self.pos = pos
        self.fix = fix


class Invalid(Exception):
    """Python's re rejects the text; re.compile words the reason."""


class TooComplex(Exception):
    """The pattern needs more work than a registration check should spend."""


def quote(text: str) -> str:
    """Quote a pattern or a piece of one for a message, as the message vocabulary quotes one.

    Backslashes stay as written (they are the pattern's own syntax); what is not printable is
    a JSON escape, so the message is one line, and a pattern shows at most 80 characters.
    """
    return quote_text(text, SHOWN_NAME_CHARS, verbatim=True)


# --- the parser ------------------------------------------------------------------------------


def parse(pattern: str) -> Seq | Alt:
    """Parse ``pattern`` into its tree.

    Raises:
        Unportable: for the first construct ECMA-262 reads otherwise than Python's re.
        Invalid: where Python's re would refuse the text.
        TooComplex: when the tree (backreferences counted as copies) passes 20 000 nodes.
    """
    return _Parser(pattern).parse()


class _Frame:
    """An open group while the parser reads its options."""

    __slots__ = ("alts", "index", "kind", "start")

    def __init__(self, kind: str, start: int, index: int = 0) -> None:
        self.kind = kind  # "root", "group", "=", "!", "<=", "<!"
        self.start = start
        self.index = index  # capturing group number, 0 when not capturing
        self.alts: list[list[Node]] = [[]]


def _literal(start: int, end: int, code: int) -> CharSet:
    return CharSet(start, end, False, ((code, code),))


class _Parser:
    """Iterative, so nesting depth never meets the recursion limit."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.groups: dict[int, Group] = {}
        self.sizes: dict[int, int] = {}  # group number -> nodes a copy of it would count
        self.group_count = 0
        self.nodes = 0

    def parse(self) -> Seq | Alt:
        text = self.text
        n = len(text)
        stack = [_Frame("root", 0)]
        i = 0
        while i < n:
            c = text[i]
            frame = stack[-1]
            seq = frame.alts[-1]
            if c == "(":
                i = self._open(i, stack)
            elif c == ")":
                if len(stack) == 1:
                    raise Invalid
                stack.pop()
                stack[-1].alts[-1].append(self._close_group(frame, i + 1))
                i += 1
            elif c == "|":
                frame.alts.append([])
                i += 1
            elif c in "*+?":
                lo, hi = {"*": (0, UNBOUNDED), "+": (1, UNBOUNDED), "?": (0, 1)}[c]
                i = self._quantify(seq, i, i + 1, lo, hi)
            elif c == "{":
                i = self._brace(seq, i)
            elif c == "[":
                i = self._class(seq, i)
            elif c == "\\":
                i = self._escape(seq, i)
            elif c == ".":
                seq.append(CharSet(i, i + 1, False, (".",)))
                i += 1
            elif c == "^" or c == "$":
                seq.append(Anchor(i, i + 1, "^" if c == "^" else "$"))
                i += 1
            elif c in "]}":
                raise Unportable(
                    f"the unescaped {quote(c)}", i, f"escape it as {quote(chr(92) + c)}"
                )
            else:
                seq.append(_literal(i, i + 1, ord(c)))
                i += 1
        if len(stack) != 1:
            raise Invalid
        return self._body(stack[0], n)

    def _count(self, more: int = 1) -> None:
        self.nodes += more
        if self.nodes > _MAX_NODES:
            raise TooComplex

    def _body(self, frame: _Frame, end: int) -> Seq | Alt:
        seqs = tuple(Seq(frame.start, end, tuple(parts)) for parts in frame.alts)
        self._count(len(seqs) + 2)
        return seqs[0] if len(seqs) == 1 else Alt(frame.start, end, seqs)

    def _close_group(self, frame: _Frame, end: int) -> Group | Look:
        body = self._body(frame, end)
        if frame.kind != "group":
            ahead = frame.kind in ("=", "!")
            return Look(frame.start, end, body, ahead, negated=frame.kind.endswith("!"))
        node = Group(frame.start, end, body, frame.index)
        if frame.index:
            self.groups[frame.index] = node
        return node

    def _open(self, i: int, stack: list[_Frame]) -> int:
        text = self.text
        if not text.startswith("(?", i):
            self.group_count += 1
            stack.append(_Frame("group", i, self.group_count))
            return i + 1
        c = text[i + 2 : i + 3]
        if c == ":":
            stack.append(_Frame("group", i))
            return i + 3
        if c in ("=", "!"):
            stack.append(_Frame(c, i))
            return i + 3
        if c == "<" and text[i + 3 : i + 4] in ("=", "!"):
            stack.append(_Frame(text[i + 2 : i + 4], i))
            return i + 4
        raise _unportable_group(text, i, c)

    def _quantify(self, seq: list[Node], start: int, after: int, lo: int, hi: int) -> int:
        if not seq or isinstance(seq[-1], (Anchor, Repeat)):
            raise Invalid  # nothing to repeat, or multiple repeat
        text = self.text
        quantifier = text[start:after]
        if text[after : after + 1] == "+":
            raise Unportable(
                f"the possessive quantifier {quote(quantifier + '+')}",
                start,
                f"use {quote(quantifier)} instead",
            )
        lazy = text[after : after + 1] == "?"
        if lazy:
            after += 1
        item = seq[-1]
        if isinstance(item, Look):
            raise Unportable(
                f"the quantifier {quote(quantifier)} on a lookaround assertion",
                start,
                "remove the quantifier",
            )
        self._count()
        seq[-1] = Repeat(item.start, after, item, lo, hi, lazy)
        return after

    def _brace(self, seq: list[Node], i: int) -> int:
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
                fix = '"*"' if not high else quote("{0," + high + "}")
                raise Unportable(f"the quantifier {quote(shown)}", i, f"use {fix} instead")
            lo = _count_value(low)
            hi = _count_value(high) if high else UNBOUNDED
            return self._quantify(seq, i, j + 1, lo, hi)
        raise Unportable('the unescaped "{"', i, _brace_fix(text, i))

    def _class(self, seq: list[Node], i: int) -> int:
        text = self.text
        j = i + 1
        if text[j : j + 1] == "[":
            raise Unportable('"[" inside a character class', j, 'escape it as "\\["')
        negate = text[j : j + 1] == "^"
        if negate:
            j += 1
        items: list[Item] = []
        closed = False
        while not closed:
            j, closed = self._class_item(j, items)
        self._count()
        seq.append(CharSet(i, j, negate, tuple(items)))
        return j

    def _class_item(self, j: int, items: list[Item]) -> tuple[int, bool]:
        """Read one member or range of a class at ``j``: (where reading goes on, class closed)."""
        text = self.text
        n = len(text)
        if j >= n:
            raise Invalid
        c = text[j]
        first: int | str
        if c == "]" and items:
            return j + 1, True
        if c == "]":
            raise Unportable(
                '"]" as the first character of a character class', j, 'escape it as "\\]"'
            )
        if c == "\\":
            first, j = self._class_escape(j)
        else:
            if items and c in "-&~|" and text[j + 1 : j + 2] == c:
                raise Unportable(*_doubled(c, j))
            first = ord(c)
            j += 1
        if text[j : j + 1] != "-":
            items.append(first if isinstance(first, str) else (first, first))
            return j, False
        if j + 1 >= n:
            raise Invalid
        that = text[j + 1]
        if that == "]":
            items.append(first if isinstance(first, str) else (first, first))
            items.append((0x2D, 0x2D))
            return j + 2, True
        second: int | str
        if that == "\\":
            second, j = self._class_escape(j + 1)
        else:
            if that == "-":
                raise Unportable(*_doubled("-", j))
            second = ord(that)
            j += 2
        if isinstance(first, str) or isinstance(second, str) or second < first:
            raise Invalid
        items.append((first, second))
        return j, False

    def _class_escape(self, j: int) -> tuple[int | str, int]:
        """Read an escape inside a class at ``j``; a class letter or a code point."""
        text = self.text
        c = text[j + 1 : j + 2]
        if not c:
            raise Invalid
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
            raise Unportable(*_octal(text, j, k))
        if c in _DIGITS or (c.isascii() and c.isalpha()):
            raise Invalid
        if c in _CLASS_SYNTAX:
            return ord(c), j + 2
        raise Unportable(*_identity(c, j))

    def _code_escape(self, j: int) -> tuple[int, int]:
        """Read \\x, \\u, \\U, \\N or \\a at ``j``, all of which mean a code point in Python."""
        text = self.text
        c = text[j + 1]
        if c == "a":
            raise Unportable('the escape "\\a"', j, 'use "\\x07" instead')
        if c == "N":
            close = text.find("}", j)
            shown = text[j : close + 1] if text[j + 2 : j + 3] == "{" and close > 0 else "\\N"
            raise Unportable(f"the escape {quote(shown)}", j, "write the character itself instead")
        width = {"x": 2, "u": 4, "U": 8}[c]
        digits = text[j + 2 : j + 2 + width]
        if len(digits) != width or not set(digits) <= _HEX:
            raise Invalid
        code = int(digits, 16)
        if code > _MAX_CODE:
            raise Invalid
        shown = quote(text[j : j + 2 + width])
        if c == "U":
            fix = (
                f'use "\\u{code:04x}" instead'
                if code <= 0xFFFF
                else "write the character itself instead"
            )
            raise Unportable(f"the escape {shown}", j, fix)
        if 0xD800 <= code <= 0xDFFF:
            raise Unportable(
                f"the surrogate escape {shown}", j, "write the character itself instead"
            )
        return code, j + 2 + width

    def _escape(self, seq: list[Node], i: int) -> int:
        text = self.text
        c = text[i + 1 : i + 2]
        if not c:
            raise Invalid
        if c in "dDsSwW":
            seq.append(CharSet(i, i + 2, False, (c,)))
            return i + 2
        if c == "b" or c == "B":
            seq.append(Anchor(i, i + 2, "b" if c == "b" else "B"))
            return i + 2
        if c == "A":
            raise Unportable('"\\A"', i, 'use "^" instead')
        if c in "Zz":
            raise Unportable(quote("\\" + c), i, 'use "$" instead')
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
            raise Unportable(*_octal(text, i, k))
        if c in _DIGITS:
            return self._backref(seq, i)
        if c.isascii() and c.isalpha():
            raise Invalid
        if c in _SYNTAX:
            seq.append(_literal(i, i + 2, ord(c)))
            return i + 2
        raise Unportable(*_identity(c, i))

    def _backref(self, seq: list[Node], i: int) -> int:
        text = self.text
        c = text[i + 1]
        k = i + 2
        if text[k : k + 1] in _DIGITS:
            if c in _OCTAL and text[k] in _OCTAL and text[k + 1 : k + 2] in _OCTAL:
                raise Unportable(*_octal(text, i, k + 2))
            k += 1
        index = int(text[i + 1 : k])
        group = self.groups.get(index)
        if group is None:
            raise Invalid
        # the analysis reads a backreference as a copy of its group, so it costs as much
        self._count(self._size(index))
        seq.append(Backref(i, k, index, group))
        return k

    def _size(self, index: int) -> int:
        """How many nodes group ``index`` holds, its own backreferences read as copies."""
        size = self.sizes.get(index)
        if size is None:
            size = sum(
                self._size(node.index) if isinstance(node, Backref) else 1
                for node in walk(self.groups[index])
            )
            self.sizes[index] = size
        return size


def _unportable_group(text: str, i: int, c: str) -> Exception:
    """The error for ``(?`` followed by ``c`` at ``i``, which no portable group starts with."""
    if c == "P" and text[i + 3 : i + 4] == "<":
        close = text.find(">", i)
        shown = text[i : close + 1] + "...)" if close > 0 else "(?P<name>...)"
        return Unportable(f"the named group {quote(shown)}", i, 'use a plain group "(...)" instead')
    if c == "P" and text[i + 3 : i + 4] == "=":
        close = text.find(")", i)
        shown = text[i : close + 1] if close > 0 else "(?P=name)"
        return Unportable(
            f"the named backreference {quote(shown)}",
            i,
            'refer to a plain group by its number instead, e.g. "\\1"',
        )
    if c == "#":
        return Unportable('the comment group "(?#...)"', i, "remove it")
    if c == "(":
        close = text.find(")", i + 3)
        shown = text[i : close + 1] + "...)" if close > 0 else "(?(...)...)"
        return Unportable(
            f"the conditional group {quote(shown)}", i, 'rewrite it as an alternation "(?:...|...)"'
        )
    if c == ">":
        return Unportable(
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
        return Unportable(f"the inline flags {quote(shown)}", i, _FLAG_FIXES[c])
    return Invalid()


def _brace_fix(text: str, i: int) -> str:
    """The fix for an unescaped ``{`` at ``i`` that does not start a quantifier."""
    close = text.find("}", i, i + 24)
    if close > 0:
        inside = text[i + 1 : close]
        if any(c.isspace() for c in inside) and all(
            c in _DIGITS or c == "," or c.isspace() for c in inside
        ):
            return (
                f"remove the spaces from {quote(text[i : close + 1])} if it is meant as a "
                'quantifier, or escape the brace as "\\{"'
            )
    return 'escape it as "\\{"'


def _count_value(digits: str) -> int:
    # re refuses counts this large anyway; avoid int() on thousands of digits
    return int(digits) if len(digits) <= 10 else 1 << 32


def _identity(c: str, pos: int) -> tuple[str, int, str]:
    shown = quote(c)
    return f"the escape {quote(chr(92) + c)}", pos, f"write {shown} without the backslash"


def _octal(text: str, start: int, end: int) -> tuple[str, int, str]:
    digits = text[start + 1 : end]
    if digits == "0":  # \0 and then a digit that is not octal
        return '"\\0" followed by a digit', start, 'use "\\x00" instead'
    code = int(digits, 8)
    fix = f'use "\\x{code:02x}" instead' if code <= 0xFF else 'use "\\x" or "\\u" escapes instead'
    return f"the octal escape {quote(text[start:end])}", start, fix


def _doubled(c: str, pos: int) -> tuple[str, int, str]:
    fix = 'escape the second one as "\\-"' if c == "-" else f"list {quote(c)} only once"
    return f"{quote(c + c)} inside a character class", pos, fix
