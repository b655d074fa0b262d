"""Progress, logs, heartbeat, cancellation and protocol errors of ``pedelec serve``.

Driven through the official ``mcp`` client against ``pedelec serve`` subprocesses (stdio, and
streamable HTTP on 127.0.0.1), as a client would see them.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp.types import CallToolResult, LoggingMessageNotificationParams
from test_mcp_server import serving

from pedelec import Session
from pedelec.cli import main

ROOT = Path(__file__).resolve().parent.parent

TARGET_SOURCE = """
import asyncio
import threading
import time

from pedelec.session import Session

session = Session()
ANY = {"type": "object"}
statuses = []
session.on_status(statuses.append)


@session.on_tool("steps", description="Report three steps of progress.", schema=ANY)
def steps(args, ctx):
    for done in (0, 50, 100):
        ctx.report_progress(done, 100, f"step {done}")
    return "done"


@session.on_tool("asteps", description="Report progress from an async handler.", schema=ANY)
async def asteps(args, ctx):
    ctx.report_progress(1, 2)
    await asyncio.sleep(0)
    ctx.report_progress(2, 2, "all")
    return "done"


@session.on_tool("chatty", description="Log once at every level.", schema=ANY)
def chatty(args, ctx):
    for level in ("debug", "info", "notice", "warning", "error", "critical", "alert",
                  "emergency"):
        ctx.log(level, f"at {level}", n=1)
    return "logged"


@session.on_tool("odd", description="Log data that is not JSON, then a message.", schema=ANY)
def odd(args, ctx):
    ctx.log("info", "odd", thing=object())
    ctx.log("info", "after")
    return "logged"


@session.on_tool("long", description="Run for three seconds.", schema=ANY, timeout_ms=20_000)
async def long(args):
    await asyncio.sleep(3)
    return "finished"


@session.on_tool("whoami", description="The call's request id.", schema=ANY)
def whoami(args, ctx):
    return ctx.tool_request_id


started = threading.Event()
waiting = []


@session.on_tool("wait", description="Wait in a thread until cancelled.", schema=ANY,
                 timeout_ms=30_000)
def wait(args, ctx):
    waiting.append(ctx)
    started.set()
    ctx.cancel_event.wait(20)
    return "woken"


@session.on_tool("started", description="Wait until `wait` runs.", schema=ANY)
async def is_started(args):
    return await asyncio.to_thread(started.wait, 10)


@session.on_tool("probe", description="Whether `wait` is cancelled within 100 ms.", schema=ANY)
def probe(args):
    ctx = waiting[-1]
    return {"set": ctx.cancel_event.wait(0.1), "cancelled": ctx.cancelled,
            "statuses": statuses[:-1]}
"""


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("mcp-notify") / "notify_target.py"
    path.write_text(TARGET_SOURCE, encoding="utf-8")
    return f"{path}:session"


@pytest.fixture(scope="module")
def http_url(target: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("mcp-notify-http") / "stderr.txt"
    with serving(
        [target, "--heartbeat", "0.5", "--name", "notify", "--version", "9.1"], log
    ) as url:
        yield url


def stdio(target: str, *options: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "pedelec", "serve", target, *options], cwd=str(ROOT)
    )


def text_of(result: CallToolResult) -> str:
    (block,) = result.content
    assert block.type == "text"
    return block.text


Progress = tuple[float, float | None, str | None]


async def progress_of(client: Client, tool: str) -> tuple[str, list[Progress]]:
    seen: list[Progress] = []

    async def record(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    result = await client.call_tool(tool, {}, progress_callback=record)
    return text_of(result), seen


def test_progress_only_when_the_request_asks_for_it(http_url: str) -> None:
    async def main() -> None:
        async with Client(http_url, mode="legacy") as client:
            assert await progress_of(client, "steps") == (
                '"done"',
                [(0, 100, "step 0"), (50, 100, "step 50"), (100, 100, "step 100")],
            )
            assert await progress_of(client, "asteps") == (
                '"done"',
                [(1, 2, None), (2, 2, "all")],
            )
            # No progress callback: no progressToken, so nothing is sent (the message
            # handler would see any notification).
            received: list[Any] = []

            async def on_message(message: Any) -> None:
                received.append(message)

            client.session._message_handler = on_message  # type: ignore[attr-defined]
            assert text_of(await client.call_tool("steps", {})) == '"done"'
            assert received == []

    anyio.run(main)


def test_a_heartbeat_keeps_a_long_call_alive(http_url: str) -> None:
    async def main() -> None:
        async with Client(http_url, mode="legacy") as client:
            result, seen = await progress_of(client, "long")
            assert result == '"finished"'
            # 0.5 s beats during a 3 s call: at 0.5, 1.0, ..., 2.5 s (3.0 s races the end).
            assert len(seen) >= 5, seen
            assert seen[0] == (0, None, None)
            values = [p for p, _, _ in seen]
            assert values == sorted(set(values))  # each larger than the one before
            assert values[1] == math.nextafter(0, 1)
            assert {(total, message) for _, total, message in seen} == {(None, None)}

    anyio.run(main)


LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]


def logged(level: str) -> LoggingMessageNotificationParams:
    return LoggingMessageNotificationParams(
        level=level,  # type: ignore[arg-type]
        logger="chatty",
        data={"message": f"at {level}", "n": 1},
    )


def test_logs_at_or_above_the_level_set(target: str) -> None:
    async def main() -> None:
        received: list[LoggingMessageNotificationParams] = []

        async def on_log(params: LoggingMessageNotificationParams) -> None:
            received.append(params)

        async with Client(stdio(target), mode="legacy", logging_callback=on_log) as client:
            caps = client.session.initialize_result.capabilities  # type: ignore[attr-defined]
            assert caps.logging is not None
            # Until the client sets a level, every level is sent.
            assert text_of(await client.call_tool("chatty", {})) == '"logged"'
            assert received == [logged(level) for level in LEVELS]
            received.clear()
            with pytest.warns(MCPDeprecationWarning):
                await client.set_logging_level("error")
            assert text_of(await client.call_tool("chatty", {})) == '"logged"'
            assert received == [logged(level) for level in LEVELS[4:]]
            received.clear()
            with pytest.warns(MCPDeprecationWarning):
                await client.set_logging_level("debug")
            await client.call_tool("chatty", {})
            assert received == [logged(level) for level in LEVELS]
            received.clear()
            # Data that is not JSON costs that message only (a warning on the server's log).
            assert text_of(await client.call_tool("odd", {})) == '"logged"'
            assert received == [
                LoggingMessageNotificationParams(
                    level="info", logger="odd", data={"message": "after"}
                )
            ]

    anyio.run(main)


def test_a_modern_client_gets_the_logs_it_opts_in_to(http_url: str) -> None:
    async def main() -> None:
        received: list[LoggingMessageNotificationParams] = []

        async def on_log(params: LoggingMessageNotificationParams) -> None:
            received.append(params)

        async with Client(http_url, logging_callback=on_log, log_level="critical") as client:
            assert text_of(await client.call_tool("chatty", {})) == '"logged"'
            assert received == [logged(level) for level in LEVELS[5:]]

    anyio.run(main)


def test_server_info_and_the_request_id(http_url: str) -> None:
    async def main() -> None:
        async with Client(http_url, mode="legacy") as client:
            info = client.session.initialize_result.server_info  # type: ignore[attr-defined]
            assert (info.name, info.version) == ("notify", "9.1")
            first = text_of(await client.call_tool("whoami", {}))
            second = text_of(await client.call_tool("whoami", {}))
            # The JSON-RPC ids of the two tools/call requests: numbers the client counts up.
            assert first.strip('"').isdigit()
            assert int(second.strip('"')) > int(first.strip('"'))

    anyio.run(main)


def test_an_unknown_tool_is_a_protocol_error(http_url: str) -> None:
    async def main() -> None:
        async with Client(http_url, mode="legacy") as client:
            with pytest.raises(MCPError) as caught:
                await client.call_tool("stpes", {})
            assert (caught.value.code, caught.value.message) == (
                -32602,
                'Unknown tool "stpes". Did you mean "steps"?',
            )
            assert caught.value.data == {
                "code": "TOOL_NOT_FOUND",
                "tool": "stpes",
                "tools": [
                    "steps",
                    "asteps",
                    "chatty",
                    "odd",
                    "long",
                    "whoami",
                    "wait",
                    "started",
                    "probe",
                ],
            }
            # Arguments that do not fit stay a result the model can act on.
            bad = await client.call_tool("steps", {"timeoutMs": "soon"})
            assert bad.is_error is True
            assert '"code":"TOOL_ARGS_INVALID"' in text_of(bad)

    anyio.run(main)


def test_a_cursor_never_issued_is_a_protocol_error(http_url: str) -> None:
    async def main() -> None:
        async with Client(http_url, mode="legacy") as client:
            with pytest.raises(MCPError) as caught:
                await client.list_tools(cursor="page-2")
            assert (caught.value.code, caught.value.message, caught.value.data) == (
                -32602,
                'Unknown cursor "page-2": every tool is on the first page, so no cursor was '
                "issued.",
                {"cursor": "page-2"},
            )

    anyio.run(main)


def test_a_client_cancel_reaches_a_threaded_handler(target: str) -> None:
    async def main() -> None:
        async with Client(stdio(target), mode="legacy") as client:
            with anyio.CancelScope() as scope:

                async def call_and_cancel() -> None:
                    assert text_of(await client.call_tool("started", {})) == "true"
                    scope.cancel()

                async with anyio.create_task_group() as group:
                    group.start_soon(call_and_cancel)
                    await client.call_tool("wait", {})
            # The cancel went out before this request: the event has 100 ms from its arrival.
            probed = await client.call_tool("probe", {})
            assert probed.structured_content == {
                "set": True,
                "cancelled": True,
                "statuses": ["waiting_tool_result", "idle"],
            }

    anyio.run(main)


def test_context_methods_are_no_ops_without_a_transport() -> None:
    session = Session()

    @session.on_tool("both", description="Report and log.", schema={"type": "object"})
    def both(args: dict[str, Any], ctx: Any) -> str:
        ctx.report_progress(1, 2, "half")
        ctx.log("info", "hello", extra=[1])
        return "ok"

    assert session.dispatch_sync("both", {}).value == "ok"


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda ctx: ctx.report_progress(True), "TypeError: progress must be a number, got bool"),
        (lambda ctx: ctx.report_progress("1"), "TypeError: progress must be a number, got str"),
        (
            lambda ctx: ctx.report_progress(1, math.inf),
            "ValueError: total must be a finite number, got inf",
        ),
        (
            lambda ctx: ctx.report_progress(1, None, 5),
            "TypeError: message must be a string, got int",
        ),
        (
            lambda ctx: ctx.log("warn", "x"),
            "ValueError: level must be one of debug, info, notice, warning, error, critical, "
            "alert, emergency, got 'warn'",
        ),
    ],
)
def test_context_methods_check_their_arguments(call: Any, error: str) -> None:
    session = Session()

    @session.on_tool("bad", description="Misuse the context.", schema={"type": "object"})
    def bad(args: dict[str, Any], ctx: Any) -> None:
        call(ctx)

    result = session.dispatch_sync("bad", {})
    assert result.error is not None
    assert result.error.message == f'Tool "bad" failed: {error}'


@pytest.mark.parametrize("value", ["0", "-1", "soon", "nan", "86400"])
def test_a_bad_heartbeat_is_a_usage_error(
    value: str, target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", target, "--heartbeat", value]) == 2
    assert capsys.readouterr().err == (
        "pedelec: error: --heartbeat must be a number of seconds above 0 and below 86400, "
        f"got {value!r}\n"
    )
