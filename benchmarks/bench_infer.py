"""Typed tools benchmark (issue 5): infer and register a tool from a 6-parameter signature.

pedelec builds the schema from the signature with the standard library and `typing-extensions`;
the MCP SDK's `MCPServer().tool()` does the same job with pydantic. Both are timed in one run on
the same function, each on a fresh server/session per tool so nothing is reused between calls.
pedelec is timed twice: with its validator cache cleared before every tool (cold: the schema is
checked and compiled too) and with it warm (the same schema seen before).

Run: `python benchmarks/bench_infer.py` (needs `pip install -e '.[bench]'`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from timing import (
    Settings,
    Target,
    best_ns,
    environment_line,
    parse_settings,
    print_table,
    print_targets,
    ratio,
    show_ns,
)

import pedelec.schema
from pedelec import Maximum, MaxLength, Minimum, Session


def create_event(
    title: Annotated[str, MaxLength(120)],
    day: Annotated[int, Minimum(1), Maximum(31)],
    month: Annotated[int, Minimum(1), Maximum(12)],
    attendees: list[str],
    kind: Literal["meeting", "call", "focus"] = "meeting",
    remind: bool = True,
) -> dict[str, object]:
    """Create a calendar event.

    Args:
        title: Short title shown in the calendar.
        day: Day of the month.
        month: Month of the year.
        attendees: E-mail addresses of the people to invite.
        kind: What sort of event it is.
        remind: Whether to send a reminder.
    """
    return {"title": title}


def register_pedelec(count: int) -> None:
    for _ in range(count):
        Session().tool(create_event)


def register_pedelec_cold(count: int) -> None:
    clear = pedelec.schema._clear_cache
    for _ in range(count):
        clear()
        Session().tool(create_event)


def register_mcp(count: int) -> None:
    for _ in range(count):
        MCPServer().tool()(create_event)


def main(argv: Sequence[str] | None = None) -> int:
    settings: Settings = parse_settings(argv, description=(__doc__ or "").splitlines()[0])
    print("# pedelec typed-tool benchmark\n")
    print(environment_line(settings, ("pedelec", "mcp", "pydantic")) + "\n")

    def count(number: int) -> int:
        return number

    mcp = best_ns(count, register_mcp, settings)
    cold = best_ns(count, register_pedelec_cold, settings)
    warm = best_ns(count, register_pedelec, settings)
    print("## Infer and register a tool from a 6-parameter signature (ns per tool)\n")
    print_table(
        ["how", "ns/tool", "MCPServer().tool() / this"],
        [
            ["`MCPServer().tool()(fn)` (mcp, pydantic)", show_ns(mcp), ratio(1.0)],
            ["`Session().tool(fn)`, validator cache cleared", show_ns(cold), ratio(mcp / cold)],
            ["`Session().tool(fn)`, validator cache warm", show_ns(warm), ratio(mcp / warm)],
        ],
    )
    print_targets(
        "issue 5",
        [Target("infer + register: >= 10x faster than MCPServer().tool()", mcp / cold, 10.0)],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
