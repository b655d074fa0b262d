"""What generated validators call at run time: the error collector and walks over values.

Everything here is bound into a validator's factory as a closure variable, by the name the
generated source uses; nothing here knows a schema keyword's rules (``keywords.py`` does).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, Final, Protocol

from pedelec._json import clone_json, duplicates, pointer
from pedelec._json.render import describe, python_text

_Path = tuple[str | int, ...]


# --- the error collector ----------------------------------------------------------------------


class Full(Exception):
    """Raised inside ``collect`` once the error cap is reached, to stop the walk at once."""


class Errors:
    """Collects ``(path tuple, keyword, message)`` up to a cap."""

    __slots__ = ("cap", "items")

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.items: list[tuple[_Path, str, str]] = []

    def add(self, path: _Path, keyword: str, message: str) -> None:
        self.items.append((path, keyword, message))
        if len(self.items) >= self.cap:
            raise Full


class Branch(Protocol):
    """A compiled ``oneOf`` alternative, as ``one_of_errors`` uses it (a ``Validator``)."""

    is_valid: Callable[[Any], bool]
    _collect: Callable[[Any, _Path, Errors], None]


# --- helpers generated code calls -------------------------------------------------------------


def never(value: Any) -> bool:
    return False


def first_duplicate(items: list[Any]) -> tuple[int, int] | None:
    return next(duplicates(items), None)


def unique_errors(items: list[Any], path: _Path, out: Errors) -> None:
    for i, j in duplicates(items):
        out.add((*path, j), "uniqueItems", f"duplicate of item {i}")


_LEAVE: Final = object()


def non_json(value: Any, path: _Path) -> tuple[_Path, str] | None:
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
                return _unlink(path, link), describe(v)
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
                        key = python_text(k)
                        return _unlink(path, link), f"an object key {key} that is not a string"
                    stack.append((x, (link, k)))
            continue
        return _unlink(path, link), f"Python {t.__name__}"
    return None


def _unlink(path: _Path, link: Any) -> _Path:
    """The path of a ``non_json`` link: ``path`` followed by the keys from the root down."""
    keys: list[str | int] = []
    while link is not None:
        link, key = link
        keys.append(key)
    return (*path, *reversed(keys))


def extras_ok(obj: dict[Any, Any], declared: frozenset[str]) -> bool:
    for k, x in obj.items():
        if k not in declared and (type(k) is not str or non_json(x, ()) is not None):
            return False
    return True


def extras_errors(obj: dict[Any, Any], declared: frozenset[str], path: _Path, out: Errors) -> None:
    for k, x in obj.items():
        if k in declared:
            continue
        if type(k) is not str:
            out.add(path, "type", f"object keys must be strings, got key {python_text(k)}")
            continue
        found = non_json(x, (*path, k))
        if found is not None:
            out.add(found[0], "type", f"expected a JSON value, got {found[1]}")


def one_of_errors(value: Any, path: _Path, out: Errors, branches: tuple[Branch, ...]) -> None:
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
        first = Errors(1)
        with contextlib.suppress(Full):
            b._collect(value, path, first)
        p, _, m = first.items[0]
        where = pointer(p) or "(root)"
        reasons.append(f"[{i + 1}] {where}: {m}")
    out.add(
        path,
        "oneOf",
        f"matches none of the {len(branches)} alternatives: " + "; ".join(reasons),
    )


# --- helpers of the generated copier (``_codegen._CopyGen``) --------------------------------


def copy_extras(copy: dict[Any, Any], declared: frozenset[str], depth: int, room: int) -> int:
    """Give ``copy`` its own copies of the undeclared properties; return the values added.

    ``copy`` is a shallow copy of the checked object. Scalars stay shared; containers go through
    ``clone_json`` bounded by ``depth`` and ``room``. Raises at a non-string key or a value that
    is not JSON, which the copier turns into "take the general path".
    """
    added = 0
    for key, value in copy.items():
        if key in declared:
            continue
        kind = type(key)
        if kind is not str:
            raise TypeError("object keys must be strings")
        kind = type(value)
        if kind is str or kind is int or kind is bool or value is None:
            continue
        if kind is float and value - value == 0.0:
            continue
        value = copy[key] = clone_json(value, max_depth=depth, max_values=room - added + 1)
        added += _values_in(value)
    return added


def _values_in(value: Any) -> int:
    """How many values the containers in ``value`` hold, all levels (0 for a scalar)."""
    found = 0
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            found += len(item)
            stack.extend(item.values())
        elif kind is list:
            found += len(item)
            stack.extend(item)
    return found


def never_copy(value: Any, depth: int, room: int) -> bool:
    return False


def first_copy(copiers: tuple[Callable[..., Any], ...], value: Any, depth: int, room: int) -> Any:
    """The first branch copier's ``(copy, count)`` for ``value``, or ``False``."""
    for copier in copiers:
        found = copier(value, depth, room)
        if found is not False:
            return found
    return False
