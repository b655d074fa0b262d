"""JSON value rules: strict clone, strict parse, canonical dumps, type-aware equality.

JSON types are not Python types. ``True`` is not a number, ``1`` and ``1.0`` are the same
number, a tuple or a set is not JSON, NaN is not a number JSON can carry, and an object key is
always a string. Every module that takes values from a developer or an agent goes through here,
one concern a module (data flows down this list; each imports only those below it):

* ``parse``: ``parse_json_args``, strict parse of args sent as JSON text, within bounds.
* ``equal``: ``json_key`` / ``json_equal``, the equality of JSON Schema (``enum``,
  ``uniqueItems``), and ``duplicates``.
* ``clone``: ``clone_json``, the strict copy of Python values, and ``NotJsonError``.
* ``locate``: ``pointer``, line and column, and the scanner that finds where a text is wrong.
* ``render``: the one message vocabulary (``render``, ``quote``, ``describe``, ``type_name``).
* ``dump``: ``dumps_canonical`` / ``dumps_compact``, and ``loads_dumped`` to read their text back.

Nothing here recurses on the depth of a value, so a deeply nested value is an error with a
location, never a ``RecursionError``. ``json`` is imported inside the functions that need it,
which keeps ``import pedelec`` light.
"""

from __future__ import annotations

from pedelec._json.clone import NotJsonError, clone_json
from pedelec._json.dump import dumps_canonical, dumps_compact, loads_dumped
from pedelec._json.equal import duplicates, json_equal, json_key
from pedelec._json.locate import pointer
from pedelec._json.parse import parse_json_args
from pedelec._json.render import type_name

__all__ = [
    "NotJsonError",
    "clone_json",
    "dumps_canonical",
    "dumps_compact",
    "duplicates",
    "json_equal",
    "json_key",
    "loads_dumped",
    "parse_json_args",
    "pointer",
    "type_name",
]
