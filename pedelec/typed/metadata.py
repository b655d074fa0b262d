"""``Annotated`` metadata → keywords: pedelec markers, ``annotated-types`` constraints, ``Doc``
and plain description strings, each checked against the node it constrains."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Final, final

from pedelec._text import is_blank
from pedelec.errors import PedelecError
from pedelec.markers import _Marker

#: ``annotated-types`` classes that bound a number → their fields, in the order applied.
_BOUND_FIELDS: Final[Mapping[str, tuple[str, ...]]] = {
    "Ge": ("ge",),
    "Le": ("le",),
    "Gt": ("gt",),
    "Lt": ("lt",),
    "Interval": ("gt", "ge", "lt", "le"),
}

#: ``annotated-types`` classes that bound a length (of a string or a list) → their fields.
_LENGTH_FIELDS: Final[Mapping[str, tuple[str, ...]]] = {
    "MinLen": ("min_length",),
    "MaxLen": ("max_length",),
    "Len": ("min_length", "max_length"),
}


@final
class Constraints:
    """Applies the metadata of one ``Annotated[T, ...]`` to T's node.

    ``label`` is T as written (for messages), ``fail`` builds the error that names the parameter,
    ``json`` turns an example into JSON (failing the same way).
    """

    __slots__ = ("fail", "json", "label", "node")

    def __init__(
        self,
        node: dict[str, Any],
        label: str,
        fail: Callable[[str], PedelecError],
        json: Callable[[Any, str], Any],
    ) -> None:
        self.node = node
        self.label = label
        self.fail = fail
        self.json = json

    def apply(self, meta: Any) -> None:
        """Add what ``meta`` (one ``Annotated`` argument) says to the node."""
        node = self.node
        kind = node.get("type", "oneOf")
        if isinstance(meta, _Marker):
            if meta.applies_to is not None and kind not in meta.applies_to:
                raise self.fail(self._misplaced(meta, meta.python_types))
            value = meta.value
            if meta.keyword == "examples":
                value = [self.json(v, "example") for v in value]
            node[meta.keyword] = value
        elif isinstance(meta, str):
            if is_blank(meta):
                raise self.fail("an empty string in Annotated[...] is not a description")
            node["description"] = meta
        elif isinstance(meta, type) and issubclass(meta, _Marker):
            raise self.fail(
                f"write {meta.__name__}(...) in Annotated[...], an instance, not the class"
            )
        else:
            self._apply_foreign(kind, meta)

    def _misplaced(self, meta: Any, applies: str) -> str:
        clause = f"{meta!r} applies to {applies}, not to {self.label}"
        if "oneOf" in self.node:
            clause += "; put it on the member it constrains, e.g. Annotated[int, Minimum(0)] | str"
        return clause

    def _apply_foreign(self, kind: str, meta: Any) -> None:
        """``annotated-types`` constraints and ``Doc``, recognised by their names and fields."""
        node = self.node
        cls = type(meta).__name__
        bounds = _BOUND_FIELDS.get(cls)
        if bounds is not None:
            found = False
            for field in bounds:
                value = getattr(meta, field, None)
                if value is not None:
                    found = True
                    self._bound(kind, meta, field, value)
            if found:
                return
        lengths = _LENGTH_FIELDS.get(cls)
        if lengths is not None and any(hasattr(meta, f) for f in lengths):
            if kind not in ("string", "array"):
                raise self.fail(self._misplaced(meta, "str and lists"))
            for field in lengths:
                value = getattr(meta, field, None)
                if value is None:
                    continue
                if type(value) is not int or value < 0:
                    raise self.fail(f"{meta!r}: the length must be an int of 0 or more")
                prefix = "min" if field == "min_length" else "max"
                node[f"{prefix}{'Length' if kind == 'string' else 'Items'}"] = value
            return
        documentation = getattr(meta, "documentation", None)
        if (
            cls in ("Doc", "DocInfo")
            and isinstance(documentation, str)
            and not is_blank(documentation)
        ):
            node["description"] = documentation
            return
        if type(meta).__module__.split(".")[0] == "annotated_types":
            raise self.fail(
                f"{meta!r} has no equivalent in the Tool Args Schema subset; "
                f"check it in the handler instead"
            )
        raise self.fail(
            f"Annotated metadata {meta!r} is not understood; use the pedelec markers (Minimum, "
            f"Maximum, MinLength, MaxLength, Pattern, MinItems, MaxItems, UniqueItems, "
            f"Description, Examples) or annotated-types constraints"
        )

    def _bound(self, kind: str, meta: Any, field: str, value: Any) -> None:
        if kind not in ("integer", "number"):
            raise self.fail(self._misplaced(meta, "int and float"))
        # An int is always finite (math.isfinite would convert it to a float, and overflow).
        if type(value) is not int and (type(value) is not float or not math.isfinite(value)):
            raise self.fail(f"{meta!r}: the bound must be a finite int or float")
        if field in ("ge", "le"):
            self.node["minimum" if field == "ge" else "maximum"] = value
            return
        if kind == "number":
            inclusive = "Ge" if field == "gt" else "Le"
            raise self.fail(
                f"{meta!r} is an exclusive bound, which the subset cannot express for float "
                f"(it has no exclusiveMinimum/exclusiveMaximum); use {inclusive}(...) with the "
                f"closest value you accept"
            )
        # For integers an exclusive bound is an inclusive one: n > 2.5 ⇔ n >= 3.
        if field == "gt":
            self.node["minimum"] = math.floor(value) + 1
        else:
            self.node["maximum"] = math.ceil(value) - 1
