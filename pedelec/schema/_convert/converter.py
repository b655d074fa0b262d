"""The walk: each node of a foreign schema, depth first, into a node of the subset.

A node meets the steps in this order: its references are written in place (``refs``), null
leaves it (``nulls``), its alternatives or types are settled here, its keywords are kept,
rewritten, moved or dropped (``rules``), and its own rules are checked, so that a problem is
reported at the node that has it, with every other problem of the schema.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from pedelec._json.render import render
from pedelec.limits import MAX_SCHEMA_DEPTH
from pedelec.schema._convert.log import Log, Path
from pedelec.schema._convert.nulls import NULL_ALTERNATIVE_REASON, drop_null, required
from pedelec.schema._convert.refs import Inliner
from pedelec.schema._convert.rules import bounds, meta, others
from pedelec.schema._convert.tables import (
    META,
    TYPE_OF,
    Kw,
    Move,
    applies,
    applies_enum,
    article,
    json_type,
)
from pedelec.schema.keywords import SUBSET
from pedelec.schema.overlap import disjoint

Chain = tuple[Path, ...]

#: What stands in for a child that failed, so the node's own rules are still checked.
_STAND_IN: Final = {"type": "boolean"}


class Out(NamedTuple):
    """A converted node (None when it cannot be expressed), and whether null was removed."""

    node: dict[str, Any] | None
    nullable: bool = False


#: A node that accepts only null: no node of the subset can stand for it.
_NULL_ONLY: Final = Out(None, nullable=True)


class Converter:
    """One conversion: the changes and problems found so far, and the references followed."""

    __slots__ = ("log", "refs")

    def __init__(self, root: Any) -> None:
        self.log = Log()
        self.refs = Inliner(root, self.log)

    def node(self, value: Any, path: Path, depth: int, chain: Chain) -> Out:
        """Convert the node at ``path``; ``chain`` holds the original paths being expanded."""
        if type(value) is not dict:
            self.log.not_a_node(path, value)
            return Out(None)
        if depth > MAX_SCHEMA_DEPTH:
            self.log.problem(path, f"the schema is nested more than {MAX_SCHEMA_DEPTH} levels deep")
            return Out(None)
        if not self.refs.count(path):
            return Out(None)
        merged = self.refs.merged(value, path, (*chain, path))
        if merged is None:
            return Out(None)
        kw, chain, inlined = merged
        moves: list[Move] = []
        out = self._body(kw, depth, chain, moves)
        if out.node is None:
            return out
        node = meta(out.node, kw, moves, self.log)
        self.refs.replaced(inlined, node)
        return Out(node, out.nullable)

    def _body(self, kw: Kw, depth: int, chain: Chain, moves: list[Move]) -> Out:
        """Convert a merged node: alternatives, enums and types, then its keywords."""
        nullable, null_only = drop_null(kw, self.log)
        if null_only:
            return _NULL_ONLY
        if "anyOf" in kw.values and "oneOf" in kw.values:
            self.log.problem(
                kw.path,
                'anyOf and oneOf in one node cannot be expressed; write one "oneOf" whose '
                "alternatives cannot match the same value",
            )
            return Out(None)
        for keyword in ("anyOf", "oneOf"):
            if keyword in kw.values:
                if "type" in kw.values:
                    self.log.problem(
                        kw.at(keyword),
                        f'{keyword} beside "type" cannot be expressed; move "type" into each '
                        f"alternative",
                    )
                    return Out(None)
                out = self._alternatives(kw, keyword, depth, chain, moves)
                return Out(out.node, out.nullable or nullable)
        types = self._types(kw)
        if types is None:
            others(kw, None, moves, self.log)  # to report every problem of the node, not one
            return Out(None)
        if len(types) == 1:
            return Out(self._typed(types[0], kw, depth, chain, moves), nullable)
        return Out(self._split(types, kw, depth, chain, moves), nullable)

    # --- alternatives

    def _alternatives(
        self, kw: Kw, keyword: str, depth: int, chain: Chain, moves: list[Move]
    ) -> Out:
        """An ``anyOf`` or ``oneOf``: branches converted, null ones removed."""
        where = kw.at(keyword)
        branches = kw.values.pop(keyword)
        ok = others(kw, None, moves, self.log)
        if type(branches) is not list or not branches:
            self.log.problem(where, f"{keyword} must be a non-empty array of nodes")
            return Out(None)
        nullable = False
        kept: list[tuple[int, dict[str, Any]]] = []
        for index, branch in enumerate(branches):
            out = self.node(branch, (*where, index), depth + 1, chain)
            nullable = nullable or out.nullable
            if out.node is not None:
                kept.append((index, out.node))
            elif out.nullable:
                self.log.change((*where, index), branch, None, NULL_ALTERNATIVE_REASON)
            else:
                ok = False
        if not ok:
            return Out(None)
        if not kept:
            return _NULL_ONLY
        if len(kept) == 1:
            if not nullable:
                self.log.change(
                    where, branches, kept[0][1], f"A {keyword} of one alternative is that node."
                )
            return Out(kept[0][1], nullable)
        nodes = [node for _, node in kept]
        if keyword == "anyOf" and not self._any_of(where, branches, kept):
            return Out(None)
        return Out({"oneOf": nodes}, nullable)

    def _any_of(self, where: Path, branches: Any, kept: list[tuple[int, dict[str, Any]]]) -> bool:
        """Whether an ``anyOf`` can become ``oneOf``: its alternatives are proven disjoint."""
        overlapping = [
            f"{i} and {j}"
            for x, (i, a) in enumerate(kept)
            for j, b in kept[x + 1 :]
            if not disjoint(a, b)
        ]
        if overlapping:
            self.log.problem(
                where,
                f"anyOf alternatives {', '.join(overlapping)} may match the same value, so it "
                f'cannot become "oneOf" (exactly one); make them distinguishable (different '
                f"types, or a required property with different enum values)",
            )
            return False
        self.log.change(
            where,
            branches,
            {"oneOf": [node for _, node in kept]},
            'anyOf became "oneOf": no value matches two of its alternatives, so both mean '
            "the same.",
        )
        return True

    # --- types

    def _types(self, kw: Kw) -> list[str] | None:
        """The node's JSON types, from ``type``, its ``enum`` or its keywords."""
        values = kw.values
        if "type" in values:
            return self._given_types(kw)
        if type(values.get("enum")) is list and values["enum"]:
            kinds = list(dict.fromkeys(json_type(v) for v in values["enum"]))
            if "number" in kinds and "integer" in kinds:
                kinds.remove("integer")
            containers = [k for k in kinds if k in ("object", "array")]
            if containers:
                values.pop("enum")
                self.log.problem(
                    kw.at("enum"),
                    f'"enum" holds {article(containers[0])} value, and the subset has enum on '
                    f"string, number, integer and boolean nodes only; check the value in the "
                    f"handler",
                )
                return None
            self.log.change(
                kw.path,
                {"enum": values["enum"]},
                {"type": kinds[0] if len(kinds) == 1 else kinds},
                '"type" was added: the enum members give it.',
            )
            return kinds
        kinds = list(dict.fromkeys(TYPE_OF[k] for k in values if k in TYPE_OF))
        if len(kinds) == 1:
            self.log.change(
                kw.path,
                None,
                {"type": kinds[0]},
                f'"type" was added: the keywords of the node apply to {kinds[0]} values only.',
            )
            return kinds
        self.log.problem(
            kw.path,
            'the node has no "type", so it accepts any JSON value, and the subset has no such '
            'node; give it a "type"',
        )
        return None

    def _given_types(self, kw: Kw) -> list[str] | None:
        """The types a node's ``type`` names, once each (``number`` standing for ``integer``)."""
        given = kw.values.pop("type")
        names = given if type(given) is list else [given]
        bad = [n for n in names if type(n) is not str or n not in SUBSET or n == "oneOf"]
        if bad or not names:
            self.log.problem(
                kw.at("type"),
                f'"type" {render(given)} is not one of the subset\'s types (string, '
                f"number, integer, boolean, array, object)",
            )
            return None
        if "integer" in names and "number" in names:
            names = [n for n in names if n != "integer"]
            self.log.change(
                kw.at("type"),
                given,
                names[0] if len(names) == 1 else names,
                '"integer" was dropped from "type": every integer is a number.',
            )
        return list(dict.fromkeys(names))

    def _split(
        self, types: list[str], kw: Kw, depth: int, chain: Chain, moves: list[Move]
    ) -> dict[str, Any] | None:
        """A node of several types: a ``oneOf`` of one node per type, disjoint by type."""
        values = kw.values
        enum = values.pop("enum", None)
        if enum is not None and type(enum) is list:
            stray = [v for v in enum if not any(applies_enum(v, kind) for kind in types)]
            if stray:
                self.log.change(
                    kw.at("enum"),
                    stray,
                    None,
                    'These "enum" members are of none of the node\'s types, so they never matched.',
                )
        ok = True
        branches: list[dict[str, Any]] = []
        for kind in types:
            own = {k: v for k, v in values.items() if k in TYPE_OF and applies(k, kind)}
            if type(enum) is list:
                own["enum"] = [v for v in enum if applies_enum(v, kind)]
                if not own["enum"]:
                    continue
            node = self._typed(kind, Kw(kw.path, own, kw.homes), depth, chain, moves)
            ok = ok and node is not None
            if node is not None:
                branches.append(node)
        for keyword in [k for k in values if k in TYPE_OF]:
            value = values.pop(keyword)
            if not any(applies(keyword, kind) for kind in types):
                others(Kw(kw.path, {keyword: value}, kw.homes), types[0], moves, self.log)
        ok = others(kw, None, moves, self.log) and ok
        if ok and not branches:
            self.log.problem(
                kw.at("enum"), '"enum" has no member of the node\'s types, so nothing matches'
            )
        if not ok or not branches:
            return None
        result = branches[0] if len(branches) == 1 else {"oneOf": branches}
        self.log.change(
            kw.at("type") if "type" in kw.homes else kw.path,
            types,
            result,
            "A node of several types became a oneOf of one node per type.",
        )
        return result

    # --- a node of one type

    def _typed(
        self, kind: str, kw: Kw, depth: int, chain: Chain, moves: list[Move]
    ) -> dict[str, Any] | None:
        """A node of one type: its keywords kept, rewritten, moved or dropped."""
        values = kw.values
        allowed = SUBSET[kind].keywords
        node: dict[str, Any] = {"type": kind}
        ok = True
        if kind in ("number", "integer"):
            ok = bounds(kind, kw, moves, self.log)
        nullable: list[str] = []
        for keyword in [k for k in values if k in allowed and k not in META]:
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
            required(kw, node, nullable, self.log)
        ok = others(kw, kind, moves, self.log) and ok
        if kind == "array" and "items" not in node and ok:
            self.log.problem(
                kw.path,
                'an array without "items" may hold any value, and the subset has no such node; '
                'add "items" with the node every item matches',
            )
            return None
        # Checked even when a child failed, so the node's own problems are listed too.
        valid = self._valid(node, kw)
        return node if ok and valid else None

    def _items(
        self, value: Any, where: Path, node: dict[str, Any], depth: int, chain: Chain
    ) -> bool:
        if type(value) is list:
            self.log.problem(
                where,
                '"items" as an array (one node per position) cannot be expressed; use an object '
                'with named properties, or "items" with one node',
            )
            node["items"] = dict(_STAND_IN)
            return False
        out = self.node(value, where, depth + 1, chain)
        if out.node is None:
            if out.nullable:
                self.log.problem(
                    where, "the items can only be null, and the subset has no null type"
                )
            node["items"] = dict(_STAND_IN)
            return False
        node["items"] = out.node
        return True

    def _properties(
        self, value: Any, where: Path, depth: int, chain: Chain
    ) -> tuple[dict[str, Any], list[str], bool] | None:
        """The converted properties, the names of those that could be null, and whether all
        converted."""
        if type(value) is not dict:
            self.log.problem(where, '"properties" must be an object mapping names to nodes')
            return None
        converted: dict[str, Any] = {}
        nullable: list[str] = []
        ok = True
        for name, child in value.items():
            out = self.node(child, (*where, name), depth + 1, chain)
            if out.node is None:
                ok = False
                if out.nullable:
                    self.log.problem(
                        (*where, name),
                        "the property can only be null, and the subset has no null type; "
                        "remove the property",
                    )
                continue
            converted[name] = out.node
            if out.nullable:
                nullable.append(name)
        if not ok:  # a stand-in for each failed property, so "required" is still checked
            converted = {name: converted.get(name, dict(_STAND_IN)) for name in value}
        return converted, nullable, ok

    def _valid(self, node: dict[str, Any], kw: Kw) -> bool:
        """Check the node's own keywords (its children are converted and checked already)."""
        shallow = dict(node)
        if "items" in shallow:
            shallow["items"] = dict(_STAND_IN)
        if "properties" in shallow:
            shallow["properties"] = {key: dict(_STAND_IN) for key in shallow["properties"]}
        broken = _first_break(shallow)
        if broken is None:
            return True
        path, clause = broken
        first = path[0] if path else None
        base = kw.at(first) if type(first) is str else kw.path
        self.log.problem((*base, *path[1:]), clause)
        return False


def _first_break(node: dict[str, Any]) -> tuple[Path, str] | None:
    """The first registration rule ``node`` breaks, as ``(path, clause)``, or None.

    The converter needs the clause and the path as data, not a formatted ``PedelecError``, and
    checks nodes that are not roots, so it walks with the check's own ``Invalid``.
    """
    from pedelec.schema.check import Invalid, _walk

    try:
        _walk(node)
    except Invalid as bad:
        return bad.path, bad.clause
    return None
