"""The Anthropic adapter against the real ``anthropic`` package's types.

Tool uses are genuine SDK objects (``Message``, ``ToolUseBlock``) or plain dicts of the same
shape.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _adapter_sessions import DELTA, TEXT, make_session
from anthropic.types import Message, TextBlock, ToolUseBlock

from pedelec.adapters import anthropic as adapter
from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.session import Session

ROOT = Path(__file__).resolve().parent.parent


def message(content: list[dict[str, Any]]) -> Message:
    stop = "tool_use" if any(block["type"] == "tool_use" for block in content) else "end_turn"
    return Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    )


def tool_use(use_id: str, name: str, args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": use_id, "name": name, "input": args}


# --- export -------------------------------------------------------------------------------------


def test_tools_format_with_dots_mapped() -> None:
    assert adapter.tools(make_session(), strict=False) == [
        {
            "name": "update_counter",
            "description": "Change the counter.",
            "input_schema": DELTA,
            "strict": False,
        },
        {
            "name": "editor__replace_selection",
            "description": "Replace the selection.",
            "input_schema": TEXT,
            "strict": False,
        },
        {
            "name": "explode",
            "description": "Always fails.",
            "input_schema": {"type": "object"},
            "strict": False,
        },
    ]


def test_exported_schemas_are_fresh_copies() -> None:
    session = make_session()
    adapter.tools(session, strict=False)[0]["input_schema"]["properties"]["delta"]["maximum"] = 5
    assert session.tool_spec("update_counter")["argsSchema"] == DELTA


def test_an_over_long_name_is_invalid_input_at_export() -> None:
    session = make_session()
    name = "a" * 40 + "." + "b" * 23  # 64 characters, 65 once sent
    session.on_tool(name, description="Long.", schema={"type": "object"})(lambda a: a)
    with pytest.raises(PedelecError) as info:
        adapter.tools(session)
    assert info.value.code == INVALID_INPUT
    assert info.value.message == (
        f'Tool "{name}" would be sent to Anthropic as a name of 65 characters; '
        "Anthropic allows at most 64."
    )


# --- dispatch -----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_dispatch_tool_use_blocks_skipping_text() -> None:
    reply = message(
        [
            {"type": "text", "text": "Let me do both."},
            tool_use("toolu_1", "editor__replace_selection", {"text": "hi"}),
            tool_use("toolu_2", "update_counter", {"delta": 3}),
        ]
    )
    assert isinstance(reply.content[0], TextBlock)
    assert isinstance(reply.content[1], ToolUseBlock)
    assert await adapter.dispatch_tool_uses(make_session(), reply.content) == [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "content": '{"replaced":"hi","request":"toolu_1","turn":null}',
        },
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": '{"value":3}'},
    ]


@pytest.mark.asyncio
async def test_dispatch_plain_dicts_and_no_blocks() -> None:
    blocks = [tool_use("t", "update_counter", {"delta": -1})]
    assert await adapter.dispatch_tool_uses(make_session(), blocks) == [
        {"type": "tool_result", "tool_use_id": "t", "content": '{"value":-1}'}
    ]
    assert await adapter.dispatch_tool_uses(make_session(), [{"type": "text", "text": "x"}]) == []
    assert await adapter.dispatch_tool_uses(make_session(), None) == []


MALFORMED: list[tuple[str, Any, str, dict[str, Any]]] = [
    (
        "invalid args",
        tool_use("t1", "update_counter", {"delta": "3"}),
        "t1",
        {
            "code": "TOOL_ARGS_INVALID",
            "message": 'Invalid arguments for tool "update_counter": /delta: expected integer, '
            'got string "3" (type). Correct the arguments and call the tool again.',
            "details": {
                "tool": "update_counter",
                "errors": [
                    {
                        "path": "/delta",
                        "keyword": "type",
                        "message": 'expected integer, got string "3"',
                    }
                ],
            },
        },
    ),
    (
        "unknown tool",
        tool_use("t2", "editor_replace_selection", {"text": "x"}),
        "t2",
        {
            "code": "TOOL_NOT_FOUND",
            "message": 'Unknown tool "editor_replace_selection". Did you mean '
            '"editor__replace_selection"?',
            "details": {"tool": "editor_replace_selection"},
        },
    ),
    (
        "no id",
        {"type": "tool_use", "name": "update_counter", "input": {"delta": 1}},
        "",
        {
            "code": "INVALID_INPUT",
            "message": 'A tool_use block of "update_counter" arrived without an id, so its '
            "result could not be matched to it; it was not run.",
            "details": {"tool": "update_counter"},
        },
    ),
    (
        "no name",
        {"type": "tool_use", "id": "t4", "input": {}},
        "t4",
        {
            "code": "TOOL_NOT_FOUND",
            "message": "A tool_use block arrived without a tool name; call one of the "
            "session's tools by name.",
        },
    ),
    (
        "handler raised",
        ToolUseBlock(type="tool_use", id="t5", name="explode", input={}),
        "t5",
        {
            "code": "TOOL_HANDLER_ERROR",
            "message": 'Tool "explode" failed: ValueError: boom',
            "details": {"tool": "explode", "exception": "ValueError"},
        },
    ),
]


@pytest.mark.parametrize(
    ("block", "use_id", "error"),
    [case[1:] for case in MALFORMED],
    ids=[case[0] for case in MALFORMED],
)
@pytest.mark.asyncio
async def test_errors_are_tool_results_with_is_error(
    block: Any, use_id: str, error: dict[str, Any]
) -> None:
    good = tool_use("ok", "update_counter", {"delta": 1})
    results = await adapter.dispatch_tool_uses(make_session(), [good, block, good])
    assert (
        results[0]
        == results[2]
        == {
            "type": "tool_result",
            "tool_use_id": "ok",
            "content": '{"value":1}',
        }
    )
    assert results[1] == {
        "type": "tool_result",
        "tool_use_id": use_id,
        "content": json.dumps({"error": error}, separators=(",", ":"), ensure_ascii=False),
        "is_error": True,
    }


@pytest.mark.asyncio
async def test_a_returned_error_envelope_sets_is_error() -> None:
    session = Session()

    @session.on_tool("deny", description="Refuse.", schema={"type": "object"})
    def deny(args: dict[str, Any]) -> dict[str, Any]:
        return {"error": {"code": "FORBIDDEN", "message": "Not allowed."}}

    assert await adapter.dispatch_tool_uses(session, [tool_use("t", "deny", {})]) == [
        {
            "type": "tool_result",
            "tool_use_id": "t",
            "content": '{"error":{"code":"FORBIDDEN","message":"Not allowed."}}',
            "is_error": True,
        }
    ]


@pytest.mark.asyncio
async def test_calls_run_concurrently() -> None:
    session = Session()
    started = {"a": asyncio.Event(), "b": asyncio.Event()}

    @session.on_tool("meet", description="Meet the other call.", schema=TEXT, timeout_ms=5_000)
    async def meet(args: dict[str, Any]) -> str:
        me, other = args["text"], "b" if args["text"] == "a" else "a"
        started[me].set()
        await started[other].wait()
        return me

    blocks = [tool_use("1", "meet", {"text": "a"}), tool_use("2", "meet", {"text": "b"})]
    assert await adapter.dispatch_tool_uses(session, blocks) == [
        {"type": "tool_result", "tool_use_id": "1", "content": '"a"'},
        {"type": "tool_result", "tool_use_id": "2", "content": '"b"'},
    ]


def test_dispatch_sync() -> None:
    assert adapter.dispatch_tool_uses_sync(
        make_session(), [tool_use("t", "update_counter", {"delta": 7})]
    ) == [{"type": "tool_result", "tool_use_id": "t", "content": '{"value":7}'}]


@pytest.mark.asyncio
async def test_dispatch_sync_refuses_to_block_a_running_loop() -> None:
    with pytest.raises(RuntimeError) as info:
        adapter.dispatch_tool_uses_sync(make_session(), [])
    assert str(info.value) == (
        "dispatch_tool_uses_sync() was called from a running event loop; "
        "use await dispatch_tool_uses(...) there instead."
    )


# --- a whole agent loop against a scripted model -------------------------------------------------


class ScriptedClaude:
    """Plays a model: replies from a script and records every request."""

    def __init__(self, replies: list[list[dict[str, Any]]]) -> None:
        self.replies = replies
        self.requests: list[dict[str, Any]] = []

    async def create(self, **request: Any) -> Message:
        # What the SDK would send: content blocks serialised the way it serialises them.
        def plain(value: Any) -> Any:
            if hasattr(value, "model_dump"):
                return value.model_dump(exclude_none=True)
            raise TypeError(type(value).__name__)

        self.requests.append(json.loads(json.dumps(request, default=plain)))
        return message(self.replies[len(self.requests) - 1])


@pytest.mark.asyncio
async def test_two_turn_agent_loop() -> None:
    session = make_session()
    model = ScriptedClaude(
        [
            [
                {"type": "text", "text": "Replacing."},
                tool_use("toolu_1", "editor__replace_selection", {"text": "new"}),
                tool_use("toolu_2", "nope", {}),
            ],
            [{"type": "text", "text": "Replaced the selection."}],
        ]
    )
    tools = adapter.tools(session)
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Replace the selection."}]
    while True:
        reply = await model.create(
            model="claude-test",
            max_tokens=100,
            system=session.guidance,
            tools=tools,
            messages=messages,
        )
        messages.append({"role": "assistant", "content": reply.content})
        if reply.stop_reason != "tool_use":
            break
        messages.append(
            {"role": "user", "content": await adapter.dispatch_tool_uses(session, reply.content)}
        )

    assert len(model.requests) == 2
    assert model.requests[0]["tools"] == tools
    assert model.requests[0]["system"] == "Use the tools to edit the document."
    assert model.requests[1]["messages"][2] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_1",
                "content": '{"replaced":"new","request":"toolu_1","turn":null}',
            },
            {
                "type": "tool_result",
                "tool_use_id": "toolu_2",
                "content": '{"error":{"code":"TOOL_NOT_FOUND","message":"Unknown tool \\"nope\\". '
                'Available tools: \\"update_counter\\", \\"editor__replace_selection\\", '
                '\\"explode\\".","details":{"tool":"nope"}}}',
                "is_error": True,
            },
        ],
    }
    assert messages[-1]["content"][0].text == "Replaced the selection."


def test_the_example_loop_runs_offline() -> None:
    # Without ANTHROPIC_API_KEY the example plays against its scripted stand-in model.
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    completed = subprocess.run(
        [sys.executable, "examples/anthropic_loop.py"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )
    assert (completed.returncode, completed.stdout, completed.stderr) == (
        0,
        'Done: {"value":3}\n',
        "",
    )


def test_passing_the_whole_message_is_a_type_error() -> None:
    with pytest.raises(TypeError) as info:
        adapter.dispatch_tool_uses_sync(make_session(), message([{"type": "text", "text": "x"}]))
    assert str(info.value) == "expected message.content (a list), got a Message"
