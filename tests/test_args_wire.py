"""Issue 11 finding 4: args holding a lone surrogate are TOOL_ARGS_INVALID at the path, by every
way an agent's args come in (JSON text, an adapter's SDK-parsed dict, MCP), never a handler call
whose echo then cannot be sent."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from pedelec import Session
from pedelec.adapters import anthropic, mcp

MESSAGE = (
    'Invalid arguments for tool "echo": /s: the string holds a lone surrogate (U+D800), which '
    "UTF-8 cannot encode (type). Correct the arguments and call the tool again."
)


@pytest.fixture
def session() -> Session:
    made = Session()
    calls: list[Any] = []

    @made.on_tool("echo", description="Echo.", schema={"type": "object"})
    def echo(args: Any) -> Any:
        calls.append(args)
        return args

    made.calls = calls  # type: ignore[attr-defined]
    return made


@pytest.mark.parametrize("text", ['{"s": "\\ud800"}', b'{"s": "\\ud800"}', '{"s": "\ud800"}'])
def test_text_args_with_a_lone_surrogate(session: Session, text: Any) -> None:
    result = session.dispatch_sync("echo", text)
    assert (result.error.code, result.error.message) == ("TOOL_ARGS_INVALID", MESSAGE)
    assert session.calls == []  # type: ignore[attr-defined]


def test_a_surrogate_pair_is_one_code_point_and_passes(session: Session) -> None:
    assert session.dispatch_sync("echo", '{"s": "\\ud83d\\ude00"}').value == {"s": "\U0001f600"}


def test_mcp_and_anthropic_dict_args(session: Session) -> None:
    answer = asyncio.run(mcp.dispatch_tool_call(session, "echo", {"s": "\ud800"}))
    assert answer["isError"] is True
    assert json.loads(answer["content"][0]["text"])["error"]["message"] == MESSAGE
    blocks = anthropic.dispatch_tool_uses_sync(
        session, [{"type": "tool_use", "id": "t1", "name": "echo", "input": {"s": "\ud800"}}]
    )
    assert blocks[0]["is_error"] is True
    assert json.loads(blocks[0]["content"])["error"]["message"] == MESSAGE
    assert session.calls == []  # type: ignore[attr-defined]
