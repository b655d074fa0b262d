"""Null out of a node: ``nullable``, ``type: [T, "null"]``, null members and branches, Optional.

The subset has no null type, so a value that could be null becomes one that can be missing: the
node loses null, and its property leaves the object's ``required`` list.
"""

from __future__ import annotations

from typing import Any, Final

from pedelec._json.render import render
from pedelec.schema._convert.log import Log
from pedelec.schema._convert.rules import const_to_enum
from pedelec.schema._convert.tables import Kw

_WHY: Final = (
    "the subset has no null type (a property that could be null is left out of its object's "
    "required list instead)."
)

#: Why null left a node's ``nullable``, ``type`` or ``enum``.
NULL_REASON: Final = f"null was removed: {_WHY}"

#: Why a ``{"type": "null"}`` alternative of an ``anyOf`` or ``oneOf`` left it.
NULL_ALTERNATIVE_REASON: Final = f"The null alternative was removed: {_WHY}"


def drop_null(kw: Kw, log: Log) -> tuple[bool, bool]:
    """Take null out of ``nullable``, ``type``, ``const`` and ``enum``.

    Returns whether null was allowed, and whether nothing but null was.
    """
    values = kw.values
    nullable = False
    if "nullable" in values:
        flag = values.pop("nullable")
        nullable = flag is True
        reason = NULL_REASON if nullable else '"nullable": false says nothing; it was dropped.'
        log.change(kw.at("nullable"), flag, None, reason)
    kind = values.get("type")
    if kind == "null" or kind == ["null"]:
        return True, True
    if type(kind) is list and "null" in kind:
        rest = [name for name in kind if name != "null"]
        values["type"] = rest[0] if len(rest) == 1 else rest
        log.change(kw.at("type"), kind, values["type"], NULL_REASON)
        nullable = True
    if "const" in values and values["const"] is None:
        return True, True
    const_to_enum(kw, log)
    enum = values.get("enum")
    if type(enum) is list and None in enum:
        values["enum"] = [v for v in enum if v is not None]
        if not values["enum"]:
            return True, True
        log.change(kw.at("enum"), enum, values["enum"], NULL_REASON)
        nullable = True
    return nullable, False


def required(kw: Kw, node: dict[str, Any], nullable: list[str], log: Log) -> None:
    """Leave the properties named in ``nullable`` (they could be null) out of ``required``."""
    was = node["required"]
    if type(was) is not list:
        return  # the check reports it
    kept = [name for name in was if name not in nullable]
    if len(kept) == len(was):
        return
    names = ", ".join(render(name) for name in was if name in nullable)
    log.change(
        kw.at("required"),
        was,
        kept or None,
        f"{names} could be null, so no longer required: the handler finds the key missing "
        f"where the agent would have sent null.",
    )
    if kept:
        node["required"] = kept
    else:
        del node["required"]
