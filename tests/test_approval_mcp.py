"""Approval under ``pedelec serve``, driven by the official ``mcp`` client over stdio and HTTP.

A client that declared elicitation is asked (tool and args in the question) and its user's
accept / decline / cancel runs or denies the call; a client without it gets
``TOOL_APPROVAL_REQUIRED`` as an ``isError`` result; the listing marks the tool destructive.
Each server writes what its handlers ran to a file, so a test can prove a denied call never ran
and an approved one ran once.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters, types as mcp_types
from mcp.client.context import ClientRequestContext
from test_mcp_server import serving

ROOT = Path(__file__).resolve().parent.parent

TARGET = """
import json

from pedelec import Session, ToolCallContext

session = Session()
RAN = {ran!r}


def ran(line):
    with open(RAN, "a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\\n")


@session.tool(requires_approval=True)
def delete_note(note_id: str, ctx: ToolCallContext) -> str:
    '''Delete one note by id.'''
    ctx.log("info", "deleting", note=note_id)
    ran({"delete_note": note_id})
    return f"deleted {note_id}"


@session.tool(requires_approval=True, annotations={"destructiveHint": False})
def archive_note(note_id: str) -> str:
    '''Archive one note by id.'''
    ran({"archive_note": note_id})
    return f"archived {note_id}"


@session.tool
def ping() -> str:
    '''Answer pong.'''
    return "pong"
"""

REQUIRED_TEXT = {
    "error": {
        "code": "TOOL_APPROVAL_REQUIRED",
        "message": 'Tool "delete_note" needs a person\'s approval before it runs, and this '
        "client cannot ask for it (it does not support MCP elicitation), so it was not run: a "
        "person must approve it. Tell the user; do not call it again from here.",
        "details": {"tool": "delete_note"},
    }
}


def denied(reason: str) -> dict[str, Any]:
    return {
        "error": {
            "code": "TOOL_APPROVAL_DENIED",
            "message": f'The call of tool "delete_note" was denied: {reason}. It was not run; '
            "do not call it again with the same arguments, ask the user what to do instead.",
            "details": {"tool": "delete_note", "reason": reason},
        }
    }


QUESTION = (
    'The agent wants to run the tool "delete_note" with these arguments:\n'
    '{\n  "note_id": "n1"\n}\n'
    "Accept to run it once with exactly these arguments; decline to refuse."
)


@pytest.fixture
def target(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    path = tmp_path / "notes_target.py"
    ran = tmp_path / "ran.jsonl"
    ran.write_text("", encoding="utf-8")
    path.write_text(TARGET.replace("{ran!r}", repr(str(ran))), encoding="utf-8")
    yield f"{path}:session", ran


def text_of(result: mcp_types.CallToolResult) -> Any:
    (block,) = result.content
    assert block.type == "text"
    return json.loads(block.text)


class Person:
    """An elicitation callback that answers with the next action and records the questions."""

    def __init__(self, *actions: str) -> None:
        self.actions = list(actions)
        self.asked: list[tuple[str, dict[str, Any]]] = []

    async def __call__(
        self, context: ClientRequestContext, params: mcp_types.ElicitRequestParams
    ) -> mcp_types.ElicitResult:
        assert isinstance(params, mcp_types.ElicitRequestFormParams)
        self.asked.append((params.message, params.requested_schema))
        action: Any = self.actions.pop(0)
        return mcp_types.ElicitResult(action=action, content={} if action == "accept" else None)


async def exercise(connect: Any, ran: Path, version: str) -> None:
    """The whole scenario against one server, with a fresh client for each kind of person."""
    person = Person("accept", "decline", "cancel")
    logs: list[mcp_types.LoggingMessageNotificationParams] = []

    async def on_log(params: mcp_types.LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async with connect(person, logging_callback=on_log, log_level="debug") as client:
        assert client.protocol_version == version
        listed = {t.name: t.annotations for t in (await client.list_tools()).tools}
        assert {k: v.destructive_hint if v else None for k, v in listed.items()} == {
            "delete_note": True,
            "archive_note": False,
            "ping": None,
        }
        approved = await client.call_tool("delete_note", {"note_id": "n1"})
        assert (approved.is_error, text_of(approved)) == (False, "deleted n1")
        declined = await client.call_tool("delete_note", {"note_id": "n1"})
        assert (declined.is_error, text_of(declined)) == (True, denied("The user declined it"))
        dismissed = await client.call_tool("delete_note", {"note_id": "n1"})
        assert (dismissed.is_error, text_of(dismissed)) == (
            True,
            denied("The user dismissed the question without deciding"),
        )
        plain = await client.call_tool("ping", {})
        assert (plain.is_error, text_of(plain)) == (False, "pong")
    assert person.asked == [(QUESTION, {"type": "object", "properties": {}})] * 3
    # The approved handler's log reached the client, as any call's does.
    assert [(log.logger, log.data) for log in logs] == [
        ("delete_note", {"message": "deleting", "note": "n1"})
    ]
    assert ran.read_text(encoding="utf-8").splitlines() == ['{"delete_note": "n1"}']

    async with connect(None) as client:
        required = await client.call_tool("delete_note", {"note_id": "n2"})
        assert (required.is_error, text_of(required)) == (True, REQUIRED_TEXT)
    assert ran.read_text(encoding="utf-8").splitlines() == ['{"delete_note": "n1"}']


def test_stdio_asks_through_elicitation(target: tuple[str, Path]) -> None:
    spec, ran = target
    serve = StdioServerParameters(
        command=sys.executable, args=["-m", "pedelec", "serve", spec], cwd=str(ROOT)
    )

    def connect(person: Person | None, **options: Any) -> Client:
        return Client(serve, mode="legacy", elicitation_callback=person, **options)

    anyio.run(exercise, connect, ran, "2025-11-25")


@pytest.mark.parametrize(("mode", "version"), [("legacy", "2025-11-25"), ("auto", "2026-07-28")])
def test_http_asks_through_elicitation(
    target: tuple[str, Path], tmp_path: Path, mode: str, version: str
) -> None:
    # "legacy" asks with an elicitation/create request on the call's stream; "auto" speaks
    # 2026-07-28, where the server answers InputRequiredResult and the client calls again.
    spec, ran = target
    with serving([spec], tmp_path / "stderr.txt") as url:

        def connect(person: Person | None, **options: Any) -> Client:
            return Client(url, mode=mode, elicitation_callback=person, **options)  # type: ignore[arg-type]

        anyio.run(exercise, connect, ran, version)


INVALID_TEXT = {
    "error": {
        "code": "TOOL_APPROVAL_INVALID",
        "message": "The approval token is unknown, already used or expired, so nothing was run; "
        "call the tool again to ask for a new approval.",
    }
}


def test_a_2026_retry_runs_the_stored_args_once_and_forged_state_runs_nothing(
    target: tuple[str, Path], tmp_path: Path
) -> None:
    spec, ran = target
    accept = {"pedelec.approval": mcp_types.ElicitResult(action="accept", content={})}

    async def asked(session: Any, note_id: str) -> str:
        first = await session.call_tool(
            "delete_note", {"note_id": note_id}, allow_input_required=True
        )
        assert isinstance(first, mcp_types.InputRequiredResult)
        (request,) = first.input_requests.values()
        assert list(first.input_requests) == ["pedelec.approval"]
        assert f'"note_id": "{note_id}"' in request.params.message
        assert isinstance(first.request_state, str)
        return first.request_state

    async def main() -> None:
        async with Client(url, mode="auto", elicitation_callback=Person()) as client:
            session = client.session
            # The retry's own args are ignored: the args shown to the person are what run.
            state = await asked(session, "n4")
            done = await session.call_tool(
                "delete_note", {"note_id": "n999"}, input_responses=accept, request_state=state
            )
            assert (done.is_error, text_of(done)) == (False, "deleted n4")
            replayed = await session.call_tool(
                "delete_note", {"note_id": "n4"}, input_responses=accept, request_state=state
            )
            assert (replayed.is_error, text_of(replayed)) == (True, INVALID_TEXT)
            # A token sent with another tool's call is used up, and neither runs.
            state = await asked(session, "n5")
            other = await session.call_tool(
                "archive_note", {"note_id": "n5"}, input_responses=accept, request_state=state
            )
            assert (other.is_error, text_of(other)) == (True, INVALID_TEXT)
            late = await session.call_tool(
                "delete_note", {"note_id": "n5"}, input_responses=accept, request_state=state
            )
            assert (late.is_error, text_of(late)) == (True, INVALID_TEXT)
            forged = await session.call_tool(
                "delete_note", {"note_id": "n6"}, input_responses=accept, request_state="forged"
            )
            assert (forged.is_error, text_of(forged)) == (True, INVALID_TEXT)

    with serving([spec], tmp_path / "stderr.txt") as url:
        anyio.run(main)
    assert ran.read_text(encoding="utf-8").splitlines() == ['{"delete_note": "n4"}']


NO_CHANNEL_TEXT = {
    "error": {
        "code": "TOOL_APPROVAL_REQUIRED",
        "message": 'Tool "delete_note" needs a person\'s approval before it runs, and this '
        "server cannot ask for it (it serves stateless HTTP, which has no channel for a question "
        "to the user), so it was not run: a person must approve it. Tell the user; do not call "
        "it again from here.",
        "details": {"tool": "delete_note"},
    }
}


def test_stateless_http_cannot_ask_so_the_call_needs_a_person(
    target: tuple[str, Path], tmp_path: Path
) -> None:
    # An elicitation-capable client, but stateless HTTP (and so --workers) has no stream for
    # the server's question: the call is not run, and the model is told a person must approve.
    spec, ran = target
    person = Person("accept")
    with serving([spec, "--stateless"], tmp_path / "stderr.txt") as url:

        async def main() -> None:
            async with Client(url, mode="legacy", elicitation_callback=person) as client:
                result = await client.call_tool("delete_note", {"note_id": "n1"})
                assert (result.is_error, text_of(result)) == (True, NO_CHANNEL_TEXT)
                plain = await client.call_tool("ping", {})
                assert (plain.is_error, text_of(plain)) == (False, "pong")

        anyio.run(main)
    assert person.asked == []
    assert not ran.exists() or ran.read_text(encoding="utf-8") == ""
