"""``pedelec serve`` as a subprocess, driven by the official ``mcp`` client over stdio and HTTP.

One server process per transport runs every check, so the whole module takes a few seconds
(most of it is the MCP SDK's import time in each process).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult

ROOT = Path(__file__).resolve().parent.parent

TARGET_SOURCE = """
import asyncio

from pedelec.session import Session

session = Session(guidance="Tools for the MCP server tests.")
TEXT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


@session.on_tool("text.echo", description="Echo the text as an object.", schema=TEXT)
def echo(args):
    return {"text": args["text"]}


@session.on_tool("shout", description="Upper-case the text.", schema=TEXT)
def shout(args):
    return args["text"].upper()


@session.on_tool("explode", description="Always fails.", schema={"type": "object"})
def explode(args):
    raise ValueError("boom")


@session.on_tool("slow", description="Sleeps past its timeout.", schema={"type": "object"},
                 timeout_ms=50)
async def slow(args):
    await asyncio.sleep(30)


@session.on_tool(
    "sum",
    description="Add numbers.",
    schema={"type": "object", "properties": {"numbers": {"type": "array",
            "items": {"type": "number"}, "maxItems": 10}}, "required": ["numbers"]},
)
def add(args):
    return sum(args["numbers"])


arrived = 0
all_here = asyncio.Event()


@session.on_tool("gather", description="Wait until three calls are running.", schema=TEXT,
                 timeout_ms=10_000)
async def gather(args):
    # Finishes only if three calls run at the same time; one at a time they would time out.
    global arrived
    arrived += 1
    if arrived == 3:
        all_here.set()
    await all_here.wait()
    return args["text"]
"""

TEXT_SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("mcp") / "tools_target.py"
    path.write_text(TARGET_SOURCE, encoding="utf-8")
    return f"{path}:session"


SERVE = [sys.executable, "-m", "pedelec", "serve"]


@contextlib.contextmanager
def serving(argv: list[str], log: Path) -> Iterator[str]:
    """Run ``pedelec serve ... --transport http --port 0`` and yield the URL it announces;
    stop it on the way out. Its stderr goes to ``log``."""
    with log.open("w", encoding="utf-8") as err:
        proc = subprocess.Popen(
            [*SERVE, *argv, "--transport", "http", "--port", "0"],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    try:
        deadline = time.monotonic() + 30
        first = ""
        while not first.endswith("\n"):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"server did not start: {log.read_text(encoding='utf-8')}")
            time.sleep(0.05)
            first = log.read_text(encoding="utf-8")
        assert first.startswith("pedelec: serving "), first
        yield first.splitlines()[0].split(" over MCP at ", 1)[1]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def http_url(target: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("mcp-http") / "stderr.txt"
    with serving([target], log) as url:
        assert log.read_text(encoding="utf-8").startswith(
            f"pedelec: serving 6 tools over MCP at {url}\n"
        )
        yield url


def text_of(result: CallToolResult) -> str:
    (block,) = result.content
    assert block.type == "text"
    return block.text


def error_of(result: CallToolResult) -> dict[str, Any]:
    assert result.is_error is True
    assert result.structured_content is None
    error: dict[str, Any] = json.loads(text_of(result))["error"]
    return error


async def exercise(client: Client) -> None:
    """Every check the issue asks for, against one connected client."""
    assert client.instructions == "Tools for the MCP server tests."

    listed = await client.list_tools()
    assert [(t.name, t.description) for t in listed.tools] == [
        ("text.echo", "Echo the text as an object."),
        ("shout", "Upper-case the text."),
        ("explode", "Always fails."),
        ("slow", "Sleeps past its timeout."),
        ("sum", "Add numbers."),
        ("gather", "Wait until three calls are running."),
    ]
    assert listed.tools[0].input_schema == TEXT_SCHEMA

    echoed = await client.call_tool("text.echo", {"text": "hi"})
    assert echoed.is_error is False
    assert text_of(echoed) == '{"text":"hi"}'
    assert echoed.structured_content == {"text": "hi"}

    shouted = await client.call_tool("shout", {"text": "hi"})
    assert (shouted.is_error, text_of(shouted), shouted.structured_content) == (False, '"HI"', None)

    assert error_of(await client.call_tool("shout", {"text": 5})) == {
        "code": "TOOL_ARGS_INVALID",
        "message": 'Invalid arguments for tool "shout": /text: expected string, got integer 5 '
        "(type). Correct the arguments and call the tool again.",
        "details": {
            "tool": "shout",
            "errors": [
                {"path": "/text", "keyword": "type", "message": "expected string, got integer 5"}
            ],
        },
    }
    # An unknown tool is a protocol error (the specification's Error Handling), not a result.
    with pytest.raises(MCPError) as unknown:
        await client.call_tool("shuot", {})
    assert (unknown.value.code, unknown.value.message, unknown.value.data) == (
        -32602,
        'Unknown tool "shuot". Did you mean "shout"?',
        {
            "code": "TOOL_NOT_FOUND",
            "tool": "shuot",
            "tools": ["text.echo", "shout", "explode", "slow", "sum", "gather"],
        },
    )
    assert error_of(await client.call_tool("explode", {})) == {
        "code": "TOOL_HANDLER_ERROR",
        "message": 'Tool "explode" failed: ValueError: boom',
        "details": {"tool": "explode", "exception": "ValueError"},
    }
    assert error_of(await client.call_tool("slow", {})) == {
        "code": "TOOL_TIMEOUT",
        "message": 'Tool "slow" did not finish within 50 ms.',
        "details": {"tool": "slow", "timeoutMs": 50},
    }

    results: dict[str, CallToolResult] = {}

    async def call(text: str) -> None:
        results[text] = await client.call_tool("gather", {"text": text})

    async with anyio.create_task_group() as group:
        for text in ("a", "b", "c"):
            group.start_soon(call, text)
    assert {k: (r.is_error, text_of(r)) for k, r in results.items()} == {
        "a": (False, '"a"'),
        "b": (False, '"b"'),
        "c": (False, '"c"'),
    }


def test_stdio(target: str) -> None:
    serve = StdioServerParameters(
        command=sys.executable, args=["-m", "pedelec", "serve", target], cwd=str(ROOT)
    )
    # examples/mcp_server.py builds its own server from the adapter; it runs alongside, since
    # most of each process's time is spent importing.
    example = StdioServerParameters(
        command=sys.executable,
        args=[str(ROOT / "examples" / "mcp_server.py")],
        cwd=str(ROOT),
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        },
    )

    async def check_serve() -> None:
        # "legacy" is the initialize handshake most desktop clients speak today.
        async with Client(serve, mode="legacy") as client:
            await exercise(client)

    async def check_example() -> None:
        async with Client(example, mode="legacy") as client:
            (tool,) = (await client.list_tools()).tools
            assert tool.name == "update_counter"
            result = await client.call_tool("update_counter", {"delta": 2})
            assert (result.is_error, result.structured_content) == (False, {"value": 2})

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(check_serve)
            group.start_soon(check_example)

    anyio.run(main)


def test_streamable_http(http_url: str) -> None:
    assert http_url.startswith("http://127.0.0.1:")
    assert http_url.endswith("/mcp")

    async def main() -> None:
        async with Client(http_url) as client:
            await exercise(client)

    anyio.run(main)


def test_serve_accepts_arrays_sent_as_json_text(http_url: str) -> None:
    # Some clients send array and object arguments as JSON text; pedelec serve accepts them
    # when they parse to the type the schema wants, and only then.
    async def main() -> None:
        async with Client(http_url, mode="legacy") as client:
            summed = await client.call_tool("sum", {"numbers": "[1, 2, 3.5]"})
            assert (summed.is_error, text_of(summed)) == (False, "6.5")
            assert error_of(await client.call_tool("sum", {"numbers": '{"a": 1}'})) == {
                "code": "TOOL_ARGS_INVALID",
                "message": 'Invalid arguments for tool "sum": /numbers: expected array, got '
                'string "{\\"a\\": 1}" (type). Correct the arguments and call the tool again.',
                "details": {
                    "tool": "sum",
                    "errors": [
                        {
                            "path": "/numbers",
                            "keyword": "type",
                            "message": 'expected array, got string "{\\"a\\": 1}"',
                        }
                    ],
                },
            }

    anyio.run(main)


def test_serve_without_the_mcp_extra_says_how_to_install_it(target: str) -> None:
    script = (
        "import sys\n"
        "sys.modules['mcp'] = None  # as if the extra were not installed\n"
        "from pedelec.cli import main\n"
        f"sys.exit(main(['serve', {target!r}]))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT
    )
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert completed.stderr == (
        "pedelec: error: pedelec serve needs the MCP SDK; install it with: "
        "pip install 'mcp>=2.0,<3' (or, in a pedelec checkout, pip install -e '.[mcp]')\n"
    )
