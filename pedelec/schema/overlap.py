"""The one overlap analysis: can two checked nodes accept the same value?

Two questions with different promises, so that each caller can rely on its answer:

* ``disjoint(a, b)`` is ``True`` only when it is proven that no value is accepted by both
  (typed-tool inference refuses a ``oneOf`` whose members are not disjoint). Where the subset
  is beyond it (two patterns) it answers ``False``.
* ``witness(a, b)`` returns a JSON value that both accept, checked with ``interpret.accepts``,
  or ``None`` when it finds none (``pedelec check`` warns only about real overlaps). The subset
  has no null type, so ``None`` is never a witness itself.

Whenever ``disjoint`` is ``True``, ``witness`` is ``None``; ``tests/test_interpret.py`` holds both.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any, Final

from pedelec.schema.interpret import accepts

__all__ = ["disjoint", "witness"]

Node = Mapping[str, Any]
_INF: Final = math.inf
#: How deep ``witness`` builds values: deeper nodes are left unexplored (no witness).
_MAX_DEPTH: Final = 16


def disjoint(a: Node, b: Node, *, own_keys: bool = False) -> bool:
    """Tell whether it is proven that no value is accepted by both ``a`` and ``b``.

    Args:
        a: A checked node.
        b: A checked node.
        own_keys: Count only object values "written for" one of the nodes: values that hold no
            property the node does not declare (at any depth). Then two object nodes are
            also disjoint when each requires a key the other does not declare. Typed-tool
            inference uses it for unions of TypedDicts.

    Example:
        >>> disjoint({"type": "string", "enum": ["1\\n"]}, {"type": "string", "pattern": "^[0-9]+$"})
        True
        >>> disjoint({"type": "integer"}, {"type": "number", "maximum": 0.5})
        False
    """
    if "oneOf" in a:
        # A value a accepts is accepted by one of its branches.
        return all(disjoint(branch, b, own_keys=own_keys) for branch in a["oneOf"])
    if "oneOf" in b:
        return all(disjoint(a, branch, own_keys=own_keys) for branch in b["oneOf"])
    ta, tb = a["type"], b["type"]
    numeric = ta in _NUMERIC and tb in _NUMERIC
    if ta != tb and not numeric:
        return True  # a JSON value has one type (integers are numbers)
    for left, right in ((a, b), (b, a)):
        if "enum" in left:
            return not any(accepts(left, v) and accepts(right, v) for v in left["enum"])
    if numeric:
        low, high = _number_range(a, b)
        return low > high
    if ta == "string":
        return _length_range(a, b, "minLength", "maxLength") is None
    if ta == "array":
        lengths = _length_range(a, b, "minItems", "maxItems")
        if lengths is None:
            return True
        # A non-empty array needs an item both accept; [] is accepted by both.
        return lengths[0] > 0 and disjoint(a["items"], b["items"], own_keys=own_keys)
    if ta == "object":
        return _disjoint_objects(a, b, own_keys)
    return False  # two boolean nodes without enums


def witness(a: Node, b: Node) -> Any | None:
    """A JSON value both ``a`` and ``b`` accept, or ``None`` when none was found.

    Candidates come from the nodes themselves (enum members, ``default``, ``examples``) and
    from their bounds (the edges of a shared range, a shortest string, an empty or a shortest
    array, an object with the required keys of both); each is checked with ``accepts``.

    Example:
        >>> witness({"type": "integer"}, {"type": "number"})
        1
        >>> witness({"type": "array", "items": {"type": "integer"}},
        ...         {"type": "array", "items": {"type": "string"}})
        []
    """
    return _Search().witness(a, b, 0)


_NUMERIC: Final = ("integer", "number")


def _number_range(a: Node, b: Node) -> tuple[float, float]:
    """The values both number nodes allow, as ``(low, high)``, rounded in for integers."""
    low = max(a.get("minimum", -_INF), b.get("minimum", -_INF))
    high = min(a.get("maximum", _INF), b.get("maximum", _INF))
    if "integer" in (a["type"], b["type"]):
        low = low if low == -_INF else math.ceil(low)
        high = high if high == _INF else math.floor(high)
    return low, high


def _length_range(a: Node, b: Node, low_key: str, high_key: str) -> tuple[int, float] | None:
    """The lengths both nodes allow, or ``None`` when there is none."""
    low = max(a.get(low_key, 0), b.get(low_key, 0))
    high = min(a.get(high_key, _INF), b.get(high_key, _INF))
    return None if low > high else (low, high)


def _disjoint_objects(a: Node, b: Node, own_keys: bool) -> bool:
    ra, rb = set(a.get("required", ())), set(b.get("required", ()))
    pa, pb = a.get("properties", {}), b.get("properties", {})
    for key in (ra | rb) & pa.keys() & pb.keys():
        if disjoint(pa[key], pb[key], own_keys=own_keys):
            return True  # a tag: one node requires the key, and its values tell them apart
    # Each requires a key the other does not declare: a value written for one lacks a key the
    # other requires. Undeclared keys are allowed, so a value with both keys fits both.
    return own_keys and bool(ra - pb.keys()) and bool(rb - pa.keys())


def _leaves(node: Node) -> Iterator[Node]:
    """The typed nodes a value accepted by ``node`` must match (``oneOf`` flattened)."""
    if "oneOf" in node:
        for branch in node["oneOf"]:
            yield from _leaves(branch)
    else:
        yield node


class _Search:
    """One ``witness`` call, with the pairs already searched (nested unions meet them again)."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: dict[tuple[int, int], Any | None] = {}

    def witness(self, a: Node, b: Node, depth: int) -> Any | None:
        if depth > _MAX_DEPTH:
            return None
        key = (id(a), id(b))
        if key in self._seen:
            return self._seen[key]
        self._seen[key] = None  # a pair met again inside itself has no witness from there
        found = next((v for v in self._candidates(a, b, depth) if _both(a, b, v)), None)
        self._seen[key] = found
        return found

    def _candidates(self, a: Node, b: Node, depth: int) -> Iterator[Any]:
        left, right = list(_leaves(a)), list(_leaves(b))
        for p in left:
            for q in right:
                yield from self._pair(p, q, depth)
        # Each leaf on its own too: a value shaped by one side may still fit the other whole.
        for p in (*left, *right):
            yield from self._pair(p, p, depth)

    def _pair(self, p: Node, q: Node, depth: int) -> Iterator[Any]:
        yield from p.get("enum", ())
        yield from q.get("enum", ())
        for node in (p, q):
            if "default" in node:
                yield node["default"]
            yield from node.get("examples", ())
        tp, tq = p["type"], q["type"]
        if tp != tq and not (tp in _NUMERIC and tq in _NUMERIC):
            return
        if tp in _NUMERIC:
            yield from _numbers(p, q)
        elif tp == "string":
            low = max(p.get("minLength", 0), q.get("minLength", 0))
            for n in dict.fromkeys((low, p.get("minLength", 0), q.get("minLength", 0), 0)):
                yield "a" * n
        elif tp == "boolean":
            yield from (True, False)
        elif tp == "array":
            yield from self._arrays(p, q, depth)
        else:
            yield from self._objects(p, q, depth)

    def _arrays(self, p: Node, q: Node, depth: int) -> Iterator[Any]:
        size = max(p.get("minItems", 0), q.get("minItems", 0))
        if size == 0:
            yield []
            return
        item = self.witness(p["items"], q["items"], depth + 1)
        if item is not None:
            yield [item] * size  # repeated items: a uniqueItems node rejects it when size > 1

    def _objects(self, p: Node, q: Node, depth: int) -> Iterator[Any]:
        yield {}
        value: dict[str, Any] = {}
        for name in dict.fromkeys((*p.get("required", ()), *q.get("required", ()))):
            subs = [n["properties"][name] for n in (p, q) if name in n.get("properties", {})]
            found = self.witness(subs[0], subs[-1], depth + 1)
            if found is None:
                return
            value[name] = found
        if value:
            yield value


def _numbers(p: Node, q: Node) -> Iterator[Any]:
    """Numbers near the range both nodes allow: 1 (clamped in), its edges, 0 and its middle."""
    low, high = _number_range(p, q)
    if low <= high:
        yield min(max(1, low), high)
    for bound in (low, high, *(n[k] for n in (p, q) for k in ("minimum", "maximum") if k in n)):
        if math.isfinite(bound):
            yield from (math.ceil(bound), math.floor(bound), bound)
    yield 0
    if math.isfinite(low) and math.isfinite(high):
        yield (low + high) / 2


def _both(a: Node, b: Node, value: Any) -> bool:
    return value is not None and accepts(a, value) and accepts(b, value)
