"""A long-running async tool: it waits for the user to confirm, under a timeout, and cancels cleanly.

The agent may ask to delete files, but nothing is deleted until a person says yes in the
application's UI. The handler puts the question in the UI and awaits the answer. Four things
can happen, and this script plays each of them:

1. the user says yes: the tool returns its result;
2. the user says no: the tool raises a domain error (``USER_DECLINED``) the agent can read;
3. nobody answers in time: pedelec cancels the handler and the agent gets ``TOOL_TIMEOUT``;
4. the application ends the session meanwhile: the handler is cancelled and the agent gets
   ``SESSION_ENDED``.

In 3 and 4 the handler sees ``asyncio.CancelledError`` and ``ctx.cancelled`` is true, so it
takes its question back out of the UI before it stops.

    python examples/interactive_confirm.py
"""

import asyncio
from collections.abc import Callable

from pedelec import PedelecError, Session, ToolCallContext


class ConfirmationBox:
    """Stands in for the application's UI: questions waiting for a yes or a no."""

    def __init__(self) -> None:
        self.pending: dict[str, asyncio.Future[bool]] = {}

    def ask(self, key: str, question: str) -> asyncio.Future[bool]:
        answer = asyncio.get_running_loop().create_future()
        self.pending[key] = answer
        print(f"ui: {key} asks: {question}")
        return answer

    def answer(self, key: str, yes: bool) -> None:
        print(f"ui: {key} answered {'yes' if yes else 'no'}")
        self.pending.pop(key).set_result(yes)

    def withdraw(self, key: str) -> None:
        print(f"ui: {key} withdrawn")
        self.pending.pop(key, None)


box = ConfirmationBox()
session = Session(guidance="delete_files asks the user first; tell them it is waiting for them.")


@session.on_tool(
    "delete_files",
    description="Delete files after the user confirms in the app. Waits up to 2 minutes.",
    schema={
        "type": "object",
        "properties": {
            "paths": {
                "type": "array",
                "items": {"type": "string", "minLength": 1, "maxLength": 200},
                "minItems": 1,
                "maxItems": 20,
                "uniqueItems": True,
            }
        },
        "required": ["paths"],
    },
    timeout_ms=120_000,
)
async def delete_files(args: dict, ctx: ToolCallContext) -> dict:
    paths = args["paths"]
    key = ctx.tool_request_id
    answer = box.ask(key, f"delete {', '.join(paths)}?")
    try:
        confirmed = await answer
    except asyncio.CancelledError:
        # A timeout or session.end(): nobody waits for this call any more.
        print(f"tool: {key} cancelled (ctx.cancelled={ctx.cancelled})")
        box.withdraw(key)
        raise  # let pedelec finish the cancellation
    if not confirmed:
        raise PedelecError(
            "USER_DECLINED",
            "The user declined to delete these files; do not try again unless they ask.",
            {"paths": paths},
        )
    # A real application would delete the files here.
    return {"deleted": paths}


async def call(key: str, args: dict, user: Callable[[str], object]) -> None:
    """Dispatch one call as an agent loop would, while ``user(key)`` plays the person at the UI."""
    running = asyncio.create_task(session.dispatch("delete_files", args, tool_request_id=key))
    while key not in box.pending:  # let the handler put its question in the UI
        await asyncio.sleep(0.001)
    user(key)
    result = await running
    print(f"agent gets: {result.to_text()}")


async def main() -> None:
    session.on_ended(lambda: print("session: ended"))
    await call("call_1", {"paths": ["notes.txt", "draft.md"]}, lambda key: box.answer(key, True))
    await call("call_2", {"paths": ["thesis.tex"]}, lambda key: box.answer(key, False))
    # Nobody answers. An agent may shorten one call's timeout with a top-level "timeoutMs"
    # (the schema does not declare one); here it keeps the demo short.
    await call("call_3", {"paths": ["old.log"], "timeoutMs": 200}, lambda key: None)
    # The application closes the conversation while the tool waits.
    await call("call_4", {"paths": ["cache.db"]}, lambda key: session.end())
    print(f"status: {session.status}")


if __name__ == "__main__":
    asyncio.run(main())
