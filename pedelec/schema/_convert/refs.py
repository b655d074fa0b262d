"""``$ref``, ``$defs`` and single-branch ``allOf``: each reference written in place, within a bound.

A reference is followed inside the schema only (``#`` or ``#/...``); one that leads back into
the node it is expanding is recursive and cannot be written out. Every path stays the one in
the schema as given, so a change inside a ``$defs`` entry names that entry.
"""

from __future__ import annotations

from typing import Any, Final
from urllib.parse import unquote

from pedelec._json import json_key
from pedelec._json.render import render
from pedelec.schema._convert.log import Log, Path
from pedelec.schema._convert.tables import ANNOTATIONS, META, Kw

#: Most nodes a converted schema may have: inlining a ``$defs`` entry used many times, in
#: entries used many times, grows the schema geometrically.
MAX_NODES: Final = 10_000

#: What ``merged`` wrote in place: where the keyword was, its value, and the keyword.
Inlined = list[tuple[Path, Any, str]]


class Inliner:
    """The references of one conversion: the root they point into, and the nodes made so far."""

    __slots__ = ("log", "nodes", "root")

    def __init__(self, root: Any, log: Log) -> None:
        self.root = root
        self.log = log
        self.nodes = 0

    def count(self, path: Path) -> bool:
        """Count the node at ``path``; False (a problem, once) when there are too many."""
        self.nodes += 1
        if self.nodes <= MAX_NODES:
            return True
        if self.nodes == MAX_NODES + 1:
            self.log.problem(
                path,
                f"writing each $ref in place makes more than {MAX_NODES} nodes; simplify "
                f"the schema or split the tool",
            )
        return False

    def merged(
        self, value: dict[str, Any], path: Path, chain: tuple[Path, ...]
    ) -> tuple[Kw, tuple[Path, ...], Inlined] | None:
        """The node's keywords with every ``$ref`` and single-branch ``allOf`` merged in.

        ``chain`` holds the original paths being expanded; it comes back with the targets
        added. None means a problem was recorded.
        """
        kw = Kw(path, dict(value), dict.fromkeys(value, path))
        inlined: Inlined = []
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
                self.log.not_a_node(target_path, target_value)
                return None
            chain = (*chain, target_path)
            inlined.append((where, was, keyword))
            if not self._merge(kw, keyword, where, target_path, target_value):
                return None
        self._drop_defs(kw)
        return kw, chain, inlined

    def replaced(self, inlined: Inlined, node: dict[str, Any]) -> None:
        """Record each reference ``merged`` wrote in place, now that its node is known."""
        for where, was, keyword in inlined:
            self.log.change(where, was, node, f"{keyword} was replaced by the node it names.")

    def _merge(
        self, kw: Kw, keyword: str, where: Path, target_path: Path, target: dict[str, Any]
    ) -> bool:
        """Add the target's keywords to ``kw``; False when both hold one, differently."""
        for name, item in target.items():
            if name not in kw.values:
                kw.values[name] = item
                kw.homes[name] = target_path
            elif json_key(item) == json_key(kw.values[name]):
                continue
            elif name in META:
                self.log.change(
                    (*target_path, name),
                    item,
                    None,
                    f"The {name} gave way to the one beside the {keyword}.",
                )
            elif name not in ANNOTATIONS:
                self.log.problem(
                    where,
                    f"{render(name)} beside the {keyword} and in its target differ, and "
                    f"both apply; merge them into one value",
                )
                return False
        return True

    def _drop_defs(self, kw: Kw) -> None:
        for keyword in ("$defs", "definitions"):
            if keyword in kw.values:
                self.log.change(
                    kw.at(keyword),
                    kw.values.pop(keyword),
                    None,
                    f"{render(keyword)} was dropped: each $ref to it is written in place.",
                )

    def _target(
        self, keyword: str, value: Any, where: Path, chain: tuple[Path, ...]
    ) -> tuple[Path, Any] | None:
        """The path and value a ``$ref`` or ``allOf`` stands for, or None (problem recorded)."""
        if keyword == "allOf":
            if type(value) is list and len(value) == 1:
                return (*where, 0), value[0]
            parts = f"{len(value)} parts" if type(value) is list else render(value)
            self.log.problem(
                where,
                f"allOf with {parts} cannot be expressed; merge the parts into one node, or use "
                f'"oneOf" for alternatives',
            )
            return None
        if type(value) is not str or not value.startswith("#"):
            self.log.problem(
                where,
                f"$ref {render(value)} does not point into this schema; only references such "
                f'as "#/$defs/Name" are written in place, so copy the target into "$defs"',
            )
            return None
        text = unquote(value[1:])
        if text and not text.startswith("/"):
            self.log.problem(where, f"$ref {render(value)} names an anchor; use a JSON pointer")
            return None
        found = self._resolve(text)
        if found is None:
            self.log.problem(where, f"$ref {render(value)} points to nothing in this schema")
            return None
        if found[0] in chain:
            self.log.problem(
                where,
                f"$ref {render(value)} is recursive (it is inside the node it names), and a "
                f"Tool Args Schema is finite; write out each level up to a fixed depth",
            )
            return None
        return found

    def _resolve(self, text: str) -> tuple[Path, Any] | None:
        """The path and value the JSON pointer ``text`` names in the root, if any."""
        path: Path = ()
        node: Any = self.root
        for part in (p.replace("~1", "/").replace("~0", "~") for p in text.split("/")[1:]):
            if type(node) is dict and part in node:
                node, path = node[part], (*path, part)
            elif type(node) is list and part.isdigit() and int(part) < len(node):
                node, path = node[int(part)], (*path, int(part))
            else:
                return None
        return path, node
