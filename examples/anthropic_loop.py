"""An Anthropic agent loop that uses the counter session's tools.

    pip install -e . anthropic   # from the checkout; pedelec is not on PyPI yet
    export ANTHROPIC_API_KEY=sk-ant-...
    python examples/anthropic_loop.py "Add 3 to the counter."

Without ANTHROPIC_API_KEY the script talks to a scripted stand-in model (bottom of this file),
so it runs offline too.
"""

import argparse
import asyncio
import os

# --8<-- [start:imports]
from anthropic import AsyncAnthropic
from counter import session

from pedelec.adapters import anthropic as pedelec_anthropic

# --8<-- [end:imports]

MODEL = "claude-sonnet-4-5"
MAX_TURNS = 10


# --8<-- [start:loop]
async def run_agent(client: AsyncAnthropic, prompt: str) -> str:
    """Loop until the model stops asking for tools."""
    tools = pedelec_anthropic.tools(session)
    messages = [{"role": "user", "content": prompt}]
    for _ in range(MAX_TURNS):
        message = await client.messages.create(
            model=MODEL,
            max_tokens=1024,
            system=session.guidance,
            tools=tools,
            messages=messages,
        )
        messages.append({"role": "assistant", "content": message.content})
        if message.stop_reason != "tool_use":
            return "".join(block.text for block in message.content if block.type == "text")
        # One tool_result block per tool_use block, in order; is_error is set for errors.
        results = await pedelec_anthropic.dispatch_tool_uses(session, message.content)
        messages.append({"role": "user", "content": results})
    raise RuntimeError(f"no answer after {MAX_TURNS} turns")


# --8<-- [end:loop]


# --- a scripted stand-in for the Anthropic client, for running without an API key ------------


class ScriptedAnthropic:
    """Answers like a model would: first a tool_use, then a sentence about its result."""

    def __init__(self) -> None:
        self.messages = self

    async def create(self, *, messages, tools, **_):
        from anthropic.types import Message

        last = messages[-1]["content"]
        if isinstance(last, list) and last and last[0]["type"] == "tool_result":
            content = [{"type": "text", "text": f"Done: {last[0]['content']}"}]
            stop = "end_turn"
        else:
            use = {
                "type": "tool_use",
                "id": "toolu_1",
                "name": tools[0]["name"],
                "input": {"delta": 3},
            }
            content = [{"type": "text", "text": "Changing the counter."}, use]
            stop = "tool_use"
        return Message.model_validate(
            {
                "id": "msg_scripted",
                "type": "message",
                "role": "assistant",
                "model": MODEL,
                "content": content,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {"input_tokens": 0, "output_tokens": 0},
            }
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prompt", nargs="?", default="Add 3 to the counter.")
    ns = parser.parse_args()
    client = AsyncAnthropic() if os.environ.get("ANTHROPIC_API_KEY") else ScriptedAnthropic()
    print(asyncio.run(run_agent(client, ns.prompt)))


if __name__ == "__main__":
    main()
