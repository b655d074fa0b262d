"""The tree of a parsed ``pattern``: what every reader of a pattern works from.

:func:`pedelec.schema.patterns.parse.parse` builds it; the backtracking analysis, the Python
translation, the fast paths and the linear-time matcher read it and never the text again.
Every node carries its ``start``/``end`` span in the source (the options of an alternation,
and the body of a group, span the whole group). Nodes are never changed after parsing.

- :class:`CharSet` one character out of a set: a literal, ``.``, ``\\d`` and friends, ``[...]``
- :class:`Seq` parts matched one after the other (possibly none)
- :class:`Alt` ``a|b``: two or more :class:`Seq` options
- :class:`Group` ``(...)`` (``index`` >= 1) or ``(?:...)`` (``index`` 0)
- :class:`Look` ``(?=...)``, ``(?!...)``, ``(?<=...)``, ``(?<!...)``
- :class:`Repeat` a quantified node: ``*``, ``+``, ``?``, ``{m}``, ``{m,}``, ``{m,n}``, lazy or not
- :class:`Anchor` a zero-width assertion: ``^``, ``$``, ``\\b``, ``\\B``
- :class:`Backref` ``\\1``..``\\99``: a closed capturing group, by number

The root is a :class:`Seq` or an :class:`Alt`; so is the body of a :class:`Group` or
:class:`Look`.
"""

from __future__ import annotations

from typing import Literal

__all__ = [
    "UNBOUNDED",
    "Alt",
    "Anchor",
    "Backref",
    "CharSet",
    "Group",
    "Item",
    "Look",
    "Node",
    "Repeat",
    "Seq",
    "walk",
]

UNBOUNDED = -1
"""``Repeat.hi`` of ``*``, ``+`` and ``{m,}``."""

Item = tuple[int, int] | str
"""One member of a :class:`CharSet`: an inclusive code point range, or a class letter.

The letters are ``d D s S w W`` (the escapes) and ``.``; what each means lives in
:mod:`pedelec.schema.patterns.charsets`, since it differs between the two engines.
"""


class Node:
    """A node of a parsed pattern; ``pattern[start:end]`` is the text it was read from."""

    __slots__ = ("end", "start")
    __match_args__: tuple[str, ...] = ("start", "end")

    def __init__(self, start: int, end: int) -> None:
        self.start = start
        self.end = end

    def kids(self) -> tuple[Node, ...]:
        """The nodes directly below this one, in source order."""
        return ()

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__match_args__)
        return f"{type(self).__name__}({fields})"


class CharSet(Node):
    """Matches one character: a member of ``items``, or of none of them when ``negated``.

    A literal ``a`` is ``items=((97, 97),)``; ``.`` is ``items=(".",)``; ``\\D`` is
    ``items=("D",)``; ``[^a-c\\d]`` is ``negated=True, items=((97, 99), "d")``.
    """

    __slots__ = ("items", "negated")
    __match_args__ = ("start", "end", "negated", "items")

    def __init__(self, start: int, end: int, negated: bool, items: tuple[Item, ...]) -> None:
        super().__init__(start, end)
        self.negated = negated
        self.items = items


class Seq(Node):
    """Matches ``parts`` one after the other; no parts match the empty string."""

    __slots__ = ("parts",)
    __match_args__ = ("start", "end", "parts")

    def __init__(self, start: int, end: int, parts: tuple[Node, ...]) -> None:
        super().__init__(start, end)
        self.parts = parts

    def kids(self) -> tuple[Node, ...]:
        return self.parts


class Alt(Node):
    """Matches one of two or more ``options``, tried left to right."""

    __slots__ = ("options",)
    __match_args__ = ("start", "end", "options")

    def __init__(self, start: int, end: int, options: tuple[Seq, ...]) -> None:
        super().__init__(start, end)
        self.options = options

    def kids(self) -> tuple[Node, ...]:
        return self.options


class Group(Node):
    """Parentheses around ``body``: capturing group number ``index``, or 0 for ``(?:...)``."""

    __slots__ = ("body", "index")
    __match_args__ = ("start", "end", "body", "index")

    def __init__(self, start: int, end: int, body: Seq | Alt, index: int) -> None:
        super().__init__(start, end)
        self.body = body
        self.index = index

    def kids(self) -> tuple[Node, ...]:
        return (self.body,)


class Look(Node):
    """A lookaround: ``body`` must (or, when ``negated``, must not) match here.

    ``ahead`` is True for ``(?=...)``/``(?!...)``, False for ``(?<=...)``/``(?<!...)``.
    """

    __slots__ = ("ahead", "body", "negated")
    __match_args__ = ("start", "end", "body", "ahead", "negated")

    def __init__(self, start: int, end: int, body: Seq | Alt, ahead: bool, negated: bool) -> None:
        super().__init__(start, end)
        self.body = body
        self.ahead = ahead
        self.negated = negated

    def kids(self) -> tuple[Node, ...]:
        return (self.body,)


class Repeat(Node):
    """``body`` matched ``lo`` to ``hi`` times (``hi`` is ``UNBOUNDED`` for no limit).

    ``lazy`` marks ``*?``, ``+?``, ``??`` and ``{m,n}?``, which try fewer iterations first.
    """

    __slots__ = ("body", "hi", "lazy", "lo")
    __match_args__ = ("start", "end", "body", "lo", "hi", "lazy")

    def __init__(self, start: int, end: int, body: Node, lo: int, hi: int, lazy: bool) -> None:
        super().__init__(start, end)
        self.body = body
        self.lo = lo
        self.hi = hi
        self.lazy = lazy

    def kids(self) -> tuple[Node, ...]:
        return (self.body,)


class Anchor(Node):
    """A zero-width assertion: ``kind`` is ``"^"``, ``"$"``, ``"b"`` (``\\b``) or ``"B"``.

    With no flags (the only mode the subset allows) ``^`` and ``$`` hold at the very start and
    the very end of the string; ``\\b`` sits between an ASCII word character and a non-word one.
    """

    __slots__ = ("kind",)
    __match_args__ = ("start", "end", "kind")

    def __init__(self, start: int, end: int, kind: Literal["^", "$", "b", "B"]) -> None:
        super().__init__(start, end)
        self.kind: Literal["^", "$", "b", "B"] = kind


class Backref(Node):
    """``\\index``: the text capturing group ``group`` (already closed) last matched."""

    __slots__ = ("group", "index")
    __match_args__ = ("start", "end", "index", "group")

    def __init__(self, start: int, end: int, index: int, group: Group) -> None:
        super().__init__(start, end)
        self.index = index
        self.group = group

    def __repr__(self) -> str:
        return f"Backref(start={self.start}, end={self.end}, index={self.index})"


def walk(root: Node) -> list[Node]:
    """Every node below ``root`` (itself included), children after their parent, in order."""
    out: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(node.kids()))
    return out
