"""The editing session the provider adapter tests (OpenAI, Anthropic, Gemini) dispatch against.

Three tools: one with a bounded integer argument, one whose name has a dot (which every
provider's name rules map) and whose result shows the call's request and turn ids, and one whose
handler raises.
"""

from __future__ import annotations

from typing import Any

from pedelec.session import Session

DELTA = {
    "type": "object",
    "properties": {"delta": {"type": "integer", "minimum": -100, "maximum": 100}},
    "required": ["delta"],
}
TEXT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


def make_session() -> Session:
    """A new session with the three editing tools, so no test sees another's state."""
    session = Session(guidance="Use the tools to edit the document.")

    @session.on_tool("update_counter", description="Change the counter.", schema=DELTA)
    def update_counter(args: dict[str, Any]) -> dict[str, Any]:
        return {"value": args["delta"]}

    @session.on_tool("editor.replace_selection", description="Replace the selection.", schema=TEXT)
    def replace(args: dict[str, Any], ctx: Any) -> dict[str, Any]:
        return {"replaced": args["text"], "request": ctx.tool_request_id, "turn": ctx.turn_id}

    @session.on_tool("explode", description="Always fails.", schema={"type": "object"})
    def explode(args: dict[str, Any]) -> None:
        raise ValueError("boom")

    return session
