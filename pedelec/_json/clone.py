"""Strict clone: a deep copy of a Python value made of plain JSON types, or ``NotJsonError``.

JSON types are not Python types: ``True`` is not a number, a tuple or a set is not JSON, NaN is
not a number JSON can carry, and an object key is always a string. Schemas, dict args and
handler results come through here. The copy is made without recursion, and cycles, depth and
the number of values are checked on the way, so a hostile value is an error with a location,
never a ``RecursionError``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any, Final

from pedelec._json.locate import pointer
from pedelec._json.render import render, scalar_text, type_name

__all__ = ["NotJsonError", "clone_json"]

_Path = tuple[str | int, ...]
# clone_json's stack frame: (iterator of (key, item) over the copy, the copy, id of the source,
# key in the parent).
_Frame = tuple[Any, Any, int, Any]
_STR_ONLY: Final = frozenset({str})

# Exact types copied as they are: immutable, and always JSON. ``float`` is not here because
# NaN and the infinities are floats too.
_PLAIN: Final = frozenset({str, int, bool, type(None)})

# Below this depth ``clone_json`` keeps no record of the containers it is inside: a cycle makes
# the depth grow without end, so it always gets here, and ordinary values never pay for it.
_TRACK_DEPTH: Final = 32


class NotJsonError(ValueError):
    """A Python value that is not plain JSON, with the path of the first offending part.

    ``str(err)`` is ``"<pointer>: <reason>"`` with the root written ``(root)``.

    Args:
        reason: What is wrong, e.g. ``"tuple is not a JSON type (use a list)"``.
        path: Keys and indexes from the root to the offending value.

    Example:
        >>> err = NotJsonError("set is not a JSON type (use a list)", ("tags",))
        >>> err.pointer, str(err)
        ('/tags', '/tags: set is not a JSON type (use a list)')
    """

    path: _Path
    reason: str

    def __init__(self, reason: str, path: Iterable[str | int] = ()) -> None:
        self.path = tuple(path)
        self.reason = reason
        super().__init__(f"{pointer(self.path) or '(root)'}: {reason}")

    @property
    def pointer(self) -> str:
        """The JSON pointer of ``path`` (``""`` for the root)."""
        return pointer(self.path)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.reason, self.path))


def clone_json(value: Any, *, max_depth: int | None = None, max_values: int | None = None) -> Any:
    """Return a deep copy of ``value`` made of plain JSON types, or raise ``NotJsonError``.

    Accepts ``dict`` with ``str`` keys, ``list``, ``str``, ``int``, finite ``float``, ``bool``
    and ``None``. Subclasses become their base type (a ``StrEnum`` member becomes a plain
    ``str``, an ``IntEnum`` member an ``int``, an ``OrderedDict`` a ``dict``). The copy shares
    no container with ``value``; a list referenced twice (without a cycle) is copied twice.
    Works at any depth without recursion.

    Args:
        value: The value to copy.
        max_depth: Most nesting of containers allowed (the root container is depth 1).
        max_values: Most values allowed, counting every container and every item.

    Returns:
        The copy.

    Raises:
        NotJsonError: At the first tuple, set, bytes, NaN or infinity, non-string key, cycle,
            other object, or bound exceeded, with its path.

    Example:
        >>> clone_json({"tags": ["a", "b"], "n": 1.5})
        {'tags': ['a', 'b'], 'n': 1.5}
        >>> clone_json({"tags": ("a", "b")})
        Traceback (most recent call last):
        ...
        pedelec._json.clone.NotJsonError: /tags: tuple is not a JSON type (use a list)
    """
    if max_values is not None and max_values < 1:
        raise NotJsonError(_values_reason(max_values))
    kind = type(value)
    if kind is dict:
        root: Any = value.copy()
    elif kind is list:
        root = value.copy()
    elif kind in _PLAIN or (kind is float and value - value == 0.0):
        return value
    elif isinstance(value, dict):
        root = dict.copy(value)
    elif isinstance(value, list):
        root = list.copy(value)
    else:
        return _convert_other(value, [], None)
    if max_depth is not None and max_depth < 1:
        raise NotJsonError(_depth_reason(max_depth))
    if max_values is not None and 1 + len(root) > max_values:
        raise NotJsonError(_values_reason(max_values))
    if _flat_dict(root) if root.__class__ is dict else _flat_list(root):
        return root  # the common case: one container of plain values
    return _clone_nested(
        value,
        root,
        sys.maxsize if max_depth is None else max_depth,
        sys.maxsize if max_values is None else max_values,
    )


def _flat_dict(value: dict[Any, Any]) -> bool:
    """Whether every key is a ``str`` and every value plain: a copy of it is a JSON clone."""
    plain = _PLAIN
    for key, item in value.items():
        if type(key) is str and type(item) in plain:
            continue
        if type(key) is str and type(item) is float and item - item == 0.0:
            continue
        return False
    return True


def _flat_list(value: list[Any]) -> bool:
    """Whether every item is plain: a copy of the list is a JSON clone."""
    plain = _PLAIN
    for item in value:
        kind = type(item)
        if kind in plain or (kind is float and item - item == 0.0):
            continue
        return False
    return True


def _clone_nested(source: Any, root: Any, most_depth: int, most_values: int) -> Any:
    """``clone_json`` of a container that holds containers or values to convert.

    Depth first with an explicit stack. Each container is first copied shallowly; the loop
    then replaces, in place, whatever is not plain. Iterating the copy, not the source, keeps
    a consistent snapshot even if the source is a subclass with its own ``__iter__``.
    """
    plain = _PLAIN
    fixes: list[tuple[dict[str, Any], _Path]] = []
    stack: list[_Frame] = []
    _enter(stack, root, source, None, None, fixes)
    count = 1 + len(root)
    threshold = min(most_depth, _TRACK_DEPTH)
    active: set[int] | None = None  # ids of the sources on the stack, once deep enough to care
    child: Any
    while stack:
        frame = stack[-1]
        copy = frame[1]
        for key, item in frame[0]:
            kind = type(item)
            if kind in plain or (kind is float and item - item == 0.0):
                continue
            # _flat_dict and _flat_list, inlined: this is the hot path for arrays of objects.
            if kind is dict:
                child = item.copy()
                for name, value in child.items():
                    kind = type(value)
                    if type(name) is str and (
                        kind in plain or (kind is float and value - value == 0.0)
                    ):
                        continue
                    flat = False
                    break
                else:
                    flat = True
            elif kind is list:
                child = item.copy()
                for value in child:
                    kind = type(value)
                    if kind in plain or (kind is float and value - value == 0.0):
                        continue
                    flat = False
                    break
                else:
                    flat = True
            elif isinstance(item, dict):
                child = dict.copy(item)
                flat = False
            elif isinstance(item, list):
                child = list.copy(item)
                flat = False
            else:
                copy[key] = _convert_other(item, stack, key)  # raises at NaN and the infinities
                continue
            copy[key] = child
            count += len(child)
            if count > most_values:
                _too_many(stack, item, key, most_values)
            if len(stack) >= threshold:
                threshold, active = _deeper(stack, item, key, most_depth)
            if not flat:  # a flat one holds no container: it is neither deeper nor in a cycle
                _enter(stack, child, item, key, active, fixes)
                break
        else:
            stack.pop()
            if active is not None:
                active.discard(frame[2])
    for target, path in fixes:
        _plain_keys(target, path)
    return root


def _enter(
    stack: list[_Frame],
    copy: Any,
    source: Any,
    key: Any,
    active: set[int] | None,
    fixes: list[tuple[dict[str, Any], _Path]],
) -> None:
    """Push the frame that walks ``copy`` (of ``source``, at ``key`` in the top frame).

    Checks the keys of a dict and, once ``active`` is tracked, that ``source`` is not one of
    its own ancestors.
    """
    if active is not None:
        if id(source) in active:
            _cycle(stack, source, key)
        active.add(id(source))
    if copy.__class__ is dict:
        if not _STR_ONLY.issuperset(map(type, copy)):
            _check_keys(copy, _path_of(stack, key) if stack else (), fixes)
        stack.append((iter(copy.items()), copy, id(source), key))
    else:
        stack.append((enumerate(copy), copy, id(source), key))


def _path_of(stack: list[_Frame], key: Any) -> _Path:
    """The path of ``key`` in the container on top of ``stack``."""
    parts = [frame[3] for frame in stack[1:]]
    parts.append(key)
    return tuple(parts)


def _convert_other(item: Any, stack: list[Any], key: Any) -> Any:
    """Convert a value that is not an exact plain type, or raise ``NotJsonError``.

    Only ``clone_json``'s slow paths come here: subclasses of the JSON types, non-finite
    floats and everything that is not JSON. ``stack`` and ``key`` locate the value
    (``key`` is ``None`` for the root).
    """
    if isinstance(item, str):
        return str.__str__(item)  # the plain text, whatever the subclass's __str__ says
    if isinstance(item, int):
        return int.__int__(item)
    if isinstance(item, float):
        number = float.__float__(item)
        if number - number == 0.0:
            return number
        reason = f"{scalar_text(number)} is not a JSON number (numbers must be finite)"
    elif isinstance(item, tuple | set | frozenset):
        reason = f"{type(item).__name__} is not a JSON type (use a list)"
    elif isinstance(item, bytes | bytearray | memoryview):
        reason = f"{type(item).__name__} is not a JSON type (decode it to a str)"
    else:
        reason = f"{type(item).__name__} is not a JSON type"
    raise NotJsonError(reason, _path_of(stack, key) if stack else ())


def _check_keys(value: dict[Any, Any], path: _Path, fixes: list[Any]) -> None:
    """Reject the first key that is not a ``str``; note a dict with ``str`` subclass keys."""
    for key in value:
        if type(key) is str:
            continue
        if not isinstance(key, str):
            shown = scalar_text(key) if key is None else f"{render(key)} ({type_name(key)})"
            raise NotJsonError(f"object key {shown} is not a string", path)
        if not fixes or fixes[-1][0] is not value:
            fixes.append((value, path))


def _plain_keys(target: dict[Any, Any], path: _Path) -> None:
    """Replace ``str`` subclass keys by plain ``str`` keys in place, keeping the order."""
    items = list(target.items())
    target.clear()
    for key, item in items:
        target[key if type(key) is str else str.__str__(key)] = item
    if len(target) != len(items):
        raise NotJsonError("two object keys are the same string once converted to str", path)


def _depth_reason(most: int) -> str:
    return f"nested deeper than {most} levels (max_depth)"


def _values_reason(most: int) -> str:
    return f"more than {most} values (max_values)"


def _cycle_path(stack: list[_Frame], item: Any, key: Any) -> _Path | None:
    """The path of the first container that is one of its own ancestors, if any."""
    ids = [frame[2] for frame in stack]
    ids.append(id(item))
    keys = _path_of(stack, key)
    seen: set[int] = set()
    for depth, ident in enumerate(ids):
        if ident in seen:
            return keys[:depth]
        seen.add(ident)
    return None


def _cycle(stack: list[Any], item: Any, key: Any) -> None:
    path = _cycle_path(stack, item, key)
    raise NotJsonError("circular reference (a container contains itself)", path or ())


def _too_many(stack: list[Any], item: Any, key: Any, most: int) -> None:
    path = _cycle_path(stack, item, key)
    if path is not None:
        raise NotJsonError("circular reference (a container contains itself)", path)
    raise NotJsonError(_values_reason(most), _path_of(stack, key))


def _deeper(stack: list[Any], item: Any, key: Any, most: int) -> tuple[int, set[int]]:
    """Past ``_TRACK_DEPTH``: raise at ``max_depth``, else start tracking the ancestors."""
    if len(stack) >= most:
        path = _cycle_path(stack, item, key)
        if path is not None:
            raise NotJsonError("circular reference (a container contains itself)", path)
        raise NotJsonError(_depth_reason(most), _path_of(stack, key))
    return most, {frame[2] for frame in stack}
