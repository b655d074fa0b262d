"""Tool metadata (DESIGN §10): ``title`` and MCP ``annotations`` on every way to declare a tool,
checked at declaration, carried in the manifest, listed over MCP and linted by ``pedelec check``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pedelec import PedelecError, Session, define_tool, tool
from pedelec.adapters import mcp
from pedelec.cli import main

OBJ: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
HINTS: dict[str, Any] = {"readOnlyHint": False, "destructiveHint": True}
EXPECTED: dict[str, Any] = {
    "name": "wipe",
    "description": "Wipe the cache.",
    "argsSchema": OBJ,
    "title": "Wipe cache",
    "annotations": {"readOnlyHint": False, "destructiveHint": True},
}


def _define(**meta: Any) -> Session:
    return Session(
        tools=[define_tool(name="wipe", description="Wipe the cache.", schema=OBJ, **meta)]
    )


def _decorator(**meta: Any) -> Session:
    @tool("wipe", description="Wipe the cache.", schema=OBJ, **meta)
    def wipe(args: Any) -> None: ...

    return Session(tools=[wipe])


def _typed_decorator(**meta: Any) -> Session:
    @tool(**meta)
    def wipe() -> None:
        """Wipe the cache."""

    return Session(tools=[wipe])


def _on_tool(**meta: Any) -> Session:
    session = Session()
    session.on_tool("wipe", description="Wipe the cache.", schema=OBJ, **meta)(lambda args: None)
    return session


def _session_tool(**meta: Any) -> Session:
    session = Session()

    def wipe() -> None:
        """Wipe the cache."""

    session.tool(**meta)(wipe)
    return session


def _manifest(**meta: Any) -> Session:
    return Session.from_manifest(
        {"tools": [{"name": "wipe", "description": "Wipe the cache.", "argsSchema": OBJ, **meta}]}
    )


WAYS: list[Callable[..., Session]] = [
    _define,
    _decorator,
    _typed_decorator,
    _on_tool,
    _session_tool,
    _manifest,
]


@pytest.mark.parametrize("declare", WAYS)
def test_every_way_carries_title_and_annotations(declare: Callable[..., Session]) -> None:
    session = declare(title="Wipe cache", annotations=HINTS)
    assert session.tool_spec("wipe") == EXPECTED
    assert session.manifest()["tools"] == [EXPECTED]
    assert mcp.tools(session) == [
        {
            "name": "wipe",
            "description": "Wipe the cache.",
            "inputSchema": OBJ,
            "title": "Wipe cache",
            "annotations": {"readOnlyHint": False, "destructiveHint": True},
        }
    ]


@pytest.mark.parametrize("declare", WAYS)
def test_without_metadata_nothing_is_written(declare: Callable[..., Session]) -> None:
    session = declare()
    assert session.tool_spec("wipe") == {
        "name": "wipe",
        "description": "Wipe the cache.",
        "argsSchema": OBJ,
    }
    assert mcp.tools(session) == [
        {"name": "wipe", "description": "Wipe the cache.", "inputSchema": OBJ}
    ]


def test_the_manifest_round_trips() -> None:
    first = _define(title="Wipe cache", annotations=HINTS)
    again = Session.from_manifest(first.manifest())
    assert again.manifest() == first.manifest()


def test_the_definition_keeps_its_own_copy() -> None:
    hints = {"readOnlyHint": True}
    definition = define_tool(name="t", description="T.", schema=OBJ, annotations=hints)  # type: ignore[arg-type]
    hints["readOnlyHint"] = False
    definition.spec()["annotations"]["readOnlyHint"] = False
    assert definition.annotations == {"readOnlyHint": True}
    assert definition.spec()["annotations"] == {"readOnlyHint": True}


@pytest.mark.parametrize(
    ("meta", "message", "details"),
    [
        (
            {"annotations": {"destructivehint": True}},
            'Tool "wipe": unknown annotation "destructivehint"; the hints are readOnlyHint, '
            "destructiveHint, idempotentHint, openWorldHint.",
            {"tool": "wipe", "field": "annotations", "hint": '"destructivehint"'},
        ),
        (
            {"annotations": {"destructiveHint": "true"}},
            'Tool "wipe": annotation destructiveHint must be true or false, got "true".',
            {"tool": "wipe", "field": "annotations", "hint": "destructiveHint"},
        ),
        (
            {"annotations": {"readOnlyHint": 1}},
            'Tool "wipe": annotation readOnlyHint must be true or false, got 1.',
            {"tool": "wipe", "field": "annotations", "hint": "readOnlyHint"},
        ),
        (
            {"annotations": ["readOnlyHint"]},
            'Tool "wipe": annotations must be a dict of hints (readOnlyHint, destructiveHint, '
            "idempotentHint, openWorldHint), got list.",
            {"tool": "wipe", "field": "annotations"},
        ),
        (
            {"title": ""},
            'Tool "wipe": title must be a non-empty string (a name for people), got an empty '
            "string.",
            {"tool": "wipe", "field": "title"},
        ),
        (
            {"title": 3},
            'Tool "wipe": title must be a non-empty string (a name for people), got int.',
            {"tool": "wipe", "field": "title"},
        ),
    ],
)
@pytest.mark.parametrize("declare", WAYS)
def test_bad_metadata_is_refused_at_declaration(
    declare: Callable[..., Session], meta: dict[str, Any], message: str, details: Any
) -> None:
    with pytest.raises(PedelecError) as caught:
        declare(**meta)
    assert (caught.value.code, caught.value.message, caught.value.details) == (
        "INVALID_INPUT",
        message,
        details,
    )


def test_metadata_needs_a_declaration() -> None:
    session = _define()
    with pytest.raises(PedelecError) as caught:
        session.on_tool("wipe", title="Wipe")
    assert caught.value.message == (
        'Tool "wipe": description, timeout_ms, title, annotations and sequential only apply when declaring '
        "the tool with schema=."
    )


# --- pedelec check --------------------------------------------------------------------------

CHECK_SOURCE = """
from pedelec import Session
session = Session()
OBJ = {"type": "object", "properties": {}}
def handle(args):
    return None
for name, description, hints in [
    ("delete_user", "Delete a user.", None),
    ("filesRemove", "Files.", None),
    ("ledger.transfer", "Ledger.", {"destructiveHint": False}),
    ("notes", "Pay an invoice.", None),
    ("purge_logs", "Purge the logs.", {"destructiveHint": True}),
    ("payload", "Read the payload; removes nothing, dropdowns included.", None),
]:
    session.on_tool(name, description=description, schema=OBJ, annotations=hints)(handle)
"""


def test_check_warns_about_unmarked_destructive_tools(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "risky.py"
    target.write_text(CHECK_SOURCE, encoding="utf-8")
    code = main(["check", f"{target}:session"])
    out, err = capsys.readouterr()
    hint = 'but is not marked annotations={"destructiveHint": True}, so a client cannot tell it '
    assert (code, out, err) == (
        0,
        f'warning: delete_user: tool sounds destructive ("delete") {hint}apart from a safe one\n'
        f'warning: filesRemove: tool sounds destructive ("remove") {hint}apart from a safe one\n'
        f'warning: ledger.transfer: tool sounds destructive ("transfer") {hint}apart from a safe '
        "one\n"
        f'warning: notes: tool sounds destructive ("pay") {hint}apart from a safe one\n'
        "6 tools checked: 0 errors, 4 warnings\n",
        "",
    )
