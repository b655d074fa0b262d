"""Serve the counter session's tools over MCP from your own code.

The quickest way needs no code: ``pedelec serve`` builds the same server as this file.

    pip install -e '.[mcp]'   # from the checkout; pedelec is not on PyPI yet
    pedelec serve examples/counter.py:session                                # stdio
    pedelec serve examples/counter.py:session --transport http --port 8000   # http://127.0.0.1:8000/mcp

This file shows the two calls to make when the tools live inside an MCP server of your own,
built with the official MCP SDK's low-level server. Run it over stdio with:

    python examples/mcp_server.py

Claude Desktop: add the server to claude_desktop_config.json (use absolute paths; the
command is the pedelec script of the environment pedelec[mcp] is installed in):

    {
      "mcpServers": {
        "counter": {
          "command": "/path/to/project/.venv/bin/pedelec",
          "args": ["serve", "/path/to/project/examples/counter.py:session"]
        }
      }
    }

Claude Code:

    claude mcp add counter -- /path/to/project/.venv/bin/pedelec serve /path/to/project/examples/counter.py:session
"""

# --8<-- [start:server]
import anyio
from counter import session
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from pedelec.adapters import mcp as pedelec_mcp

# Some MCP clients send array and object arguments as JSON text; accept them when they parse.
session.lenient_json_args = True


async def list_tools(ctx, params):
    tools = [types.Tool.model_validate(tool) for tool in pedelec_mcp.tools(session)]
    return types.ListToolsResult(tools=tools)


async def call_tool(ctx, params):
    # Never raises for agent input: errors come back with isError set, so the model can retry.
    # The handler's ctx.tool_request_id is the JSON-RPC id of this tools/call request.
    result = await pedelec_mcp.dispatch_tool_call(
        session, params.name, params.arguments, tool_request_id=str(ctx.request_id)
    )
    return types.CallToolResult.model_validate(result)


server = Server(
    "counter",
    instructions=session.guidance,
    on_list_tools=list_tools,
    on_call_tool=call_tool,
)


async def main():
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
# --8<-- [end:server]
