"""``pedelec serve`` at its edge (issue 11, item 7): duplicate keys, bad options, hostile handlers.

Servers run as subprocesses on 127.0.0.1 or stdio, each bounded by timeouts and stopped by the
test; most of each one's time is the MCP SDK's import.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult
from test_mcp_server import SERVE, serving

from pedelec._mcp.wire import duplicate_of, mark_duplicates

ROOT = Path(__file__).resolve().parent.parent

TARGET_SOURCE = """
import asyncio
import concurrent.futures
import time

from pedelec.session import Session

session = Session()
ANY = {"type": "object"}
N = {"type": "object", "properties": {"n": {"type": "integer"}}}


class Odd(BaseException):
    pass


@session.on_tool("echo", description="Echo the args.", schema=ANY)
def echo(args):
    return args


@session.on_tool("power", description="Ten to the n.", schema=N)
def power(args):
    return 10 ** args["n"]


@session.on_tool("cancelled", description="Raises CancelledError.", schema=ANY)
def cancelled(args):
    raise concurrent.futures.CancelledError()


@session.on_tool("acancelled", description="Raises asyncio's CancelledError.", schema=ANY)
async def acancelled(args):
    raise asyncio.CancelledError()


@session.on_tool("odd", description="Raises a BaseException.", schema=ANY)
def odd(args):
    raise Odd("odd")


@session.on_tool("aodd", description="Raises a BaseException.", schema=ANY)
async def aodd(args):
    raise Odd("odd")


@session.on_tool("genexit", description="Raises GeneratorExit.", schema=ANY)
async def genexit(args):
    raise GeneratorExit()


@session.on_tool("group", description="Raises a BaseExceptionGroup.", schema=ANY)
async def group(args):
    raise BaseExceptionGroup("many", [Odd("a")])


@session.on_tool("surrogate", description="Returns a lone surrogate.", schema=ANY)
def surrogate(args):
    return {"s": "\\ud800"}


@session.on_tool("block", description="Blocks its thread for 5 s.", schema=ANY)
def block(args):
    time.sleep(5)
    return "late"
"""


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    # Loading a target in-process puts its folder on sys.path; keep that from leaking.
    monkeypatch.setattr(sys, "path", list(sys.path))


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("serve-edge") / "edge_target.py"
    path.write_text(TARGET_SOURCE, encoding="utf-8")
    return f"{path}:session"


@pytest.fixture(scope="module")
def http_url(target: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("serve-edge-http") / "stderr.txt"
    with serving([target, "--log-level", "off"], log) as url:
        yield url
    assert "Traceback" not in log.read_text(encoding="utf-8")


# --- duplicate keys, found in the raw text ---------------------------------------------------


HELLO = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}


def call(arguments: str, meta: str = "") -> str:
    params = f'{{"name":"pay","arguments":{arguments}{meta}}}'
    return f'{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{params}}}'


def test_messages_without_duplicates_pass_unchanged() -> None:
    for text in (
        '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        call('{"amount":1}'),
        '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":1,"a":2}}',
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","name":"y"}}',
        "not json tools/call",
    ):
        assert mark_duplicates(text) is text
        raw = text.encode()
        assert mark_duplicates(raw) is raw


@pytest.mark.parametrize(
    ("arguments", "where"),
    [
        ('{"amount":1,"amount":1000000}', ("", "amount")),
        ('{"to":{"iban":"A","iban":"B"}}', ("/to", "iban")),
        ('{"items":[{"x":1},{"y":1,"y":2}],"z":{"q":1,"q":2}}', ("/items/1", "y")),
    ],
)
def test_a_duplicate_key_in_the_arguments_is_marked(arguments: str, where: tuple[str, str]) -> None:
    from mcp import types

    marked = mark_duplicates(call(arguments, ',"_meta":{"progressToken":3}'))
    assert isinstance(marked, str)
    params = types.CallToolRequestParams.model_validate(json.loads(marked)["params"])
    assert duplicate_of(params.meta) == where
    assert params.meta is not None and params.meta.get("progress_token") == 3
    assert duplicate_of({"pedelec/duplicate-key-0": ["", "amount"]}) is None


def raw_stdio_call(target: str, line: str) -> dict[str, Any]:
    """Initialize over stdio by hand, send ``line`` as it is, return the response to id 7."""
    import select

    text = f'{json.dumps(HELLO)}\n{{"jsonrpc":"2.0","method":"notifications/initialized"}}\n'
    proc = subprocess.Popen(
        [*SERVE, target],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(f"{text}{line}\n".encode())
        proc.stdin.flush()
        # Read the pipe's descriptor, not the buffered file: one read may bring several lines,
        # and a line left in the file's buffer would not wake select again.
        fd = proc.stdout.fileno()
        pending = b""
        deadline = time.monotonic() + 60
        while True:
            while b"\n" in pending:
                head, pending = pending.split(b"\n", 1)
                answer = json.loads(head)
                if answer.get("id") == 7:
                    return dict(answer)
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, "no answer within 60 s"
            chunk = os.read(fd, 65536)
            assert chunk, "the server closed its output before answering"
            pending += chunk
    finally:
        try:
            _, err = proc.communicate(timeout=10)  # closes stdin: the server stops
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
        assert b"Traceback" not in err


def duplicate_error(where: str, key: str) -> dict[str, Any]:
    place = where or "the root"
    return {
        "code": "TOOL_ARGS_INVALID",
        "message": f'Invalid arguments for tool "echo": args are not valid JSON: duplicate key '
        f'"{key}" in the object at {place}; send each key once. Correct the arguments and call '
        "the tool again.",
        "details": {"tool": "echo", "pointer": where},
    }


def test_duplicate_keys_over_stdio(target: str) -> None:
    line = call('{"amount":1,"amount":1000000}').replace('"pay"', '"echo"')
    answer = raw_stdio_call(target, line)
    result = answer["result"]
    assert result["isError"] is True
    assert json.loads(result["content"][0]["text"]) == {"error": duplicate_error("", "amount")}


def post(url: str, body: str, headers: dict[str, str]) -> tuple[dict[str, str], str]:
    """POST ``body`` as it is; the response headers (lower-case) and text."""
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=20)
    try:
        conn.request("POST", parts.path, body=body.encode("utf-8"), headers=headers)
        response = conn.getresponse()
        text = response.read().decode("utf-8")
        return {k.lower(): v for k, v in response.getheaders()}, text
    finally:
        conn.close()


def answer_of(headers: dict[str, str], text: str) -> dict[str, Any]:
    """The JSON-RPC answer in a JSON or an SSE response."""
    if headers["content-type"].startswith("application/json"):
        return dict(json.loads(text))
    data = [ln[5:].strip() for ln in text.splitlines() if ln.startswith("data:")]
    return dict(json.loads(data[-1]))


def test_duplicate_keys_over_streamable_http(http_url: str) -> None:
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    got, _ = post(http_url, json.dumps(HELLO), headers)
    headers["mcp-session-id"] = got["mcp-session-id"]
    headers["mcp-protocol-version"] = "2025-06-18"
    post(http_url, '{"jsonrpc":"2.0","method":"notifications/initialized"}', headers)
    body = call('{"to":{"iban":"A","iban":"B"}}').replace('"pay"', '"echo"')
    result = answer_of(*post(http_url, body, headers))["result"]
    assert result["isError"] is True
    assert json.loads(result["content"][0]["text"]) == {"error": duplicate_error("/to", "iban")}
    # the same arguments without the repeat are run
    body = call('{"to":{"iban":"B"}}').replace('"pay"', '"echo"')
    result = answer_of(*post(http_url, body, headers))["result"]
    assert result["structuredContent"] == {"to": {"iban": "B"}}


# --- bad options: one line, exit 2 ---------------------------------------------------------------


def busy_port() -> tuple[socket.socket, str]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock, str(sock.getsockname()[1])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--port", "99999"], "--port must be a number from 0 to 65535, got '99999'"),
        (["--port", "-1"], "--port must be a number from 0 to 65535, got '-1'"),
        (["--port", "eighty"], "--port must be a number from 0 to 65535, got 'eighty'"),
        (
            ["--host", "no-such-host.invalid", "--port", "0"],
            "cannot listen on no-such-host.invalid:0: ",
        ),
        (["--port", "BUSY"], "cannot listen on 127.0.0.1:BUSY: Address already in use"),
    ],
)
def test_bad_options_are_one_line(
    target: str, options: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from pedelec.cli import main

    sock, port = busy_port()
    with sock:
        options = [port if o == "BUSY" else o for o in options]
        code = main(["serve", target, "--transport", "http", *options])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith(f"pedelec: error: {message.replace('BUSY', port)}")
    assert err.count("\n") == 1 and err.endswith("\n")


def test_a_busy_port_is_one_line_from_a_real_process(target: str) -> None:
    sock, port = busy_port()
    with sock:
        done = subprocess.run(
            [*SERVE, target, "--transport", "http", "--port", port],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
        )
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        f"pedelec: error: cannot listen on 127.0.0.1:{port}: Address already in use\n",
    )


# --- no handler ends the server or a client's session -------------------------------------------


def error_code(result: CallToolResult) -> tuple[bool | None, str]:
    (block,) = result.content
    assert block.type == "text"
    return result.is_error, json.loads(block.text)["error"]["code"]


HOSTILE = [
    ("cancelled", {}, "TOOL_HANDLER_ERROR"),
    ("acancelled", {}, "TOOL_HANDLER_ERROR"),
    ("odd", {}, "TOOL_HANDLER_ERROR"),
    ("aodd", {}, "TOOL_HANDLER_ERROR"),
    ("genexit", {}, "TOOL_HANDLER_ERROR"),
    ("group", {}, "TOOL_HANDLER_ERROR"),
    ("power", {"n": 5000}, "SUBMIT_TOOL_RESULT_FAILED"),
    ("surrogate", {}, "SUBMIT_TOOL_RESULT_FAILED"),
]


async def survive(client: Client) -> None:
    for tool, args, code in HOSTILE:
        assert error_code(await client.call_tool(tool, args)) == (True, code), tool
    echoed = await client.call_tool("echo", {"still": "here"})
    assert (echoed.is_error, echoed.structured_content) == (False, {"still": "here"})


def test_no_handler_ends_a_stdio_server(target: str) -> None:
    serve = StdioServerParameters(
        command=sys.executable, args=["-m", "pedelec", "serve", target], cwd=str(ROOT)
    )

    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(serve, mode="legacy") as client:
                await survive(client)

    anyio.run(main)


def test_no_handler_ends_an_http_session(http_url: str) -> None:
    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(http_url) as client:
                await survive(client)

    anyio.run(main)


def test_a_blocked_call_does_not_stop_another_client(http_url: str) -> None:
    """One client's handler holds its thread for 5 s; another client's calls answer at once."""
    times: dict[str, float] = {}

    async def hostile(started: anyio.Event) -> None:
        async with Client(http_url) as client:
            started.set()
            result = await client.call_tool("block", {})
            times["block"] = time.monotonic()
            assert result.is_error is False

    async def other() -> None:
        async with Client(http_url) as client:
            for _ in range(3):
                result = await client.call_tool("echo", {"n": 1})
                assert result.structured_content == {"n": 1}
            assert error_code(await client.call_tool("power", {"n": 5000}))[1] == (
                "SUBMIT_TOOL_RESULT_FAILED"
            )
            times["other"] = time.monotonic()

    async def main() -> None:
        with anyio.fail_after(60):
            started = anyio.Event()
            async with anyio.create_task_group() as group:
                group.start_soon(hostile, started)
                await started.wait()
                await anyio.sleep(0.3)  # the blocking call is in flight
                begin = time.monotonic()
                group.start_soon(other)
        assert times["other"] - begin < 3
        assert times["block"] > times["other"]

    anyio.run(main)
