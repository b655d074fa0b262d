"""Middleware under ``pedelec serve``: the official ``mcp`` client calls through it over stdio."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent


def test_the_audited_example_refuses_and_answers_over_stdio() -> None:
    serve = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pedelec", "serve", "examples/audited_server.py:session"],
        cwd=str(ROOT),
    )

    async def main() -> None:
        async with Client(serve, mode="legacy") as client:
            allowed = await client.call_tool("drop_table", {"table": "logs"})
            refused = await client.call_tool("drop_table", {"table": "users"})
            invalid = await client.call_tool("drop_table", {"table": 7})
        assert (allowed.is_error, allowed.structured_content) == (False, {"dropped": "logs"})
        assert refused.is_error is True
        (block,) = refused.content
        assert block.type == "text"
        assert json.loads(block.text) == {
            "error": {"code": "FORBIDDEN", "message": "Table users is protected."}
        }
        assert invalid.is_error is True  # refused at validation, before any middleware
        (block,) = invalid.content
        assert block.type == "text"
        assert json.loads(block.text)["error"]["code"] == "TOOL_ARGS_INVALID"

    anyio.run(main)
