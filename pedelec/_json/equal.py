"""JSON equality: the equality of JSON Schema's ``enum`` and ``uniqueItems``.

``1`` and ``1.0`` are the same number, ``True`` is not ``1``, arrays compare in order and
objects regardless of key order, at any depth. ``json_key`` turns a value into a hashable key
with that equality, without recursion, so equal keys mean equal JSON values. ``duplicates``
finds the items of an array that repeat an earlier one (``uniqueItems``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterator, Sequence
from itertools import chain, compress, repeat
from operator import is_, itemgetter
from typing import Any, Final

from pedelec._json.dump import string_encoder

__all__ = ["duplicates", "json_equal", "json_key"]

_STR_ONLY: Final = frozenset({str})


class _Identity:
    """The key of a value that is not JSON: equal only to itself."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Identity) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)


_TRUE_KEY: Final = ("boolean", True)
_FALSE_KEY: Final = ("boolean", False)


def _scalar_key(value: Any) -> Hashable:
    """``json_key`` of anything that is not a dict or list."""
    kind = type(value)
    if kind is str or kind is int or kind is float or value is None:
        key: Hashable = value
        return key
    if kind is bool:
        return _TRUE_KEY if value else _FALSE_KEY
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    return _Identity(value)


def json_key(value: Any) -> Hashable:
    """Return a hashable key with JSON Schema equality: equal keys mean equal JSON values.

    ``1`` and ``1.0`` get the same key, ``True`` and ``1`` do not; arrays compare in order,
    objects regardless of key order, both at any depth. Values that are not JSON get a key
    equal only to themselves, so this never raises (a container inside itself included).

    Example:
        >>> json_key([1, {"a": 2.0}]) == json_key([1.0, {"a": 2}])
        True
        >>> json_key(True) == json_key(1)
        False
    """
    kind = type(value)
    if kind is str or kind is int or kind is float or value is None:
        key: Hashable = value
        return key
    if kind is bool:
        return _TRUE_KEY if value else _FALSE_KEY
    if isinstance(value, dict | list):
        return _container_key(value)
    return _scalar_key(value)


def _container_key(root: Any) -> Hashable:
    """``json_key`` of a dict or list: its canonical JSON text, numbers normalised.

    The text is type-aware by construction (``true`` is not ``1``), objects have sorted keys,
    and every number that equals an integer is written as that integer (``1.0`` is ``1``). A
    flat string, unlike nested tuples, hashes and compares without recursion at any depth.
    What is not JSON (a set, a cycle, a dict with non-string keys) is written as a marker and
    kept in a tuple of identity keys, so it is equal only to itself.
    """
    encode_basestring = string_encoder()
    out: list[str] = []
    others: list[Any] = []
    active: set[int] = set()
    stack: list[tuple[Iterator[Any], str, int, bool]] = []
    frame = _open_key_frame(root, out, others, active)
    if frame is not None:
        stack.append(frame)
    while stack:
        items, closer, ident, is_dict = stack[-1]
        for item in items:
            if is_dict:
                out.append(encode_basestring(item[0]))
                out.append(":")
                item = item[1]
            kind = type(item)
            if kind is str:
                out.append(encode_basestring(item))
            elif kind is int:
                out.append(_int_text(item))
            elif kind is float:
                out.append(_float_text(item))
            elif item is None:
                out.append("null")
            elif item is True:
                out.append("true")
            elif item is False:
                out.append("false")
            elif isinstance(item, dict | list):
                frame = _open_key_frame(item, out, others, active)
                if frame is not None:
                    stack.append(frame)
                    break  # the "," after this item comes when it closes
            else:
                out.append(_other_text(item, others))
            out.append(",")
        else:
            stack.pop()
            active.discard(ident)
            if out[-1] == ",":
                out[-1] = closer
            else:
                out.append(closer)
            if stack:
                out.append(",")
    text = "".join(out)
    return ("json", text, tuple(others)) if others else ("json", text)


_first: Final = itemgetter(0)
# Never in the text of a JSON value: strings escape control characters.
_NOT_JSON_MARK: Final = "\x00"


def _open_key_frame(
    container: Any, out: list[str], others: list[Any], active: set[int]
) -> tuple[Iterator[Any], str, int, bool] | None:
    """Write the opening bracket and return the frame, or write a not-JSON marker."""
    ident = id(container)
    if ident not in active:
        if isinstance(container, list):
            active.add(ident)
            out.append("[")
            return iter(list.__iter__(container)), "]", ident, False
        if _STR_ONLY.issuperset(map(type, container)) or all(
            isinstance(name, str) for name in container
        ):
            active.add(ident)
            out.append("{")
            return iter(sorted(dict.items(container), key=_first)), "}", ident, True
    out.append(_NOT_JSON_MARK)
    others.append(_Identity(container))
    return None


def _other_text(item: Any, others: list[Any]) -> str:
    """The text of a scalar that is not an exact JSON type: a subclass's, or a not-JSON marker."""
    if isinstance(item, str):
        return string_encoder()(item)
    if isinstance(item, int):
        return _int_text(item)
    if isinstance(item, float):
        return _float_text(item)
    others.append(_Identity(item))
    return _NOT_JSON_MARK


def _int_text(number: int) -> str:
    try:
        return int.__repr__(number)
    except ValueError:  # over the digit limit; no float is that large, so hex is fine
        return "x" + int.__format__(number, "x")


def _float_text(number: float) -> str:
    if float.is_integer(number):
        return _int_text(int(number))
    return float.__repr__(number)  # unique per float value; never looks like an integer


def json_equal(a: Any, b: Any) -> bool:
    """Return whether ``a`` and ``b`` are the same JSON value (``json_key`` equality).

    Example:
        >>> json_equal({"a": [1]}, {"a": [1.0]}), json_equal(False, 0)
        (True, False)
    """
    return json_key(a) == json_key(b)


def duplicates(items: list[Any]) -> Iterator[tuple[int, int]]:
    """Yield ``(i, j)`` for every item ``j`` that equals an earlier one, ``i`` the first such.

    In order of ``j``, with ``json_key`` equality. Items that cannot equal any other are left
    out first, at C speed (``_candidates``), so an array of distinct objects costs a few passes
    over one of their fields instead of a ``json_key`` per object.

    Example:
        >>> list(duplicates([{"a": 1}, {"a": 2}, {"a": 1.0}, 1, True, 1]))
        [(0, 2), (3, 5)]
    """
    seen: dict[Hashable, int] = {}
    for j in _candidates(items):
        i = seen.setdefault(json_key(items[j]), j)
        if i != j:
            yield i, j


# Below this many items a json_key each costs less than looking for a telling field.
_FEW_ITEMS: Final = 8
# Values whose Python equality holds wherever JSON equality does (``True == 1`` too, but that
# only keeps an item a candidate). A str subclass may hash apart from its equal str: not here.
_EXACT: Final = frozenset((str, int, float, bool, type(None)))


class _Absent:
    """The value of a field an object does not have; equal only to itself."""

    __slots__ = ()


_ABSENT: Final = _Absent()
_EXACT_OR_ABSENT: Final = _EXACT | {_Absent}


def _candidates(items: list[Any]) -> Sequence[int]:
    """The indices of ``items`` that may equal another item, in order.

    Equal JSON values have equal fields: for objects with plain string keys, a field whose
    values are all exact scalars (or absent) tells apart every object whose value there no
    other object shares. The fields of the first object are tried in turn, each on the objects
    still in doubt; scalars are their own field.
    """
    indices: Sequence[int] = range(len(items))
    if len(items) < _FEW_ITEMS:
        return indices
    kinds = set(map(type, items))
    if kinds <= _EXACT:
        return _sharing(items, indices)
    if kinds != {dict} or not _STR_ONLY.issuperset(map(type, chain.from_iterable(items))):
        return indices
    rows: list[dict[str, Any]] = items
    for name in items[0]:
        column = list(map(dict.get, rows, repeat(name), repeat(_ABSENT)))
        indices = _sharing(column, indices)
        if len(indices) < 2:
            return ()
        if len(indices) < len(rows):
            rows = list(map(items.__getitem__, indices))
    return indices


def _sharing(column: list[Any], indices: Sequence[int]) -> Sequence[int]:
    """The ``indices`` whose value in ``column`` (one per index) another index shares; all of
    them when the column cannot tell (a value that is not an exact scalar, or a NaN)."""
    types = set(map(type, column))
    if not types <= _EXACT_OR_ABSENT:
        return indices
    if float in types:
        total = sum(compress(column, map(is_, map(type, column), repeat(float))))
        if total != total:  # a NaN, or infinities of both signs: equal by json_key's text
            return indices
    if len(set(column)) == len(column):
        return ()
    counts = Counter(column)
    return list(compress(indices, map((1).__lt__, map(counts.__getitem__, column))))
