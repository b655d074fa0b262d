"""What a conversion reports: one ``Change`` per rewrite, and the problems that stop it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, final

from pedelec._json import clone_json, dumps_canonical, pointer
from pedelec._json.render import render
from pedelec.errors import INVALID_INPUT, PedelecError

Path = tuple[str | int, ...]


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

    path: Path
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


class Log:
    """The changes and problems of one conversion, each recorded once, in the order found."""

    __slots__ = ("changes", "problems")

    def __init__(self) -> None:
        self.changes: dict[tuple[str, str, str, str], Change] = {}
        self.problems: dict[tuple[str, str], None] = {}

    def change(self, path: Path, was: Any, became: Any, reason: str) -> None:
        # A $defs entry used twice is converted twice; its changes are reported once.
        key = (pointer(path), reason, dumps_canonical(was), dumps_canonical(became))
        self.changes.setdefault(key, Change(path, clone_json(was), clone_json(became), reason))

    def problem(self, path: Path, clause: str) -> None:
        self.problems.setdefault((pointer(path), clause), None)

    def not_a_node(self, path: Path, value: Any) -> None:
        """Record that ``value``, found where a node belongs, is not an object."""
        what = "true (any value)" if value is True else render(value)
        self.problem(
            path, f"expected a schema node (an object with a type), got {what}; give it a type"
        )


def failure(problems: list[tuple[str, str]], tool: str | None) -> PedelecError:
    """The one error listing every ``(pointer, clause)`` problem as ``at <pointer>: <clause>``."""
    who = "" if tool is None else f" for tool {render(tool)}"
    count = f"{len(problems)} problem" + ("" if len(problems) == 1 else "s")
    text = "; ".join(f"at {p or 'the root'}: {clause}" for p, clause in problems)
    details: dict[str, Any] = {"problems": [{"pointer": p, "message": c} for p, c in problems]}
    if tool is not None:
        details["tool"] = tool
    return PedelecError(
        INVALID_INPUT,
        f"Cannot convert the schema{who} to a Tool Args Schema ({count}): {text}.",
        details,
    )
