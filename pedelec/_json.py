"""JSON value rules: strict clone, strict parse, canonical dumps, type-aware equality.

JSON types are not Python types. ``True`` is not a number, ``1`` and ``1.0`` are the same
number, a tuple or a set is not JSON, NaN is not a number JSON can carry, and an object key is
always a string. Every module that takes values from a developer or an agent goes through here:

* ``clone_json`` copies a value that arrives as Python objects (schemas, dict args, handler
  results) and rejects anything that is not plain JSON with a ``NotJsonError`` that names the
  JSON pointer of the bad value.
* ``parse_json_args`` parses args that arrive as JSON text, strictly, with messages an agent can
  act on.
* ``json_key`` / ``json_equal`` give the equality of JSON Schema (``enum``, ``uniqueItems``).
* ``dumps_canonical`` / ``dumps_compact`` serialise; ``type_name`` / ``short_repr`` /
  ``pointer`` render values and locations in messages.

Nothing here recurses on the depth of a value, so a deeply nested value is an error with a
location, never a ``RecursionError``. ``json`` is imported inside the functions that need it,
which keeps ``import pedelec`` light.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Hashable, Iterable, Iterator
from itertools import accumulate
from operator import itemgetter
from typing import Any, Final

from pedelec.errors import TOOL_ARGS_INVALID, PedelecError

__all__ = [
    "NotJsonError",
    "clone_json",
    "dumps_canonical",
    "dumps_compact",
    "json_equal",
    "json_key",
    "parse_json_args",
    "pointer",
    "short_repr",
    "type_name",
]

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


# --- pointers and errors --------------------------------------------------------------------


def pointer(parts: Iterable[str | int]) -> str:
    """Return the RFC 6901 JSON pointer of a path given as keys and indexes.

    Args:
        parts: Object keys (``str``) and array indexes (``int``) from the root down.

    Returns:
        ``""`` for the root, else ``"/"`` before every part, with ``~`` written ``~0`` and ``/``
        written ``~1``.

    Example:
        >>> pointer(("card", "a/b", 0))
        '/card/a~1b/0'
    """
    out = []
    for part in parts:
        if isinstance(part, str):
            if "~" in part:
                part = part.replace("~", "~0")
            if "/" in part:
                part = part.replace("/", "~1")
            out.append(part)
        else:
            out.append(f"{part:d}")
    return "/" + "/".join(out) if out else ""


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


# --- names and short renderings for messages -----------------------------------------------


def type_name(value: Any) -> str:
    """Return the JSON type name of ``value`` for messages, or its Python type name.

    ``bool`` is ``"boolean"``, never ``"integer"``; subclasses count as their base (an
    ``IntEnum`` member is an ``"integer"``).

    Example:
        >>> [type_name(v) for v in ({}, [], "a", 1, 1.0, True, None, (1,))]
        ['object', 'array', 'string', 'integer', 'number', 'boolean', 'null', 'tuple']
    """
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return type(value).__name__


def _scalar_text(value: Any) -> str:
    """The JSON-ish text of a non-container value; never raises."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, int):
        try:
            return int.__repr__(value)
        except ValueError:  # more digits than sys.get_int_max_str_digits() allows
            return f"<integer of {value.bit_length()} bits>"
    if isinstance(value, float):
        number = float(value)
        if number != number:
            return "NaN"
        if number in (float("inf"), float("-inf")):
            return "Infinity" if number > 0 else "-Infinity"
        return float.__repr__(number)
    import reprlib

    try:
        return reprlib.repr(value)
    except Exception:
        return f"<{type(value).__name__}>"


_quoters: list[Callable[[str], str]] = []


def _quoter() -> Callable[[str], str]:
    """``json``'s C function that writes a str as a JSON string (non-ASCII kept), loaded once.

    Importing it inside every call would cost more than the call itself.
    """
    if not _quoters:
        from json.encoder import encode_basestring

        _quoters.append(encode_basestring)
    return _quoters[0]


def _quote(text: str) -> str:
    return _quoter()(text)


def short_repr(value: Any, limit: int = 40) -> str:
    """Render ``value`` as compact JSON for a message, cut to ``limit`` characters with "…".

    Strings are quoted as JSON strings, ``None`` is ``null``; non-JSON values use their
    ``repr``. Huge or deep values cost only about ``limit`` steps, and it never raises.

    Args:
        value: Any value.
        limit: The maximum length of the result (at least 1).

    Example:
        >>> short_repr({"a": [1, True, None]})
        '{"a":[1,true,null]}'
        >>> short_repr("x" * 100, limit=10)
        '"xxxxxxxx…'
    """
    limit = max(limit, 1)
    out: list[str] = []
    size = 0
    # Each entry is an iterator of pending pieces: strings to emit, or values to render.
    pending: list[Any] = [iter((value,))]
    while pending and size <= limit:
        piece = next(pending[-1], _END)
        if piece is _END:
            pending.pop()
            continue
        if type(piece) is _Text:
            text: str = piece.text
        elif isinstance(piece, dict):
            pending.append(_dict_pieces(piece))
            continue
        elif isinstance(piece, list):
            pending.append(_list_pieces(piece))
            continue
        elif isinstance(piece, str) and len(piece) > limit:
            text = _scalar_text(piece[:limit])
        else:
            text = _scalar_text(piece)
        out.append(text)
        size += len(text)
    rendered = "".join(out)
    if len(rendered) > limit or pending:
        return rendered[: limit - 1] + "…"
    return rendered


class _Text:
    """Literal text inside ``short_repr``'s stream of pieces (distinct from string values)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


_END: Final = object()
_OPEN_OBJECT, _CLOSE_OBJECT = _Text("{"), _Text("}")
_OPEN_ARRAY, _CLOSE_ARRAY = _Text("["), _Text("]")
_COMMA, _COLON = _Text(","), _Text(":")


def _dict_pieces(value: dict[Any, Any]) -> Iterator[Any]:
    yield _OPEN_OBJECT
    for i, (key, item) in enumerate(dict.items(value)):
        if i:
            yield _COMMA
        yield key if isinstance(key, str) else _Text(_scalar_text(key))
        yield _COLON
        yield item
    yield _CLOSE_OBJECT


def _list_pieces(value: list[Any]) -> Iterator[Any]:
    yield _OPEN_ARRAY
    for i, item in enumerate(list.__iter__(value)):
        if i:
            yield _COMMA
        yield item
    yield _CLOSE_ARRAY


# --- clone ------------------------------------------------------------------------------------


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
        pedelec._json.NotJsonError: /tags: tuple is not a JSON type (use a list)
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
    if root.__class__ is dict:
        if not _STR_ONLY.issuperset(map(type, root)):
            _check_keys(root, (), fixes)
        root_items: Any = iter(root.items())
    else:
        root_items = enumerate(root)
    stack: list[_Frame] = [(root_items, root, id(source), None)]
    push = stack.append
    count = 1 + len(root)
    threshold = min(most_depth, _TRACK_DEPTH)
    active: set[int] | None = None  # ids of the sources on the stack, once deep enough to care
    child: Any
    while stack:
        frame = stack[-1]
        copy = frame[1]
        for key, item in frame[0]:
            kind = type(item)
            if kind in plain:
                continue
            if kind is float:
                if item - item == 0.0:
                    continue
                _convert_other(item, stack, key)  # raises
            # _flat_dict and _flat_list, inlined: this is the hot path for arrays of objects.
            if kind is dict:
                child = item.copy()
                for name, value in child.items():
                    kind = type(value)
                    if kind in plain:
                        if type(name) is str:
                            continue
                    elif kind is float and value - value == 0.0 and type(name) is str:
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
                copy[key] = _convert_other(item, stack, key)
                continue
            copy[key] = child
            count += len(child)
            if count > most_values:
                _too_many(stack, item, key, most_values)
            if len(stack) >= threshold:
                threshold, active = _deeper(stack, item, key, most_depth)
            if flat:
                continue  # holds no container, so it can be neither deeper nor in a cycle
            if active is not None:
                if id(item) in active:
                    _cycle(stack, item, key)
                active.add(id(item))
            if child.__class__ is dict:
                if not _STR_ONLY.issuperset(map(type, child)):
                    _check_keys(child, _path_of(stack, key), fixes)
                push((iter(child.items()), child, id(item), key))
            else:
                push((enumerate(child), child, id(item), key))
            break
        else:
            stack.pop()
            if active is not None:
                active.discard(frame[2])
    for target, path in fixes:
        _plain_keys(target, path)
    return root


def _path_of(stack: list[_Frame], key: Any = _END) -> _Path:
    """The path of the container on top of ``stack``, plus ``key`` when given."""
    parts = [frame[3] for frame in stack[1:]]
    if key is not _END:
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
        reason = f"{_scalar_text(number)} is not a JSON number (numbers must be finite)"
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
            shown = _scalar_text(key) if key is None else f"{short_repr(key)} ({type_name(key)})"
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


# --- parse ----------------------------------------------------------------------------------

# A JSON string, or a run of text with no bracket and no quote: removing both leaves only the
# brackets that nest (in valid JSON text).
_STRINGS_AND_FILLER: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[^\[\]{}"]+')
_NESTING: Final = {"[": 1, "{": 1, "]": -1, "}": -1}
_SPACE: Final = re.compile(r"[ \t\n\r]*")
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_WORD: Final = re.compile(r'[^\s,:\[\]{}"]{1,21}')
_LITERALS: Final = ("true", "false", "null")
_NOT_NUMBERS: Final = ("NaN", "Infinity", "-Infinity")
_PYTHON_WORDS: Final = {"True": "true", "False": "false", "None": "null"}
_INVALID: Final = "args are not valid JSON"
_SYNTAX_FIX: Final = "fix the JSON syntax"


class _Rejected(ValueError):
    """Raised by the ``json.loads`` hooks; ``_explain`` then finds where and why."""


def _reject_constant(name: str) -> Any:
    raise _Rejected(name)


def _finite_float(text: str) -> float:
    number = float(text)
    if number - number != 0.0:
        raise _Rejected(text)
    return number


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _Rejected("duplicate key")
    return result


def _nesting(text: str) -> int:
    """The deepest nesting of brackets in ``text``, or -1 when the text is not valid JSON."""
    brackets = _STRINGS_AND_FILLER.sub("", text)
    if '"' in brackets:
        return -1
    return max(accumulate(map(_NESTING.__getitem__, brackets)), default=0)


class _Problem:
    """The first problem ``_explain`` finds: ``head + where + tail; fix.`` after ``prefix``."""

    __slots__ = ("extra", "fix", "head", "path", "pos", "prefix", "tail")

    def __init__(
        self,
        head: str,
        tail: str,
        path: _Path | None,
        pos: int,
        fix: str = _SYNTAX_FIX,
        prefix: str = _INVALID,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.head = head
        self.tail = tail
        self.path = path
        self.pos = pos
        self.fix = fix
        self.prefix = prefix
        self.extra = extra

    def error(self, text: str) -> PedelecError:
        line, column = _line_column(text, self.pos)
        ptr = pointer(self.path or ())
        where = f"(line {line}, column {column})"
        if self.path is not None:
            where = f"{_shorten(ptr) if ptr else 'the root'} {where}"
        details: dict[str, Any] = {"pointer": ptr, "line": line, "column": column}
        if self.extra:
            details.update(self.extra)
        return PedelecError(
            TOOL_ARGS_INVALID, f"{self.prefix}: {self.head}{where}{self.tail}; {self.fix}.", details
        )


def _line_column(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column (in characters) of ``pos``; JSON only breaks lines at ``\\n``."""
    return text.count("\n", 0, pos) + 1, pos - text.rfind("\n", 0, pos)


def _shorten(ptr: str, limit: int = 120) -> str:
    """A pointer cut in the middle for a message (``details`` keeps the whole pointer)."""
    if len(ptr) <= limit:
        return ptr
    half = (limit - 1) // 2
    return ptr[:half] + "…" + ptr[-half:]


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _found(text: str, pos: int) -> str:
    """What the text holds at ``pos``, for "expected X, found Y" (escaped: it may be invisible)."""
    import json

    if pos >= len(text):
        return "the end of the text"
    match = _WORD.match(text, pos)
    return json.dumps(_clip(match.group() if match else text[pos], 21))


def _value_fix(text: str, pos: int, *, key: bool = False) -> str:
    """A fix for "expected a value" (or a key) that fits what the agent probably wrote."""
    if pos >= len(text):
        return "send the complete JSON text"
    match = _WORD.match(text, pos)
    word = match.group() if match else text[pos]
    if word.startswith("'"):
        return "use double quotes for strings"
    if word.startswith("\ufeff"):
        return "remove the byte order mark"
    if word in ("]", "}") and text[:pos].rstrip(" \t\n\r").endswith(","):
        return "remove the trailing comma"
    if key:
        return "put every key in double quotes"
    if word in _PYTHON_WORDS:
        return f"write {_PYTHON_WORDS[word]} instead of {word}"
    return _SYNTAX_FIX


def _string_problem(exc: Any, path: _Path, text: str) -> _Problem:
    """Translate the ``json`` string scanner's error into a ``_Problem``."""
    import json

    message: str = exc.msg
    pos: int = exc.pos
    if message.startswith("Unterminated"):
        return _Problem("unterminated string at ", "", path, pos, "close it with a double quote")
    if message.startswith("Invalid control"):
        return _Problem(
            f"unescaped control character {json.dumps(text[pos])} in the string at ",
            "",
            path,
            pos,
            "escape it, e.g. \\n for a line break",
        )
    if message.startswith("Invalid \\u"):
        pos = text.rfind("\\", 0, pos + 1)  # at the backslash, as for other escapes
        return _Problem(
            "invalid \\u escape in the string at ",
            "",
            path,
            pos,
            "write \\u and four hex digits",
        )
    return _Problem(
        f"invalid escape {json.dumps(text[pos : pos + 2])} in the string at ",
        "",
        path,
        pos,
        "escape a backslash as \\\\",
    )


def _explain(text: str, most_depth: int) -> _Problem | None:
    """Find the first problem in ``text``, in text order, with its pointer and position.

    A strict JSON scanner written for errors: it runs only after the fast parser failed or the
    parsed value nests too deeply, and stops at the first problem. It keeps the pointer of
    where it is, so every problem is located. Iterative: any depth is fine.
    """
    from json import JSONDecodeError
    from json.decoder import scanstring  # type: ignore[attr-defined]

    scan = _scanner()
    end = len(text)
    path: list[str | int] = []
    frames: list[set[str] | None] = []  # per open container: its keys so far, None for arrays
    unscanned = sys.maxsize  # containers nested in more than this many frames are not scanned
    pos = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
    expect_value = True
    while True:
        if expect_value:
            char = text[pos] if pos < end else ""
            if char in ("{", "["):
                if len(frames) >= most_depth:
                    return _Problem(
                        f"the {'object' if char == '{' else 'array'} at ",
                        f" is nested {len(frames) + 1} levels deep, more than the limit of "
                        f"{most_depth}",
                        tuple(path),
                        pos,
                        "send flatter args",
                        "args are nested too deeply",
                        {"maxDepth": most_depth},
                    )
                # A container the C scanner accepts holds no problem (unless it nests too
                # deeply): skip it at C speed, and walk only the containers that fail.
                scanned = None
                if len(frames) <= unscanned:
                    try:
                        scanned = scan(text, pos)
                    except RecursionError:
                        # The containers inside this one nest as deep as the scanner can go;
                        # scanning each again would cost its whole recursion per level.
                        unscanned = len(frames)
                    except (ValueError, StopIteration):
                        pass
                if scanned is not None:
                    value, after = scanned
                    room = most_depth - len(frames)
                    if (
                        most_depth == sys.maxsize
                        or text.count("{", pos, after) + text.count("[", pos, after) <= room
                        or not _nests_deeper(value, room)
                    ):
                        pos = after
                        expect_value = False
                        continue
                is_object = char == "{"
                pos = _SPACE.match(text, pos + 1).end()  # type: ignore[union-attr]
                if pos < end and text[pos] == ("}" if is_object else "]"):
                    pos += 1
                    expect_value = False
                    continue
                frames.append(set() if is_object else None)
                if not is_object:
                    path.append(0)
                    continue
                # An object's first key: handled below, with the keys after a comma.
            elif char == '"':
                try:
                    pos = scanstring(text, pos + 1, True)[1]
                except JSONDecodeError as exc:
                    return _string_problem(exc, tuple(path), text)
                expect_value = False
                continue
            elif text.startswith(_LITERALS, pos):
                pos += 4 if text.startswith(("true", "null"), pos) else 5
                expect_value = False
                continue
            elif text.startswith(_NOT_NUMBERS, pos):
                word = next(w for w in _NOT_NUMBERS if text.startswith(w, pos))
                return _Problem(
                    f"{word} at ",
                    " is not a JSON number",
                    tuple(path),
                    pos,
                    "send a finite number or null",
                )
            else:
                match = _NUMBER.match(text, pos)
                if match is None:
                    return _Problem(
                        "expected a value at ",
                        f", found {_found(text, pos)}",
                        tuple(path),
                        pos,
                        _value_fix(text, pos),
                    )
                number = match.group()
                if match.group(1) or match.group(2):
                    value = float(number)
                    if value - value != 0.0:
                        return _Problem(
                            f"the number {_clip(number, 24)} at ",
                            " is too large for a 64-bit float",
                            tuple(path),
                            pos,
                            "send a smaller number",
                            "args contain a number out of range",
                        )
                else:
                    digits = len(number) - (number[0] == "-")
                    most_digits = sys.get_int_max_str_digits()
                    if most_digits and digits > most_digits:
                        return _Problem(
                            "the integer at ",
                            f" has {digits} digits, more than the limit of {most_digits}",
                            tuple(path),
                            pos,
                            "send it as a string",
                            "args contain a number out of range",
                        )
                pos = match.end()
                expect_value = False
                continue
        else:
            pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
            if not frames:
                if pos < end:
                    return _Problem(
                        f"found {_found(text, pos)} after the end of the JSON value ",
                        "",
                        None,
                        pos,
                        "send exactly one JSON value",
                    )
                return None
            char = text[pos] if pos < end else ""
            keys = frames[-1]
            if keys is None:
                if char == ",":
                    path[-1] = int(path[-1]) + 1
                    pos = _SPACE.match(text, pos + 1).end()  # type: ignore[union-attr]
                    expect_value = True
                elif char == "]":
                    path.pop()
                    frames.pop()
                    pos += 1
                    if len(frames) <= unscanned:
                        unscanned = sys.maxsize
                else:
                    return _Problem(
                        'expected "," or "]" after the item at ',
                        f", found {_found(text, pos)}",
                        tuple(path),
                        pos,
                    )
                continue
            if char == "}":
                path.pop()
                frames.pop()
                pos += 1
                if len(frames) <= unscanned:
                    unscanned = sys.maxsize
                continue
            if char != ",":
                return _Problem(
                    'expected "," or "}" after the value at ',
                    f", found {_found(text, pos)}",
                    tuple(path),
                    pos,
                )
            path.pop()
            pos = _SPACE.match(text, pos + 1).end()  # type: ignore[union-attr]
        # An object key, then ":" (after "{" or after "," in an object).
        keys = frames[-1]
        assert keys is not None
        if pos >= end or text[pos] != '"':
            return _Problem(
                "expected a key in double quotes in the object at ",
                f", found {_found(text, pos)}",
                tuple(path),
                pos,
                _value_fix(text, pos, key=True),
            )
        try:
            key, after = scanstring(text, pos + 1, True)
        except JSONDecodeError as exc:
            return _string_problem(exc, tuple(path), text)
        if key in keys:
            return _Problem(
                f"duplicate key {short_repr(key)} in the object at ",
                "",
                tuple(path),
                pos,
                "send each key once",
            )
        keys.add(key)
        pos = _SPACE.match(text, after).end()  # type: ignore[union-attr]
        if pos >= end or text[pos] != ":":
            return _Problem(
                f'expected ":" after the key {short_repr(key)} in the object at ',
                f", found {_found(text, pos)}",
                tuple(path),
                pos,
            )
        path.append(key)
        pos = _SPACE.match(text, pos + 1).end()  # type: ignore[union-attr]
        expect_value = True


def parse_json_args(
    text: str | bytes | bytearray, *, max_bytes: int | None = None, max_depth: int | None = None
) -> Any:
    """Parse tool args sent as JSON text, strictly, with errors an agent can act on.

    Rejects what ``json.loads`` lets through: NaN and the infinities, numbers too large for a
    float (``1e400``), duplicate keys, and bytes that are not UTF-8. Any failure is located by
    JSON pointer, line and column. The stdlib C parser does the work; finding where a problem
    is takes a slower scan that only runs on failure.

    Args:
        text: The JSON text, as ``str`` or UTF-8 bytes.
        max_bytes: Most UTF-8 bytes allowed, checked before parsing.
        max_depth: Most nesting of arrays and objects (the root container is depth 1).

    Returns:
        The parsed value (any JSON value, not only an object).

    Raises:
        PedelecError: ``TOOL_ARGS_INVALID``; ``details`` has ``"pointer"``, ``"line"`` and
            ``"column"`` when the problem has a place.

    Example:
        >>> parse_json_args('{"delta": 3}')
        {'delta': 3}
        >>> parse_json_args('{"a": 1, "a": 2}')
        Traceback (most recent call last):
        ...
        pedelec.errors.PedelecError: TOOL_ARGS_INVALID: args are not valid JSON: duplicate key "a" \
in the object at the root (line 1, column 10); send each key once.
    """
    if isinstance(text, str):
        if max_bytes is not None and _longer_than(text, max_bytes):
            raise _too_large(max_bytes)
    elif isinstance(text, bytes | bytearray | memoryview):
        if max_bytes is not None and len(text) > max_bytes:
            raise _too_large(max_bytes)
        raw = text
        try:
            text = str(raw, "utf-8")
        except UnicodeDecodeError as exc:
            raise _not_utf8(bytes(raw), exc.start) from None
    else:
        raise TypeError(f"parse_json_args() takes str or bytes, not {type(text).__name__}")

    try:
        value = _decode(text)
    except RecursionError:
        # Without max_depth, or with one beyond the recursion the C parser has.
        problem = None if max_depth is None else _explain(text, max_depth)
        if problem is not None:
            raise problem.error(text) from None
        depth = _nesting(text)
        how_deep = f"{depth} levels deep, " if depth > 0 else ""
        raise PedelecError(
            TOOL_ARGS_INVALID,
            f"args are nested too deeply: the JSON text is nested {how_deep}deeper than the "
            "parser can go; send flatter args.",
            {"depth": depth} if depth > 0 else None,
        ) from None
    except (ValueError, StopIteration) as exc:
        problem = _explain(text, sys.maxsize if max_depth is None else max_depth)
        if problem is not None:
            raise problem.error(text) from None
        raise PedelecError(TOOL_ARGS_INVALID, f"{_INVALID}: {exc}.") from None
    if (
        max_depth is not None
        and _may_nest_deeper(text, max_depth)
        and _nests_deeper(value, max_depth)
    ):
        problem = _explain(text, max_depth)
        if problem is not None:
            raise problem.error(text)
    return value


_scanners: list[Callable[[str, int], tuple[Any, int]]] = []


def _scanner() -> Callable[[str, int], tuple[Any, int]]:
    """The C scanner of a ``JSONDecoder`` with the strict hooks, made once."""
    if not _scanners:
        import json

        decoder = json.JSONDecoder(
            parse_float=_finite_float,
            parse_constant=_reject_constant,
            object_pairs_hook=_unique_pairs,
        )
        _scanners.append(decoder.scan_once)  # type: ignore[attr-defined]
    return _scanners[0]


def _decode(text: str) -> Any:
    """``json.loads`` with the strict hooks, minus its per-call set-up.

    Raises ``ValueError`` or ``StopIteration`` on any problem, ``RecursionError`` when the
    nesting is too deep for the C scanner.
    """
    scan = _scanner()
    try:
        value, end = scan(text, 0)
    except StopIteration:
        start = _SPACE.match(text).end()  # type: ignore[union-attr]
        if not start:
            raise
        value, end = scan(text, start)
    if end != len(text) and text[end:].strip(" \t\n\r"):
        raise _Rejected("extra data")
    return value


def _may_nest_deeper(text: str, most: int) -> bool:
    """A cheap upper bound on the nesting of ``text`` (valid JSON) is above ``most``.

    Every ``[`` or ``{`` may open a level, but in ``},{`` (a container closed, then its next
    sibling opened) the open only returns to the level of the close; such pairs are counted
    on the text as it is (a pair inside a string also holds a bracket inside that string, so
    the bound stays an upper bound).
    """
    bound = text.count("{") + text.count("[")
    for pair in _SIBLING_PAIRS:
        if bound <= most:
            return False
        bound -= text.count(pair)
    return bound > most


# Most frequent first: arrays of objects, compact or as json.dumps writes them.
_SIBLING_PAIRS: Final = ("},{", "}, {", "],[", "], [")


def _nests_deeper(value: Any, most: int) -> bool:
    """Whether the parsed ``value`` nests containers more than ``most`` levels deep."""
    level = [value] if type(value) is dict or type(value) is list else []
    depth = 0
    while level:
        depth += 1
        if depth > most:
            return True
        below = []
        for container in level:
            for item in container.values() if type(container) is dict else container:
                if type(item) is dict or type(item) is list:
                    below.append(item)
        level = below
    return False


def _longer_than(text: str, max_bytes: int) -> bool:
    """Whether ``text`` has more than ``max_bytes`` bytes of UTF-8, encoding only if unsure."""
    if len(text) > max_bytes:
        return True  # every character is at least one byte
    if text.isascii() or len(text) * 4 <= max_bytes:
        return False  # one byte each, or at most four
    return len(text.encode("utf-8", "surrogatepass")) > max_bytes


def _too_large(max_bytes: int) -> PedelecError:
    return PedelecError(
        TOOL_ARGS_INVALID,
        f"args are too large: the JSON text is longer than {max_bytes} bytes of UTF-8; "
        "send smaller args.",
        {"maxBytes": max_bytes},
    )


def _not_utf8(data: bytes, start: int) -> PedelecError:
    before = data[:start].decode("utf-8")
    line, column = _line_column(before, len(before))
    return PedelecError(
        TOOL_ARGS_INVALID,
        f"{_INVALID}: byte {start} (line {line}, column {column}) is not valid UTF-8; "
        "send the text as UTF-8.",
        {"line": line, "column": column, "byte": start},
    )


# --- equality -------------------------------------------------------------------------------


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
    encode_basestring = _quoter()
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
            elif isinstance(item, str):
                out.append(encode_basestring(item))
            elif isinstance(item, int):
                out.append(_int_text(item))
            elif isinstance(item, float):
                out.append(_float_text(item))
            else:
                out.append(_NOT_JSON_MARK)
                others.append(_Identity(item))
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


# --- dumps ----------------------------------------------------------------------------------

_encoders: dict[bool, Callable[[Any], str]] = {}


def _encoder(sort_keys: bool) -> Callable[[Any], str]:
    encode = _encoders.get(sort_keys)
    if encode is None:
        import json

        encode = json.JSONEncoder(
            ensure_ascii=False, allow_nan=False, sort_keys=sort_keys, separators=(",", ":")
        ).encode
        _encoders[sort_keys] = encode
    return encode


def dumps_canonical(value: Any) -> str:
    """Serialise ``value`` with sorted keys and no spaces: equal JSON gives equal text.

    Non-ASCII text stays as it is; NaN and the infinities raise ``ValueError``. Meant for
    values ``clone_json`` accepts; deep values work too (no ``RecursionError``).

    Example:
        >>> dumps_canonical({"b": 1, "a": [True, None, "é"]})
        '{"a":[true,null,"é"],"b":1}'
    """
    try:
        return _encoder(True)(value)
    except RecursionError:
        return _dumps_deep(value, sort_keys=True)


def dumps_compact(value: Any) -> str:
    """Serialise ``value`` with no spaces, keeping key order (``dumps_canonical`` unsorted).

    Example:
        >>> dumps_compact({"b": 1, "a": 2.5})
        '{"b":1,"a":2.5}'
    """
    try:
        return _encoder(False)(value)
    except RecursionError:
        return _dumps_deep(value, sort_keys=False)


def _key_text(key: Any) -> str:
    """An object key as ``json.dumps`` writes it (it converts a few scalar types)."""
    if isinstance(key, str):
        return key
    if key is True or key is False or key is None:
        return _scalar_text(key)
    if isinstance(key, int | float):
        if isinstance(key, float) and key - key != 0.0:
            raise ValueError("Out of range float values are not JSON compliant")
        return _scalar_text(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


class _Close(_Text):
    """The closing bracket of a container being serialised, which leaves the active set."""

    __slots__ = ("ident",)

    def __init__(self, text: str, ident: int) -> None:
        super().__init__(text)
        self.ident = ident


def _dumps_deep(value: Any, *, sort_keys: bool) -> str:
    """The same text as the ``json`` encoder, without recursion, for values too deep for it."""
    encode_basestring = _quoter()
    out: list[str] = []
    active: set[int] = set()
    pending: list[Any] = [iter((value,))]
    while pending:
        piece = next(pending[-1], _END)
        if piece is _END:
            pending.pop()
        elif type(piece) is _Text:
            out.append(piece.text)
        elif type(piece) is _Close:
            out.append(piece.text)
            active.discard(piece.ident)
        elif isinstance(piece, str):
            out.append(encode_basestring(piece))
        elif piece is None or piece is True or piece is False:
            out.append(_scalar_text(piece))
        elif isinstance(piece, int):
            out.append(int.__repr__(piece))
        elif isinstance(piece, float):
            if piece - piece != 0.0:
                raise ValueError(f"Out of range float values are not JSON compliant: {piece!r}")
            out.append(float.__repr__(piece))
        elif isinstance(piece, dict | list | tuple):
            ident = id(piece)
            if ident in active:
                raise ValueError("Circular reference detected")
            active.add(ident)
            if isinstance(piece, dict):
                items = list(dict.items(piece))
                if sort_keys:
                    items.sort(key=lambda pair: pair[0])
                pending.append(_encode_dict_pieces(items, ident))
            else:
                pending.append(_encode_list_pieces(list(piece), ident))
        else:
            raise TypeError(f"Object of type {type(piece).__name__} is not JSON serializable")
    return "".join(out)


def _encode_dict_pieces(items: list[tuple[Any, Any]], ident: int) -> Iterator[Any]:
    encode_basestring = _quoter()
    yield _OPEN_OBJECT
    for i, (key, item) in enumerate(items):
        if i:
            yield _COMMA
        yield _Text(encode_basestring(_key_text(key)))
        yield _COLON
        yield item
    yield _Close("}", ident)


def _encode_list_pieces(items: list[Any], ident: int) -> Iterator[Any]:
    yield _OPEN_ARRAY
    for i, item in enumerate(items):
        if i:
            yield _COMMA
        yield item
    yield _Close("]", ident)
