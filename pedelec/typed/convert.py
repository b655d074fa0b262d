"""Converters: a validated JSON value turned into what the handler's annotation promises
(an ``int`` for ``2.0``, an ``Enum`` member, the member of a union that matched)."""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from pedelec.schema.validator import Validator

Convert = Callable[[Any], Any]
#: A union member as the converters see it: its node and its converter.
Member = tuple[dict[str, Any], Convert | None]


def to_int(value: Any) -> Any:
    # JSON Schema counts 2.0 as an integer; an ``int`` parameter should still get an int.
    return value if type(value) is not float else int(value)


def list_converter(convert: Convert) -> Convert:
    def convert_list(value: Any) -> Any:
        return [convert(item) for item in value]

    return convert_list


def dict_converter(fields: tuple[tuple[str, Convert], ...]) -> Convert:
    def convert_dict(value: Any) -> Any:
        out = dict(value)  # a copy: the caller's args stay as the agent sent them
        for key, convert in fields:
            if key in out:
                out[key] = convert(out[key])
        return out

    return convert_dict


def literal_converter(kind: str, members: dict[Any, enum.Enum] | None) -> Convert | None:
    if members is None:
        return to_int if kind == "integer" else None

    def convert_literal(value: Any) -> Any:
        member = members.get(value)
        if member is not None:
            return member
        return to_int(value) if kind == "integer" else value

    return convert_literal


#: The JSON type of a validated value, as the key ``union_converter`` dispatches on.
_VALUE_KIND: Final[Mapping[type, str]] = {
    str: "string",
    bool: "boolean",
    int: "number",
    float: "number",
    list: "array",
    dict: "object",
}


def _node_kinds(node: Mapping[str, Any]) -> set[str]:
    if "oneOf" in node:
        return {k for branch in node["oneOf"] for k in _node_kinds(branch)}
    kind = node["type"]
    return {"number" if kind == "integer" else kind}


def union_converter(members: Sequence[Member]) -> Convert | None:
    """Convert a value of a ``oneOf`` as the member that matched it would.

    Members of different JSON types are told apart by the value's type. When several members
    share a type (two TypedDicts, two Literal groups of integers...), their nodes are compiled on
    first use and the one that accepts the value is taken; validation already ensured exactly one
    does.
    """
    if all(convert is None for _, convert in members):
        return None
    by_kind: dict[str, list[Member]] = {}
    for member in members:
        for kind in _node_kinds(member[0]):
            by_kind.setdefault(kind, []).append(member)
    table: dict[str, Convert | None] = {}
    for kind, group in by_kind.items():
        if len(group) == 1:
            table[kind] = group[0][1]
        elif any(convert is not None for _, convert in group):
            table[kind] = _Pick(group)
        else:
            table[kind] = None

    def convert_union(value: Any) -> Any:
        convert = table.get(_VALUE_KIND.get(type(value), ""))
        return value if convert is None else convert(value)

    return convert_union


class _Pick:
    """Convert with the member whose node accepts the value.

    The nodes are compiled on first use: this runs on every call of the tool, where the
    generated validator is much faster than walking the node.
    """

    __slots__ = ("_members", "_validators")

    def __init__(self, members: list[Member]) -> None:
        self._members = members
        self._validators: list[Validator] | None = None

    def __call__(self, value: Any) -> Any:
        validators = self._validators
        if validators is None:
            from pedelec.schema.validator import compile_node

            # Compiling twice in a race is harmless; both lists are equal.
            validators = self._validators = [compile_node(node) for node, _ in self._members]
        for (_, convert), validator in zip(self._members, validators, strict=True):
            if validator.is_valid(value):
                return value if convert is None else convert(value)
        return value
