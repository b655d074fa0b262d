"""Typed tools: the argument schema is inferred from each function's signature.

Annotations give the types, ``Annotated`` markers the bounds, defaults make a parameter
optional, and the docstring gives the tool's description and each parameter's description.
The handler is called with keyword arguments: ``priority`` arrives as a ``Priority`` member.

    python examples/typed_tools.py
    pedelec tool-spec examples/typed_tools.py:session add_card
    pedelec tool-call examples/typed_tools.py:session add_card '{"title": "Ship v1"}'
"""

import enum
import json
from typing import Annotated, Literal, NotRequired, TypedDict

from pedelec import (
    Description,
    MaxItems,
    MaxLength,
    MinLength,
    Pattern,
    Session,
    ToolCallContext,
    UniqueItems,
)


class Priority(enum.IntEnum):
    LOW = 1
    NORMAL = 2
    HIGH = 3


class Due(TypedDict):
    date: Annotated[str, Pattern("^[0-9]{4}-[0-9]{2}-[0-9]{2}$"), Description("YYYY-MM-DD.")]
    time: NotRequired[Annotated[str, Pattern("^[0-2][0-9]:[0-5][0-9]$"), Description("HH:MM.")]]


# Aliases keep signatures short; an alias is reused like any Python value.
Column = Literal["todo", "doing", "done"]
Label = Annotated[str, Pattern("^[a-z][a-z0-9-]*$"), MaxLength(20)]

session = Session(guidance="Use add_card and list_cards to manage the user's task board.")
board: list[dict] = []


@session.tool
def add_card(
    title: Annotated[str, MinLength(1), MaxLength(80)],
    column: Column = "todo",
    labels: Annotated[list[Label], MaxItems(5), UniqueItems()] | None = None,
    priority: Priority = Priority.NORMAL,
    due: Due | None = None,
) -> dict:
    """Add a card to the task board.

    Args:
        title: The card's title, as the user said it.
        column: The column the card starts in.
        labels: Lower-case labels, at most five.
        priority: 1 (low), 2 (normal) or 3 (high).
        due: When the card is due, if the user said so.
    """
    card = {
        "id": len(board) + 1,
        "title": title,
        "column": column,
        "labels": labels or [],
        "priority": priority.name.lower(),  # a Priority member, not a bare int
    }
    if due is not None:
        card["due"] = due
    board.append(card)
    return card


@session.tool(timeout_ms=5_000)
async def list_cards(ctx: ToolCallContext, column: Column | None = None) -> list[dict]:
    """List the cards on the board, optionally of one column."""
    # ctx is injected by pedelec and is not part of the schema.
    return [card for card in board if column is None or card["column"] == column]


if __name__ == "__main__":
    for name in session.tool_names():
        spec = session.tool_spec(name)
        schema = spec["argsSchema"]
        print(f"{name}: {spec['description']} (required: {', '.join(schema['required']) or '-'})")
        for param, node in schema["properties"].items():
            print(f"  {param}: {json.dumps(node)}")

    ok = session.dispatch_sync(
        "add_card", {"title": "Ship v1", "priority": 3, "labels": ["release"]}
    )
    print("add_card ->", ok.to_text())
    bad = session.dispatch_sync("add_card", {"title": "", "column": "later", "labels": ["Docs"]})
    print("add_card ->", bad.error.message)
    print("list_cards ->", session.dispatch_sync("list_cards", {"column": "todo"}).to_text())
