"""``pedelec serve`` lists a tool's title and annotations to the official ``mcp`` client."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent

TARGET = """
from pedelec import Session

session = Session()


@session.tool(title="Delete a note", annotations={"destructiveHint": True, "idempotentHint": True})
def delete_note(note_id: str) -> bool:
    '''Delete one note by id.'''
    return True


@session.tool
def ping() -> str:
    '''Answer pong.'''
    return "pong"
"""


def test_serve_lists_title_and_annotations(tmp_path: Path) -> None:
    target = tmp_path / "notes.py"
    target.write_text(TARGET, encoding="utf-8")
    serve = StdioServerParameters(
        command=sys.executable, args=["-m", "pedelec", "serve", f"{target}:session"], cwd=str(ROOT)
    )
    listed: list[dict[str, object]] = []

    async def main() -> None:
        async with Client(serve, mode="legacy") as client:
            for tool in (await client.list_tools()).tools:
                listed.append(tool.model_dump(mode="json", by_alias=True, exclude_none=True))

    anyio.run(main)
    assert [
        {key: entry.get(key) for key in ("name", "title", "annotations")} for entry in listed
    ] == [
        {
            "name": "delete_note",
            "title": "Delete a note",
            "annotations": {"destructiveHint": True, "idempotentHint": True},
        },
        {"name": "ping", "title": None, "annotations": None},
    ]
