"""How the validator matches a ``pattern``: Python ``re`` source with ECMA-262 meaning, or less.

Python's ``re`` differs from ECMA-262 (JSON Schema's dialect, u-flag, no other flag) in ways an
agent could use to slip past a pattern: ``$`` also matches before a final newline
(``"123\\n"`` passes ``^[0-9]+$``), ``.`` matches ``\\r``, ``\\d``/``\\w`` match non-ASCII
digits and letters, and ``\\s`` misses U+FEFF. :func:`to_python` writes the tree back out with
every character set spelled as explicit ranges of its ECMA-262 meaning (inside classes too)
and ``$`` as ``\\Z``; compiled with ``re.ASCII`` (for ``\\b``), it matches as ECMA-262 does.

:func:`plan` parses a pattern once and picks the cheapest test that gives the same answer:
``str`` methods for plain text, ``str.strip`` for one anchored character-class run, else the
compiled expression.
"""

from __future__ import annotations

import functools
import re
import sys
from typing import Literal, NamedTuple

from pedelec.schema.patterns.ambiguity import runs_linearly_in_re
from pedelec.schema.patterns.charsets import Intervals, complement, ecma_set
from pedelec.schema.patterns.matcher import Matcher, compile as compile_matcher
from pedelec.schema.patterns.parse import Invalid, TooComplex, Unportable, parse
from pedelec.schema.patterns.tree import (
    UNBOUNDED,
    Alt,
    Anchor,
    Backref,
    CharSet,
    Group,
    Look,
    Node,
    Repeat,
    Seq,
)

__all__ = [
    "PYTHON_FLAGS",
    "ClassRun",
    "Engine",
    "PatternPlan",
    "TextCheck",
    "plan",
    "to_python",
]

PYTHON_FLAGS = re.ASCII
"""The flags :func:`to_python`'s source is meant for: ``\\b`` and ``\\B`` are ASCII in ECMA-262."""

_UNBOUNDED_RUN = sys.maxsize
_PRINTABLE_ASCII = (0x20, 0x7E)
_SPECIAL = frozenset(".^$*+?{}[]\\|()")  # escaped outside a class
_CLASS_SPECIAL = frozenset("\\]-[^")  # escaped inside a class
_NAMED = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}
_LOOK_OPEN = {
    (True, False): "(?=",
    (True, True): "(?!",
    (False, False): "(?<=",
    (False, True): "(?<!",
}
_HOW: dict[tuple[bool, bool], Literal["prefix", "suffix", "exact", "inside"]] = {
    (True, True): "exact",
    (True, False): "prefix",
    (False, True): "suffix",
    (False, False): "inside",
}
# Python 3.11's \B fails on the empty string, where ECMA-262's holds; "not \b" holds there too
_ANCHOR = {"^": "^", "$": "\\Z", "b": "\\b", "B": "(?!\\b)"}


def to_python(tree: Seq | Alt) -> str:
    """Python ``re`` source that, compiled with :data:`PYTHON_FLAGS`, matches like ECMA-262.

    Args:
        tree: A parsed pattern (:func:`pedelec.schema.patterns.parse.parse`).

    Returns:
        The source: character sets as explicit ranges (``.`` is ``[^\\n\\r\\u2028\\u2029]``,
        ``\\d`` is ``[0-9]``), ``$`` as ``\\Z``, a backreference ``\\1`` as ``(?(1)\\1)``
        (empty while group 1 has not matched, as in ECMA-262), everything else as written.

    Example:
        >>> to_python(parse("^[\\\\d_]+$"))
        '^[0-9_]+\\\\Z'
    """
    out: list[str] = []
    # an iterative walk: strings are written out, nodes are expanded in place; the flag says
    # whether the node sits inside a lookbehind
    todo: list[tuple[Node | str, bool]] = [(tree, False)]
    while todo:
        item, behind = todo.pop()
        if isinstance(item, str):
            out.append(item)
        else:
            inner = behind or (isinstance(item, Look) and not item.ahead)
            todo.extend((piece, inner) for piece in reversed(_pieces(item, behind)))
    return "".join(out)


def _pieces(node: Node, behind: bool) -> list[Node | str]:
    """What a node is written as, its kids left to expand."""
    if isinstance(node, CharSet):
        return [_charset(ecma_set(node.negated, node.items))]
    if isinstance(node, Seq):
        return list(node.parts)
    if isinstance(node, Alt):
        pieces: list[Node | str] = []
        for option in node.options:
            pieces += [option, "|"]
        return pieces[:-1]
    if isinstance(node, Group):
        return ["(" if node.index else "(?:", node.body, ")"]
    if isinstance(node, Look):
        return [_LOOK_OPEN[node.ahead, node.negated], node.body, ")"]
    if isinstance(node, Repeat):
        return [node.body, _quantifier(node)]
    if isinstance(node, Anchor):
        return [_ANCHOR[node.kind]]
    assert isinstance(node, Backref)
    if behind:
        # Python wants a fixed width behind, which the conditional below would not have
        return [f"(?:\\{node.index})"]
    # ECMA-262 matches the empty string for a group that has not matched; Python would fail
    return [f"(?({node.index})\\{node.index})"]


def _quantifier(node: Repeat) -> str:
    lo, hi = node.lo, node.hi
    if hi == UNBOUNDED:
        text = {0: "*", 1: "+"}.get(lo, f"{{{lo},}}")
    elif (lo, hi) == (0, 1):
        text = "?"
    else:
        text = f"{{{lo}}}" if lo == hi else f"{{{lo},{hi}}}"
    return text + "?" if node.lazy else text


def _charset(ranges: Intervals) -> str:
    """One code point as itself, else a class of the ranges or of their complement."""
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return _char(ranges[0][0], _SPECIAL)
    others = complement(ranges)
    if ranges and (not others or len(ranges) <= len(others)):
        return f"[{_ranges(ranges)}]"
    return f"[^{_ranges(others)}]"


def _ranges(ranges: Intervals) -> str:
    parts = []
    for lo, hi in ranges:
        first = _char(lo, _CLASS_SPECIAL)
        if hi == lo:
            parts.append(first)
        elif hi == lo + 1:
            parts.append(first + _char(hi, _CLASS_SPECIAL))
        else:
            parts.append(f"{first}-{_char(hi, _CLASS_SPECIAL)}")
    return "".join(parts)


def _char(code: int, special: frozenset[str]) -> str:
    """A code point as re source: itself when printable ASCII, else an escape."""
    if code in _NAMED:
        return _NAMED[code]
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    if code > 0x7E:
        return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
    c = chr(code)
    return "\\" + c if c in special else c


# --- the plan ---------------------------------------------------------------------------------


class TextCheck(NamedTuple):
    """A pattern that is plain text: ``how`` says where ``text`` must stand in the string.

    ``prefix`` is ``s.startswith(text)``, ``suffix`` ``s.endswith(text)``, ``exact``
    ``s == text`` and ``inside`` ``text in s`` (``$`` is the very end in ECMA-262).
    """

    how: Literal["prefix", "suffix", "exact", "inside"]
    text: str


class ClassRun(NamedTuple):
    """``^prefix[...]{low,high}$``: the string is ``prefix`` then ``low``..``high`` allowed chars.

    ``allowed`` holds every character of the class, sorted (all printable ASCII, so
    ``str.strip(allowed)`` tests a run); ``high`` is ``sys.maxsize`` when unbounded.
    """

    prefix: str
    allowed: str
    low: int
    high: int


Engine = Literal["fast", "re", "matcher"]


class PatternPlan:
    """How to test a string against one ``pattern``: a fast check, Python ``re``, or the matcher.

    ``engine`` names the path :meth:`search` takes: ``"fast"`` (``fast`` is a
    :class:`TextCheck` or a :class:`ClassRun`), ``"re"`` (``regex``, proven linear, see
    :func:`pedelec.schema.patterns.ambiguity.runs_linearly_in_re`) or ``"matcher"``
    (``matcher``, the linear-time Pike VM of :mod:`pedelec.schema.patterns.matcher`).
    ``regex`` is the compiled :func:`to_python` source whenever ``re`` can compile it, for
    callers that want a match object, but only the ``"re"`` engine searches with it.
    """

    __slots__ = ("engine", "fast", "matcher", "regex", "source")

    def __init__(
        self,
        source: str,
        engine: Engine,
        fast: TextCheck | ClassRun | None,
        regex: re.Pattern[str] | None,
        matcher: Matcher | None,
    ) -> None:
        self.source = source
        self.engine: Engine = engine
        self.fast = fast
        self.regex = regex
        self.matcher = matcher

    def search(self, text: str) -> bool:
        """Whether ``text`` matches the pattern somewhere, as ECMA-262 reads it."""
        fast = self.fast
        if isinstance(fast, TextCheck):
            how, literal = fast
            if how == "prefix":
                return text.startswith(literal)
            if how == "suffix":
                return text.endswith(literal)
            return text == literal if how == "exact" else literal in text
        if isinstance(fast, ClassRun):
            prefix, allowed, low, high = fast
            rest = text[len(prefix) :]
            return text.startswith(prefix) and not rest.strip(allowed) and low <= len(rest) <= high
        if self.matcher is not None:
            return self.matcher.search(text)
        assert self.regex is not None
        return self.regex.search(text) is not None

    def __repr__(self) -> str:
        return f"PatternPlan({self.source!r}, engine={self.engine!r}, fast={self.fast!r})"


@functools.lru_cache(maxsize=1024)
def plan(pattern: str) -> PatternPlan:
    """Parse ``pattern`` once and choose how the validator tests strings against it.

    The one decision point: a fast check when the shape has one, else Python ``re`` when
    :func:`~pedelec.schema.patterns.ambiguity.runs_linearly_in_re` proves ``re.search``
    linear in the string's length, else the linear-time matcher. Every path costs time
    linear in the string.

    Args:
        pattern: A ``pattern`` the registration check accepted.

    Returns:
        The plan; ``plan(p).search(s)`` is whether ``s`` matches ``p`` under ECMA-262.

    Raises:
        ValueError: for a pattern the parser refuses, or that neither ``re`` (proven linear)
            nor the matcher can run; the registration check refuses it too.

    Example:
        >>> plan("^v1$").fast
        TextCheck(how='exact', text='v1')
        >>> plan("^[a-c]{2,8}$").fast
        ClassRun(prefix='', allowed='abc', low=2, high=8)
        >>> plan("^\\d*\\d*$").engine
        'matcher'
    """
    try:
        tree = parse(pattern)
    except Unportable as exc:
        raise ValueError(f"pattern {pattern!r} is not portable: it uses {exc.what}") from exc
    except Invalid as exc:
        raise ValueError(f"pattern {pattern!r} does not compile") from exc
    except TooComplex as exc:
        raise ValueError(f"pattern {pattern!r} is too large to parse") from exc
    try:
        regex: re.Pattern[str] | None = re.compile(to_python(tree), PYTHON_FLAGS)
    except (re.error, OverflowError, RecursionError):
        regex = None  # e.g. a lookbehind of variable width, which only the matcher runs
    fast = _fast(tree)
    if fast is not None:
        return PatternPlan(pattern, "fast", fast, regex, None)
    if regex is not None and runs_linearly_in_re(tree):
        return PatternPlan(pattern, "re", None, regex, None)
    return PatternPlan(pattern, "matcher", None, regex, compile_matcher(pattern, tree))


def _fast(tree: Seq | Alt) -> TextCheck | ClassRun | None:
    """The fast check for a tree whose shape has one, else None."""
    if not isinstance(tree, Seq):
        return None
    parts = _flat(tree)
    start = bool(parts) and _is_anchor(parts[0], "^")
    end = len(parts) > int(start) and _is_anchor(parts[-1], "$")
    body = parts[int(start) : len(parts) - int(end)]
    text = _text(body)
    if text:
        return TextCheck(_HOW[start, end], text)
    if not (start and end and body and isinstance(body[-1], Repeat)):
        return None
    prefix = _text(body[:-1])
    allowed = _allowed(body[-1].body)
    if prefix is None or allowed is None:
        return None
    run = body[-1]
    return ClassRun(prefix, allowed, run.lo, _UNBOUNDED_RUN if run.hi == UNBOUNDED else run.hi)


def _flat(seq: Seq) -> list[Node]:
    """A sequence's parts with non-capturing groups of one option opened up."""
    out: list[Node] = []
    todo: list[Node] = list(reversed(seq.parts))
    while todo:
        node = todo.pop()
        if isinstance(node, Group) and not node.index and isinstance(node.body, Seq):
            todo.extend(reversed(node.body.parts))
        else:
            out.append(node)
    return out


def _is_anchor(node: Node, kind: str) -> bool:
    return isinstance(node, Anchor) and node.kind == kind


def _text(parts: list[Node]) -> str | None:
    """The text ``parts`` spell when each is one literal character, else None."""
    chars = []
    for node in parts:
        if not isinstance(node, CharSet):
            return None
        ranges = ecma_set(node.negated, node.items)
        if len(ranges) != 1 or ranges[0][0] != ranges[0][1]:
            return None
        chars.append(chr(ranges[0][0]))
    return "".join(chars)


def _allowed(node: Node) -> str | None:
    """The characters one repeated item can match, when it is a printable ASCII set."""
    while isinstance(node, Group) and not node.index:
        body = node.body
        options = body.options if isinstance(body, Alt) else (body,)
        if not all(len(_flat(option)) == 1 for option in options):
            return None
        if len(options) > 1:
            sets = [_allowed(_flat(option)[0]) for option in options]
            if any(s is None for s in sets):
                return None
            return "".join(sorted(set("".join(s for s in sets if s is not None))))
        node = _flat(options[0])[0]
    if not isinstance(node, CharSet):
        return None
    ranges = ecma_set(node.negated, node.items)
    low, high = _PRINTABLE_ASCII
    if not ranges or ranges[0][0] < low or ranges[-1][1] > high:
        return None
    return "".join(chr(code) for lo, hi in ranges for code in range(lo, hi + 1))
