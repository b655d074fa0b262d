"""Turn a foreign JSON Schema into the closest Tool Args Schema, and say what changed.

Schemas written for other tools (pydantic's ``model_json_schema()``, OpenAPI ``parameters`` and
``requestBody`` schemas, the TypeScript SDK's manifests) use keywords the subset leaves out.
``convert`` rewrites what has an exact or a close equivalent and returns one ``Change`` for every
rewrite, so nothing changes silently; what has none (a recursive ``$ref``, ``not``, a tuple
``items``, an ``anyOf`` whose branches can match one value) is one ``INVALID_INPUT`` listing every
problem with its pointer. Every pointer is into the schema as given, so a change inside a
``$defs`` entry names that entry, once, however many ``$ref`` use it.

The rules, in the order a node meets them:

* ``$ref`` (to ``#`` or ``#/...``) and a single-branch ``allOf`` are replaced by their target,
  merged with the keywords beside them; ``$defs`` and ``definitions`` are then dropped.
* ``null`` leaves the node (``nullable: true``, ``type: [T, "null"]``, a ``{"type": "null"}``
  branch, a ``null`` enum member); a property that could be null stops being required.
* ``const`` becomes a one-member ``enum``; several types become a ``oneOf`` of one node each.
* ``anyOf`` becomes ``oneOf`` when its branches are proven disjoint (``overlap.disjoint``).
* Integer exclusive bounds become inclusive ones; constraints the subset cannot hold but an
  agent can follow (``format``, ``multipleOf``, number exclusive bounds, property counts) move
  into ``description``; annotations (``title``, ``$schema``, ``readOnly``...) and
  ``additionalProperties: false`` are dropped.
* A ``default`` or ``examples`` entry the converted node no longer accepts is dropped.

One concern a module: ``refs`` (references and the node bound), ``nulls`` (null and Optional),
``rules`` (the per-keyword rewrites), ``tables`` (what is known about foreign keywords),
``converter`` (the walk that applies them) and ``log`` (``Change`` and the problems).
"""

from __future__ import annotations

from typing import Any

from pedelec._json import NotJsonError, clone_json
from pedelec._json.render import render
from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.schema._convert.converter import Converter
from pedelec.schema._convert.log import Change, failure
from pedelec.schema.check import check_schema

__all__ = ["Change", "convert", "convert_text"]


def convert(schema: Any, *, tool: str | None = None) -> tuple[dict[str, Any], list[Change]]:
    """Turn a JSON Schema into the closest Tool Args Schema, with every change as data.

    Reads JSON Schema 2020-12 and draft-07 (what pydantic's ``model_json_schema()`` emits),
    OpenAPI 3.0 schemas (``nullable``, ``example``, boolean exclusive bounds) and the TypeScript
    SDK's ``argsSchema``. A schema already inside the subset comes back equal, with no changes.

    Args:
        schema: The foreign schema; the root must describe an object.
        tool: The tool the schema is for, named in the error message when given.

    Returns:
        The Tool Args Schema (it passes ``check_schema``) and the changes, in document order.

    Raises:
        PedelecError: ``INVALID_INPUT`` listing every part that cannot be expressed, each with
            its pointer; ``details`` is ``{"problems": [{"pointer", "message"}], "tool"?}``.

    Example:
        >>> schema, changes = convert({
        ...     "type": "object",
        ...     "properties": {"n": {"type": "integer", "exclusiveMinimum": 0, "title": "N"}},
        ... })
        >>> schema
        {'type': 'object', 'properties': {'n': {'type': 'integer', 'minimum': 1}}}
        >>> [change.pointer for change in changes]
        ['/properties/n/exclusiveMinimum', '/properties/n/title']
    """
    try:
        root = clone_json(schema)
    except NotJsonError as exc:
        raise failure([(exc.pointer, exc.reason)], tool) from None
    converter = Converter(root)
    out = converter.node(root, (), 1, ())
    if out.node is not None and out.node.get("type") != "object":
        got = "alternatives" if "oneOf" in out.node else f'"type": {render(out.node["type"])}'
        converter.log.problem(
            (),
            f"the root must be an object node, got {got}; a tool's arguments are always an "
            f"object, so wrap the value in a property",
        )
    elif out.node is None and out.nullable:
        converter.log.problem((), "the root can only be null; a tool's arguments are an object")
    if converter.log.problems:
        raise failure(list(converter.log.problems), tool)
    assert out.node is not None  # no problem means a node
    result = check_schema(out.node, tool=tool)  # the promise: what comes back registers
    return result, list(converter.log.changes.values())


def convert_text(
    text: str | bytes, *, tool: str | None = None
) -> tuple[dict[str, Any], list[Change]]:
    """``convert`` for a schema given as JSON text (a file's contents), parsed strictly.

    What ``pedelec convert FILE`` needs: the text is parsed like tool args are (duplicate keys,
    NaN and the infinities are errors, located by line and column), then converted.

    Args:
        text: The JSON text of the schema, as ``str`` or UTF-8 bytes.
        tool: The tool the schema is for, named in the error message when given.

    Returns:
        As ``convert``: the Tool Args Schema and the changes.

    Raises:
        PedelecError: ``INVALID_INPUT`` when the text is not JSON (duplicate keys, NaN...), or
            as ``convert`` raises.

    Example:
        >>> convert_text('{"type": "object", "title": "Empty"}')[0]
        {'type': 'object'}
    """
    from pedelec._json import parse_json_args

    try:
        schema = parse_json_args(text)
    except PedelecError as exc:
        message = exc.message.replace("args are not valid JSON", "the schema is not valid JSON")
        raise PedelecError(INVALID_INPUT, message, exc.details) from None
    return convert(schema, tool=tool)
