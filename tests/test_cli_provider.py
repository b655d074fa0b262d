"""``pedelec check --provider``: each provider's rules, through ``main([...])``."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from pedelec.cli import main

SOURCE = """
from pedelec.session import Session
session = Session.from_manifest([
    {"name": "notes.tag", "description": "Tag.", "argsSchema": {"type": "object",
        "properties": {"meta": {"type": "object", "description": "Any."},
                       "bad-key": {"type": "string", "enum": ["x"], "description": "Key."}}}},
])
session.on_any_tool(lambda tool, args, ctx: None)
"""

EXPECTED = {
    "openai": [
        "warning: notes.tag /properties/meta: not strict for OpenAI: an object that declares no "
        "properties accepts any keys, and strict mode closes every object",
    ],
    "anthropic": [
        "warning: notes.tag /properties/meta: not strict for Anthropic: an object that declares "
        "no properties accepts any keys, and strict mode closes every object",
    ],
    "gemini": [
        "warning: notes.tag /properties/bad-key: Gemini property names must match "
        "^[a-zA-Z_][a-zA-Z0-9_]{0,63}$",
    ],
    "mcp": [
        'warning: notes.tag: the name contains "." and is served over MCP unchanged; clients '
        "that forward tool names to OpenAI or Anthropic (such as the OpenAI Agents SDK) are "
        "refused",
    ],
}


@pytest.mark.parametrize("provider", sorted(EXPECTED))
def test_check_lints_the_providers_rules(
    provider: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))
    target = tmp_path / "target.py"
    target.write_text(textwrap.dedent(SOURCE), encoding="utf-8")
    code = main(["check", f"{target}:session", "--provider", provider, "--strict"])
    out, _ = capsys.readouterr()
    lines = out.splitlines()
    assert code == 1
    assert lines[-1] == "1 tool checked: 0 errors, 1 warning"
    assert lines[:-1] == EXPECTED[provider]


def test_gemini_names_are_checked_by_gemini_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))
    target = tmp_path / "target.py"
    name = "a" * 65
    target.write_text(
        "from pedelec.session import Session\n"
        "session = Session.from_manifest([{'name': '" + name + "', 'description': 'Long.', "
        "'argsSchema': {'type': 'object'}}])\n"
        "session.on_any_tool(lambda tool, args, ctx: None)\n",
        encoding="utf-8",
    )
    assert main(["check", f"{target}:session", "--provider", "gemini"]) == 0
    out, _ = capsys.readouterr()
    assert out.splitlines() == [
        f'warning: {name}: Tool "{name}" would be sent to Gemini as a name of 65 characters; '
        "Gemini allows at most 64.",
        "1 tool checked: 0 errors, 1 warning",
    ]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_tool_declaring_no_properties_is_not_strict(
    provider: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))
    target = tmp_path / "target.py"
    target.write_text(
        "from pedelec.session import Session\n"
        "session = Session.from_manifest([{'name': 'ping', 'description': 'Ping.', "
        "'argsSchema': {'type': 'object'}}])\n"
        "session.on_any_tool(lambda tool, args, ctx: None)\n",
        encoding="utf-8",
    )
    assert main(["check", f"{target}:session", "--provider", provider]) == 0
    out, _ = capsys.readouterr()
    shown = {"openai": "OpenAI", "anthropic": "Anthropic"}[provider]
    assert out.splitlines() == [
        f"warning: ping (root): not strict for {shown}: the tool's arguments object declares no "
        "properties, so it accepts any arguments, and strict mode closes every object",
        "1 tool checked: 0 errors, 1 warning",
    ]
