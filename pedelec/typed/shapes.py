"""Annotations → schema nodes: the ``Builder`` translates one tool's annotations into nodes
of the Tool Args Schema subset, each with the converter its handler needs."""

from __future__ import annotations

import enum
import math
import types
from collections.abc import Mapping, MutableSequence, Sequence
from typing import Any, Final, Literal, Union, get_args, get_origin

import typing_extensions as te

from pedelec._context import ToolCallContext
from pedelec._json.render import scalar_text
from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.limits import MAX_TYPED_VALUE_DEPTH
from pedelec.schema import overlap
from pedelec.typed.convert import (
    Convert,
    Shape,
    dict_converter,
    list_converter,
    literal_converter,
    to_int,
    union_converter,
)
from pedelec.typed.docstrings import parse_docstring
from pedelec.typed.hints import NoneType, annotation_label, literal_label, qualifiers, strip_none
from pedelec.typed.metadata import Constraints
from pedelec.typed.models import class_shape, is_model_class

#: The plain types that map to one scalar node → (node type, converter of a validated value).
_SCALARS: Final[Mapping[Any, tuple[str, Convert | None]]] = {
    str: ("string", None),
    bool: ("boolean", None),
    int: ("integer", to_int),
    float: ("number", None),
}


# ``origin`` of the generic aliases that become an array (the handler receives a list).
_ARRAY_ORIGINS: Final = (list, Sequence, MutableSequence)


_OBJECT_ORIGINS: Final = (dict, Mapping)


# Containers the subset cannot express, with the closest thing it can.
_CONTAINER_HINTS: Final[Mapping[Any, str]] = {
    tuple: "use list[T] or Sequence[T] (the subset has no fixed-length tuples)",
    set: "use list[T] with UniqueItems()",
    frozenset: "use list[T] with UniqueItems()",
}


class Builder:
    """Translates the annotations of one tool, knowing where it is for error messages."""

    def __init__(self, tool: str) -> None:
        self.tool = tool
        self.param = ""
        self.path: list[str] = []
        self.typeddicts: list[type] = []

    def start(self, param: str) -> None:
        self.param = param
        self.path = [param]

    def fail(self, clause: str) -> PedelecError:
        where = f'Parameter "{self.param}" of tool "{self.tool}"'
        if len(self.path) > 1:
            where += f" (at {''.join(self.path)})"
        return PedelecError(
            INVALID_INPUT, f"{where}: {clause}.", {"tool": self.tool, "parameter": self.param}
        )

    # -- entry points

    def child(self, annotation: Any, doc: str | None = None) -> Shape:
        """The shape of a node placed inside another: ``doc`` (else the type's own doc) becomes
        its description unless a marker already gave one."""
        shape = self.shape(annotation)
        text = doc or shape.doc
        if text and "description" not in shape.node:
            shape.node["description"] = text
        return shape

    def shape(self, tp: Any) -> Shape:
        scalar = _SCALARS.get(tp) if type(tp) is type else None
        if scalar is not None:
            kind, convert = scalar
            return Shape({"type": kind}, convert, None, tp.__name__)
        origin = get_origin(tp)
        if origin is not None:
            return self._generic(tp, origin)
        if te.is_typeddict(tp):
            return self._typeddict(tp)
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return self._enum(tp)
        if isinstance(tp, te.NewType):
            return self.shape(tp.__supertype__)
        if type(tp).__name__ == "TypeAliasType" and hasattr(tp, "__value__"):
            return self.shape(tp.__value__)
        if tp is dict or tp is Mapping:
            return Shape({"type": "object"}, None, None, annotation_label(tp))
        if is_model_class(tp):
            return class_shape(self, tp)
        return self._unsupported(tp)

    def _unsupported(self, tp: Any) -> Shape:
        label = annotation_label(tp)
        if tp is NoneType:
            raise self.fail(
                "None is only allowed as T | None on a parameter or on a NotRequired TypedDict "
                "field (the subset has no null type); leave the key out instead of sending null"
            )
        if tp is Any or tp is object:
            raise self.fail(
                f"{label} cannot be described (the subset has no 'any' type); "
                f"annotate a concrete type such as str, int, list[str] or a TypedDict"
            )
        if tp is ToolCallContext:
            raise self.fail(
                "ToolCallContext can only be the annotation of a parameter of its own, "
                "which receives the call context"
            )
        if tp in _ARRAY_ORIGINS:
            raise self.fail(f"{label} needs an item type; write e.g. {label}[str]")
        if tp in _CONTAINER_HINTS:
            raise self.fail(f"{label} is not supported; {_CONTAINER_HINTS[tp]}")
        if isinstance(tp, str | te.ForwardRef):
            raise self.fail(
                f"the annotation {label} cannot be resolved; "
                f"define or import the name at module level"
            )
        raise self.fail(
            f"{label} is not supported; use str, int, float, bool, list[T], a TypedDict, "
            f"Literal[...], an Enum, or a union of these"
        )

    def _generic(self, tp: Any, origin: Any) -> Shape:
        if origin is te.Annotated:
            return self._annotated(tp)
        if origin is Union or origin is types.UnionType:
            return self._union(tp)
        if origin is Literal:
            return self._literal(tp)
        args = get_args(tp)
        if origin in _ARRAY_ORIGINS:
            self.path.append("[]")
            items = self.child(args[0])
            self.path.pop()
            convert = None if items.convert is None else list_converter(items.convert)
            return Shape(
                {"type": "array", "items": items.node},
                convert,
                None,
                f"{annotation_label(origin)}[{items.label}]",
            )
        if origin in _OBJECT_ORIGINS:
            if args and (args[0] is not str or args[1] is not Any):
                raise self._free_object(tp, origin)
            return Shape({"type": "object"}, None, None, annotation_label(tp))
        if origin in _CONTAINER_HINTS:
            raise self.fail(f"{annotation_label(tp)} is not supported; {_CONTAINER_HINTS[origin]}")
        if origin in (te.Required, te.NotRequired, te.ReadOnly):
            raise self.fail(f"{annotation_label(tp)} is only meaningful on a TypedDict field")
        return self._unsupported(tp)

    def _free_object(self, tp: Any, origin: Any) -> Exception:
        """The refusal of an object whose values are typed (``dict[str, int]``): the subset
        cannot constrain them."""
        return self.fail(
            f"{annotation_label(tp)} is not supported: the subset cannot constrain the values of "
            f"a free-form object; use a TypedDict, or {annotation_label(origin)}[str, Any] for any object"
        )

    # -- kinds

    def _annotated(self, tp: Any) -> Shape:
        shape = self.shape(tp.__origin__)
        constraints = Constraints(shape.node, shape.label, self.fail, self.json)
        for meta in tp.__metadata__:
            constraints.apply(meta)
        return shape

    def _union(self, tp: Any) -> Shape:
        members = get_args(tp)
        label = " | ".join(annotation_label(m) for m in members)
        if NoneType in members:
            raise self.fail(
                f"{label} accepts None, which is only allowed on a parameter or on a NotRequired "
                f"TypedDict field (the subset has no null type); use NotRequired[...] without "
                f"None, or drop None"
            )
        literals: list[Any] = []
        branches: list[Shape] = []
        for member in members:
            if get_origin(member) is Literal:
                literals.extend(get_args(member))
            else:
                branches.append(self.child(member))
        if literals:
            branches[0:0] = self._literal_groups(tuple(literals))
        if len(branches) == 1:
            return branches[0]
        self._check_distinct(branches, label)
        node = {"oneOf": [b.node for b in branches]}
        return Shape(node, union_converter([(b.node, b.convert) for b in branches]), None, label)

    def _literal(self, tp: Any) -> Shape:
        groups = self._literal_groups(get_args(tp))
        if len(groups) == 1:
            return groups[0]
        # Members of different JSON types can never match the same value.
        node = {"oneOf": [g.node for g in groups]}
        return Shape(
            node, union_converter([(g.node, g.convert) for g in groups]), None, annotation_label(tp)
        )

    def _literal_groups(self, values: tuple[Any, ...]) -> list[Shape]:
        """``Literal`` values as one enum node per JSON type, in order of first appearance."""
        groups: dict[str, list[Any]] = {}
        labels: dict[str, list[str]] = {}
        members: dict[str, dict[Any, enum.Enum]] = {}
        seen: set[tuple[type, Any]] = set()
        for value in values:
            raw = value.value if isinstance(value, enum.Enum) else value
            if (type(raw), raw) in seen:
                continue  # Literal["a"] | Literal["a", "b"]: one "a" is enough
            seen.add((type(raw), raw))
            kind = _scalar_type(raw)
            if kind is None:
                raise self.fail(
                    f"Literal value {value!r} is not a string, integer or boolean; "
                    f"the subset's enums hold JSON values"
                )
            groups.setdefault(kind, []).append(raw)
            labels.setdefault(kind, []).append(literal_label(value))
            if isinstance(value, enum.Enum):
                members.setdefault(kind, {})[raw] = value
        shapes = []
        for kind, raws in groups.items():
            shapes.append(
                Shape(
                    {"type": kind, "enum": raws},
                    literal_converter(kind, members.get(kind)),
                    None,
                    f"Literal[{', '.join(labels[kind])}]",
                )
            )
        return shapes

    def _enum(self, cls: type[enum.Enum]) -> Shape:
        values = [member.value for member in cls]
        if not values:
            raise self.fail(f"Enum {cls.__name__} has no members")
        if all(type(v) is str for v in values):
            kind = "string"
        elif all(type(v) is int for v in values):
            kind = "integer"
        else:
            raise self.fail(
                f"the values of Enum {cls.__name__} must be all strings or all integers, "
                f"got {values!r}; give the members str or int values"
            )
        summary, _ = parse_docstring(cls.__doc__)
        return Shape({"type": kind, "enum": values}, cls, summary, cls.__name__)

    def _typeddict(self, td: Any) -> Shape:
        name = td.__name__
        if td in self.typeddicts:
            raise self.fail(
                f"TypedDict {name} contains itself; recursive types cannot be described "
                f"(the subset has no $ref)"
            )
        try:
            hints = te.get_type_hints(td, include_extras=True)
        except Exception as exc:  # any failure of user annotations
            raise self.fail(
                f"the fields of TypedDict {name} cannot be resolved ({type(exc).__name__}: {exc}); "
                f"define or import the names at module level"
            ) from None
        summary, field_docs = parse_docstring(td.__doc__)
        properties: dict[str, Any] = {}
        required: list[str] = []
        converters: list[tuple[str, Convert]] = []
        self.typeddicts.append(td)
        for key, annotation in hints.items():
            annotation, explicit = qualifiers(annotation)
            is_required = key in td.__required_keys__ if explicit is None else explicit
            if not is_required:
                # An optional key may be typed ``T | None``: the handler never sees None, only
                # an absent key, which its type allows.
                annotation, _ = strip_none(annotation)
            self.path.append(f".{key}")
            shape = self.child(annotation, field_docs.get(key))
            self.path.pop()
            properties[key] = shape.node
            if is_required:
                required.append(key)
            if shape.convert is not None:
                converters.append((key, shape.convert))
        self.typeddicts.pop()
        node = {"type": "object", "properties": properties, "required": required}
        convert = dict_converter(tuple(converters)) if converters else None
        return Shape(node, convert, summary, name)

    # -- values

    def json(self, value: Any, what: str) -> Any:
        """A default or example as JSON: Enum members become their values, tuples lists."""
        try:
            return _to_json(value, 0)
        except ValueError as exc:
            raise self.fail(f"the {what} {value!r} is not JSON ({exc}); use a JSON value") from None

    # -- ambiguity

    def _check_distinct(self, branches: list[Shape], label: str) -> None:
        for i, first in enumerate(branches):
            for second in branches[i + 1 :]:
                if not overlap.disjoint(first.node, second.node, own_keys=True):
                    both = _shown(overlap.witness(first.node, second.node), first.node)
                    raise self.fail(
                        f"the union {label} is ambiguous: {first.label} and {second.label} can "
                        f"both match {both}, and oneOf rejects a value that matches two "
                        f"members; {_fix(first, second)}"
                    )


def _scalar_type(value: Any) -> str | None:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, str):
        return "string"
    return None


def _to_json(value: Any, depth: int) -> Any:
    if depth > MAX_TYPED_VALUE_DEPTH:
        raise ValueError("nested too deeply, or it contains itself")
    if isinstance(value, enum.Enum):
        value = value.value
    if value is None or type(value) in (str, bool, int):
        return value
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value!r} is not a JSON number")
        return float(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, list | tuple):
        return [_to_json(item, depth + 1) for item in value]
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError(f"the key {key!r} is not a string")
            out[str(key)] = _to_json(item, depth + 1)
        return out
    raise ValueError(f"{type(value).__name__} has no JSON form")


def _shown(value: Any, node: Mapping[str, Any]) -> str:
    """A witness of an ambiguous union as the message shows it (short for containers).

    Scalars are written by the one message vocabulary, so a control character reads escaped.
    """
    if value is None:  # an overlap the analysis cannot exhibit, e.g. between two patterns
        return "the same string" if node.get("type") == "string" else "the same value"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return f"a list of {len(value)} item(s) like {_shown(value[0], {})}" if value else "[]"
    if isinstance(value, dict):
        keys = ", ".join(_shown(k, {}) for k in sorted(value))
        return f"an object with the keys {keys}" if keys else "{}"
    return scalar_text(value)


def _fix(a: Shape, b: Shape) -> str:
    """How to make two overlapping union members distinguishable."""
    kinds = {a.node.get("type"), b.node.get("type")}
    enums = ("enum" in a.node, "enum" in b.node)
    if kinds == {"integer", "number"} and not any(enums):
        return "use float alone, it accepts whole numbers too"
    if enums == (True, False) or enums == (False, True):
        plain, listed = (b, a) if enums[0] else (a, b)
        return f"{plain.label} already accepts those values; drop {listed.label} or {plain.label}"
    if all(enums):
        return f"remove the shared values from {a.label} or {b.label}"
    if kinds == {"array"}:
        return (
            "an empty list matches both; use one list of a union (e.g. list[int | str]), "
            "or add MinItems(1) to each"
        )
    if kinds == {"object"}:
        return (
            "give each TypedDict a required key the other does not declare, or a required "
            'tag key with different Literal values (e.g. kind: Literal["a"])'
        )
    return "make the members distinguishable (different JSON types, or disjoint values or bounds)"
