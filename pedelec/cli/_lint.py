"""What ``pedelec check`` finds in a loaded session: schema lint, missing handlers, bad names.

Every finding is a warning a tool author can act on; none of them stops a session from working.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from pedelec.adapters._names import name_map
from pedelec.errors import PedelecError

if TYPE_CHECKING:
    from pedelec.schema._compile import Validator
    from pedelec.session import Session

__all__ = ["Finding", "describe_load_error", "lint_session"]

# How deep the witness search follows items and required properties before giving up; checked
# schemas are far shallower than this in practice.
_WITNESS_DEPTH: Final = 16


class Finding:
    """One line of ``pedelec check`` output: a severity, the tool, where in its schema, what."""

    __slots__ = ("message", "pointer", "severity", "tool")

    def __init__(self, severity: str, tool: str, pointer: str | None, message: str) -> None:
        self.severity = severity
        self.tool = tool
        self.pointer = pointer
        self.message = message

    def __str__(self) -> str:
        where = self.tool if self.pointer is None else f"{self.tool} {self.pointer or '(root)'}"
        return f"{self.severity}: {where}: {self.message}"


def _nodes(schema: dict[str, Any]) -> Iterator[tuple[tuple[str | int, ...], dict[str, Any]]]:
    """Every node of a checked schema with its path, parents before children."""
    stack: list[tuple[tuple[str | int, ...], dict[str, Any]]] = [((), schema)]
    while stack:
        path, node = stack.pop()
        yield path, node
        children: list[tuple[tuple[str | int, ...], dict[str, Any]]] = []
        for key, sub in node.get("properties", {}).items():
            children.append(((*path, "properties", key), sub))
        if "items" in node:
            children.append(((*path, "items"), node["items"]))
        for i, sub in enumerate(node.get("oneOf", ())):
            children.append(((*path, "oneOf", i), sub))
        stack.extend(reversed(children))


_NO_WITNESS: Final[Any] = object()


class _Overlap:
    """Finds a value that two checked schema nodes both accept, or gives up.

    Only values that both compiled validators accept are reported, so a warning is never wrong;
    some overlaps (e.g. between two patterns) are beyond it and go unreported.
    """

    def __init__(self) -> None:
        self._validators: dict[int, tuple[dict[str, Any], Validator]] = {}

    def _valid(self, node: dict[str, Any], value: Any) -> bool:
        from pedelec.schema._compile import compile_node

        entry = self._validators.get(id(node))
        if entry is None:
            entry = (node, compile_node(node))
            self._validators[id(node)] = entry
        return entry[1].is_valid(value)

    def witness(self, a: dict[str, Any], b: dict[str, Any], depth: int = 0) -> Any:
        if depth > _WITNESS_DEPTH:
            return _NO_WITNESS
        for candidate in self._samples(a, b, depth):
            if self._valid(a, candidate) and self._valid(b, candidate):
                return candidate
        if a is not b:
            for candidate in self._samples(b, a, depth):
                if self._valid(a, candidate) and self._valid(b, candidate):
                    return candidate
        return _NO_WITNESS

    def _samples(self, node: dict[str, Any], other: dict[str, Any], depth: int) -> Iterator[Any]:
        if "oneOf" in node:
            for branch in node["oneOf"]:
                yield from self._samples(branch, other, depth)
            return
        yield from node.get("enum", ())
        if "default" in node:
            yield node["default"]
        yield from node.get("examples", ())
        kind = node.get("type")
        if kind == "boolean":
            yield from (False, True)
        elif kind in ("integer", "number"):
            yield from self._numbers(node, other)
        elif kind == "string":
            lengths = {node.get("minLength", 0), other.get("minLength", 0)}
            for n in sorted(lengths):
                yield "a" * n
        elif kind == "array":
            yield from self._arrays(node, other, depth)
        elif kind == "object":
            yield from self._objects(node, other, depth)

    @staticmethod
    def _numbers(node: dict[str, Any], other: dict[str, Any]) -> Iterator[Any]:
        import math

        lows = [n["minimum"] for n in (node, other) if "minimum" in n]
        highs = [n["maximum"] for n in (node, other) if "maximum" in n]
        lo = max(lows) if lows else None
        hi = min(highs) if highs else None
        if lo is not None:
            yield math.ceil(lo)
            yield lo
        if hi is not None:
            yield math.floor(hi)
            yield hi
        yield 0
        if lo is not None and hi is not None:
            yield (lo + hi) / 2

    def _arrays(self, node: dict[str, Any], other: dict[str, Any], depth: int) -> Iterator[Any]:
        size = max(node.get("minItems", 0), other.get("minItems", 0))
        if size == 0:
            yield []
            return
        other_items = other.get("items", node["items"])
        item = self.witness(node["items"], other_items, depth + 1)
        if item is not _NO_WITNESS:
            yield [item] * size

    def _objects(self, node: dict[str, Any], other: dict[str, Any], depth: int) -> Iterator[Any]:
        yield {}
        required = list(dict.fromkeys([*node.get("required", ()), *other.get("required", ())]))
        value: dict[str, Any] = {}
        for name in required:
            subs = [n["properties"][name] for n in (node, other) if name in n.get("properties", {})]
            if not subs:
                return
            found = self.witness(subs[0], subs[-1], depth + 1)
            if found is _NO_WITNESS:
                return
            value[name] = found
        yield value


def _lint_schema(tool: str, schema: dict[str, Any], overlap: _Overlap) -> Iterator[Finding]:
    from pedelec._json import pointer, short_repr

    for path, node in _nodes(schema):
        where = pointer(path)
        kind = node.get("type")
        if kind == "array" and "maxItems" not in node:
            yield Finding(
                "warning", tool, where, "array has no maxItems, so an agent may send any number"
            )
        if kind == "string" and "pattern" in node and "maxLength" not in node:
            yield Finding(
                "warning",
                tool,
                where,
                "string has a pattern but no maxLength, so the agent may send any length (the "
                "pattern runs on up to Limits.max_pattern_length characters; longer strings fail)",
            )
        for name, sub in node.get("properties", {}).items():
            if "description" not in sub:
                yield Finding(
                    "warning",
                    tool,
                    pointer((*path, "properties", name)),
                    "property has no description to tell the model what to send",
                )
        branches = node.get("oneOf", ())
        for i in range(len(branches)):
            for j in range(i + 1, len(branches)):
                both = overlap.witness(branches[i], branches[j])
                if both is not _NO_WITNESS:
                    yield Finding(
                        "warning",
                        tool,
                        where,
                        f"oneOf branches {i} and {j} both accept {short_repr(both)}, so that "
                        "value matches no branch (oneOf needs exactly one)",
                    )


def lint_session(session: Session) -> list[Finding]:
    """Every finding for ``session``'s tools, tool by tool, then the name check across them."""
    findings: list[Finding] = []
    overlap = _Overlap()
    for spec in session.manifest()["tools"]:
        findings.extend(_lint_schema(spec["name"], spec["argsSchema"], overlap))
        if not session.has_handler(spec["name"]):
            findings.append(Finding("warning", spec["name"], None, "tool has no handler"))
    try:
        # OpenAI and Anthropic share one name rule; MCP takes every pedelec name.
        name_map(session.tool_names(), "OpenAI/Anthropic")
    except PedelecError as exc:
        details = exc.details if isinstance(exc.details, dict) else {}
        tool = details.get("tool") or ", ".join(details.get("tools", ()))
        findings.append(Finding("warning", tool, None, exc.message))
    return findings


def describe_load_error(error: PedelecError) -> str:
    """The error that stopped a session from loading, with its tool and pointer when not said."""
    text = str(error)
    details = error.details if isinstance(error.details, dict) else {}
    extra = []
    tool = details.get("tool")
    if isinstance(tool, str) and f'"{tool}"' not in error.message:
        extra.append(f'tool "{tool}"')
    where = details.get("pointer")
    if isinstance(where, str) and where and where not in error.message:
        extra.append(f"at {where}")
    return f"{text} ({', '.join(extra)})" if extra else text
