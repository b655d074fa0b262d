"""Strict-mode exports for OpenAI and Anthropic, offline: what the model is given, what comes back.

Run it: ``python examples/strict_mode.py``.
"""

from __future__ import annotations

# --8<-- [start:session]
from typing import Any

from pedelec import Session
from pedelec.adapters import anthropic as pedelec_anthropic, openai as pedelec_openai

notes = Session()


@notes.on_tool(
    "notes.search",
    description="Search the notes.",
    schema={
        "type": "object",
        "properties": {
            "query": {"type": "string", "maxLength": 80},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50},
        },
        "required": ["query"],
    },
)
def search(args: dict[str, Any]) -> dict[str, Any]:
    return {"query": args["query"], "limit": args.get("limit", 10)}


# --8<-- [end:session]

# --8<-- [start:openai]
(tool,) = pedelec_openai.responses_tools(notes)
assert tool["strict"] is True
assert tool["parameters"] == {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "(maxLength: 80)"},
        "limit": {"anyOf": [{"type": "integer", "minimum": 1, "maximum": 50}, {"type": "null"}]},
    },
    "required": ["query", "limit"],
    "additionalProperties": False,
}

# The model must send every property; a null limit reaches the handler as "not given".
call = {
    "type": "function_call",
    "call_id": "c1",
    "name": "notes__search",
    "arguments": '{"query": "milk", "limit": null}',
}
(output,) = pedelec_openai.dispatch_responses_calls_sync(notes, [call])
print("openai:", output["output"])  # {"query":"milk","limit":10}
# --8<-- [end:openai]

# --8<-- [start:blocked]
maps = Session()
maps.on_tool(
    "tag",
    description="Tag a note.",
    schema={"type": "object", "properties": {"meta": {"type": "object"}}},
)(lambda args: args)

# A tool declaring no arguments accepts any keys, which a strict export would refuse.
maps.on_tool("ping", description="Check the service.", schema={"type": "object"})(lambda args: 1)

assert [t["strict"] for t in pedelec_openai.responses_tools(maps)] == [False, False]
print("not strict:", pedelec_openai.strict_problems(maps)["tag"].pointer)  # /properties/meta
print("not strict:", pedelec_openai.strict_problems(maps)["ping"].reason)
# --8<-- [end:blocked]

# --8<-- [start:anthropic]
(claude_tool,) = pedelec_anthropic.tools(notes)
assert claude_tool["strict"] is True
assert claude_tool["input_schema"]["properties"]["limit"] == {
    "type": "integer",
    "description": "(minimum: 1, maximum: 50)",
}
# Dropped from the strict schema, the bounds are still enforced by pedelec.
block = {"type": "tool_use", "id": "u1", "name": "notes__search", "input": {"limit": 0}}
(result,) = pedelec_anthropic.dispatch_tool_uses_sync(notes, [block])
print("anthropic:", result["content"])
# --8<-- [end:anthropic]
