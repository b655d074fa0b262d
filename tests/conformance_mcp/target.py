"""The tools the MCP conformance suite's server scenarios call, as a pedelec session.

``run.sh`` serves ``session`` with ``pedelec serve --transport http``. Each tool does what its
scenario describes, within what pedelec offers: a result is JSON text, so the scenarios that
want image, audio or resource content, sampling or elicitation are listed in
``expected-failures.yml`` instead.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pedelec import Session, ToolCallContext

session = Session()
NO_ARGS: dict[str, Any] = {"type": "object", "properties": {}}


@session.on_tool("test_simple_text", description="Return a simple text.", schema=NO_ARGS)
def simple_text(args: dict[str, Any]) -> str:
    return "This is a simple text response for testing."


@session.on_tool("test_error_handling", description="Always fail.", schema=NO_ARGS)
def error_handling(args: dict[str, Any]) -> None:
    raise RuntimeError("This tool intentionally returns an error for testing")


@session.on_tool(
    "test_tool_with_logging", description="Log three messages at info level.", schema=NO_ARGS
)
async def with_logging(args: dict[str, Any], ctx: ToolCallContext) -> str:
    ctx.log("info", "Tool execution started")
    await asyncio.sleep(0.05)
    ctx.log("info", "Tool processing data")
    await asyncio.sleep(0.05)
    ctx.log("info", "Tool execution completed")
    return "Tool with logging executed successfully"


@session.on_tool(
    "test_tool_with_progress", description="Report progress 0, 50 and 100 of 100.", schema=NO_ARGS
)
def with_progress(args: dict[str, Any], ctx: ToolCallContext) -> str:
    for done in (0, 50, 100):
        if done:
            ctx.cancel_event.wait(0.05)
        ctx.report_progress(done, 100)
    return "Tool with progress executed successfully"
