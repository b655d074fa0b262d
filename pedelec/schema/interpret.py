"""The one interpreter of the subset: does a checked node accept a value?

It walks the node instead of generating code, for places that test a node a few times (typed-tool
inference, the overlap analysis, ``pedelec check``) where compiling a validator would cost far
more. Its meaning is the generated validator's, DESIGN §4: ``1.0`` is an integer, ``True`` is
not a number, ``enum`` and ``uniqueItems`` compare with type-aware JSON equality, lengths count
code points, ``pattern`` is an unanchored ECMA-262 search (with the validator's own matcher),
undeclared properties are allowed (if they are JSON), and ``oneOf`` needs exactly one branch.
``tests/test_interpret.py`` holds it equal to ``compile_schema(...).is_valid``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pedelec._json import duplicates, json_key
from pedelec.limits import DEFAULT_LIMITS

# The matcher the generated validator uses; imported, never copied, so both read a pattern alike.
from pedelec.schema.patterns.translate import plan

__all__ = ["accepts"]


def accepts(
    node: Mapping[str, Any],
    value: Any,
    *,
    max_pattern_length: int = DEFAULT_LIMITS.max_pattern_length,
) -> bool:
    """Tell whether the checked ``node`` accepts ``value``, as its compiled validator would.

    Args:
        node: A node that passed the registration check (any kind, ``oneOf`` included).
        value: Any Python value; what is not plain JSON is never accepted.
        max_pattern_length: As for ``compile_schema``: a string longer than this fails a node
            with a ``pattern`` without being searched.

    Example:
        >>> accepts({"type": "integer", "minimum": 1}, 2.0), accepts({"type": "number"}, True)
        (True, False)
        >>> accepts({"type": "string", "pattern": "^[0-9]+$"}, "1\\n")
        False
    """
    try:
        return _Walk(max_pattern_length).node(node, value)
    except RecursionError:
        return False  # a value nested deeper than the stack is not one the validator takes


class _Walk:
    """One ``accepts`` call: the pattern bound, and one method per node kind."""

    __slots__ = ("limit",)

    def __init__(self, limit: int) -> None:
        self.limit = limit

    def node(self, node: Mapping[str, Any], value: Any) -> bool:
        if "oneOf" in node:
            found = 0
            for branch in node["oneOf"]:
                found += self.node(branch, value)
                if found > 1:
                    return False
            return found == 1
        kind = node["type"]
        if kind == "string":
            return self.string(node, value)
        if kind == "integer" or kind == "number":
            return self.number(node, value, kind == "integer")
        if kind == "boolean":
            return type(value) is bool and _in_enum(node, value)
        if kind == "array":
            return self.array(node, value)
        return self.object(node, value)

    def string(self, node: Mapping[str, Any], value: Any) -> bool:
        if type(value) is not str:
            return False
        n = len(value)  # code points: a str is a sequence of them
        if n < node.get("minLength", 0) or n > node.get("maxLength", n):
            return False
        if not _in_enum(node, value):
            return False
        if "pattern" in node:
            return n <= self.limit and plan(node["pattern"]).search(value)
        return True

    @staticmethod
    def number(node: Mapping[str, Any], value: Any, integer: bool) -> bool:
        t = type(value)
        if t is float:
            if value - value != 0.0:  # NaN and the infinities are not JSON
                return False
            if integer and not value.is_integer():
                return False
        elif t is not int:
            return False  # bool included: True is not a number
        return node.get("minimum", value) <= value <= node.get("maximum", value) and _in_enum(
            node, value
        )

    def array(self, node: Mapping[str, Any], value: Any) -> bool:
        if type(value) is not list:
            return False
        n = len(value)
        if n < node.get("minItems", 0) or n > node.get("maxItems", n):
            return False
        items = node["items"]
        if not all(self.node(items, item) for item in value):
            return False
        return node.get("uniqueItems") is not True or next(duplicates(value), None) is None

    def object(self, node: Mapping[str, Any], value: Any) -> bool:
        if type(value) is not dict:
            return False
        properties: Mapping[str, Any] = node.get("properties", {})
        if any(name not in value for name in node.get("required", ())):
            return False
        for key, item in value.items():
            sub = properties.get(key) if type(key) is str else None
            if sub is not None:
                if not self.node(sub, item):
                    return False
            elif type(key) is not str or not _is_json(item):
                return False
        return True


def _in_enum(node: Mapping[str, Any], value: Any) -> bool:
    if "enum" not in node:
        return True
    key = json_key(value)
    return any(json_key(member) == key for member in node["enum"])


def _is_json(value: Any) -> bool:
    """Whether an undeclared property's value is plain JSON (the validator accepts any such)."""
    t = type(value)
    if t is str or t is int or t is bool or value is None:
        return True
    if t is float:
        return bool(value - value == 0.0)
    if t is list:
        return all(_is_json(item) for item in value)
    if t is dict:
        return all(type(k) is str and _is_json(v) for k, v in value.items())
    return False
