"""What ``pedelec check`` finds in a loaded session: schema lint, missing handlers, bad names.

Every finding is a warning a tool author can act on; none of them stops a session from working.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from pedelec._json import pointer
from pedelec.adapters._names import GEMINI_NAMES, name_map
from pedelec.errors import PedelecError

if TYPE_CHECKING:
    from pedelec.session import Session

__all__ = ["PROVIDERS", "Finding", "describe_load_error", "lint_session"]

#: The values of ``pedelec check --provider``.
PROVIDERS: Final = ("openai", "anthropic", "gemini", "mcp")
#: Gemini's rule for property names in function declarations.
_GEMINI_PROPERTY: Final = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]{0,63}")


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


def _lint_schema(tool: str, schema: dict[str, Any]) -> Iterator[Finding]:
    from pedelec._json import pointer
    from pedelec._json.render import render
    from pedelec.schema.overlap import witness

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
                both = witness(branches[i], branches[j])
                if both is not None:
                    yield Finding(
                        "warning",
                        tool,
                        where,
                        f"oneOf branches {i} and {j} both accept {render(both)}, so that "
                        "value matches no branch (oneOf needs exactly one)",
                    )


#: Words that say a tool deletes something or moves money; such a tool should say so with
#: ``destructiveHint: true`` so a client can ask a person first.
_RISKY_WORDS: Final = frozenset(
    {
        "delete",
        "remove",
        "drop",
        "destroy",
        "purge",
        "erase",
        "wipe",
        "truncate",
        "pay",
        "transfer",
        "refund",
        "charge",
        "withdraw",
    }
)
#: Name segments (``delete_user``, ``files.remove``, ``payInvoice``) and description words.
_WORD: Final = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _risky_word(text: str) -> str | None:
    """The first word of ``text`` (or segment of a camelCase/snake_case name) that is risky."""
    for match in _WORD.finditer(text):
        word = match.group().lower()
        if word in _RISKY_WORDS:
            return word
    return None


def _lint_intent(spec: dict[str, Any]) -> Finding | None:
    """Warn about a tool that sounds destructive but is not marked ``destructiveHint: true``.

    A tool that needs approval is marked: every call waits for a person, and MCP lists it
    with ``destructiveHint: true``.
    """
    if spec.get("annotations", {}).get("destructiveHint") is True or spec.get("requiresApproval"):
        return None
    word = _risky_word(spec["name"]) or _risky_word(spec["description"])
    if word is None:
        return None
    return Finding(
        "warning",
        spec["name"],
        None,
        f'tool sounds destructive ("{word}") but is not marked '
        'annotations={"destructiveHint": True}, so a client cannot tell it apart from a safe one',
    )


def lint_session(session: Session, provider: str | None = None) -> list[Finding]:
    """Every finding for ``session``'s tools, tool by tool, then the name check across them.

    Without ``provider`` the names are checked against the rule OpenAI and Anthropic share; with
    one of :data:`PROVIDERS`, against that provider's rules: names, strict-mode blockers
    (``openai``, ``anthropic``, with Anthropic's per-request caps), property names
    (``gemini``), dotted names that MCP clients forward to providers that reject ``.`` (``mcp``).
    """
    findings: list[Finding] = []
    for spec in session.manifest()["tools"]:
        findings.extend(_lint_schema(spec["name"], spec["argsSchema"]))
        if not session.has_handler(spec["name"]):
            findings.append(Finding("warning", spec["name"], None, "tool has no handler"))
        findings.extend(filter(None, [_lint_intent(spec)]))
    if provider is None:
        # OpenAI and Anthropic share one name rule; MCP takes every pedelec name.
        findings.extend(_names(session, "OpenAI/Anthropic"))
    else:
        findings.extend(_PROVIDER_LINTS[provider](session))
    return findings


def _names(session: Session, provider: str, gemini: bool = False) -> list[Finding]:
    try:
        if gemini:
            name_map(session.tool_names(), provider, GEMINI_NAMES)
        else:
            name_map(session.tool_names(), provider)
    except PedelecError as exc:
        details = exc.details if isinstance(exc.details, dict) else {}
        tool = details.get("tool") or ", ".join(details.get("tools", ()))
        return [Finding("warning", tool, None, exc.message)]
    return []


def _strict(session: Session, provider: str) -> list[Finding]:
    from pedelec.adapters._strict import ANTHROPIC, OPENAI, problems

    profile = OPENAI if provider == "OpenAI" else ANTHROPIC
    return [
        Finding("warning", tool, blocker.pointer, f"not strict for {provider}: {blocker.reason}")
        for tool, blocker in problems(session, profile).items()
    ]


def _openai(session: Session) -> list[Finding]:
    return _names(session, "OpenAI") + _strict(session, "OpenAI")


def _anthropic(session: Session) -> list[Finding]:
    return _names(session, "Anthropic") + _strict(session, "Anthropic")


def _gemini(session: Session) -> list[Finding]:
    findings = _names(session, "Gemini", gemini=True)
    for spec in session.manifest()["tools"]:
        for path, node in _nodes(spec["argsSchema"]):
            for key in node.get("properties", {}):
                if _GEMINI_PROPERTY.fullmatch(key) is None:
                    findings.append(
                        Finding(
                            "warning",
                            spec["name"],
                            pointer((*path, "properties", key)),
                            "Gemini property names must match ^[a-zA-Z_][a-zA-Z0-9_]{0,63}$",
                        )
                    )
    return findings


def _mcp(session: Session) -> list[Finding]:
    return [
        Finding(
            "warning",
            name,
            None,
            'the name contains "." and is served over MCP unchanged; clients that forward '
            "tool names to OpenAI or Anthropic (such as the OpenAI Agents SDK) are refused",
        )
        for name in session.tool_names()
        if "." in name
    ]


_PROVIDER_LINTS: Final = {
    "openai": _openai,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "mcp": _mcp,
}


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
