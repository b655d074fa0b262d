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
* ``anyOf`` becomes ``oneOf`` when its branches are proven disjoint (``_disjoint``).
* Integer exclusive bounds become inclusive ones; constraints the subset cannot hold but an
  agent can follow (``format``, ``multipleOf``, number exclusive bounds, property counts) move
  into ``description``; annotations (``title``, ``$schema``, ``readOnly``...) and
  ``additionalProperties: false`` are dropped.
* A ``default`` or ``examples`` entry the converted node no longer accepts is dropped.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, NamedTuple, final
from urllib.parse import unquote

from pedelec._json import NotJsonError, clone_json, dumps_canonical, json_key, pointer, short_repr
from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.schema.check import MAX_SCHEMA_DEPTH, SUBSET, check_schema

__all__ = ["Change", "convert", "convert_text"]

_Part = str | int
_Path = tuple[_Part, ...]

#: Most nodes a converted schema may have: inlining a ``$defs`` entry used many times, in
#: entries used many times, grows the schema geometrically.
MAX_NODES: Final = 10_000


@final
@dataclass(frozen=True, slots=True)
class Change:
    """One rewrite ``convert`` made, located in the schema as it was given.

    Args:
        path: Keys and indexes from the original schema's root to the keyword or node.
        was: The original keyword value or node.
        became: What replaced it (a node, or the keywords that now carry it), or None when it
            was dropped.
        reason: One sentence: why, and what it means for the tool.

    Example:
        >>> Change(("properties", "when", "format"), "date", {"description": "Format: date."},
        ...        "The subset has no format; the description tells the agent.").pointer
        '/properties/when/format'
    """

    path: _Path
    was: Any
    became: Any
    reason: str

    @property
    def pointer(self) -> str:
        """The JSON pointer of ``path`` into the original schema (``""`` for the root)."""
        return pointer(self.path)

    def to_dict(self) -> dict[str, Any]:
        """The change as JSON: ``{"pointer", "was", "became", "reason"}``."""
        return {
            "pointer": self.pointer,
            "was": clone_json(self.was),
            "became": clone_json(self.became),
            "reason": self.reason,
        }


# --- the disjointness seam -------------------------------------------------------------------


def _disjoint(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether no JSON value can match both subset nodes; True only when proven.

    Conservative: two patterns, or objects told apart only by optional keys, count as
    overlapping.
    """
    if "oneOf" in a:
        return all(_disjoint(branch, b) for branch in a["oneOf"])
    if "oneOf" in b:
        return all(_disjoint(a, branch) for branch in b["oneOf"])
    kinds = {a["type"], b["type"]}
    if len(kinds) == 2 and kinds != {"integer", "number"}:
        return True  # distinct JSON types (integer values are numbers, so those two can meet)
    from pedelec.schema._compile import accepts

    for left, right in ((a, b), (b, a)):
        if "enum" in left:
            return not any(accepts(dict(right), member) for member in left["enum"])
    if kinds <= {"integer", "number"}:
        return _apart(a, b, "minimum", "maximum")
    if kinds == {"string"}:
        return _apart(a, b, "minLength", "maxLength")
    if kinds == {"array"}:
        if _apart(a, b, "minItems", "maxItems"):
            return True
        both_need_one = a.get("minItems", 0) >= 1 and b.get("minItems", 0) >= 1
        return both_need_one and _disjoint(a["items"], b["items"])
    if kinds == {"object"}:
        shared = set(a.get("required", ())) & set(b.get("required", ()))
        pa, pb = a.get("properties", {}), b.get("properties", {})
        return any(_disjoint(pa[name], pb[name]) for name in shared)
    return False


def _apart(a: Mapping[str, Any], b: Mapping[str, Any], low: str, high: str) -> bool:
    """Whether the ``low``..``high`` ranges of two nodes cannot meet."""
    return (high in a and low in b and a[high] < b[low]) or (
        high in b and low in a and b[high] < a[low]
    )


# --- keyword tables ----------------------------------------------------------------------------

_META: Final = ("description", "default", "examples")

#: Keywords that only describe or organise a schema: dropping them changes what it accepts in
#: no way.
_ANNOTATIONS: Final = frozenset(
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
_TYPE_OF: Final[Mapping[str, str]] = {
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
_NOT_EXPRESSIBLE: Final[Mapping[str, str]] = {
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

_ADVICE: Final = "to reject undeclared arguments, use Session(reject_unknown_args=True)"


def _applies(keyword: str, kind: str) -> bool:
    """Whether a type-specific keyword constrains nodes of ``kind`` (others ignore it)."""
    target = _TYPE_OF.get(keyword)
    return target is None or target == kind or (target == "number" and kind == "integer")


def _json_type(value: Any) -> str:
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


def _number_text(value: Any) -> str:
    return short_repr(int(value) if type(value) is float and value.is_integer() else value)


def _with_phrases(description: str | None, phrases: Iterable[str]) -> str | None:
    """``description`` followed by each phrase, joined as sentences."""
    text = (description or "").rstrip()
    for phrase in phrases:
        if text and text[-1] not in ".!?":
            text += "."
        text = f"{text} {phrase}" if text else phrase
    return text or None


# --- the conversion ---------------------------------------------------------------------------

_NULL_REASON: Final = (
    "null was removed: the subset has no null type (a property that could be null is left out "
    "of its object's required list instead)."
)


class _Out(NamedTuple):
    """A converted node (None when it cannot be expressed), and whether null was removed."""

    node: dict[str, Any] | None
    nullable: bool = False


#: A node that accepts only null: no node of the subset can stand for it.
_NULL_ONLY: Final = _Out(None, nullable=True)


class _Kw(NamedTuple):
    """A node's keywords after ``$ref``/``allOf`` merging, each with the path of its holder."""

    path: _Path
    values: dict[str, Any]
    homes: dict[str, _Path]

    def at(self, keyword: str) -> _Path:
        return (*self.homes.get(keyword, self.path), keyword)


class _Move(NamedTuple):
    """A constraint moved into the node's description."""

    path: _Path
    was: Any
    phrase: str
    why: str


class _Converter:
    """One conversion: the original root, and the changes and problems found so far."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.changes: dict[tuple[str, str, str, str], Change] = {}
        self.problems: dict[tuple[str, str], None] = {}
        self.nodes = 0

    def change(self, path: _Path, was: Any, became: Any, reason: str) -> None:
        # A $defs entry used twice is converted twice; its changes are reported once.
        key = (pointer(path), reason, dumps_canonical(was), dumps_canonical(became))
        self.changes.setdefault(key, Change(path, clone_json(was), clone_json(became), reason))

    def problem(self, path: _Path, clause: str) -> None:
        self.problems.setdefault((pointer(path), clause), None)

    # --- a node

    def node(self, value: Any, path: _Path, depth: int, chain: tuple[_Path, ...]) -> _Out:
        """Convert the node at ``path``; ``chain`` holds the original paths being expanded."""
        if type(value) is not dict:
            what = "true (any value)" if value is True else short_repr(value)
            self.problem(
                path,
                f"expected a schema node (an object with a type), got {what}; give it a type",
            )
            return _Out(None)
        if depth > MAX_SCHEMA_DEPTH:
            self.problem(path, f"the schema is nested more than {MAX_SCHEMA_DEPTH} levels deep")
            return _Out(None)
        self.nodes += 1
        if self.nodes > MAX_NODES:
            if self.nodes == MAX_NODES + 1:
                self.problem(
                    path,
                    f"writing each $ref in place makes more than {MAX_NODES} nodes; simplify "
                    f"the schema or split the tool",
                )
            return _Out(None)
        merged = self._merged(value, path, (*chain, path))
        if merged is None:
            return _Out(None)
        kw, chain, inlined = merged
        for keyword in ("$defs", "definitions"):
            if keyword in kw.values:
                self.change(
                    kw.at(keyword),
                    kw.values.pop(keyword),
                    None,
                    f"{short_repr(keyword)} was dropped: each $ref to it is written in place.",
                )
        moves: list[_Move] = []
        out = self._body(kw, depth, chain, moves)
        if out.node is None:
            return out
        node = self._meta(out.node, kw, moves)
        for where, was, keyword in inlined:
            self.change(where, was, node, f"{keyword} was replaced by the node it names.")
        return _Out(node, out.nullable)

    def _merged(
        self, value: dict[str, Any], path: _Path, chain: tuple[_Path, ...]
    ) -> tuple[_Kw, tuple[_Path, ...], list[tuple[_Path, Any, str]]] | None:
        """The node's keywords with every ``$ref`` and single-branch ``allOf`` merged in."""
        kw = _Kw(path, dict(value), dict.fromkeys(value, path))
        inlined: list[tuple[_Path, Any, str]] = []
        while "$ref" in kw.values or "allOf" in kw.values:
            keyword = "$ref" if "$ref" in kw.values else "allOf"
            where = kw.at(keyword)
            was = kw.values.pop(keyword)
            del kw.homes[keyword]
            target = self._target(keyword, was, where, chain)
            if target is None:
                return None
            target_path, target_value = target
            if type(target_value) is not dict:
                self.node(target_value, target_path, 1, chain)  # records why
                return None
            chain = (*chain, target_path)
            inlined.append((where, was, keyword))
            for name, item in target_value.items():
                if name not in kw.values:
                    kw.values[name] = item
                    kw.homes[name] = target_path
                elif json_key(item) == json_key(kw.values[name]):
                    continue
                elif name in _META:
                    self.change(
                        (*target_path, name),
                        item,
                        None,
                        f"The {name} gave way to the one beside the {keyword}.",
                    )
                elif name not in _ANNOTATIONS:
                    self.problem(
                        where,
                        f"{short_repr(name)} beside the {keyword} and in its target differ, and "
                        f"both apply; merge them into one value",
                    )
                    return None
        return kw, chain, inlined

    def _target(
        self, keyword: str, value: Any, where: _Path, chain: tuple[_Path, ...]
    ) -> tuple[_Path, Any] | None:
        """The path and value a ``$ref`` or ``allOf`` stands for, or None (problem recorded)."""
        if keyword == "allOf":
            if type(value) is list and len(value) == 1:
                return (*where, 0), value[0]
            parts = f"{len(value)} parts" if type(value) is list else short_repr(value)
            self.problem(
                where,
                f"allOf with {parts} cannot be expressed; merge the parts into one node, or use "
                f'"oneOf" for alternatives',
            )
            return None
        if type(value) is not str or not value.startswith("#"):
            self.problem(
                where,
                f"$ref {short_repr(value)} does not point into this schema; only references such "
                f'as "#/$defs/Name" are written in place, so copy the target into "$defs"',
            )
            return None
        text = unquote(value[1:])
        if text and not text.startswith("/"):
            self.problem(where, f"$ref {short_repr(value)} names an anchor; use a JSON pointer")
            return None
        path: _Path = ()
        node: Any = self.root
        for part in (p.replace("~1", "/").replace("~0", "~") for p in text.split("/")[1:]):
            if type(node) is dict and part in node:
                node, path = node[part], (*path, part)
            elif type(node) is list and part.isdigit() and int(part) < len(node):
                node, path = node[int(part)], (*path, int(part))
            else:
                self.problem(where, f"$ref {short_repr(value)} points to nothing in this schema")
                return None
        if path in chain:
            self.problem(
                where,
                f"$ref {short_repr(value)} is recursive (it is inside the node it names), and a "
                f"Tool Args Schema is finite; write out each level up to a fixed depth",
            )
            return None
        return path, node

    def _body(self, kw: _Kw, depth: int, chain: tuple[_Path, ...], moves: list[_Move]) -> _Out:
        """Convert a merged node: alternatives, enums and types, then its keywords."""
        nullable, null_only = self._drop_null(kw)
        if null_only:
            return _NULL_ONLY
        if "anyOf" in kw.values and "oneOf" in kw.values:
            self.problem(
                kw.path,
                'anyOf and oneOf in one node cannot be expressed; write one "oneOf" whose '
                "alternatives cannot match the same value",
            )
            return _Out(None)
        for keyword in ("anyOf", "oneOf"):
            if keyword in kw.values:
                if "type" in kw.values:
                    self.problem(
                        kw.at(keyword),
                        f'{keyword} beside "type" cannot be expressed; move "type" into each '
                        f"alternative",
                    )
                    return _Out(None)
                out = self._alternatives(kw, keyword, depth, chain, moves)
                return _Out(out.node, out.nullable or nullable)
        types = self._types(kw)
        if types is None:
            self._others(kw, None, moves)  # to report every problem of the node, not one
            return _Out(None)
        if len(types) == 1:
            return _Out(self._typed(types[0], kw, depth, chain, moves), nullable)
        return _Out(self._split(types, kw, depth, chain, moves), nullable)

    def _drop_null(self, kw: _Kw) -> tuple[bool, bool]:
        """Take null out of ``nullable``, ``type``, ``const`` and ``enum``.

        Returns whether null was allowed, and whether nothing but null was.
        """
        values = kw.values
        nullable = False
        if "nullable" in values:
            flag = values.pop("nullable")
            nullable = flag is True
            reason = _NULL_REASON if nullable else '"nullable": false says nothing; it was dropped.'
            self.change(kw.at("nullable"), flag, None, reason)
        kind = values.get("type")
        if kind == "null" or kind == ["null"]:
            return True, True
        if type(kind) is list and "null" in kind:
            rest = [name for name in kind if name != "null"]
            values["type"] = rest[0] if len(rest) == 1 else rest
            self.change(kw.at("type"), kind, values["type"], _NULL_REASON)
            nullable = True
        if "const" in values:
            const = values.pop("const")
            if const is None:
                return True, True
            if "enum" in values and type(values["enum"]) is list:
                values["enum"] = [v for v in values["enum"] if json_key(v) == json_key(const)]
            else:
                values["enum"] = [const]
                kw.homes["enum"] = kw.homes["const"]
            self.change(
                kw.at("const"),
                const,
                {"enum": [const]},
                '"const" became a one-member "enum", which means the same.',
            )
        enum = values.get("enum")
        if type(enum) is list and None in enum:
            values["enum"] = [v for v in enum if v is not None]
            if not values["enum"]:
                return True, True
            self.change(kw.at("enum"), enum, values["enum"], _NULL_REASON)
            nullable = True
        return nullable, False

    def _alternatives(
        self, kw: _Kw, keyword: str, depth: int, chain: tuple[_Path, ...], moves: list[_Move]
    ) -> _Out:
        """An ``anyOf`` or ``oneOf``: branches converted, null ones removed."""
        where = kw.at(keyword)
        branches = kw.values.pop(keyword)
        ok = self._others(kw, None, moves)
        if type(branches) is not list or not branches:
            self.problem(where, f"{keyword} must be a non-empty array of nodes")
            return _Out(None)
        nullable = False
        kept: list[tuple[int, dict[str, Any]]] = []
        for index, branch in enumerate(branches):
            out = self.node(branch, (*where, index), depth + 1, chain)
            nullable = nullable or out.nullable
            if out.node is not None:
                kept.append((index, out.node))
            elif out.nullable:
                self.change(
                    (*where, index),
                    branch,
                    None,
                    "The null alternative was removed: "
                    + _NULL_REASON[len("null was removed: ") :],
                )
            else:
                ok = False
        if not ok:
            return _Out(None)
        if not kept:
            return _NULL_ONLY
        if len(kept) == 1:
            if not nullable:
                self.change(
                    where, branches, kept[0][1], f"A {keyword} of one alternative is that node."
                )
            return _Out(kept[0][1], nullable)
        nodes = [node for _, node in kept]
        if keyword == "anyOf":
            overlapping = [
                f"{i} and {j}"
                for x, (i, a) in enumerate(kept)
                for j, b in kept[x + 1 :]
                if not _disjoint(a, b)
            ]
            if overlapping:
                self.problem(
                    where,
                    f"anyOf alternatives {', '.join(overlapping)} may match the same value, so it "
                    f'cannot become "oneOf" (exactly one); make them distinguishable (different '
                    f"types, or a required property with different enum values)",
                )
                return _Out(None)
            self.change(
                where,
                branches,
                {"oneOf": nodes},
                'anyOf became "oneOf": no value matches two of its alternatives, so both mean '
                "the same.",
            )
        return _Out({"oneOf": nodes}, nullable)

    def _types(self, kw: _Kw) -> list[str] | None:
        """The node's JSON types, from ``type``, its ``enum`` or its keywords."""
        values = kw.values
        if "type" in values:
            given = values.pop("type")
            names = given if type(given) is list else [given]
            bad = [n for n in names if type(n) is not str or n not in SUBSET or n == "oneOf"]
            if bad or not names:
                self.problem(
                    kw.at("type"),
                    f'"type" {short_repr(given)} is not one of the subset\'s types (string, '
                    f"number, integer, boolean, array, object)",
                )
                return None
            if "integer" in names and "number" in names:
                names = [n for n in names if n != "integer"]
                self.change(
                    kw.at("type"),
                    given,
                    names[0] if len(names) == 1 else names,
                    '"integer" was dropped from "type": every integer is a number.',
                )
            return list(dict.fromkeys(names))
        if type(values.get("enum")) is list and values["enum"]:
            kinds = list(dict.fromkeys(_json_type(v) for v in values["enum"]))
            if "number" in kinds and "integer" in kinds:
                kinds.remove("integer")
            containers = [k for k in kinds if k in ("object", "array")]
            if containers:
                values.pop("enum")
                self.problem(
                    kw.at("enum"),
                    f'"enum" holds {_a(containers[0])} value, and the subset has enum on string, '
                    f"number, integer and boolean nodes only; check the value in the handler",
                )
                return None
            self.change(
                kw.path,
                {"enum": values["enum"]},
                {"type": kinds[0] if len(kinds) == 1 else kinds},
                '"type" was added: the enum members give it.',
            )
            return kinds
        kinds = list(dict.fromkeys(_TYPE_OF[k] for k in values if k in _TYPE_OF))
        if len(kinds) == 1:
            self.change(
                kw.path,
                None,
                {"type": kinds[0]},
                f'"type" was added: the keywords of the node apply to {kinds[0]} values only.',
            )
            return kinds
        self.problem(
            kw.path,
            'the node has no "type", so it accepts any JSON value, and the subset has no such '
            'node; give it a "type"',
        )
        return None

    def _split(
        self, types: list[str], kw: _Kw, depth: int, chain: tuple[_Path, ...], moves: list[_Move]
    ) -> dict[str, Any] | None:
        """A node of several types: a ``oneOf`` of one node per type, disjoint by type."""
        values = kw.values
        enum = values.pop("enum", None)
        if enum is not None and type(enum) is list:
            stray = [v for v in enum if not any(_applies_enum(v, kind) for kind in types)]
            if stray:
                self.change(
                    kw.at("enum"),
                    stray,
                    None,
                    'These "enum" members are of none of the node\'s types, so they never matched.',
                )
        ok = True
        branches: list[dict[str, Any]] = []
        for kind in types:
            own = {k: v for k, v in values.items() if k in _TYPE_OF and _applies(k, kind)}
            if type(enum) is list:
                own["enum"] = [v for v in enum if _applies_enum(v, kind)]
                if not own["enum"]:
                    continue
            node = self._typed(kind, _Kw(kw.path, own, kw.homes), depth, chain, moves)
            ok = ok and node is not None
            if node is not None:
                branches.append(node)
        for keyword in [k for k in values if k in _TYPE_OF]:
            value = values.pop(keyword)
            if not any(_applies(keyword, kind) for kind in types):
                self._others(_Kw(kw.path, {keyword: value}, kw.homes), types[0], moves)
        ok = self._others(kw, None, moves) and ok
        if ok and not branches:
            self.problem(
                kw.at("enum"), '"enum" has no member of the node\'s types, so nothing matches'
            )
        if not ok or not branches:
            return None
        result = branches[0] if len(branches) == 1 else {"oneOf": branches}
        self.change(
            kw.at("type") if "type" in kw.homes else kw.path,
            types,
            result,
            "A node of several types became a oneOf of one node per type.",
        )
        return result

    def _typed(
        self, kind: str, kw: _Kw, depth: int, chain: tuple[_Path, ...], moves: list[_Move]
    ) -> dict[str, Any] | None:
        """A node of one type: its keywords kept, rewritten, moved or dropped."""
        values = kw.values
        allowed = SUBSET[kind].keywords
        node: dict[str, Any] = {"type": kind}
        ok = True
        if kind in ("number", "integer"):
            ok = self._bounds(kind, kw, moves)
        nullable: list[str] = []
        for keyword in [k for k in values if k in allowed and k not in _META]:
            value = values.pop(keyword)
            if keyword == "items":
                ok = self._items(value, kw.at(keyword), node, depth, chain) and ok
            elif keyword == "properties":
                properties = self._properties(value, kw.at(keyword), depth, chain)
                if properties is None:
                    ok = False
                else:
                    node["properties"], nullable, converted = properties
                    ok = converted and ok
            elif keyword == "required":
                node["required"] = value  # after "properties", below: it may name nullable ones
            else:
                node[keyword] = value
        if "required" in node:
            self._required(kw, node, nullable)
        ok = self._others(kw, kind, moves) and ok
        if kind == "array" and "items" not in node and ok:
            self.problem(
                kw.path,
                'an array without "items" may hold any value, and the subset has no such node; '
                'add "items" with the node every item matches',
            )
            return None
        # Checked even when a child failed, so the node's own problems are listed too.
        valid = self._valid(node, kw)
        return node if ok and valid else None

    def _bounds(self, kind: str, kw: _Kw, moves: list[_Move]) -> bool:
        """Exclusive bounds: inclusive ones for integers, a description phrase for numbers."""
        values = kw.values
        ok = True
        for keyword, inclusive, lower in (
            ("exclusiveMinimum", "minimum", True),
            ("exclusiveMaximum", "maximum", False),
        ):
            if keyword not in values:
                continue
            where = kw.at(keyword)
            value = values.pop(keyword)
            if value is False or (value is True and inclusive not in values):
                self.change(
                    where, value, None, f"{short_repr(keyword)}: {value} says nothing here."
                )
                continue
            if value is True:  # draft-04 and OpenAPI 3.0: the inclusive bound is exclusive
                bound = values.pop(inclusive)
            elif type(value) in (int, float):
                bound = value
            else:
                self.problem(
                    where, f"{short_repr(keyword)} must be a number, got {short_repr(value)}"
                )
                ok = False
                continue
            if type(bound) not in (int, float):
                continue  # the bound's own check reports it
            if kind == "number":
                words = "Greater than" if lower else "Less than"
                moves.append(
                    _Move(
                        where,
                        value,
                        f"{words} {_number_text(bound)}.",
                        "the subset has no exclusive bounds",
                    )
                )
                continue
            edge = math.floor(bound) + 1 if lower else math.ceil(bound) - 1
            current = values.get(inclusive)
            if current is None or (current < edge if lower else current > edge):
                values[inclusive] = edge
                kw.homes[inclusive] = kw.homes.get(keyword, kw.path)
                self.change(
                    where,
                    value,
                    {inclusive: edge},
                    f"{short_repr(keyword)} became {short_repr(inclusive)} {edge}, the nearest "
                    f"integer inside the bound, which allows the same integers.",
                )
            else:
                self.change(
                    where,
                    value,
                    None,
                    f"{short_repr(keyword)} was dropped: "
                    f"{short_repr(inclusive)} is at least as strict.",
                )
        return ok

    def _items(
        self, value: Any, where: _Path, node: dict[str, Any], depth: int, chain: tuple[_Path, ...]
    ) -> bool:
        if type(value) is list:
            self.problem(
                where,
                '"items" as an array (one node per position) cannot be expressed; use an object '
                'with named properties, or "items" with one node',
            )
            node["items"] = {"type": "boolean"}
            return False
        out = self.node(value, where, depth + 1, chain)
        if out.node is None:
            if out.nullable:
                self.problem(where, "the items can only be null, and the subset has no null type")
            node["items"] = {"type": "boolean"}  # a stand-in, so the node's own rules are checked
            return False
        node["items"] = out.node
        return True

    def _properties(
        self, value: Any, where: _Path, depth: int, chain: tuple[_Path, ...]
    ) -> tuple[dict[str, Any], list[str], bool] | None:
        """The converted properties, the names of those that could be null, and whether all
        converted."""
        if type(value) is not dict:
            self.problem(where, '"properties" must be an object mapping names to nodes')
            return None
        converted: dict[str, Any] = {}
        nullable: list[str] = []
        ok = True
        for name, child in value.items():
            out = self.node(child, (*where, name), depth + 1, chain)
            if out.node is None:
                ok = False
                if out.nullable:
                    self.problem(
                        (*where, name),
                        "the property can only be null, and the subset has no null type; "
                        "remove the property",
                    )
                continue
            converted[name] = out.node
            if out.nullable:
                nullable.append(name)
        if not ok:  # a stand-in for each failed property, so "required" is still checked
            converted = {name: converted.get(name, {"type": "boolean"}) for name in value}
        return converted, nullable, ok

    def _required(self, kw: _Kw, node: dict[str, Any], nullable: list[str]) -> None:
        """Leave properties that could be null out of ``required``."""
        was = node["required"]
        if type(was) is not list:
            return  # the check reports it
        kept = [name for name in was if name not in nullable]
        if len(kept) == len(was):
            return
        names = ", ".join(short_repr(name) for name in was if name in nullable)
        self.change(
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

    def _others(self, kw: _Kw, kind: str | None, moves: list[_Move]) -> bool:
        """Every keyword left that the node does not hold: dropped, moved, or a problem.

        Returns False when one cannot be expressed.
        """
        ok = True
        for keyword in [k for k in kw.values if k not in _META]:
            value = kw.values.pop(keyword)
            where = kw.at(keyword)
            name = short_repr(keyword)
            if keyword in _ANNOTATIONS or keyword.startswith("x-"):
                self.change(where, value, None, f"{name} only annotates; it was dropped.")
            elif keyword == "example":
                kw.values.setdefault("examples", [value])
                kw.homes.setdefault("examples", kw.homes.get(keyword, kw.path))
                self.change(where, value, {"examples": [value]}, '"example" became "examples".')
            elif keyword == "format":
                moves.append(
                    _Move(where, value, f"Format: {value}.", "the subset checks no format")
                )
            elif kind is not None and keyword in _TYPE_OF and not _applies(keyword, kind):
                self.change(
                    where,
                    value,
                    None,
                    f"{name} applies to {_TYPE_OF[keyword]} values only, so it said nothing on "
                    f"{_a(kind)} node; it was dropped.",
                )
            elif keyword == "multipleOf" and kind == "integer" and value == 1:
                self.change(where, value, None, '"multipleOf": 1 says nothing on integers.')
            elif keyword == "multipleOf":
                why = 'the subset has no "multipleOf"'
                moves.append(_Move(where, value, f"Multiple of {_number_text(value)}.", why))
            elif keyword in ("minProperties", "maxProperties"):
                words = "At least" if keyword == "minProperties" else "At most"
                noun = "property" if value == 1 else "properties"
                phrase = f"{words} {_number_text(value)} {noun}."
                moves.append(_Move(where, value, phrase, "the subset does not count properties"))
            elif keyword in ("additionalProperties", "unevaluatedProperties") and value is False:
                self.change(
                    where,
                    value,
                    None,
                    f"{name}: false was dropped: a Tool Args Schema allows undeclared "
                    f"properties; {_ADVICE}.",
                )
            elif keyword in ("additionalProperties", "unevaluatedProperties") and value in (
                True,
                {},
            ):
                self.change(
                    where,
                    value,
                    None,
                    f"{name} was dropped: it allowed any property, as the subset does.",
                )
            elif keyword in ("additionalProperties", "unevaluatedProperties"):
                ok = False
                self.problem(
                    where,
                    f"{name} with a node (a map of any keys) cannot be expressed; declare each "
                    f"property, or take a list of {{key, value}} objects",
                )
            elif keyword in _NOT_EXPRESSIBLE or keyword == "enum":
                ok = False
                fix = _NOT_EXPRESSIBLE.get(keyword, "use enum on a string, number or boolean node")
                self.problem(where, f"{name} cannot be expressed in a Tool Args Schema; {fix}")
            else:
                self.change(
                    where,
                    value,
                    None,
                    f"{name} is no validation keyword, so it said nothing; it was dropped.",
                )
        return ok

    def _valid(self, node: dict[str, Any], kw: _Kw) -> bool:
        """Check the node's own keywords (its children are checked already)."""
        from pedelec.schema.check import _Invalid, _walk

        shallow = dict(node)
        if "items" in shallow:
            shallow["items"] = {"type": "boolean"}
        if "properties" in shallow:
            shallow["properties"] = {key: {"type": "boolean"} for key in shallow["properties"]}
        try:
            _walk(shallow)
        except _Invalid as bad:
            first = bad.path[0] if bad.path else None
            base = kw.at(first) if type(first) is str else kw.path
            self.problem((*base, *bad.path[1:]), bad.clause)
            return False
        return True

    def _meta(self, node: dict[str, Any], kw: _Kw, moves: list[_Move]) -> dict[str, Any]:
        """Give the node its description, default and examples, where they still hold."""
        from pedelec.schema._compile import accepts

        values = kw.values
        node = dict(node)
        text = values.get("description", node.get("description"))
        if type(text) is not str and text is not None:
            self.problem(kw.at("description"), '"description" must be a string')
            text = None
        if "description" in values and node.get("description") not in (None, text):
            self.change(
                kw.at("description"),
                node["description"],
                None,
                "The description of the alternative gave way to the one beside it.",
            )
        described = _with_phrases(text, [move.phrase for move in moves])
        if described is not None:
            node["description"] = described
        for move in moves:
            self.change(
                move.path,
                move.was,
                {"description": described},
                f"{move.why[0].upper()}{move.why[1:]}, so the constraint moved into the description for the "
                f"agent to follow.",
            )
        if "default" in values:
            node.pop("default", None)
            if accepts(node, values["default"]):
                node["default"] = values["default"]
            else:
                self.change(
                    kw.at("default"),
                    values["default"],
                    None,
                    "The default was dropped: the converted node does not accept it.",
                )
        if "examples" in values:
            examples = values["examples"]
            node.pop("examples", None)
            if type(examples) is not list:
                self.problem(kw.at("examples"), '"examples" must be an array of values')
                return node
            for index, example in enumerate(examples):
                if not accepts(node, example):
                    self.change(
                        (*kw.at("examples"), index),
                        example,
                        None,
                        "The example was dropped: the converted node does not accept it.",
                    )
            kept = [example for example in examples if accepts(node, example)]
            if kept:
                node["examples"] = kept
        return node


def _a(noun: str) -> str:
    return f"an {noun}" if noun[0] in "aeiou" else f"a {noun}"


def _applies_enum(value: Any, kind: str) -> bool:
    """Whether an enum member belongs in the branch of ``kind`` of a split node."""
    member = _json_type(value)
    return member == kind or (kind == "number" and member == "integer")


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
        raise _failure([(exc.pointer, exc.reason)], tool) from None
    converter = _Converter(root)
    out = converter.node(root, (), 1, ())
    if out.node is not None and out.node.get("type") != "object":
        got = "alternatives" if "oneOf" in out.node else f'"type": {short_repr(out.node["type"])}'
        converter.problem(
            (),
            f"the root must be an object node, got {got}; a tool's arguments are always an "
            f"object, so wrap the value in a property",
        )
    elif out.node is None and out.nullable:
        converter.problem((), "the root can only be null; a tool's arguments are an object")
    if converter.problems:
        raise _failure(list(converter.problems), tool)
    assert out.node is not None  # no problem means a node
    result = check_schema(out.node, tool=tool)  # the promise: what comes back registers
    return result, list(converter.changes.values())


def _failure(problems: list[tuple[str, str]], tool: str | None) -> PedelecError:
    """The one error listing every problem as ``at <pointer>: <clause>``."""
    listed = problems
    who = "" if tool is None else f" for tool {short_repr(tool)}"
    count = f"{len(listed)} problem" + ("" if len(listed) == 1 else "s")
    text = "; ".join(f"at {p or 'the root'}: {clause}" for p, clause in listed)
    details: dict[str, Any] = {"problems": [{"pointer": p, "message": c} for p, c in listed]}
    if tool is not None:
        details["tool"] = tool
    return PedelecError(
        INVALID_INPUT,
        f"Cannot convert the schema{who} to a Tool Args Schema ({count}): {text}.",
        details,
    )


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
