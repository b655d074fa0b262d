"""Annotation texts evaluated without ``compile`` (``from __future__ import annotations``).

Under that import every annotation is a text, and evaluating one with ``eval`` means compiling
it first: 5-30 µs per text on the development machine, a third or more of registering a typed
tool whose texts were never seen. The texts of tool signatures use a small part of Python:
names, dotted names, subscripts, calls with literal arguments (``Ge(1)``, ``Field(description=
"...")``), ``|`` unions. ``parse`` reads that part into a small tree in a few microseconds, and
``evaluate`` runs the tree as ``eval`` runs the compiled text:

- names are looked up in the globals, then in their ``__builtins__``; ``None``, ``True``,
  ``False`` and ``...`` are constants;
- each step is the operation the bytecode performs (``getattr``, ``value[index]``, a call with
  positional then keyword arguments, ``left | right``), in the same order, left to right;
- a subscript of several items indexes with a tuple, as ``X[a, b]`` does.

Anything outside that part is not parsed, and ``parse`` returns ``None`` for the caller to
compile the text as before: other operators, a keyword other than the three constants, a
string with a backslash or a prefix, numbers other than plain decimal integers and ``1.5``
floats, slices, starred arguments, comprehensions, lambdas, non-ASCII names, whitespace other
than spaces, and nesting deeper than ``MAX_DEPTH``. Parsing runs no user code, so a text that
falls back is evaluated once, by ``eval``. ``tests/test_typed_texts.py`` checks the two ways
agree on generated texts, inside the part and outside it.

Example:
    >>> node = parse("dict[str, list[int]] | None")
    >>> evaluate(node, {"__builtins__": __builtins__})
    dict[str, list[int]] | None
    >>> parse("lambda: 1") is None
    True
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Iterable
from typing import Any, Final

__all__ = ["MAX_DEPTH", "Node", "evaluate", "parse"]

#: Brackets nested deeper than this are left to ``compile`` (which has its own limit).
MAX_DEPTH: Final = 32

#: A parsed text: a tuple whose first item is one of the kinds below.
Node = tuple[Any, ...]

_NAME, _CONST, _ATTR, _SUB, _CALL, _OR, _LIST, _TUPLE = range(8)

#: One token: a name, a number, a quoted string without backslash or control characters, or a
#: punctuation mark of the grammar. A number directly followed by a letter, digit, ``_`` or
#: ``.`` is not one, nor is an integer of more than 18 digits (``compile``'s limit on digits,
#: ``sys.set_int_max_str_digits``, is its own).
_TOKEN: Final = re.compile(
    r" *([A-Za-z_][A-Za-z0-9_]*"
    r"|(?:[0-9]+\.[0-9]+|0|[1-9][0-9]{0,17})(?![A-Za-z0-9_.])"
    r"|'[^'\\\x00-\x1f\x7f\ud800-\udfff]*'"
    r"|\"[^\"\\\x00-\x1f\x7f\ud800-\udfff]*\""
    r"|\.\.\.|[][(),|.=-])"
)
#: ``None``, ``True`` and ``False`` are constants; ``__debug__`` is compiled as a constant too,
#: and leaving it (with every other keyword) to ``compile`` is simplest.
_CONSTANTS: Final = {"None": None, "True": True, "False": False}
_KEYWORDS: Final = frozenset(keyword.kwlist) | {"__debug__"}
#: What a token is, by its first character (a name, a number, a string); other tokens are marks.
_STARTS: Final = {
    **dict.fromkeys("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_", _NAME),
    **dict.fromkeys("0123456789'\"", _CONST),
}


class _Outside(Exception):
    """The text uses Python outside the parsed part."""


def parse(text: str) -> Node | None:
    """The tree of an annotation text, or ``None`` when the text is outside the parsed part
    (or is not a valid expression): then ``compile`` it.

    Example:
        >>> parse("Annotated[int, Ge(1), Le(31)]") is not None
        True
        >>> parse("list[int] if flag else int") is None  # a conditional expression: compile it
        True
    """
    if text.isidentifier() and text.isascii():  # the commonest text: one name ("int")
        if text in _KEYWORDS:
            return (_CONST, _CONSTANTS[text]) if text in _CONSTANTS else None
        return (_NAME, text)
    if not text or text[0] == " ":
        return None  # compile refuses a leading space ("unexpected indent")
    tokens = _TOKEN.findall(text)
    # ``findall`` steps over what no token matches: the text is read only if every character
    # outside the tokens is a space (the spaces of the text, less those inside strings).
    joined = "".join(tokens)
    if len(joined) + text.count(" ") - joined.count(" ") != len(text):
        return None
    tokens.append("")  # the end: no token is empty
    try:
        node, at = _expression(tokens, 0, 0)
    except _Outside:
        return None
    return node if at == len(tokens) - 1 else None


def _expression(tokens: list[str], at: int, depth: int) -> tuple[Node, int]:
    """``primary ('|' primary)*``, left to right."""
    if depth > MAX_DEPTH:
        raise _Outside
    node, at = _primary(tokens, at, depth)
    while tokens[at] == "|":
        right, at = _primary(tokens, at + 1, depth)
        node = (_OR, node, right)
    return node, at


def _name(token: str) -> str:
    """A token that must be a name (after ``.``, before ``=``): not a keyword, not a constant."""
    if _STARTS.get(token[:1]) != _NAME or token in _KEYWORDS:
        raise _Outside
    return token


def _primary(tokens: list[str], at: int, depth: int) -> tuple[Node, int]:
    """An atom and its trailers (``.name``, ``[index]``, ``(arguments)``).

    A literal, a list or a tuple takes no trailer: ``compile`` warns about calling or indexing
    some of them (``[]()``, ``"a"[0]``), so such texts are left to it.
    """
    token = tokens[at]
    at += 1
    kind = _STARTS.get(token[:1])
    node: Node
    if kind == _NAME:
        if token in _KEYWORDS:
            if token not in _CONSTANTS:
                raise _Outside
            return (_CONST, _CONSTANTS[token]), at
        node = (_NAME, token)
    elif kind == _CONST:
        return (_CONST, _constant(token)), at
    elif token == "[":
        items, at, _ = _items(tokens, at, "]", depth)
        return (_LIST, items), at
    elif token == "(":
        items, at, comma = _items(tokens, at, ")", depth)
        if comma or len(items) != 1:
            return (_TUPLE, items), at
        node = items[0]
        if node[0] == _CONST:
            return node, at
    elif token == "-":
        token = tokens[at]
        if not token[:1].isdigit():
            raise _Outside
        return (_CONST, -_constant(token)), at + 1  # compile folds -1 into a constant too
    elif token == "...":
        return (_CONST, ...), at
    else:
        raise _Outside
    while True:
        token = tokens[at]
        if token == "[":
            items, at, comma = _items(tokens, at + 1, "]", depth)
            if not items:
                raise _Outside  # X[] is a syntax error
            node = (_SUB, node, items[0] if len(items) == 1 and not comma else (_TUPLE, items))
        elif token == ".":
            node = (_ATTR, node, _name(tokens[at + 1]))
            at += 2
        elif token == "(":
            node, at = _call(tokens, at + 1, node, depth)
        else:
            return node, at


def _constant(token: str) -> Any:
    """The value of a number or string token."""
    first = token[0]
    if first == "'" or first == '"':
        return token[1:-1]
    return float(token) if "." in token else int(token)


def _items(tokens: list[str], at: int, close: str, depth: int) -> tuple[list[Node], int, bool]:
    """Comma-separated expressions up to ``close``: the items, the position after ``close``, and
    whether a comma ended the list (``(a,)`` is a tuple, ``(a)`` is not)."""
    items: list[Node] = []
    while True:
        if tokens[at] == close:
            return items, at + 1, bool(items)
        item, at = _expression(tokens, at, depth + 1)
        items.append(item)
        token = tokens[at]
        if token == close:
            return items, at + 1, False
        if token != ",":
            raise _Outside
        at += 1


def _call(tokens: list[str], at: int, function: Node, depth: int) -> tuple[Node, int]:
    """Arguments up to ``)``: positional ones, then ``name=value`` ones (no repeated name)."""
    positional: list[Node] = []
    named: dict[str, Node] = {}
    while True:
        token = tokens[at]
        if token == ")":
            return (_CALL, function, positional, named), at + 1
        if tokens[at + 1] == "=" and _STARTS.get(token[:1]) == _NAME:
            if _name(token) in named:
                raise _Outside  # a syntax error, which compile reports
            named[token], at = _expression(tokens, at + 2, depth + 1)
        elif named:
            raise _Outside  # a positional argument after a named one
        else:
            item, at = _expression(tokens, at, depth + 1)
            positional.append(item)
        token = tokens[at]
        if token == ")":
            return (_CALL, function, positional, named), at + 1
        if token != ",":
            raise _Outside
        at += 1


def evaluate(node: Node, globalns: dict[str, Any]) -> Any:
    """What ``eval`` of the parsed text gives in ``globalns``; raises what the same step raises
    there (a missing name is a ``NameError``).

    Example:
        >>> evaluate(parse("int | None"), {"__builtins__": __builtins__})
        int | None
    """
    kind = node[0]
    if kind == _NAME:
        name = node[1]
        return globalns[name] if name in globalns else _builtin(name, globalns)
    if kind == _CONST:
        return node[1]
    if kind == _SUB:
        value = evaluate(node[1], globalns)
        return value[evaluate(node[2], globalns)]
    if kind == _CALL:
        function = evaluate(node[1], globalns)
        positional = _values(node[2], globalns)
        if not node[3]:
            return function(*positional)
        named = dict(zip(node[3], _values(node[3].values(), globalns), strict=True))
        return function(*positional, **named)
    if kind == _ATTR:
        return getattr(evaluate(node[1], globalns), node[2])
    if kind == _OR:
        left = evaluate(node[1], globalns)
        return left | evaluate(node[2], globalns)
    items = _values(node[1], globalns)
    return items if kind == _LIST else tuple(items)


def _values(nodes: Iterable[Node], globalns: dict[str, Any]) -> list[Any]:
    """``evaluate`` of each node in order; names and constants without a call of their own
    (they are most of the leaves)."""
    values: list[Any] = []
    append = values.append
    for node in nodes:
        kind = node[0]
        if kind == _CONST:
            append(node[1])
        elif kind == _NAME:
            name = node[1]
            append(globalns[name] if name in globalns else _builtin(name, globalns))
        else:
            append(evaluate(node, globalns))
    return values


def _builtin(name: str, globalns: dict[str, Any]) -> Any:
    """A name the globals lack, from their ``__builtins__`` (as ``eval`` looks it up)."""
    space = globalns.get("__builtins__", builtins)
    table = space if type(space) is dict else vars(space)
    if name in table:
        return table[name]
    raise NameError(f"name {name!r} is not defined")
