"""JSON text out: canonical and compact dumps, and the string encoder everything else shares.

The ``json`` encoder does the work; ``_dumps_deep`` writes the same text without recursion for
values nested deeper than it can go. ``json`` is imported on first use, which keeps
``import pedelec`` light.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Final

__all__ = [
    "CLOSE_ARRAY",
    "CLOSE_OBJECT",
    "COLON",
    "COMMA",
    "END",
    "OPEN_ARRAY",
    "OPEN_OBJECT",
    "Text",
    "dumps_canonical",
    "dumps_compact",
    "loads_dumped",
    "string_encoder",
]

_string_encoders: list[Callable[[str], str]] = []


def string_encoder() -> Callable[[str], str]:
    """``json``'s C function that writes a str as a JSON string (non-ASCII kept), loaded once.

    Importing it inside every call would cost more than the call itself.
    """
    if not _string_encoders:
        from json.encoder import encode_basestring

        _string_encoders.append(encode_basestring)
    return _string_encoders[0]


_decoders: list[Callable[[str], tuple[Any, int]]] = []


def loads_dumped(text: str) -> Any:
    """The value of a text that ``dumps_compact`` or ``dumps_canonical`` wrote, as a fresh copy
    of plain JSON types (``json``'s C decoder, loaded once; quicker than ``clone_json``).

    The text is trusted to be one whole JSON value, so nothing beyond ``json``'s own decoding is
    checked: args an agent sends go through ``parse_json_args``.

    Example:
        >>> loads_dumped(dumps_compact({"b": [1, 2.5], "a": None}))
        {'b': [1, 2.5], 'a': None}
    """
    if not _decoders:
        from json import JSONDecoder

        _decoders.append(JSONDecoder().raw_decode)
    return _decoders[0](text)[0]


class Text:
    """Literal text in a stream of pieces to write (distinct from string values)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


#: What ``next(pieces, END)`` gives when an iterator of pieces is done.
END: Final = object()
OPEN_OBJECT, CLOSE_OBJECT = Text("{"), Text("}")
OPEN_ARRAY, CLOSE_ARRAY = Text("["), Text("]")
COMMA, COLON = Text(","), Text(":")

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


def _constant_text(value: bool | None) -> str:
    return "null" if value is None else "true" if value else "false"


def _key_text(key: Any) -> str:
    """An object key as ``json.dumps`` writes it (it converts a few scalar types)."""
    if isinstance(key, str):
        return key
    if key is True or key is False or key is None:
        return _constant_text(key)
    if isinstance(key, int):
        return int.__repr__(key)
    if isinstance(key, float):
        if key - key != 0.0:
            raise ValueError("Out of range float values are not JSON compliant")
        return float.__repr__(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


class _Close(Text):
    """The closing bracket of a container being serialised, which leaves the active set."""

    __slots__ = ("ident",)

    def __init__(self, text: str, ident: int) -> None:
        super().__init__(text)
        self.ident = ident


def _dumps_deep(value: Any, *, sort_keys: bool) -> str:
    """The same text as the ``json`` encoder, without recursion, for values too deep for it."""
    encode_basestring = string_encoder()
    out: list[str] = []
    active: set[int] = set()
    pending: list[Any] = [iter((value,))]
    while pending:
        piece = next(pending[-1], END)
        if piece is END:
            pending.pop()
        elif type(piece) is Text:
            out.append(piece.text)
        elif type(piece) is _Close:
            out.append(piece.text)
            active.discard(piece.ident)
        elif isinstance(piece, str):
            out.append(encode_basestring(piece))
        elif piece is None or piece is True or piece is False:
            out.append(_constant_text(piece))
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
    encode_basestring = string_encoder()
    yield OPEN_OBJECT
    for i, (key, item) in enumerate(items):
        if i:
            yield COMMA
        yield Text(encode_basestring(_key_text(key)))
        yield COLON
        yield item
    yield _Close("}", ident)


def _encode_list_pieces(items: list[Any], ident: int) -> Iterator[Any]:
    yield OPEN_ARRAY
    for i, item in enumerate(items):
        if i:
            yield COMMA
        yield item
    yield _Close("]", ident)
