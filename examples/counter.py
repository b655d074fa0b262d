"""Quick start: a session with one tool that changes a visible counter.

Install pedelec from the checkout (``pip install -e .``; it is not on PyPI yet), then call the
tool from the command line, as an agent would:

    pedelec tool-call examples/counter.py:session update_counter '{"delta": 3}'

or run this file, which makes the same call from Python:

    python examples/counter.py

The other examples (OpenAI, Anthropic, MCP and OpenTelemetry) serve this same session.
"""

from pedelec import Session


class Counter:
    """The application state the tool changes."""

    value = 0


counter = Counter()

session = Session(guidance="Use update_counter to change the visible counter.")


@session.on_tool(
    "update_counter",
    description="Increase or decrease the visible counter by a signed delta.",
    schema={
        "type": "object",
        "properties": {
            "delta": {
                "type": "integer",
                "minimum": -100,
                "maximum": 100,
                "description": "How much to add to the counter; negative to subtract.",
            }
        },
        "required": ["delta"],
    },
)
def update_counter(args, ctx):
    counter.value += args["delta"]
    return {"value": counter.value}


if __name__ == "__main__":
    # From async code: result = await session.dispatch("update_counter", {"delta": 3})
    result = session.dispatch_sync("update_counter", {"delta": 3})
    print(result.to_text())
