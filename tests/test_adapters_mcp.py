"""The MCP adapter (in process), and that no adapter imports a vendor package."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from mcp import types

from pedelec.adapters import mcp as adapter
from pedelec.session import Session

TEXT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


def make_session() -> Session:
    session = Session(guidance="Edit the document.")

    @session.on_tool("editor.replace_selection", description="Replace the selection.", schema=TEXT)
    def replace(args: dict[str, Any]) -> dict[str, Any]:
        return {"replaced": args["text"]}

    @session.on_tool("echo", description="Echo the text.", schema=TEXT)
    def echo(args: dict[str, Any]) -> str:
        return str(args["text"])

    return session


def test_tools_keep_names_and_validate_as_sdk_tools() -> None:
    listed = adapter.tools(make_session())
    assert listed == [
        {
            "name": "editor.replace_selection",
            "description": "Replace the selection.",
            "inputSchema": TEXT,
        },
        {"name": "echo", "description": "Echo the text.", "inputSchema": TEXT},
    ]
    tool = types.Tool.model_validate(listed[0])
    assert tool.name == "editor.replace_selection"
    assert tool.input_schema == TEXT


def test_exported_schemas_are_fresh_copies() -> None:
    session = make_session()
    adapter.tools(session)[0]["inputSchema"]["required"].clear()
    assert session.tool_spec("editor.replace_selection")["argsSchema"] == TEXT


@pytest.mark.asyncio
async def test_an_object_result_is_also_structured_content() -> None:
    result = await adapter.dispatch_tool_call(
        make_session(), "editor.replace_selection", {"text": "x"}
    )
    assert result == {
        "content": [{"type": "text", "text": '{"replaced":"x"}'}],
        "structuredContent": {"replaced": "x"},
        "isError": False,
    }
    assert types.CallToolResult.model_validate(result).structured_content == {"replaced": "x"}


@pytest.mark.asyncio
async def test_a_non_object_result_is_text_only() -> None:
    assert await adapter.dispatch_tool_call(make_session(), "echo", {"text": "hi"}) == {
        "content": [{"type": "text", "text": '"hi"'}],
        "isError": False,
    }


@pytest.mark.parametrize(
    ("name", "arguments", "text"),
    [
        (
            "echo",
            {"text": 1},
            '{"error":{"code":"TOOL_ARGS_INVALID","message":"Invalid arguments for tool '
            '\\"echo\\": /text: expected string, got integer 1 (type). Correct the arguments '
            'and call the tool again.","details":{"tool":"echo","errors":[{"path":"/text",'
            '"keyword":"type","message":"expected string, got integer 1"}]}}}',
        ),
        (
            "echo",
            None,
            '{"error":{"code":"TOOL_ARGS_INVALID","message":"Invalid arguments for tool '
            '\\"echo\\": (root): missing required property \\"text\\" (required). Correct the '
            'arguments and call the tool again.","details":{"tool":"echo","errors":[{"path":"",'
            '"keyword":"required","message":"missing required property \\"text\\""}]}}}',
        ),
        (
            "nope",
            {},
            '{"error":{"code":"TOOL_NOT_FOUND","message":"Unknown tool \\"nope\\". Available '
            'tools: \\"editor.replace_selection\\", \\"echo\\".","details":{"tool":"nope"}}}',
        ),
    ],
)
@pytest.mark.asyncio
async def test_every_error_sets_is_error(name: str, arguments: Any, text: str) -> None:
    assert await adapter.dispatch_tool_call(make_session(), name, arguments) == {
        "content": [{"type": "text", "text": text}],
        "isError": True,
    }


def test_dispatch_sync() -> None:
    assert adapter.dispatch_tool_call_sync(make_session(), "echo", {"text": "a"}) == {
        "content": [{"type": "text", "text": '"a"'}],
        "isError": False,
    }


def test_no_vendor_package_is_imported() -> None:
    script = (
        "import sys\n"
        "import pedelec.adapters.openai, pedelec.adapters.anthropic, pedelec.adapters.mcp\n"
        "import pedelec.cli, pedelec._mcp.server, pedelec.cli._http, pedelec.serve\n"
        "vendors = ('openai', 'anthropic', 'mcp', 'mcp_types', 'pydantic', 'starlette', 'uvicorn')\n"
        "print(','.join(m for m in vendors if m in sys.modules))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert completed.stdout == "\n"
    assert completed.stderr == ""


# --- nothing a handler does raises out of the adapter (issue 11) --------------------------------


class Odd(BaseException):
    pass


@pytest.mark.parametrize(
    ("value", "where", "reason"),
    [
        (
            10**5000,
            "",
            "(root): an integer with more than 4300 digits, more than Python writes as text "
            "(sys.get_int_max_str_digits())",
        ),
        (
            {"s": "\ud800"},
            "/s",
            "/s: the string holds a lone surrogate (U+D800), which UTF-8 cannot encode",
        ),
    ],
    ids=["huge-int", "lone-surrogate"],
)
def test_a_result_the_wire_cannot_carry_is_submit_failed(
    value: Any, where: str, reason: str
) -> None:
    """A ToolResult built by hand (dispatch checks its own) still never reaches the SDK unsendable."""
    from pedelec.session import ToolResult

    assert adapter.call_tool_result(ToolResult("t", 1, value)) == {
        "content": [
            {
                "type": "text",
                "text": '{"error":{"code":"SUBMIT_TOOL_RESULT_FAILED","message":"Tool \\"t\\" '
                f'returned a result that cannot be sent as JSON text: {reason}.","details":'
                f'{{"tool":"t","pointer":"{where}"}}}}}}',
            }
        ],
        "isError": True,
    }


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "exc", [Odd("odd"), GeneratorExit(), BaseExceptionGroup("many", [Odd("a")])], ids=repr
)
async def test_a_handler_base_exception_is_a_result(exc: BaseException) -> None:
    session = Session()

    @session.on_tool("bad", description="Raises.", schema={"type": "object"})
    async def bad(args: dict[str, Any]) -> None:
        raise exc

    result = await adapter.dispatch_tool_call(session, "bad", {})
    assert result["isError"] is True
    assert '"code":"TOOL_HANDLER_ERROR"' in result["content"][0]["text"]
    assert f'"exception":"{type(exc).__name__}"' in result["content"][0]["text"]


@pytest.mark.asyncio
async def test_the_callers_own_cancellation_goes_on() -> None:
    import asyncio

    session = Session()
    started = asyncio.Event()

    @session.on_tool("wait", description="Waits.", schema={"type": "object"})
    async def wait(args: dict[str, Any]) -> None:
        started.set()
        await asyncio.sleep(30)

    task = asyncio.ensure_future(adapter.dispatch_tool_call(session, "wait", {}))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
