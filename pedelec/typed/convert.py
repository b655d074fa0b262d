"""Converters: a validated JSON value turned into what the handler's annotation promises
(an ``int`` for ``2.0``, an ``Enum`` member, the member of a union that matched)."""

from __future__ import annotations

import dataclasses
import enum
import types
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple, Union, get_args, get_origin

import typing_extensions as te

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


# --- results: what a typed tool returns, as JSON -----------------------------------------------

#: How deep ``to_json_result`` follows containers; deeper values are left for the session's
#: wire check, which reports them, rather than overflowing the stack on a cyclic value.
_RESULT_DEPTH: Final = 200


def to_json_result(value: Any, depth: int = 0) -> Any:
    """``value`` with dataclass instances, Enum members and ``model_dump`` objects made JSON.

    TypedDict values are dicts already; containers are rebuilt only to reach what is inside.
    Anything else is returned as it is, so the session's own result check reports it.
    """
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if depth >= _RESULT_DEPTH:
        return value
    if isinstance(value, enum.Enum):
        return to_json_result(value.value, depth + 1)
    if isinstance(value, dict):
        return {key: to_json_result(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [to_json_result(item, depth + 1) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            field.name: to_json_result(getattr(value, field.name), depth + 1)
            for field in dataclasses.fields(value)
        }
    if hasattr(kind, "model_dump"):
        return value.model_dump(mode="json")
    return value


def duck_result(value: Any) -> Any:
    """An unannotated result: converted only when it is itself a dataclass, Enum or model.

    Cheap on purpose (a few type checks per call): a plain value passes untouched.
    """
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or kind is dict:
        return value
    if (
        isinstance(value, enum.Enum)
        or (dataclasses.is_dataclass(value) and not isinstance(value, type))
        or hasattr(kind, "model_dump")
    ):
        return to_json_result(value)
    return value


class _NotJson(Exception):
    """A part of a return annotation that no JSON value can be."""


def _needs_conversion(tp: Any, seen: set[int]) -> bool:
    """Whether a value of ``tp`` needs ``to_json_result``; raises ``_NotJson`` if it is not JSON."""
    if tp is None or tp is type(None) or tp is Any or tp is object:
        return False
    if tp in (str, int, float, bool):
        return False
    origin = get_origin(tp)
    if origin is te.Annotated:
        return _needs_conversion(tp.__origin__, seen)
    if origin is Literal:
        return any(isinstance(v, enum.Enum) for v in get_args(tp))
    # Lists, not generators, inside any(): every member is checked, so a bad one always raises.
    if origin is Union or origin is types.UnionType:
        return any([_needs_conversion(m, seen) for m in get_args(tp)])
    if origin in (list, tuple, Sequence):
        items = [a for a in get_args(tp) if a is not Ellipsis]
        return any([_needs_conversion(a, seen) for a in items])
    if origin in (dict, Mapping):
        pair = get_args(tp)
        if pair and pair[0] is not str:
            raise _NotJson
        return bool(pair) and _needs_conversion(pair[1], seen)
    if tp in (list, tuple, dict):
        return False
    if origin is not None or not isinstance(tp, type):
        raise _NotJson
    if issubclass(tp, enum.Enum):
        return True
    if id(tp) in seen:
        return True
    if te.is_typeddict(tp):
        seen.add(id(tp))
        hints = te.get_type_hints(tp)
        return any([_needs_conversion(h, seen) for h in hints.values()])
    if dataclasses.is_dataclass(tp):
        seen.add(id(tp))
        hints = te.get_type_hints(tp)
        for field in dataclasses.fields(tp):
            _needs_conversion(hints.get(field.name, Any), seen)
        return True
    if hasattr(tp, "model_dump"):
        return True
    raise _NotJson


def result_converter(tool: str, annotation: Any) -> Convert | None:
    """The converter for a typed tool's return annotation (``None``: the value is JSON as is).

    Raises:
        PedelecError: ``INVALID_INPUT`` naming the return when no JSON value fits it.
    """
    from pedelec.errors import INVALID_INPUT, PedelecError
    from pedelec.typed.hints import annotation_label

    try:
        needs = _needs_conversion(annotation, set())
    except _NotJson:
        raise PedelecError(
            INVALID_INPUT,
            f'Tool "{tool}": its return annotation {annotation_label(annotation)} cannot be '
            "sent as JSON; return str, int, float, bool, None, a list or dict[str, ...] of them, "
            'a dataclass, a TypedDict, an Enum or an object with model_dump(mode="json"), or '
            "annotate it -> Any.",
            {"tool": tool, "field": "return"},
        ) from None
    except Exception:  # a dataclass or TypedDict whose own hints do not resolve: convert anyway
        return to_json_result
    return to_json_result if needs else None


class Shape(NamedTuple):
    """One annotation, translated: its node, how to convert a validated value, how it reads."""

    node: dict[str, Any]
    convert: Convert | None
    #: The type's own documentation (a TypedDict's or Enum's docstring summary): the node's
    #: description when nothing more specific gives one.
    doc: str | None
    #: The annotation as written in messages, e.g. ``list[int]``.
    label: str
