"""The OpenAI adapter against the real ``openai`` package's types.

Tool calls are genuine SDK objects (``ChatCompletion``, ``ChatCompletionMessageFunctionToolCall``,
``Response``, ``ResponseFunctionToolCall``) or the plain dicts of the same shape.
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
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionMessageCustomToolCall,
    ChatCompletionMessageFunctionToolCall,
)
from openai.types.chat.chat_completion_message_function_tool_call import Function
from openai.types.responses import Response, ResponseFunctionToolCall

from pedelec.adapters import openai as adapter
from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.session import Session

ROOT = Path(__file__).resolve().parent.parent


def function_call(call_id: str, name: str, arguments: str) -> ChatCompletionMessageFunctionToolCall:
    return ChatCompletionMessageFunctionToolCall(
        id=call_id, type="function", function=Function(name=name, arguments=arguments)
    )


def completion(message: dict[str, Any]) -> ChatCompletion:
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    return ChatCompletion.model_validate(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-test",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        }
    )


def response(output: list[dict[str, Any]]) -> Response:
    return Response.model_validate(
        {
            "id": "resp_1",
            "object": "response",
            "created_at": 0,
            "model": "gpt-test",
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        }
    )


def error_of(content: str) -> dict[str, Any]:
    error: dict[str, Any] = json.loads(content)["error"]
    return error


# --- export -------------------------------------------------------------------------------------


def test_chat_tools_format_with_dots_mapped() -> None:
    assert adapter.chat_tools(make_session(), strict=False) == [
        {
            "type": "function",
            "function": {
                "name": "update_counter",
                "description": "Change the counter.",
                "parameters": DELTA,
                "strict": False,
            },
        },
        {
            "type": "function",
            "function": {
                "name": "editor__replace_selection",
                "description": "Replace the selection.",
                "parameters": TEXT,
                "strict": False,
            },
        },
        {
            "type": "function",
            "function": {
                "name": "explode",
                "description": "Always fails.",
                "parameters": {"type": "object"},
                "strict": False,
            },
        },
    ]


def test_responses_tools_format() -> None:
    tools = adapter.responses_tools(make_session(), strict=False)
    assert tools[1] == {
        "type": "function",
        "name": "editor__replace_selection",
        "description": "Replace the selection.",
        "parameters": TEXT,
        "strict": False,
    }
    assert [t["name"] for t in tools] == ["update_counter", "editor__replace_selection", "explode"]


def test_exported_schemas_are_fresh_copies() -> None:
    session = make_session()
    adapter.chat_tools(session)[0]["function"]["parameters"]["properties"].clear()
    adapter.responses_tools(session)[0]["parameters"]["required"].append("x")
    assert session.tool_spec("update_counter")["argsSchema"] == DELTA
    first = adapter.chat_tools(session)[0]["function"]["parameters"]
    second = adapter.chat_tools(session)[0]["function"]["parameters"]
    assert first == second
    assert first is not second


def test_a_name_collision_is_invalid_input_at_export() -> None:
    session = make_session()
    session.on_tool("editor__replace_selection", description="Clash.", schema=TEXT)(lambda a: a)
    message = (
        'Tools "editor.replace_selection" and "editor__replace_selection" would both be sent '
        'to OpenAI as "editor__replace_selection" (each "." is sent as "__"); rename one of them.'
    )
    for export in (adapter.chat_tools, adapter.responses_tools):
        with pytest.raises(PedelecError) as info:
            export(session)
        assert info.value.code == INVALID_INPUT
        assert info.value.message == message


# --- Chat Completions dispatch ------------------------------------------------------------------


@pytest.mark.asyncio
async def test_dispatch_sdk_tool_calls_in_order() -> None:
    reply = completion(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "editor__replace_selection", "arguments": '{"text":"hi"}'},
                },
                {
                    "id": "call_b",
                    "type": "function",
                    "function": {"name": "update_counter", "arguments": '{"delta": 3}'},
                },
            ],
        }
    )
    messages = await adapter.dispatch_tool_calls(
        make_session(), reply.choices[0].message.tool_calls, turn_id="turn-1"
    )
    assert messages == [
        {
            "role": "tool",
            "tool_call_id": "call_a",
            "content": '{"replaced":"hi","request":"call_a","turn":"turn-1"}',
        },
        {"role": "tool", "tool_call_id": "call_b", "content": '{"value":3}'},
    ]


@pytest.mark.asyncio
async def test_dispatch_plain_dicts() -> None:
    calls = [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "update_counter", "arguments": '{"delta": -2}'},
        }
    ]
    assert await adapter.dispatch_tool_calls(make_session(), calls) == [
        {"role": "tool", "tool_call_id": "call_1", "content": '{"value":-2}'}
    ]


@pytest.mark.asyncio
async def test_no_tool_calls_means_no_messages() -> None:
    reply = completion({"role": "assistant", "content": "Hello."})
    assert reply.choices[0].message.tool_calls is None
    assert await adapter.dispatch_tool_calls(make_session(), None) == []
    assert await adapter.dispatch_tool_calls(make_session(), []) == []


@pytest.mark.parametrize("arguments", ["", "  ", None])
@pytest.mark.asyncio
async def test_blank_arguments_mean_no_arguments(arguments: str | None) -> None:
    call: dict[str, Any] = {"id": "c", "type": "function", "function": {"name": "explode"}}
    if arguments is not None:
        call["function"]["arguments"] = arguments
    (message,) = await adapter.dispatch_tool_calls(make_session(), [call])
    # The call got through validation to the handler, which fails on purpose.
    assert error_of(message["content"])["code"] == "TOOL_HANDLER_ERROR"


MALFORMED: list[tuple[str, Any, str, dict[str, Any]]] = [
    (
        "bad JSON text",
        function_call("c1", "update_counter", '{"delta": 3'),
        "c1",
        {
            "code": "TOOL_ARGS_INVALID",
            "message": 'Invalid arguments for tool "update_counter": args are not valid JSON: '
            'expected "," or "}" after the value at /delta (line 1, column 12), found the end '
            "of the text; fix the JSON syntax. Correct the arguments and call the tool again.",
            "details": {"tool": "update_counter", "pointer": "/delta", "line": 1, "column": 12},
        },
    ),
    (
        "unknown tool",
        function_call("c2", "update_countr", "{}"),
        "c2",
        {
            "code": "TOOL_NOT_FOUND",
            "message": 'Unknown tool "update_countr". Did you mean "update_counter"?',
            "details": {"tool": "update_countr"},
        },
    ),
    (
        "no id",
        {"type": "function", "function": {"name": "update_counter", "arguments": "{}"}},
        "",
        {
            "code": "INVALID_INPUT",
            "message": 'A tool call of "update_counter" arrived without an id, so its result '
            "could not be matched to it; it was not run.",
            "details": {"tool": "update_counter"},
        },
    ),
    (
        "no name",
        {"id": "c4", "type": "function", "function": {"arguments": "{}"}},
        "c4",
        {
            "code": "TOOL_NOT_FOUND",
            "message": "A tool call arrived without a tool name; call one of the session's "
            "tools by name.",
        },
    ),
    (
        "no function",
        {"id": "c5", "type": "function"},
        "c5",
        {
            "code": "TOOL_NOT_FOUND",
            "message": "A tool call arrived without a tool name; call one of the session's "
            "tools by name.",
        },
    ),
    (
        "custom tool call",
        ChatCompletionMessageCustomToolCall.model_validate(
            {"id": "c6", "type": "custom", "custom": {"name": "grammar", "input": "x"}}
        ),
        "c6",
        {
            "code": "TOOL_NOT_FOUND",
            "message": 'Tool call type "custom" is not supported; call one of the function tools.',
        },
    ),
    (
        "arguments not an object",
        function_call("c7", "update_counter", "[3]"),
        "c7",
        {
            "code": "TOOL_ARGS_INVALID",
            "message": 'Invalid arguments for tool "update_counter": (root): expected object, '
            "got array of 1 item (type). Correct the arguments and call the tool again.",
            "details": {
                "tool": "update_counter",
                "errors": [
                    {
                        "path": "",
                        "keyword": "type",
                        "message": "expected object, got array of 1 item",
                    }
                ],
            },
        },
    ),
]


@pytest.mark.parametrize(
    ("call", "call_id", "error"),
    [case[1:] for case in MALFORMED],
    ids=[case[0] for case in MALFORMED],
)
@pytest.mark.asyncio
async def test_a_malformed_call_becomes_an_error_result(
    call: Any, call_id: str, error: dict[str, Any]
) -> None:
    good = function_call("ok", "update_counter", '{"delta": 1}')
    messages = await adapter.dispatch_tool_calls(make_session(), [good, call, good])
    assert (
        messages[0]
        == messages[2]
        == {"role": "tool", "tool_call_id": "ok", "content": '{"value":1}'}
    )
    assert messages[1]["role"] == "tool"
    assert messages[1]["tool_call_id"] == call_id
    assert json.loads(messages[1]["content"]) == {"error": error}


@pytest.mark.asyncio
async def test_a_handler_error_is_a_result() -> None:
    (message,) = await adapter.dispatch_tool_calls(
        make_session(), [function_call("c", "explode", "{}")]
    )
    assert json.loads(message["content"]) == {
        "error": {
            "code": "TOOL_HANDLER_ERROR",
            "message": 'Tool "explode" failed: ValueError: boom',
            "details": {"tool": "explode", "exception": "ValueError"},
        }
    }


@pytest.mark.asyncio
async def test_calls_run_concurrently() -> None:
    # Each handler waits for the other to start: run one after the other, both would time out.
    session = Session()
    started = {"a": asyncio.Event(), "b": asyncio.Event()}

    @session.on_tool("meet", description="Meet the other call.", schema=TEXT, timeout_ms=5_000)
    async def meet(args: dict[str, Any]) -> str:
        me, other = args["text"], "b" if args["text"] == "a" else "a"
        started[me].set()
        await started[other].wait()
        return me

    calls = [function_call("1", "meet", '{"text":"a"}'), function_call("2", "meet", '{"text":"b"}')]
    assert await adapter.dispatch_tool_calls(session, calls) == [
        {"role": "tool", "tool_call_id": "1", "content": '"a"'},
        {"role": "tool", "tool_call_id": "2", "content": '"b"'},
    ]


def test_dispatch_sync() -> None:
    calls = [function_call("c", "editor__replace_selection", '{"text": "x"}')]
    assert adapter.dispatch_tool_calls_sync(make_session(), calls) == [
        {
            "role": "tool",
            "tool_call_id": "c",
            "content": '{"replaced":"x","request":"c","turn":null}',
        }
    ]


@pytest.mark.asyncio
async def test_sync_variants_refuse_to_block_a_running_loop() -> None:
    with pytest.raises(RuntimeError) as info:
        adapter.dispatch_tool_calls_sync(make_session(), [])
    assert str(info.value) == (
        "dispatch_tool_calls_sync() was called from a running event loop; "
        "use await dispatch_tool_calls(...) there instead."
    )
    with pytest.raises(RuntimeError) as info:
        adapter.dispatch_responses_calls_sync(make_session(), [])
    assert str(info.value) == (
        "dispatch_responses_calls_sync() was called from a running event loop; "
        "use await dispatch_responses_calls(...) there instead."
    )


# --- Responses dispatch -------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_dispatch_responses_output_skips_other_items() -> None:
    output = response(
        [
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [],
            },
            {
                "type": "function_call",
                "call_id": "call_1",
                "name": "update_counter",
                "arguments": '{"delta": 5}',
            },
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "Working.", "annotations": []}],
            },
            {
                "type": "function_call",
                "call_id": "call_2",
                "name": "editor__replace_selection",
                "arguments": '{"text": "y"}',
            },
        ]
    ).output
    assert isinstance(output[1], ResponseFunctionToolCall)
    assert await adapter.dispatch_responses_calls(make_session(), output) == [
        {"type": "function_call_output", "call_id": "call_1", "output": '{"value":5}'},
        {
            "type": "function_call_output",
            "call_id": "call_2",
            "output": '{"replaced":"y","request":"call_2","turn":null}',
        },
    ]


@pytest.mark.asyncio
async def test_malformed_function_calls() -> None:
    items: list[Any] = [
        ResponseFunctionToolCall(type="function_call", call_id="c1", name="nope", arguments="{}"),
        {"type": "function_call", "name": "update_counter", "arguments": "{}"},
        {"type": "function_call", "call_id": "c3", "arguments": "{}"},
    ]
    outputs = await adapter.dispatch_responses_calls(make_session(), items)
    assert [o["call_id"] for o in outputs] == ["c1", "", "c3"]
    assert [error_of(o["output"]) for o in outputs] == [
        {
            "code": "TOOL_NOT_FOUND",
            "message": 'Unknown tool "nope". Available tools: "update_counter", '
            '"editor__replace_selection", "explode".',
            "details": {"tool": "nope"},
        },
        {
            "code": "INVALID_INPUT",
            "message": 'A function_call item of "update_counter" arrived without an id, so its '
            "result could not be matched to it; it was not run.",
            "details": {"tool": "update_counter"},
        },
        {
            "code": "TOOL_NOT_FOUND",
            "message": "A function_call item arrived without a tool name; call one of the "
            "session's tools by name.",
        },
    ]


def test_dispatch_responses_sync() -> None:
    items = [
        {
            "type": "function_call",
            "call_id": "c",
            "name": "update_counter",
            "arguments": '{"delta":1}',
        }
    ]
    assert adapter.dispatch_responses_calls_sync(make_session(), items) == [
        {"type": "function_call_output", "call_id": "c", "output": '{"value":1}'}
    ]


# --- a whole agent loop against a scripted model -------------------------------------------------


class ScriptedChat:
    """Plays a model: replies from a script and records every request."""

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.replies = replies
        self.requests: list[dict[str, Any]] = []

    async def create(self, **request: Any) -> ChatCompletion:
        self.requests.append(json.loads(json.dumps(request)))
        return completion(self.replies[len(self.requests) - 1])


@pytest.mark.asyncio
async def test_two_turn_chat_loop() -> None:
    session = make_session()
    model = ScriptedChat(
        [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "update_counter", "arguments": '{"delta": 3}'},
                    },
                    {
                        "id": "call_2",
                        "type": "function",
                        "function": {"name": "update_counter", "arguments": '{"delta": 300}'},
                    },
                ],
            },
            {"role": "assistant", "content": "The counter is 3; 300 was out of range."},
        ]
    )
    tools = adapter.chat_tools(session)
    messages: list[Any] = [
        {"role": "system", "content": session.guidance},
        {"role": "user", "content": "Add 3, then 300."},
    ]
    while True:
        message = (
            (await model.create(model="gpt-test", messages=messages, tools=tools))
            .choices[0]
            .message
        )
        messages.append(message.to_dict())
        if not message.tool_calls:
            break
        messages += await adapter.dispatch_tool_calls(session, message.tool_calls)

    assert len(model.requests) == 2
    assert model.requests[0]["tools"] == tools
    second = model.requests[1]["messages"]
    assert second[2] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "update_counter", "arguments": '{"delta": 3}'},
            },
            {
                "id": "call_2",
                "type": "function",
                "function": {"name": "update_counter", "arguments": '{"delta": 300}'},
            },
        ],
    }
    assert second[3] == {"role": "tool", "tool_call_id": "call_1", "content": '{"value":3}'}
    assert second[4]["tool_call_id"] == "call_2"
    assert error_of(second[4]["content"])["message"] == (
        'Invalid arguments for tool "update_counter": /delta: must be <= 100, got 300 (maximum). '
        "Correct the arguments and call the tool again."
    )
    assert messages[-1] == {
        "role": "assistant",
        "content": "The counter is 3; 300 was out of range.",
    }


@pytest.mark.parametrize("api", [[], ["--responses"]], ids=["chat", "responses"])
def test_the_example_loop_runs_offline(api: list[str]) -> None:
    # Without OPENAI_API_KEY the example plays against its scripted stand-in model.
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    completed = subprocess.run(
        [sys.executable, "examples/openai_loop.py", *api],
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
    reply = completion({"role": "assistant", "content": "Hi."})
    with pytest.raises(TypeError) as info:
        adapter.dispatch_tool_calls_sync(make_session(), reply.choices[0].message)
    assert str(info.value) == "expected message.tool_calls (a list), got a ChatCompletionMessage"
    with pytest.raises(TypeError) as info:
        adapter.dispatch_responses_calls_sync(make_session(), response([]))
    assert str(info.value) == "expected response.output (a list), got a Response"
