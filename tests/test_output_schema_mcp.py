"""Output schemas over MCP: ``outputSchema`` in ``tools/list`` (a non-object output wrapped as
``{"result": ...}``) and ``structuredContent`` on every successful result, checked by the
official ``mcp`` client against ``pedelec serve`` over stdio and streamable HTTP."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters, types
from test_mcp_server import serving

from pedelec.adapters import mcp as adapter
from pedelec.session import Session

ROOT = Path(__file__).resolve().parent.parent

TARGET = """
from pedelec import Session

session = Session()
COUNT = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}


@session.on_tool("count", description="Count.", schema={"type": "object"}, output_schema=COUNT)
def count(args):
    return {"count": args.get("n", 1)}


@session.tool
def double(n: int) -> int:
    '''Double n; a negative n returns text, which breaks the output schema.'''
    return n * 2 if n >= 0 else "negative"


@session.tool
def names(prefix: str) -> list[str]:
    '''Names with a prefix.'''
    return [prefix + "a", prefix + "b"]


@session.tool
def free(n: int):
    '''No output schema.'''
    return n
"""

WRAPPED_INT = {
    "type": "object",
    "properties": {"result": {"type": "integer"}},
    "required": ["result"],
}
WRAPPED_NAMES = {
    "type": "object",
    "properties": {"result": {"type": "array", "items": {"type": "string"}}},
    "required": ["result"],
}
COUNT = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}
BROKEN = (
    'Tool "double" returned a result that does not match its output schema: (root): expected '
    'integer, got string "negative" (type). This is a bug in the tool, not in the arguments; '
    "calling it again unchanged will not help."
)


def make_session() -> Session:
    namespace: dict[str, Any] = {}
    exec(TARGET, namespace)  # the same tools in process and in the served file
    session: Session = namespace["session"]
    return session


def test_tools_list_output_schemas_wrapping_non_object_ones() -> None:
    listed = adapter.tools(make_session())
    assert [tool.get("outputSchema") for tool in listed] == [
        COUNT,
        WRAPPED_INT,
        WRAPPED_NAMES,
        None,
    ]
    for tool in listed:
        assert types.Tool.model_validate(tool).output_schema == tool.get("outputSchema")


@pytest.mark.parametrize(
    ("name", "arguments", "structured", "text"),
    [
        ("count", {"n": 4}, {"count": 4}, '{"count":4}'),
        ("double", {"n": 3}, {"result": 6}, "6"),
        ("names", {"prefix": "x"}, {"result": ["xa", "xb"]}, '["xa","xb"]'),
    ],
)
def test_every_result_of_a_tool_with_an_output_schema_is_structured(
    name: str, arguments: dict[str, Any], structured: Any, text: str
) -> None:
    result = adapter.dispatch_tool_call_sync(make_session(), name, arguments)
    assert result == {
        "content": [{"type": "text", "text": text}],
        "structuredContent": structured,
        "isError": False,
    }


def test_a_result_breaking_its_output_schema_is_an_error_without_structured_content() -> None:
    session = make_session()
    reported: list[Any] = []
    session.on_error(reported.append)
    result = adapter.dispatch_tool_call_sync(session, "double", {"n": -1})
    assert result["isError"] is True and "structuredContent" not in result
    error = json.loads(result["content"][0]["text"])["error"]
    assert (error["code"], error["message"]) == ("SUBMIT_TOOL_RESULT_FAILED", BROKEN)
    assert len(reported) == 1


def test_without_the_session_a_result_is_formatted_as_before() -> None:
    result = make_session().dispatch_sync("double", {"n": 2})
    assert adapter.call_tool_result(result) == {
        "content": [{"type": "text", "text": "4"}],
        "isError": False,
    }


async def exercise(client: Client) -> None:
    """What the official client sees; it validates each structuredContent against the listed
    outputSchema itself, and raises when one is missing or does not match."""
    listed = {tool.name: tool.output_schema for tool in (await client.list_tools()).tools}
    assert listed == {"count": COUNT, "double": WRAPPED_INT, "names": WRAPPED_NAMES, "free": None}
    seen = []
    for name, arguments in [("count", {"n": 2}), ("double", {"n": 5}), ("names", {"prefix": "p"})]:
        result = await client.call_tool(name, arguments)
        (block,) = result.content
        assert block.type == "text"
        seen.append((result.is_error, result.structured_content, json.loads(block.text)))
    assert seen == [
        (False, {"count": 2}, {"count": 2}),
        (False, {"result": 10}, 10),
        (False, {"result": ["pa", "pb"]}, ["pa", "pb"]),
    ]
    broken = await client.call_tool("double", {"n": -2})
    (block,) = broken.content
    assert block.type == "text"
    assert (broken.is_error, broken.structured_content) == (True, None)
    assert json.loads(block.text)["error"]["message"] == BROKEN
    free = await client.call_tool("free", {"n": 1})
    assert (free.is_error, free.structured_content) == (False, None)


def test_serve_over_stdio(tmp_path: Path) -> None:
    target = tmp_path / "outputs.py"
    target.write_text(TARGET, encoding="utf-8")
    serve = StdioServerParameters(
        command=sys.executable, args=["-m", "pedelec", "serve", f"{target}:session"], cwd=str(ROOT)
    )

    async def main() -> None:
        async with Client(serve, mode="legacy") as client:
            await exercise(client)

    anyio.run(main)


def test_serve_over_http(tmp_path: Path) -> None:
    target = tmp_path / "outputs.py"
    target.write_text(TARGET, encoding="utf-8")

    async def main(url: str) -> None:
        async with Client(url) as client:
            await exercise(client)

    with serving([f"{target}:session"], tmp_path / "stderr.txt") as url:
        anyio.run(main, url)
