"""An OpenAI agent loop that uses the counter session's tools.

    pip install -e . openai   # from the checkout; pedelec is not on PyPI yet
    export OPENAI_API_KEY=sk-...
    python examples/openai_loop.py "Add 3 to the counter."
    python examples/openai_loop.py --responses "Add 3 to the counter."

The first form uses Chat Completions, the second the Responses API. Without OPENAI_API_KEY
the script talks to a scripted stand-in model (bottom of this file), so it runs offline too.
"""

import argparse
import asyncio
import os

# --8<-- [start:imports]
from counter import session
from openai import AsyncOpenAI

from pedelec.adapters import openai as pedelec_openai

# --8<-- [end:imports]

MODEL = "gpt-4.1-mini"
MAX_TURNS = 10


# --8<-- [start:chat]
async def run_chat_agent(client: AsyncOpenAI, prompt: str) -> str:
    """Chat Completions: loop until the model answers without calling a tool."""
    tools = pedelec_openai.chat_tools(session)
    messages = [
        {"role": "system", "content": session.guidance},
        {"role": "user", "content": prompt},
    ]
    for _ in range(MAX_TURNS):
        completion = await client.chat.completions.create(
            model=MODEL, messages=messages, tools=tools
        )
        message = completion.choices[0].message
        messages.append(message.to_dict())
        if not message.tool_calls:
            return message.content or ""
        # One {"role": "tool", ...} message per call, in order; errors are results too.
        messages += await pedelec_openai.dispatch_tool_calls(session, message.tool_calls)
    raise RuntimeError(f"no answer after {MAX_TURNS} turns")


# --8<-- [end:chat]


# --8<-- [start:responses]
async def run_responses_agent(client: AsyncOpenAI, prompt: str) -> str:
    """Responses API: send each turn's function_call_output items back."""
    tools = pedelec_openai.responses_tools(session)
    response = await client.responses.create(
        model=MODEL, instructions=session.guidance, input=prompt, tools=tools
    )
    for _ in range(MAX_TURNS):
        outputs = await pedelec_openai.dispatch_responses_calls(session, response.output)
        if not outputs:
            return response.output_text
        response = await client.responses.create(
            model=MODEL,
            instructions=session.guidance,
            previous_response_id=response.id,
            input=outputs,
            tools=tools,
        )
    raise RuntimeError(f"no answer after {MAX_TURNS} turns")


# --8<-- [end:responses]


# --- a scripted stand-in for the OpenAI client, for running without an API key ---------------


class ScriptedOpenAI:
    """Answers like a model would: first a tool call, then a sentence about its result."""

    def __init__(self) -> None:
        self.chat = self
        self.completions = self
        self.responses = _ScriptedResponses()

    async def create(self, *, messages, tools, **_):
        from openai.types.chat import ChatCompletion

        last = messages[-1]
        if last["role"] == "tool":
            message = {"role": "assistant", "content": f"Done: {last['content']}"}
        else:
            name = tools[0]["function"]["name"]
            call = {"name": name, "arguments": '{"delta": 3}'}
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "call_1", "type": "function", "function": call}],
            }
        finish = "tool_calls" if "tool_calls" in message else "stop"
        return ChatCompletion.model_validate(
            {
                "id": "chatcmpl-scripted",
                "object": "chat.completion",
                "created": 0,
                "model": MODEL,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            }
        )


class _ScriptedResponses:
    async def create(self, *, input, tools, **_):
        from openai.types.responses import Response

        if isinstance(input, list):
            text = f"Done: {input[0]['output']}"
            item = {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        else:
            item = {
                "type": "function_call",
                "call_id": "call_1",
                "name": tools[0]["name"],
                "arguments": '{"delta": 3}',
            }
        return Response.model_validate(
            {
                "id": "resp-scripted",
                "object": "response",
                "created_at": 0,
                "model": MODEL,
                "output": [item],
                "parallel_tool_calls": True,
                "tool_choice": "auto",
                "tools": [],
            }
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prompt", nargs="?", default="Add 3 to the counter.")
    parser.add_argument("--responses", action="store_true", help="use the Responses API")
    ns = parser.parse_args()
    client = AsyncOpenAI() if os.environ.get("OPENAI_API_KEY") else ScriptedOpenAI()
    run = run_responses_agent if ns.responses else run_chat_agent
    print(asyncio.run(run(client, ns.prompt)))


if __name__ == "__main__":
    main()
