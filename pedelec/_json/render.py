"""The one message vocabulary: how a value or a string is shown in a message.

Every message that shows a value a developer or an agent sent goes through here, so the same
value reads the same way in a registration error, a validator error and an adapter's reply.
``render`` writes any value as compact JSON cut to a length; ``quote`` writes one string in
double quotes; ``describe`` names a value's JSON type and shows it ("what arrived");
``type_name`` is the JSON type name alone.

No character that ``str.isprintable`` refuses (tab, line break, ``\\x01``, DEL, C1 controls,
zero-width and bidirectional marks, lone surrogates) ever appears raw: each is written as JSON
writes an escape (``\\t``, ``\\u0001``), so a message is one visible line. Rendering never raises
and costs about ``limit`` steps, whatever the size or depth of the value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Final

from pedelec._json.dump import (
    CLOSE_ARRAY,
    CLOSE_OBJECT,
    COLON,
    COMMA,
    END,
    OPEN_ARRAY,
    OPEN_OBJECT,
    Text,
    string_encoder,
)

__all__ = [
    "SHOWN_CHARS",
    "SHOWN_NAME_CHARS",
    "SHOWN_OPTION_CHARS",
    "describe",
    "python_text",
    "quote",
    "render",
    "scalar_text",
    "type_name",
]

#: Most characters of a value a message shows by default: a string's text inside its quotes in
#: ``describe`` and the validator's messages, the whole rendering in ``render``.
SHOWN_CHARS: Final = 40
#: Most characters of a name a message shows: a tool, a property, a pattern.
SHOWN_NAME_CHARS: Final = 80
#: Most characters of each ``enum`` option (and of the value compared with them) a message shows.
SHOWN_OPTION_CHARS: Final = 60

# The escapes JSON writes in short form; every other character below U+0020 is \u00XX.
_SHORT_ESCAPES: Final = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


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


def _json_escape(char: str) -> str:
    """One character as a JSON escape (a surrogate pair above U+FFFF)."""
    short = _SHORT_ESCAPES.get(char)
    if short is not None:
        return short
    code = ord(char)
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def _visible(text: str) -> str:
    """``text`` with every character ``str.isprintable`` refuses written as a JSON escape."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else _json_escape(char) for char in text)


_ascii_encoders: list[Callable[[str], str]] = []


def _ascii_encoder() -> Callable[[str], str]:
    if not _ascii_encoders:
        from json.encoder import encode_basestring_ascii

        _ascii_encoders.append(encode_basestring_ascii)
    return _ascii_encoders[0]


def quote(
    text: str, limit: int | None = None, *, ascii: bool = False, verbatim: bool = False
) -> str:
    """Return ``text`` in double quotes for a message, escaped as a JSON string.

    Args:
        text: The string to show.
        limit: Most characters of ``text`` shown; a longer text shows its first ``limit``
            characters and "…" (before escaping, inside the quotes). ``None`` shows it all.
        ascii: Escape every non-ASCII character too, as ``json.dumps`` does by default: for
            text that may be invisible, such as a single character the agent sent.
        verbatim: Keep ``\\`` and ``"`` as they are and escape only what is not printable: for
            text whose backslashes are its own syntax, such as a regular expression.

    Example:
        >>> quote('say "hi"\\t')
        '"say \\\\"hi\\\\"\\\\t"'
        >>> quote("x" * 50, 3), quote("\\\\d+\\x01", verbatim=True)
        ('"xxx…"', '"\\\\d+\\\\u0001"')
    """
    if limit is not None and len(text) > limit:
        text = text[: max(limit, 0)] + "…"
    if verbatim:
        return f'"{_visible(text)}"'
    if ascii:
        return _ascii_encoder()(text)
    encoded = string_encoder()(text)
    # JSON escapes C0 controls, not DEL, C1 and others; most texts need nothing more.
    return encoded if encoded.isprintable() else _visible(encoded)


def scalar_text(value: Any, limit: int | None = None) -> str:
    """The JSON-ish text of a non-container value: ``null``, ``NaN``, ``"a\\tb"``.

    A string shows its first ``limit`` characters and "…" inside the quotes (all of it when
    ``limit`` is None); anything else is shown whole.
    """
    t = type(value)
    # Exact numbers first, written out: the validator's bounds messages show two of them, and
    # messages are on the clock of ``errors()``.
    if t is int:
        try:
            return repr(value)
        except ValueError:  # more digits than sys.get_int_max_str_digits() allows
            return f"<integer of {value.bit_length()} bits>"
    if t is float and value - value == 0.0:
        return repr(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return quote(value, limit)
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
    return python_text(value)


def python_text(value: Any) -> str:
    """A value as Python writes it (``reprlib``'s short ``repr``), for what is not JSON.

    Never raises, and shows no character ``str.isprintable`` refuses.
    """
    import reprlib

    try:
        return _visible(reprlib.repr(value))
    except Exception:
        return f"<{type(value).__name__}>"


def render(value: Any, limit: int = SHOWN_CHARS) -> str:
    """Render ``value`` as compact JSON for a message, cut to ``limit`` characters with "…".

    Strings are quoted as JSON strings, ``None`` is ``null``; non-JSON values use their
    ``repr`` (``reprlib``'s, so a long one is shortened). Huge or deep values cost only about
    ``limit`` steps, and it never raises.

    Args:
        value: Any value.
        limit: The most characters of the result (at least 1); the last is "…" when the
            rendering was cut. ``scalar_text`` shows a scalar whole.

    Example:
        >>> render({"a": [1, True, None]})
        '{"a":[1,true,null]}'
        >>> render("x" * 100, limit=10)
        '"xxxxxxxx…'
    """
    limit = max(limit, 1)
    out: list[str] = []
    size = 0
    # Each entry is an iterator of pending pieces: strings to emit, or values to render.
    pending: list[Any] = [iter((value,))]
    while pending and size <= limit:
        piece = next(pending[-1], END)
        if piece is END:
            pending.pop()
            continue
        if type(piece) is Text:
            text: str = piece.text
        elif isinstance(piece, dict):
            pending.append(_dict_pieces(piece))
            continue
        elif isinstance(piece, list):
            pending.append(_list_pieces(piece))
            continue
        elif isinstance(piece, str) and len(piece) > limit:
            text = quote(piece[:limit])
        else:
            text = scalar_text(piece)
        out.append(text)
        size += len(text)
    rendered = "".join(out)
    if len(rendered) > limit or pending:
        return rendered[: limit - 1] + "…"
    return rendered


def _dict_pieces(value: dict[Any, Any]) -> Iterator[Any]:
    yield OPEN_OBJECT
    for i, (key, item) in enumerate(dict.items(value)):
        if i:
            yield COMMA
        yield key if isinstance(key, str) else Text(scalar_text(key))
        yield COLON
        yield item
    yield CLOSE_OBJECT


def _list_pieces(value: list[Any]) -> Iterator[Any]:
    yield OPEN_ARRAY
    for i, item in enumerate(list.__iter__(value)):
        if i:
            yield COMMA
        yield item
    yield CLOSE_ARRAY


def describe(value: Any) -> str:
    """Name a value's JSON type and show it briefly, for "got …" in a message.

    Strings show up to ``SHOWN_CHARS`` characters, integers up to 128 bits in full; an array says how
    many items it has and an object only that it is one, so the message stays one short line.
    Only exact JSON types count: anything else, subclasses included, is named as Python.

    Example:
        >>> [describe(v) for v in ("a\\tb", 3, 1.5, True, None, [1, 2], {}, (1,))]
        ['string "a\\\\tb"', 'integer 3', 'number 1.5', 'boolean true', 'null', \
'array of 2 items', 'object', 'Python tuple (not a JSON value)']
    """
    kind = type(value)
    if kind is str:
        return f"string {quote(value, SHOWN_CHARS)}"
    if kind is bool:
        return "boolean true" if value else "boolean false"
    if kind is int:
        return f"integer {_digits(value)}"
    if kind is float:
        if value != value or value in (float("inf"), float("-inf")):
            return f"{value!r} (not a JSON number)"
        return f"number {value!r}"
    if value is None:
        return "null"
    if kind is list:
        return f"array of {len(value)} item{'' if len(value) == 1 else 's'}"
    if kind is dict:
        return "object"
    return f"Python {kind.__name__} (not a JSON value)"


def _digits(number: int) -> str:
    """An integer below 2**128 in full, a larger one by its first 20 characters and "…"."""
    if number.bit_length() < 128:
        return int.__repr__(number)
    try:
        return int.__repr__(number)[:20] + "…"
    except ValueError:  # more digits than sys.get_int_max_str_digits() allows
        return f"<{number.bit_length()} bits>"
