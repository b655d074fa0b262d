"""A user's module, type-checked with ``mypy --strict`` from outside the checkout.

It stands for an application that installed pedelec with ``pip install -e .``: ``.ci/run`` and
``tests/test_typing_user_project.py`` copy it into an empty temporary directory and run mypy
there, so pedelec is found only through the installed distribution (its ``py.typed`` and the
editable install's path entry), never through the current directory. ``assert_type`` makes a
lost type a failure, not a silent ``Any``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, assert_type

from pedelec import Maximum, Minimum, PedelecError, Session, ToolCallContext, ToolResult
from pedelec.adapters import anthropic, mcp, openai

session = Session(guidance="Move the cursor with move; change the counter with update_counter.")
counter = {"value": 0}


@session.tool
def move(
    steps: Annotated[int, Minimum(1), Maximum(10)],
    direction: Literal["left", "right"] = "right",
) -> dict[str, object]:
    """Move the cursor.

    Args:
        steps: How many cells to move.
        direction: Which way to go.
    """
    return {"moved": steps, "direction": direction}


@session.on_tool(
    "update_counter",
    description="Increase or decrease the visible counter by a signed delta.",
    schema={
        "type": "object",
        "properties": {"delta": {"type": "integer", "minimum": -100, "maximum": 100}},
        "required": ["delta"],
    },
)
def update_counter(args: dict[str, Any], ctx: ToolCallContext, /) -> dict[str, int]:
    counter["value"] += args["delta"]
    return {"value": counter["value"]}


def main() -> None:
    assert_type(move(2), dict[str, object])
    result = session.dispatch_sync("update_counter", {"delta": 3})
    assert_type(result, ToolResult)
    error = result.error
    assert_type(error, PedelecError | None)
    for chat_tool in openai.chat_tools(session):
        print(chat_tool["function"]["name"])
    for anthropic_tool in anthropic.tools(session):
        print(anthropic_tool["name"])
    for mcp_tool in mcp.tools(session):
        print(mcp_tool["inputSchema"]["type"])
    print(result.to_text())


if __name__ == "__main__":
    main()
