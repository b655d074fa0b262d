"""What the conversion knows about foreign keywords, and the shapes its steps pass around."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final, NamedTuple

from pedelec._json.render import render
from pedelec.schema._convert.log import Path

#: Keywords every node may carry whatever it becomes; they are settled last (``rules.meta``).
META: Final = ("description", "default", "examples")

#: Keywords that only describe or organise a schema: dropping them changes what it accepts in
#: no way.
ANNOTATIONS: Final = frozenset(
    {
        "title",
        "$schema",
        "$id",
        "$comment",
        "$anchor",
        "$dynamicAnchor",
        "$vocabulary",
        "readOnly",
        "writeOnly",
        "deprecated",
        "discriminator",
        "xml",
        "externalDocs",
        "contentMediaType",
        "contentEncoding",
        "contentSchema",
    }
)

#: Keywords that constrain one JSON type only (a number keyword also serves integers).
TYPE_OF: Final[Mapping[str, str]] = {
    **dict.fromkeys(("minLength", "maxLength", "pattern"), "string"),
    **dict.fromkeys(
        ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"), "number"
    ),
    **dict.fromkeys(
        (
            "items",
            "prefixItems",
            "additionalItems",
            "unevaluatedItems",
            "contains",
            "minContains",
            "maxContains",
            "minItems",
            "maxItems",
            "uniqueItems",
        ),
        "array",
    ),
    **dict.fromkeys(
        (
            "properties",
            "required",
            "additionalProperties",
            "unevaluatedProperties",
            "patternProperties",
            "propertyNames",
            "minProperties",
            "maxProperties",
            "dependentRequired",
            "dependentSchemas",
            "dependencies",
        ),
        "object",
    ),
}

#: Constraints with no equivalent, and what to do instead.
NOT_EXPRESSIBLE: Final[Mapping[str, str]] = {
    "not": "check the value in the handler",
    "if": "check the condition in the handler",
    "then": "check the condition in the handler",
    "else": "check the condition in the handler",
    "prefixItems": 'use an object with named properties, or "items" with one node',
    "additionalItems": 'use "items" with one node',
    "unevaluatedItems": 'use "items" with one node',
    "contains": "check the items in the handler",
    "minContains": "check the items in the handler",
    "maxContains": "check the items in the handler",
    "patternProperties": "declare each property, or take a list of {key, value} objects",
    "propertyNames": "declare each property, or take a list of {key, value} objects",
    "dependentRequired": "check which properties came together in the handler",
    "dependentSchemas": "check which properties came together in the handler",
    "dependencies": "check which properties came together in the handler",
    "$dynamicRef": 'write the node in place, or use "$ref" to a "$defs" entry',
    "$recursiveRef": 'write the node in place, or use "$ref" to a "$defs" entry',
}


class Kw(NamedTuple):
    """A node's keywords after ``$ref``/``allOf`` merging, each with the path of its holder."""

    path: Path
    values: dict[str, Any]
    homes: dict[str, Path]

    def at(self, keyword: str) -> Path:
        """The original path of ``keyword`` (in a ``$defs`` entry when it came from one)."""
        return (*self.homes.get(keyword, self.path), keyword)


class Move(NamedTuple):
    """A constraint moved into the node's description."""

    path: Path
    was: Any
    phrase: str
    why: str


def applies(keyword: str, kind: str) -> bool:
    """Whether a type-specific keyword constrains nodes of ``kind`` (others ignore it)."""
    target = TYPE_OF.get(keyword)
    return target is None or target == kind or (target == "number" and kind == "integer")


def json_type(value: Any) -> str:
    """The subset type a scalar enum member belongs to (``null``/``object``/``array`` too)."""
    if value is None:
        return "null"
    if type(value) is bool:
        return "boolean"
    if type(value) is str:
        return "string"
    if type(value) is int or (type(value) is float and value.is_integer()):
        return "integer"
    if type(value) is float:
        return "number"
    return "object" if type(value) is dict else "array"


def applies_enum(value: Any, kind: str) -> bool:
    """Whether an enum member belongs in the branch of ``kind`` of a split node."""
    member = json_type(value)
    return member == kind or (kind == "number" and member == "integer")


def number_text(value: Any) -> str:
    """A bound as a description phrase writes it (``5``, not ``5.0``)."""
    return render(int(value) if type(value) is float and value.is_integer() else value)


def with_phrases(description: str | None, phrases: Iterable[str]) -> str | None:
    """``description`` followed by each phrase, joined as sentences."""
    text = (description or "").rstrip()
    for phrase in phrases:
        if text and text[-1] not in ".!?":
            text += "."
        text = f"{text} {phrase}" if text else phrase
    return text or None


def article(noun: str) -> str:
    """``noun`` with its indefinite article: ``an object``, ``a string``."""
    return f"an {noun}" if noun[0] in "aeiou" else f"a {noun}"
