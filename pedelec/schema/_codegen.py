"""Generate the two functions of a validator from a checked schema node.

One generator (``_Gen``) writes both functions, ``is_valid`` (mode ``"bool"``) and ``collect``
(mode ``"err"``): for every check it emits either ``return False`` or ``out.add(...)``, so the
two cannot disagree about what is valid. The code is fused per node: one type test, one
``len()``, then one condition chain built from the rows of ``keywords.SUBSET``; keywords with
nodes inside or fast paths have a routine here that their row names. A third function,
``copy`` (mode ``"copy"``, ``_CopyGen``), runs ``is_valid``'s checks and copies the value in the
same walk: how a session isolates dict args from their caller for about the validation's cost.

Safety: the generated source never contains schema text. Property names, numbers, enum sets and
compiled patterns are passed in as closure variables of a factory function; the source only
holds generated identifiers and fixed code. The source is registered in ``linecache`` so a
traceback through a validator reads like any other code, and leaves it with its function.
"""

from __future__ import annotations

import contextlib
import itertools
import sys
from collections.abc import Callable
from types import CodeType
from typing import Any, Final, Protocol

from pedelec.schema import _runtime
from pedelec.schema.keywords import (
    SUBSET,
    Condition,
    Step,
    m_pattern,
    m_pattern_too_long,
    m_required,
    m_type,
)
from pedelec.schema.patterns.translate import ClassRun, TextCheck, plan

__all__ = ["function"]

# Above this many indentation levels a sub-node gets a function of its own, far below the
# parser's limit of 100 levels and the compiler's 20 nested loops.
_MAX_INLINE_INDENT: Final = 24

_SCALAR_TYPES: Final = frozenset({"string", "number", "integer", "boolean"})

#: One check: ``(bool-mode condition, err-mode condition, keyword, message expression)``.
_Check = tuple[str, str, str, str]


class _Sub(Protocol):
    """A validator for a sub-node (a ``Validator``), compiled on its own."""

    def _collect(self, value: Any, path: Any, out: Any) -> None: ...

    def _bool_function(self) -> Callable[[Any], bool]: ...

    def _copy_function(self) -> Callable[[Any, int, int], Any]: ...


#: Makes the validator of a sub-node: ``make(node, pattern_limit)``.
_Make = Callable[[dict[str, Any], int], _Sub]


def discriminator(branches: list[dict[str, Any]]) -> tuple[str, dict[str, int]] | None:
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


class _Gen:
    """Emits the source of one function, in one of two modes: ``"bool"`` or ``"err"``."""

    def __init__(self, mode: str, pattern_limit: int, make: _Make) -> None:
        self.err = mode == "err"
        self.consts: dict[str, Any] = {}
        self.helpers: dict[str, Any] = {}
        self.lines: list[str] = []
        self.pattern_limit = pattern_limit
        self.make = make
        self._n = 0

    def name(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}{self._n}"

    def const(self, value: Any) -> str:
        name = f"_k{len(self.consts)}"
        self.consts[name] = value
        return name

    def use(self, helper: Callable[..., Any]) -> str:
        """The name generated code calls ``helper`` by (``_`` + its own), bound on first use."""
        name = f"_{helper.__name__}"
        bound = self.helpers.setdefault(name, helper)
        assert bound is helper, f"two helpers are named {name}"
        return name

    def call(self, helper: Callable[..., Any], *args: str) -> str:
        """A call of a message ``helper``, written only where errors are collected."""
        return f"{self.use(helper)}({', '.join(args)})" if self.err else ""

    def line(self, ind: int, text: str) -> None:
        self.lines.append("    " * ind + text)

    def checks(self, ind: int, checks: list[_Check], p: tuple[str, ...]) -> None:
        """Emit independent checks: one ``or`` chain, or one ``if`` each when collecting."""
        if not checks:
            return
        if self.err:
            for _, cond, keyword, message in checks:
                self.line(ind, f"if {cond}:")
                self.line(ind + 1, f"out.add({self.path(p)}, {keyword!r}, {message})")
        else:
            self.line(ind, f"if {' or '.join(c for c, _, _, _ in checks)}:")
            self.line(ind + 1, "return False")

    def checks_or_pass(self, ind: int, checks: list[_Check], p: tuple[str, ...]) -> None:
        if checks:
            self.checks(ind, checks, p)
        elif self.err and self.lines[-1].endswith("else:"):
            self.line(ind, "pass")

    def type_check(self, ind: int, bad: str, expected: str, v: str, p: tuple[str, ...]) -> int:
        """Emit the type test; return the indentation at which the node's other checks go."""
        self.line(ind, f"if {bad}:")
        if self.err:
            message = self.call(m_type, repr(expected), v)
            self.line(ind + 1, f"out.add({self.path(p)}, 'type', {message})")
            self.line(ind, "else:")
            return ind + 1
        self.line(ind + 1, "return False")
        return ind

    @staticmethod
    def path(p: tuple[str, ...]) -> str:
        """Render a path expression; it is evaluated only where an error is recorded."""
        return f"(*p, {', '.join(p)})" if p else "p"

    def node(self, node: dict[str, Any], v: str, p: tuple[str, ...], ind: int) -> None:
        """Emit every check of ``node`` on the value named ``v`` (at path ``p``)."""
        if ind > _MAX_INLINE_INDENT:
            self.call_sub(node, v, p, ind)
            return
        kind_name = node.get("type", "oneOf")
        kind = SUBSET[kind_name]
        if kind.wrong_type is not None:
            t = self.name("t") if "{t}" in kind.wrong_type else ""
            if t:
                self.line(ind, f"{t} = type({v})")
            ind = self.type_check(ind, kind.wrong_type.format(v=v, t=t), kind_name, v, p)
        coded, kind_length = _coded(kind_name)
        rows = [(keyword, code, node[keyword]) for keyword, code, _ in coded if keyword in node]
        n = ""
        if kind_length:
            n = self.name("n")
            if any(length for keyword, _, length in coded if keyword in node):
                self.line(ind, f"{n} = len({v})")
        chain: list[_Check] = []
        for keyword, code, value in rows:
            if type(code) is Condition:
                chain.append(self.test(keyword, code, value, v, n))
            else:
                assert type(code) is Step
                getattr(self, code.routine)(node, v, n, p, ind, chain)
        if kind.rest is None:
            self.checks_or_pass(ind, chain, p)
        else:
            self.checks(ind, chain, p)
            getattr(self, kind.rest)(node, v, p, ind)

    def test(self, keyword: str, test: Condition, value: Any, v: str, n: str) -> _Check:
        """One condition of the chain, from a keyword's ``Condition`` row."""
        k = self.const(test.bind(value))
        shown = k if test.shown is test.bind else self.const(test.shown(value))
        fails = test.fails.format(v=v, n=n, k=k)
        return fails, fails, keyword, self.call(test.message, shown, test.got.format(v=v, n=n))

    def call_sub(self, node: dict[str, Any], v: str, p: tuple[str, ...], ind: int) -> None:
        sub = self.make(node, self.pattern_limit)
        if self.err:
            self.line(ind, f"{self.const(sub)}._collect({v}, {self.path(p)}, out)")
        else:
            self.line(ind, f"if not {self.const(sub._bool_function())}({v}):")
            self.line(ind + 1, "return False")

    # --- routines named by rows of keywords.SUBSET ---------------------------------------------

    def pattern(
        self,
        node: dict[str, Any],
        v: str,
        n: str,
        p: tuple[str, ...],
        ind: int,
        chain: list[_Check],
    ) -> None:
        source = node["pattern"]
        # One parse decides how the pattern runs: a str method, Python's re where the pattern
        # is proven linear there, else the linear-time matcher (patterns/translate.py).
        how = plan(source)
        src = self.const(source)
        lim = self.const(self.pattern_limit)
        too_long = self.call(m_pattern_too_long, src, lim, n)
        chain.append((f"{n} > {lim}", f"{n} > {lim}", "pattern", too_long))
        mismatch = self.call(m_pattern, src, v)
        fast = None if self.err else how.fast
        if isinstance(fast, TextCheck):
            # A pattern that is only text, anchored or not: a str method, no regex engine.
            t = self.const(fast.text)
            test = {
                "prefix": f"not {v}.startswith({t})",
                "suffix": f"not {v}.endswith({t})",
                "exact": f"{v} != {t}",
                "inside": f"{t} not in {v}",
            }[fast.how]
            chain.append((test, test, "pattern", mismatch))
        elif isinstance(fast, ClassRun):
            # str.strip in C instead of the regex engine, about 3x faster per string.
            self.checks_or_pass(ind, chain, p)
            chain.clear()
            self.char_class(fast, v, n, ind)
        else:
            if how.engine == "re" and how.regex is not None:
                bool_cond = f"{self.const(how.regex.search)}({v}) is None"
            else:
                bool_cond = f"not {self.const(how.search)}({v})"
            chain.append((bool_cond, f"{n} <= {lim} and {bool_cond}", "pattern", mismatch))

    def char_class(self, fast: tuple[str, str, int, int], v: str, n: str, ind: int) -> None:
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

    def items(
        self,
        node: dict[str, Any],
        v: str,
        n: str,
        p: tuple[str, ...],
        ind: int,
        chain: list[_Check],
    ) -> None:
        self.checks(ind, chain, p)
        chain.clear()
        x = self.name("x")
        if self.err:
            i = self.name("i")
            self.line(ind, f"for {i}, {x} in enumerate({v}):")
            self.node(node["items"], x, (*p, i), ind + 1)
        else:
            self.line(ind, f"for {x} in {v}:")
            self.node(node["items"], x, p, ind + 1)

    def unique(
        self,
        node: dict[str, Any],
        v: str,
        n: str,
        p: tuple[str, ...],
        ind: int,
        chain: list[_Check],
    ) -> None:
        if node["uniqueItems"] is not True:
            return
        items = node["items"]
        if self.err:
            self.line(ind, f"{self.use(_runtime.unique_errors)}({v}, {self.path(p)}, out)")
        elif "type" in items and items["type"] in _SCALAR_TYPES:
            # Items already passed their scalar type check, so a set finds duplicates with
            # JSON equality: 1 == 1.0, and booleans never meet numbers in one typed array.
            self.line(ind, f"if len(set({v})) != {n}:")
            self.line(ind + 1, "return False")
        else:
            self.line(ind, f"if {self.use(_runtime.first_duplicate)}({v}) is not None:")
            self.line(ind + 1, "return False")

    # --- routines named by kinds of keywords.SUBSET --------------------------------------------

    def object(self, node: dict[str, Any], v: str, p: tuple[str, ...], ind: int) -> None:
        """``properties`` with ``required``, then the undeclared properties."""
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
                missing = self.call(m_required, key)
                self.line(ind + 1, f"out.add({self.path(p)}, 'required', {missing})")
        declared = self.const(frozenset(properties))
        expected = count if optional else str(len(required))
        if self.err:
            self.line(ind, f"if len({v}) != {expected}:")
            extras = self.use(_runtime.extras_errors)
            self.line(ind + 1, f"{extras}({v}, {declared}, {self.path(p)}, out)")
        else:
            self.undeclared(v, expected, declared, ind)

    def undeclared(self, v: str, expected: str, declared: str, ind: int) -> None:
        """``is_valid``'s check of an object's undeclared properties (only when it has some)."""
        extras = self.use(_runtime.extras_ok)
        self.line(ind, f"if len({v}) != {expected} and not {extras}({v}, {declared}):")
        self.line(ind + 1, "return False")

    def one_of(self, node: dict[str, Any], v: str, p: tuple[str, ...], ind: int) -> None:
        branches = tuple(self.make(b, self.pattern_limit) for b in node["oneOf"])
        if self.err:
            errors = self.use(_runtime.one_of_errors)
            self.line(ind, f"{errors}({v}, {self.path(p)}, out, {self.const(branches)})")
            return
        tag = discriminator(node["oneOf"])
        if tag is not None:
            # A tagged union: at most one branch can accept a given tag value, so run only that
            # branch (every other branch would fail its own enum check on the tag).
            key, table = tag
            k = self.const(key)
            by_tag = self.const({value: branches[i]._bool_function() for value, i in table.items()})
            d = self.name("d")
            never = self.use(_runtime.never)
            self.line(ind, f"if type({v}) is not dict:")
            self.line(ind + 1, "return False")
            self.line(ind, f"{d} = {v}.get({k})")
            self.line(ind, f"if type({d}) is not str or not {by_tag}.get({d}, {never})({v}):")
            self.line(ind + 1, "return False")
            return
        calls = " + ".join(f"{self.const(b._bool_function())}({v})" for b in branches)
        self.line(ind, f"if ({calls}) != 1:")
        self.line(ind + 1, "return False")


class _CopyGen(_Gen):
    """Emits ``copy(v, depth, room)``: the checks of ``is_valid`` and, in the same walk, a copy.

    It returns ``(copy, count)`` for a valid value, where ``count`` is the number of values
    inside the containers (``clone_json``'s count less the root), and ``False`` when the value
    is invalid, nests containers deeper than ``depth`` allows, or holds more than ``room``
    values: the caller then takes the general path, which reports exactly what is wrong.
    Declared containers are copied by their known shape, and scalars are shared (they are
    immutable and of exact JSON types once checked); only undeclared properties that hold
    containers go through ``clone_json``.
    """

    def __init__(self, pattern_limit: int, make: _Make) -> None:
        super().__init__("bool", pattern_limit, make)
        #: The expression holding the copy of a container value, by the value's name.
        self.copies: dict[str, str] = {}
        #: Nesting of the node being emitted (the function's value is 1) and the deepest
        #: container a valid value can have outside undeclared properties.
        self.depth = 1
        self.deepest = 0

    #: Set while an item of a flat array is emitted (``flat_items``): the name of the flag
    #: raised by an item with undeclared properties, and then the name of its declared keys.
    flat: tuple[str, str] | None = None

    def copy_of(self, v: str) -> str:
        return self.copies.get(v, v)

    def child(self, node: dict[str, Any], v: str, p: tuple[str, ...], ind: int) -> str:
        self.depth += 1
        self.node(node, v, p, ind)
        self.depth -= 1
        return self.copy_of(v)

    def items(
        self,
        node: dict[str, Any],
        v: str,
        n: str,
        p: tuple[str, ...],
        ind: int,
        chain: list[_Check],
    ) -> None:
        self.checks(ind, chain, p)
        chain.clear()
        self.deepest = max(self.deepest, self.depth)
        if _flat_object(node["items"], ind):
            self.flat_items(node["items"], v, p, ind)
            return
        x, y = self.name("x"), self.name("y")
        start = len(self.lines)
        self.line(ind, f"for {x} in {v}:")
        copied = self.child(node["items"], x, p, ind + 1)
        if copied == x:  # scalar items: the list's own copy shares nothing mutable
            self.line(ind, f"{y} = {v}.copy()")
        else:
            add = self.name("a")
            self.lines[start:start] = [
                "    " * ind + f"{y} = []",
                "    " * ind + f"{add} = {y}.append",
            ]
            self.line(ind + 1, f"{add}({copied})")
        self.line(ind, f"c += len({v})")
        self.copies[v] = y

    def flat_items(self, item: dict[str, Any], v: str, p: tuple[str, ...], ind: int) -> None:
        """An array of objects whose properties are all scalars (points, rows): every item is
        checked as ``is_valid`` checks it, then the list is copied item by item in C. On
        ``draw_path``'s 200 points the copier took 74 µs against 87 µs when each item was
        copied in the loop (one process, the two interleaved).

        An item with undeclared properties only raises a flag in the loop. Those properties may
        hold containers, so then every item's copy goes through ``copy_extras``, which copies
        and counts them and raises at a value that is not JSON, as in ``object``.
        """
        flag, y, x = self.name("e"), self.name("y"), self.name("x")
        required = len(set(item.get("required", ())))
        fixed = required == len(item.get("properties", {}))  # then every item has that many
        self.line(ind, f"{flag} = False")
        self.line(ind, f"for {x} in {v}:")
        self.flat = (flag, "")
        self.child(item, x, p, ind + 1)
        declared = self.flat[1]
        self.flat = None
        self.deepest = max(self.deepest, self.depth + 1)
        self.line(ind, f"{y} = [*map({self.const(dict.copy)}, {v})]")
        if fixed:
            self.line(ind, f"c += {required + 1} * len({v})")
        else:
            self.line(ind, f"c += len({v}) + sum(map(len, {y}))")
        extras = self.use(_runtime.copy_extras)
        z = self.name("z")
        self.line(ind, f"if {flag}:")
        self.line(ind + 1, f"for {z} in {y}:")
        counted = f"len({z}) - {required} + " if fixed else ""
        room = f"depth - {self.depth + 1}, room - c"
        self.line(ind + 2, f"c += {counted}{extras}({z}, {declared}, {room})")
        self.copies[v] = y

    def undeclared(self, v: str, expected: str, declared: str, ind: int) -> None:
        if self.flat is None:
            super().undeclared(v, expected, declared, ind)
            return
        flag = self.flat[0]
        self.flat = (flag, declared)
        self.line(ind, f"if len({v}) != {expected}:")
        self.line(ind + 1, f"{flag} = True")

    def object(self, node: dict[str, Any], v: str, p: tuple[str, ...], ind: int) -> None:
        """Like ``_Gen.object`` in ``"bool"`` mode, on a shallow copy whose containers are then
        replaced by their copies, so the copy keeps the caller's key order."""
        if self.flat is not None:  # an item of a flat array: checked only, copied with its list
            super().object(node, v, p, ind)
            return
        properties: dict[str, Any] = node.get("properties", {})
        required = set(node.get("required", ()))
        self.deepest = max(self.deepest, self.depth)
        count, y = self.name("c"), self.name("y")
        optional = [name for name in properties if name not in required]
        self.line(ind, f"{y} = {v}.copy()")
        if optional:
            self.line(ind, f"{count} = {len(required)}")
        for name, sub in properties.items():
            key = self.const(name)
            x = self.name("x")
            at = ind
            if name in required:
                self.line(ind, f"{x} = {v}[{key}]")
            else:
                at = ind + 1
                self.line(ind, f"if {key} in {v}:")
                self.line(at, f"{x} = {v}[{key}]")
                self.line(at, f"{count} += 1")
            copied = self.child(sub, x, p, at)
            if copied != x:
                self.line(at, f"{y}[{key}] = {copied}")
        declared = self.const(frozenset(properties))
        expected = count if optional else str(len(required))
        extras = self.use(_runtime.copy_extras)
        size = self.name("m")
        self.line(ind, f"{size} = len({v})")
        self.line(ind, f"c += {size}")
        self.line(ind, f"if {size} != {expected}:")
        self.line(ind + 1, f"c += {extras}({y}, {declared}, depth - {self.depth}, room - c)")
        self.copies[v] = y

    def call_sub(self, node: dict[str, Any], v: str, p: tuple[str, ...], ind: int) -> None:
        sub = self.const(self.make(node, self.pattern_limit)._copy_function())
        self.copied_by(f"{sub}({v}, depth - {self.depth - 1}, room - c)", v, ind)

    def copied_by(self, call: str, v: str, ind: int) -> None:
        """Emit ``call`` of a sub-node's copier, and take its copy and count."""
        r = self.name("r")
        self.line(ind, f"{r} = {call}")
        self.line(ind, f"if {r} is False:")
        self.line(ind + 1, "return False")
        self.line(ind, f"c += {r}[1]")
        self.copies[v] = f"{r}[0]"

    def one_of(self, node: dict[str, Any], v: str, p: tuple[str, ...], ind: int) -> None:
        branches = tuple(self.make(b, self.pattern_limit) for b in node["oneOf"])
        room = f"depth - {self.depth - 1}, room - c"
        tag = discriminator(node["oneOf"])
        if tag is not None:
            key, table = tag
            k = self.const(key)
            by_tag = self.const({value: branches[i]._copy_function() for value, i in table.items()})
            d = self.name("d")
            self.line(ind, f"if type({v}) is not dict:")
            self.line(ind + 1, "return False")
            self.line(ind, f"{d} = {v}.get({k})")
            self.line(ind, f"if type({d}) is not str:")
            self.line(ind + 1, "return False")
            never = self.use(_runtime.never_copy)
            self.copied_by(f"{by_tag}.get({d}, {never})({v}, {room})", v, ind)
            return
        calls = " + ".join(f"{self.const(b._bool_function())}({v})" for b in branches)
        self.line(ind, f"if ({calls}) != 1:")
        self.line(ind + 1, "return False")
        copiers = self.const(tuple(b._copy_function() for b in branches))
        self.copied_by(f"{self.use(_runtime.first_copy)}({copiers}, {v}, {room})", v, ind)


def _flat_object(node: dict[str, Any], ind: int) -> bool:
    """Whether ``node``, as the items of an array whose loop is at ``ind``, is an object whose
    properties are all scalars checked inline: its valid values are copied by ``dict.copy``."""
    return (
        node.get("type") == "object"
        and ind + 2 <= _MAX_INLINE_INDENT  # its properties are checked at most two levels in
        and all(sub.get("type") in _SCALAR_TYPES for sub in node.get("properties", {}).values())
    )


#: Per kind: its coded keywords in check order, each with whether it reads the length, and
#: whether any keyword of the kind could (then the node reserves a name for the length).
_CODED: dict[str, tuple[list[tuple[str, Condition | Step, bool]], bool]] = {}


def _coded(kind_name: str) -> tuple[list[tuple[str, Condition | Step, bool]], bool]:
    found = _CODED.get(kind_name)
    if found is None:
        keywords = SUBSET[kind_name].keywords
        coded = [
            (k, row.code, _uses_length(row.code))
            for k, row in keywords.items()
            if row.code is not None
        ]
        coded.sort(key=lambda r: r[1].order)  # stable: ties keep the table's order, as before
        found = _CODED[kind_name] = (coded, any(_uses_length(r.code) for r in keywords.values()))
    return found


def _uses_length(code: Condition | Step | None) -> bool:
    if type(code) is Condition:
        return "{n}" in code.fails or code.got == "{n}"
    return type(code) is Step and code.length


_serial = itertools.count(1)
_BUILTINS: Final = (type, len, set, enumerate, str, int, float, list, dict, map, sum)

#: ``compile()`` of generated source, by the source text. The source holds no schema text, so
#: validators of one shape (tools that differ only in names, bounds, enums and descriptions,
#: which are closure values) share one compile; each function still gets its own file name.
#: Bounded, oldest first out, and emptied by ``clear_code``; a source longer than
#: ``_CODES_LONGEST`` (a rare, huge schema) is not kept, so the cache stays a few MiB at most.
_codes: dict[str, CodeType] = {}
_CODES_SIZE: Final = 256
_CODES_LONGEST: Final = 16_384


def clear_code() -> None:
    """Forget every cached compile of generated source."""
    _codes.clear()


def _code(source: str, filename: str) -> CodeType:
    """The code of ``source`` as ``compile(source, filename, "exec")`` gives it."""
    code = _codes.get(source)
    if code is not None:
        return _renamed(code, filename)
    code = compile(source, filename, "exec")
    if len(source) > _CODES_LONGEST:
        return code
    if len(_codes) >= _CODES_SIZE:
        # Another thread may evict the same entry first: either way one is gone.
        with contextlib.suppress(KeyError, RuntimeError, StopIteration):
            del _codes[next(iter(_codes))]
    _codes[source] = code
    return code


def _renamed(code: CodeType, filename: str) -> CodeType:
    """``code`` and the code nested in it, under ``filename`` (``replace`` compiles nothing)."""
    consts = tuple(_renamed(c, filename) if type(c) is CodeType else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def function(node: dict[str, Any], mode: str, pattern_limit: int, make: _Make) -> Any:
    """Generate, compile and return one function for ``node``: ``is_valid`` or ``collect``.

    ``make(node, pattern_limit)`` builds the validator of a sub-node that gets a function of its
    own (a ``oneOf`` branch, a node nested too deeply to inline).
    """
    source, free = _source(node, mode, pattern_limit, make)
    # No angle brackets: linecache asks a lazy loader only for names that could be files.
    filename = f"pedelec validator {next(_serial)} {mode}"
    code = _code(source, filename)
    namespace: dict[str, Any] = {}
    exec(code, namespace)
    import linecache
    import weakref

    # Popped, not read: the namespace is the functions' globals, so a factory left in it would
    # make a reference cycle (factory -> globals -> factory) that only a full collection frees.
    made = namespace.pop("_factory")(*free.values())
    # The source is written again only when a traceback asks (most validators never show one),
    # from the node the validator keeps anyway: nothing per function is held for it. The entry
    # leaves with the function, so an evicted validator takes it along.
    linecache.cache[filename] = (_Source(node, mode, pattern_limit),)
    weakref.finalize(made, linecache.cache.pop, filename, None).atexit = False
    return made


def _source(
    node: dict[str, Any], mode: str, pattern_limit: int, make: _Make
) -> tuple[str, dict[str, Any]]:
    """The source of ``_factory`` for one function of ``node``, and the values of its parameters.

    The text depends only on ``node``, ``mode`` and ``pattern_limit``: what ``make`` returns is
    only ever a parameter value, never part of the text.
    """
    gen = _CopyGen(pattern_limit, make) if mode == "copy" else _Gen(mode, pattern_limit, make)
    if mode == "err":
        gen.node(node, "v", (), 2)
        head = "    def collect(v, p, out):"
        tail = ["        return None", "    return collect"]
    elif type(gen) is _CopyGen:
        gen.node(node, "v", (), 3)
        # The whole nesting is checked up front: a value nested that deep is rare, and the
        # general path then reports where it is too deep.
        head = "    def copy(v, depth, room):\n        try:\n            c = 0"
        if gen.deepest > 1:  # a depth of 1 is always allowed (Limits are positive)
            head += (
                f"\n            if depth < {gen.const(gen.deepest)}:\n                return False"
            )
        tail = [
            "            if c > room:",
            "                return False",
            f"            return ({gen.copy_of('v')}, c)",
            "        except Exception:",
            "            return False",
            "    return copy",
        ]
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
    # Constants and helpers become parameters of a factory, so the inner function reads them
    # as closure cells (fast, like locals) and the source holds no schema text.
    body = "\n".join(gen.lines)
    free = {**gen.consts, **gen.helpers}
    # Only the builtins this function uses become parameters: compile() time here grows with
    # the source. A substring test may take one that is not used (harmless), never miss one.
    free.update((b.__name__, b) for b in _BUILTINS if b.__name__ in body)
    source = "\n".join([f"def _factory({', '.join(free)}):", head, body, *tail, ""])
    return source, free


class _Stub:
    """Stands in for a sub-node's validator while source is written again for a traceback."""

    __slots__ = ()

    def _collect(self, value: Any, path: Any, out: Any) -> None:
        return None

    def _bool_function(self) -> Callable[[Any], bool]:
        return bool

    def _copy_function(self) -> Callable[[Any, int, int], Any]:
        return _runtime.never_copy


def _stub(node: dict[str, Any], pattern_limit: int) -> _Sub:
    return _Stub()


class _Source:
    """A lazy linecache loader: writes a function's source again when a traceback needs it.

    Writing is deterministic, and sub-node validators only ever become parameter values, so
    stand-ins for them give the very text that was compiled; no validator is built.
    """

    __slots__ = ("_limit", "_mode", "_node")

    def __init__(self, node: dict[str, Any], mode: str, pattern_limit: int) -> None:
        self._node = node
        self._mode = mode
        self._limit = pattern_limit

    def __call__(self) -> str:
        return _source(self._node, self._mode, self._limit, _stub)[0]
