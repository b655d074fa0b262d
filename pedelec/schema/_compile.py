"""Compile a checked Tool Args Schema into a pair of plain Python functions.

A validator is two generated functions: ``is_valid(value) -> bool``, which returns at the first
failure and allocates nothing on the success path, and ``collect(value, path, out)``, which walks
the same checks in the same order and records every failure. Both come from one generator (the
``_Gen`` class below) that emits, for every check, either ``return False`` or ``out.add(...)``, so
the two cannot disagree about what is valid.

Safety: the generated source never contains schema text. Property names, numbers, enum sets and
compiled patterns are passed in as closure variables of a factory function; the source only
holds generated identifiers and fixed code. The source is registered in ``linecache`` so a
traceback through a validator reads like any other code.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import re
import sys
from collections.abc import Callable, Hashable, Iterator
from typing import Any, Final, final

from pedelec._json import json_key, pointer

__all__ = ["ArgError", "Validator", "accepts", "compile_node"]

# Above this many indentation levels a sub-node gets a function of its own, far below the
# parser's limit of 100 levels and the compiler's 20 nested loops.
_MAX_INLINE_INDENT: Final = 24

_MISSING: Final = object()


@final
class ArgError(tuple[str, str, str]):
    """One way in which a value fails its schema (an immutable ``(path, keyword, message)``).

    Attributes:
        path: JSON pointer into the value (``""`` for the value itself), e.g. ``"/card/labels/1"``.
        keyword: The schema keyword that failed, e.g. ``"uniqueItems"``.
        message: What was expected and what arrived, e.g. ``"duplicate of item 0"``.

    Example:
        >>> err = ArgError("/card/labels/1", "uniqueItems", "duplicate of item 0")
        >>> str(err)
        '/card/labels/1: duplicate of item 0 (uniqueItems)'
        >>> err.to_dict()["keyword"]
        'uniqueItems'
    """

    __slots__ = ()

    def __new__(cls, path: str, keyword: str, message: str) -> ArgError:
        return tuple.__new__(cls, (path, keyword, message))

    @property
    def path(self) -> str:
        return self[0]

    @property
    def keyword(self) -> str:
        return self[1]

    @property
    def message(self) -> str:
        return self[2]

    def to_dict(self) -> dict[str, str]:
        """Return ``{"path", "keyword", "message"}``."""
        return {"path": self[0], "keyword": self[1], "message": self[2]}

    def __str__(self) -> str:
        return f"{self[0] or '(root)'}: {self[2]} ({self[1]})"

    def __repr__(self) -> str:
        return f"ArgError(path={self[0]!r}, keyword={self[1]!r}, message={self[2]!r})"


class _Full(Exception):
    """Raised inside ``collect`` once the error cap is reached, to stop the walk at once."""


class _Errors:
    """Collects ``(path tuple, keyword, message)`` up to a cap."""

    __slots__ = ("cap", "items")

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.items: list[tuple[tuple[str | int, ...], str, str]] = []

    def add(self, path: tuple[str | int, ...], keyword: str, message: str) -> None:
        self.items.append((path, keyword, message))
        if len(self.items) >= self.cap:
            raise _Full


#: Errors reported by ``Validator.errors`` when no cap is given.
DEFAULT_MAX_ERRORS: Final = 50


@final
class Validator:
    """A compiled validator for one Tool Args Schema.

    Build one with ``pedelec.compile_schema(schema)``; validators are cached and thread-safe.

    Attributes:
        schema: The checked, cloned schema this validator was compiled from (do not mutate it).
        is_valid: ``is_valid(value) -> bool``, the fast check. Agrees with ``errors`` on every
            input: ``is_valid(v)`` is true exactly when ``errors(v) == []``.

    Example:
        >>> from pedelec import compile_schema
        >>> v = compile_schema({"type": "object", "properties": {"n": {"type": "integer"}}})
        >>> v.is_valid({"n": 1}), v.is_valid({"n": True})
        (True, False)
        >>> [str(e) for e in v.errors({"n": "1"})]
        ['/n: expected integer, got string "1" (type)']
    """

    __slots__ = ("_collect", "_collect_fn", "_fast", "_pattern_limit", "is_valid", "schema")

    schema: dict[str, Any]
    is_valid: Callable[[Any], bool]

    def __init__(self, schema: dict[str, Any], pattern_limit: int) -> None:
        self.schema = schema
        self._pattern_limit = pattern_limit
        # Code is generated on first use, not here: a session with many tools pays only for
        # the ones an agent calls, and only once (about a quarter millisecond per function).
        self._fast: Callable[[Any], bool] | None = None
        self._collect_fn: Callable[[Any, tuple[str | int, ...], _Errors], None] | None = None
        self.is_valid = self._first_is_valid
        self._collect = self._first_collect

    def _bool_function(self) -> Callable[[Any], bool]:
        fast = self._fast
        if fast is None:
            # Two threads may both generate it; both functions are equivalent.
            fast = self._fast = _function(self.schema, "bool", self._pattern_limit)
            self.is_valid = fast
        return fast

    def _collect_function(self) -> Callable[[Any, tuple[str | int, ...], _Errors], None]:
        collect = self._collect_fn
        if collect is None:
            collect = self._collect_fn = _function(self.schema, "err", self._pattern_limit)
            self._collect = collect
        return collect

    def _first_is_valid(self, value: Any) -> bool:
        return self._bool_function()(value)

    def _first_collect(self, value: Any, path: tuple[str | int, ...], out: _Errors) -> None:
        self._collect_function()(value, path, out)

    def errors(self, value: Any, max_errors: int | None = None) -> list[ArgError]:
        """Return every way ``value`` fails the schema, in schema order, at most ``max_errors``.

        Order: a node's own checks first (type, then its keywords in the order of the table in
        the docs), then for an object each property in the order ``properties`` declares them,
        then undeclared properties; for an array the items by index, then ``uniqueItems``.
        ``max_errors`` defaults to 50.
        """
        # No is_valid() first: callers ask for errors when they already know the value is
        # invalid, and the collecting walk finds nothing exactly when the value is valid.
        out = _Errors(DEFAULT_MAX_ERRORS if max_errors is None else max(1, max_errors))
        try:
            self._collect(value, (), out)
        except _Full:
            pass
        except Exception as exc:  # a hostile non-JSON object raised while being examined
            out.items.append(((), "type", f"value could not be examined: {type(exc).__name__}"))
        new = tuple.__new__  # ArgError's own __new__ is a Python call; this one is C
        return [new(ArgError, (pointer(p) if p else "", k, m)) for p, k, m in out.items]

    def iter_errors(self, value: Any) -> Iterator[ArgError]:
        """Iterate over ``errors(value)``."""
        return iter(self.errors(value))

    def __repr__(self) -> str:
        return f"<pedelec Validator for {self.schema.get('type', 'oneOf')} schema>"


# --- messages ---------------------------------------------------------------------------------


def _describe(value: Any) -> str:
    """Name a value's JSON type and show it briefly: ``string "abc"``, ``integer 3``, ``array``."""
    t = type(value)
    if t is str:
        return f"string {_quote(value)}"
    if t is bool:
        return "boolean true" if value else "boolean false"
    if t is int:
        text = str(value) if value.bit_length() < 128 else f"{str(value)[:20]}…"
        return f"integer {text}"
    if t is float:
        if value != value or value in (float("inf"), float("-inf")):
            return f"{value!r} (not a JSON number)"
        return f"number {value!r}"
    if value is None:
        return "null"
    if t is list:
        return f"array of {len(value)} item{'' if len(value) == 1 else 's'}"
    if t is dict:
        return "object"
    return f"Python {t.__name__} (not a JSON value)"


def _quote(text: str, limit: int = 40) -> str:
    if len(text) > limit:
        text = text[:limit] + "…"
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _scalar(value: Any) -> str:
    if type(value) is str:
        return _quote(value, 60)
    if type(value) is bool:
        return "true" if value else "false"
    return repr(value)


def _m_type(expected: str, value: Any) -> str:
    return f"expected {expected}, got {_describe(value)}"


# Numbers reach these only after their type check, so repr is their JSON text.
def _m_min(limit: Any, value: Any) -> str:
    return f"must be >= {limit!r}, got {value!r}"


def _m_max(limit: Any, value: Any) -> str:
    return f"must be <= {limit!r}, got {value!r}"


def _plural(n: Any, word: str) -> str:
    # A count may be written 2.0 in the schema; it still reads "2 characters".
    return f"{int(n)} {word}{'' if n == 1 else 's'}"


def _m_min_length(limit: Any, n: int) -> str:
    return f"must be at least {_plural(limit, 'character')} long, got {n}"


def _m_max_length(limit: Any, n: int) -> str:
    return f"must be at most {_plural(limit, 'character')} long, got {n}"


def _m_min_items(limit: Any, n: int) -> str:
    return f"must have at least {_plural(limit, 'item')}, got {n}"


def _m_max_items(limit: Any, n: int) -> str:
    return f"must have at most {_plural(limit, 'item')}, got {n}"


def _m_enum(options: tuple[Any, ...], value: Any) -> str:
    shown = ", ".join(_scalar(o) for o in options[:10])
    if len(options) > 10:
        shown += f", … ({len(options)} in all)"
    return f"must be one of {shown}; got {_scalar(value)}"


def _m_pattern(source: str, value: str) -> str:
    return f"must match pattern {_quote(source, 80)}, got {_quote(value)}"


def _m_pattern_too_long(source: str, limit: int, n: int) -> str:
    return (
        f"is {n} characters long, too long to check against pattern {_quote(source, 80)} "
        f"(limit {limit}); send a shorter string"
    )


def _m_required(name: str) -> str:
    return f"missing required property {_quote(name, 80)}"


# --- runtime helpers used by generated code ---------------------------------------------------


def _first_duplicate(items: list[Any]) -> tuple[int, int] | None:
    seen: dict[Hashable, int] = {}
    for j, item in enumerate(items):
        i = seen.setdefault(json_key(item), j)
        if i != j:
            return i, j
    return None


def _unique_errors(items: list[Any], path: tuple[str | int, ...], out: _Errors) -> None:
    seen: dict[Hashable, int] = {}
    for j, item in enumerate(items):
        i = seen.setdefault(json_key(item), j)
        if i != j:
            out.add((*path, j), "uniqueItems", f"duplicate of item {i}")


_LEAVE: Final = object()


def _non_json(value: Any, path: tuple[str | int, ...]) -> tuple[tuple[str | int, ...], str] | None:
    """Find the first part of ``value`` that is not plain JSON, without recursion.

    Each item's place is kept as a ``(parent link, key)`` pair and only turned into a path for
    the finding, so a deep value costs time linear in its size, not in size times depth. Only
    the containers being walked count for cycles: a list that appears twice side by side is
    JSON (``clone_json`` copies it twice), a list inside itself is not.
    """
    stack: list[tuple[Any, Any]] = [(value, None)]
    active: set[int] = set()
    while stack:
        v, link = stack.pop()
        if v is _LEAVE:
            active.discard(link)
            continue
        t = type(v)
        if t is str or t is int or t is bool or v is None:
            continue
        if t is float:
            if v - v != 0.0:
                return _unlink(path, link), _describe(v)
            continue
        if t is list or t is dict:
            if id(v) in active:
                return _unlink(path, link), "a cycle (a container inside itself)"
            active.add(id(v))
            stack.append((_LEAVE, id(v)))
            if t is list:
                stack.extend((x, (link, i)) for i, x in enumerate(v))
            else:
                for k, x in v.items():
                    if type(k) is not str:
                        return _unlink(path, link), f"an object key {k!r} that is not a string"
                    stack.append((x, (link, k)))
            continue
        return _unlink(path, link), f"Python {t.__name__}"
    return None


def _unlink(path: tuple[str | int, ...], link: Any) -> tuple[str | int, ...]:
    """The path of a ``_non_json`` link: ``path`` followed by the keys from the root down."""
    keys: list[str | int] = []
    while link is not None:
        link, key = link
        keys.append(key)
    return (*path, *reversed(keys))


def _extras_ok(obj: dict[Any, Any], declared: frozenset[str]) -> bool:
    for k, x in obj.items():
        if k not in declared and (type(k) is not str or _non_json(x, ()) is not None):
            return False
    return True


def _extras_errors(
    obj: dict[Any, Any], declared: frozenset[str], path: tuple[str | int, ...], out: _Errors
) -> None:
    for k, x in obj.items():
        if k in declared:
            continue
        if type(k) is not str:
            out.add(path, "type", f"object keys must be strings, got key {k!r}")
            continue
        found = _non_json(x, (*path, k))
        if found is not None:
            out.add(found[0], "type", f"expected a JSON value, got {found[1]}")


def _one_of_errors(
    value: Any,
    path: tuple[str | int, ...],
    out: _Errors,
    branches: tuple[Validator, ...],
) -> None:
    matched = [i for i, b in enumerate(branches) if b.is_valid(value)]
    if len(matched) == 1:
        return
    if matched:
        which = ", ".join(str(i + 1) for i in matched)
        out.add(
            path,
            "oneOf",
            f"matches alternatives {which} of {len(branches)}; it must match exactly one",
        )
        return
    reasons = []
    for i, b in enumerate(branches):
        first = _Errors(1)
        with contextlib.suppress(_Full):
            b._collect(value, path, first)
        p, _, m = first.items[0]
        where = pointer(p) or "(root)"
        reasons.append(f"[{i + 1}] {where}: {m}")
    out.add(
        path,
        "oneOf",
        f"matches none of the {len(branches)} alternatives: " + "; ".join(reasons),
    )


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


@functools.lru_cache(maxsize=1024)
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


def _never(value: Any) -> bool:
    return False


def _discriminator(branches: list[dict[str, Any]]) -> tuple[str, dict[str, int]] | None:
    """Find a tag that tells ``oneOf`` object branches apart: ``(property, value -> branch)``.

    The property must be required in every branch and be a plain string node with an ``enum``,
    and no value may appear in two branches' enums; then a value's tag picks the only branch
    that could accept it.
    """
    if len(branches) < 2 or any(b.get("type") != "object" for b in branches):
        return None
    first = branches[0]
    for key in first.get("required", ()):
        table: dict[str, int] = {}
        for i, branch in enumerate(branches):
            sub = branch.get("properties", {}).get(key)
            if (
                key not in branch.get("required", ())
                or not isinstance(sub, dict)
                or sub.get("type") != "string"
                or "enum" not in sub
                or any(value in table for value in sub["enum"])
            ):
                break
            table.update((value, i) for value in sub["enum"])
        else:
            return key, table
    return None


# --- the generator ----------------------------------------------------------------------------


_SCALAR_TYPES: Final = frozenset({"string", "number", "integer", "boolean"})


class _Gen:
    """Emits the source of one function, in one of two modes: ``"bool"`` or ``"err"``."""

    def __init__(self, mode: str, consts: dict[str, Any], pattern_limit: int) -> None:
        self.err = mode == "err"
        self.consts = consts
        self.lines: list[str] = []
        self.pattern_limit = pattern_limit
        self._n = 0

    def name(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}{self._n}"

    def const(self, value: Any) -> str:
        name = f"_k{len(self.consts)}"
        self.consts[name] = value
        return name

    def line(self, ind: int, text: str) -> None:
        self.lines.append("    " * ind + text)

    def checks(self, ind: int, checks: list[tuple[str, str, str, str]], p: tuple[str, ...]) -> None:
        """Emit independent checks ``(bool_cond, err_cond, keyword, message_expr)``."""
        if not checks:
            return
        if self.err:
            for _, cond, keyword, message in checks:
                self.line(ind, f"if {cond}:")
                self.line(ind + 1, f"out.add({self.path(p)}, {keyword!r}, {message})")
        else:
            self.line(ind, f"if {' or '.join(c for c, _, _, _ in checks)}:")
            self.line(ind + 1, "return False")

    def type_check(self, ind: int, bad: str, expected: str, v: str, p: tuple[str, ...]) -> int:
        """Emit the type test; return the indentation at which the node's other checks go."""
        self.line(ind, f"if {bad}:")
        if self.err:
            self.line(ind + 1, f"out.add({self.path(p)}, 'type', _m_type({expected!r}, {v}))")
            self.line(ind, "else:")
            return ind + 1
        self.line(ind + 1, "return False")
        return ind

    @staticmethod
    def path(p: tuple[str, ...]) -> str:
        """Render a path expression; it is evaluated only where an error is recorded."""
        return f"(*p, {', '.join(p)})" if p else "p"

    def node(self, node: dict[str, Any], v: str, p: tuple[str, ...], ind: int) -> None:
        if ind > _MAX_INLINE_INDENT:
            self.call_sub(node, v, p, ind)
            return
        if "oneOf" in node:
            self.one_of(node, v, p, ind)
            return
        kind = node["type"]
        if kind == "string":
            self.string(node, v, p, ind)
        elif kind == "number" or kind == "integer":
            self.number(node, v, p, ind, kind)
        elif kind == "boolean":
            self.boolean(node, v, p, ind)
        elif kind == "array":
            self.array(node, v, p, ind)
        else:
            self.object(node, v, p, ind)

    def call_sub(self, node: dict[str, Any], v: str, p: tuple[str, ...], ind: int) -> None:
        sub = self.const(Validator(node, self.pattern_limit))
        if self.err:
            self.line(ind, f"{sub}._collect({v}, {self.path(p)}, out)")
        else:
            self.line(ind, f"if not {self.const(self.consts[sub]._bool_function())}({v}):")
            self.line(ind + 1, "return False")

    def one_of(self, node: dict[str, Any], v: str, p: tuple[str, ...], ind: int) -> None:
        branches = tuple(Validator(b, self.pattern_limit) for b in node["oneOf"])
        if self.err:
            self.line(ind, f"_one_of_errors({v}, {self.path(p)}, out, {self.const(branches)})")
            return
        tag = _discriminator(node["oneOf"])
        if tag is not None:
            # A tagged union: at most one branch can accept a given tag value, so run only that
            # branch (every other branch would fail its own enum check on the tag).
            key, table = tag
            k = self.const(key)
            by_tag = self.const({value: branches[i]._bool_function() for value, i in table.items()})
            d = self.name("d")
            self.line(ind, f"if type({v}) is not dict:")
            self.line(ind + 1, "return False")
            self.line(ind, f"{d} = {v}.get({k})")
            self.line(ind, f"if type({d}) is not str or not {by_tag}.get({d}, _never)({v}):")
            self.line(ind + 1, "return False")
            return
        calls = " + ".join(f"{self.const(b._bool_function())}({v})" for b in branches)
        self.line(ind, f"if ({calls}) != 1:")
        self.line(ind + 1, "return False")

    def string(self, node: dict[str, Any], v: str, p: tuple[str, ...], ind: int) -> None:
        ind = self.type_check(ind, f"type({v}) is not str", "string", v, p)
        n = self.name("n")
        checks: list[tuple[str, str, str, str]] = []
        if "minLength" in node or "maxLength" in node or "pattern" in node:
            self.line(ind, f"{n} = len({v})")
        if "minLength" in node:
            k = self.const(node["minLength"])
            checks.append((f"{n} < {k}", f"{n} < {k}", "minLength", f"_m_min_length({k}, {n})"))
        if "maxLength" in node:
            k = self.const(node["maxLength"])
            checks.append((f"{n} > {k}", f"{n} > {k}", "maxLength", f"_m_max_length({k}, {n})"))
        if "enum" in node:
            k = self.const(frozenset(node["enum"]))
            shown = self.const(tuple(node["enum"]))
            checks.append((f"{v} not in {k}", f"{v} not in {k}", "enum", f"_m_enum({shown}, {v})"))
        if "pattern" in node:
            source = node["pattern"]
            search = self.const(ecma_pattern(source).search)
            src = self.const(source)
            lim = self.const(self.pattern_limit)
            checks.append(
                (
                    f"{n} > {lim}",
                    f"{n} > {lim}",
                    "pattern",
                    f"_m_pattern_too_long({src}, {lim}, {n})",
                )
            )
            literal = None if self.err else _literal_pattern(source)
            fast = None if self.err or literal else _char_class_pattern(source)
            if literal is not None:
                # A pattern that is only text, anchored or not: a str method, no regex engine.
                how, text = literal
                t = self.const(text)
                test = {
                    "prefix": f"not {v}.startswith({t})",
                    "suffix": f"not {v}.endswith({t})",
                    "exact": f"{v} != {t}",
                    "inside": f"{t} not in {v}",
                }[how]
                checks.append((test, test, "pattern", f"_m_pattern({src}, {v})"))
            elif fast is None:
                checks.append(
                    (
                        f"{search}({v}) is None",
                        f"{n} <= {lim} and {search}({v}) is None",
                        "pattern",
                        f"_m_pattern({src}, {v})",
                    )
                )
            else:
                # str.strip in C instead of the regex engine, about 3x faster per string.
                self.checks_or_pass(ind, checks, p)
                checks = []
                prefix, allowed, low, high = fast
                k = self.const(allowed)
                if prefix:
                    pre, size = self.const(prefix), len(prefix)
                    self.line(ind, f"if not {v}.startswith({pre}) or {v}[{size}:].strip({k}):")
                    low, high = low + size, min(high + size, sys.maxsize)
                else:
                    self.line(ind, f"if {v}.strip({k}):")
                self.line(ind + 1, "return False")
                if low > 0 or high < sys.maxsize:
                    lo, hi = self.const(low), self.const(high)
                    self.line(ind, f"if {n} < {lo} or {n} > {hi}:")
                    self.line(ind + 1, "return False")
                return
        self.checks_or_pass(ind, checks, p)

    def checks_or_pass(
        self, ind: int, checks: list[tuple[str, str, str, str]], p: tuple[str, ...]
    ) -> None:
        if checks:
            self.checks(ind, checks, p)
        elif self.err and self.lines[-1].endswith("else:"):
            self.line(ind, "pass")

    def number(self, node: dict[str, Any], v: str, p: tuple[str, ...], ind: int, kind: str) -> None:
        t = self.name("t")
        self.line(ind, f"{t} = type({v})")
        if kind == "integer":
            bad = f"{t} is not int and ({t} is not float or not {v}.is_integer())"
        else:
            # Two tests for an int or a finite float: for a float, v - v is 0.0 (falsy) unless
            # v is NaN or infinite, when it is NaN (truthy).
            bad = f"({t} is not float or {v} - {v}) and {t} is not int"
        ind = self.type_check(ind, bad, kind, v, p)
        checks: list[tuple[str, str, str, str]] = []
        if "minimum" in node:
            k = self.const(node["minimum"])
            checks.append((f"{v} < {k}", f"{v} < {k}", "minimum", f"_m_min({k}, {v})"))
        if "maximum" in node:
            k = self.const(node["maximum"])
            checks.append((f"{v} > {k}", f"{v} > {k}", "maximum", f"_m_max({k}, {v})"))
        if "enum" in node:
            k = self.const(frozenset(node["enum"]))
            shown = self.const(tuple(node["enum"]))
            checks.append((f"{v} not in {k}", f"{v} not in {k}", "enum", f"_m_enum({shown}, {v})"))
        self.checks_or_pass(ind, checks, p)

    def boolean(self, node: dict[str, Any], v: str, p: tuple[str, ...], ind: int) -> None:
        ind = self.type_check(ind, f"{v} is not True and {v} is not False", "boolean", v, p)
        checks: list[tuple[str, str, str, str]] = []
        if "enum" in node:
            k = self.const(frozenset(node["enum"]))
            shown = self.const(tuple(node["enum"]))
            checks.append((f"{v} not in {k}", f"{v} not in {k}", "enum", f"_m_enum({shown}, {v})"))
        self.checks_or_pass(ind, checks, p)

    def array(self, node: dict[str, Any], v: str, p: tuple[str, ...], ind: int) -> None:
        ind = self.type_check(ind, f"type({v}) is not list", "array", v, p)
        n = self.name("n")
        self.line(ind, f"{n} = len({v})")
        checks: list[tuple[str, str, str, str]] = []
        if "minItems" in node:
            k = self.const(node["minItems"])
            checks.append((f"{n} < {k}", f"{n} < {k}", "minItems", f"_m_min_items({k}, {n})"))
        if "maxItems" in node:
            k = self.const(node["maxItems"])
            checks.append((f"{n} > {k}", f"{n} > {k}", "maxItems", f"_m_max_items({k}, {n})"))
        self.checks(ind, checks, p)
        items = node["items"]
        x = self.name("x")
        if self.err:
            i = self.name("i")
            self.line(ind, f"for {i}, {x} in enumerate({v}):")
            self.node(items, x, (*p, i), ind + 1)
        else:
            self.line(ind, f"for {x} in {v}:")
            self.node(items, x, p, ind + 1)
        if node.get("uniqueItems") is True:
            if self.err:
                self.line(ind, f"_unique_errors({v}, {self.path(p)}, out)")
            elif "type" in items and items["type"] in _SCALAR_TYPES:
                # Items already passed their scalar type check, so a set finds duplicates with
                # JSON equality: 1 == 1.0, and booleans never meet numbers in one typed array.
                self.line(ind, f"if len(set({v})) != {n}:")
                self.line(ind + 1, "return False")
            else:
                self.line(ind, f"if _first_duplicate({v}) is not None:")
                self.line(ind + 1, "return False")

    def object(self, node: dict[str, Any], v: str, p: tuple[str, ...], ind: int) -> None:
        ind = self.type_check(ind, f"type({v}) is not dict", "object", v, p)
        properties: dict[str, Any] = node.get("properties", {})
        required = set(node.get("required", ()))
        count = self.name("c")
        optional = [name for name in properties if name not in required]
        if optional:
            self.line(ind, f"{count} = {len(required)}")
        for name, sub in properties.items():
            key = self.const(name)
            x = self.name("x")
            cp = (*p, key) if self.err else p
            if name in required and not self.err:
                # A missing key raises KeyError, which the function turns into False: cheaper
                # than a membership test on the success path.
                self.line(ind, f"{x} = {v}[{key}]")
                self.node(sub, x, cp, ind)
                continue
            # "in" then a subscript: two C-level lookups, cheaper than calling .get().
            self.line(ind, f"if {key} in {v}:")
            self.line(ind + 1, f"{x} = {v}[{key}]")
            if name not in required:
                self.line(ind + 1, f"{count} += 1")
            self.node(sub, x, cp, ind + 1)
            if name in required:
                self.line(ind, "else:")
                self.line(ind + 1, f"out.add({self.path(p)}, 'required', _m_required({key}))")
        declared = self.const(frozenset(properties))
        expected = count if optional else str(len(required))
        if self.err:
            self.line(ind, f"if len({v}) != {expected}:")
            self.line(ind + 1, f"_extras_errors({v}, {declared}, {self.path(p)}, out)")
        else:
            self.line(ind, f"if len({v}) != {expected} and not _extras_ok({v}, {declared}):")
            self.line(ind + 1, "return False")


_RUNTIME: Final[dict[str, Any]] = {
    "_MISSING": _MISSING,
    "_never": _never,
    "_extras_errors": _extras_errors,
    "_extras_ok": _extras_ok,
    "_first_duplicate": _first_duplicate,
    "_m_enum": _m_enum,
    "_m_max": _m_max,
    "_m_max_items": _m_max_items,
    "_m_max_length": _m_max_length,
    "_m_min": _m_min,
    "_m_min_items": _m_min_items,
    "_m_min_length": _m_min_length,
    "_m_pattern": _m_pattern,
    "_m_pattern_too_long": _m_pattern_too_long,
    "_m_required": _m_required,
    "_m_type": _m_type,
    "_one_of_errors": _one_of_errors,
    "_unique_errors": _unique_errors,
}

_serial = itertools.count(1)
_BUILTINS: Final = (type, len, set, enumerate, str, int, float, list, dict)


def _function(node: dict[str, Any], mode: str, pattern_limit: int) -> Callable[..., Any]:
    """Generate, compile and return one function for ``node``."""
    consts: dict[str, Any] = {}
    gen = _Gen(mode, consts, pattern_limit)
    if mode == "err":
        gen.node(node, "v", (), 2)
        head = "    def collect(v, p, out):"
        tail = ["        return None", "    return collect"]
    else:
        # Any exception (a KeyError for a missing required property, or one raised by a
        # hostile non-JSON object) means "not valid"; try costs nothing when nothing is raised.
        gen.node(node, "v", (), 3)
        head = "    def is_valid(v):\n        try:"
        tail = [
            "            return True",
            "        except Exception:",
            "            return False",
            "    return is_valid",
        ]
    # Constants and runtime helpers become parameters of a factory, so the inner function reads
    # them as closure cells (fast, like locals) and the source holds no schema text.
    body = "\n".join(gen.lines)
    # Only the helpers and builtins this function uses become parameters: compile() time here
    # grows with the source, and the full list would be half of a small validator's text.
    free = {**consts, **{k: v for k, v in _RUNTIME.items() if k in body}}
    free.update((b.__name__, b) for b in _BUILTINS if re.search(rf"\b{b.__name__}\b", body))
    source = "\n".join([f"def _factory({', '.join(free)}):", head, body, *tail, ""])
    filename = f"<pedelec validator {next(_serial)} {mode}>"
    code = compile(source, filename, "exec")
    namespace: dict[str, Any] = {}
    exec(code, namespace)
    import linecache

    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    fn: Callable[..., Any] = namespace["_factory"](*free.values())
    return fn


def accepts(node: dict[str, Any], value: Any) -> bool:
    """Tell whether ``value`` is valid for a checked ``node``, without generating code.

    The registration check uses it for ``default`` and ``examples``, where each node is tested
    once and generating a function would cost far more than walking the node. It follows the
    same rules as the generated ``is_valid`` (a property test holds them together).
    """
    if "oneOf" in node:
        return sum(accepts(branch, value) for branch in node["oneOf"]) == 1
    kind = node["type"]
    t = type(value)
    if kind == "string":
        if t is not str:
            return False
        n = len(value)
        return not (
            n < node.get("minLength", 0)
            or n > node.get("maxLength", n)
            or ("enum" in node and value not in node["enum"])
            or ("pattern" in node and ecma_pattern(node["pattern"]).search(value) is None)
        )
    if kind == "number" or kind == "integer":
        if t is float:
            if value - value or (kind == "integer" and not value.is_integer()):
                return False
        elif t is not int:
            return False
        return not (
            value < node.get("minimum", value)
            or value > node.get("maximum", value)
            or ("enum" in node and value not in node["enum"])
        )
    if kind == "boolean":
        return t is bool and ("enum" not in node or value in node["enum"])
    if kind == "array":
        if t is not list:
            return False
        n = len(value)
        return not (
            n < node.get("minItems", 0)
            or n > node.get("maxItems", n)
            or not all(accepts(node["items"], item) for item in value)
            or (node.get("uniqueItems") is True and _first_duplicate(value) is not None)
        )
    if t is not dict:
        return False
    properties: dict[str, Any] = node.get("properties", {})
    for name in node.get("required", ()):
        if name not in value:
            return False
    for name, sub in properties.items():
        if name in value and not accepts(sub, value[name]):
            return False
    return _extras_ok(value, frozenset(properties))


def compile_node(node: dict[str, Any], *, max_pattern_length: int = 1024) -> Validator:
    """Make a ``Validator`` for an already checked schema node (any kind); no check, no cache.

    Callers outside ``pedelec.schema`` want ``pedelec.compile_schema``, which checks and caches.
    """
    return Validator(node, max_pattern_length)
