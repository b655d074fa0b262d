"""Every file in ``examples/`` runs, offline, and prints what the docs say it prints.

Each example runs as a user would run it (``python examples/x.py`` in a subprocess, from the
repository root, with this interpreter) under a timeout. The OpenAI and Anthropic loops run
without an API key, against their scripted stand-in models. ``mcp_server.py`` is a stdio MCP
server: it is driven by the official MCP client.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
TIMEOUT_S = 60

# The keys an example must not see, so that it takes its offline path.
API_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")


def run_example(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in API_KEYS}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=TIMEOUT_S,
    )


# example -> (command-line args, the exact lines it prints). Lines are compared whole.
OUTPUT: dict[str, tuple[tuple[str, ...], list[str]]] = {
    "counter.py": ((), ['{"value":3}']),
    "otel_server.py": ((), []),
    "otel_spans.py": (
        (),
        [
            "execute_tool update_counter call_1 None",
            "execute_tool update_counter call_2 TOOL_ARGS_INVALID",
            "agent turn None None",
        ],
    ),
    "long_task.py": ((), ['{"copied":2}']),
    "mcp_asgi.py": ((), ['update_counter -> {"value":3}']),
    "audited_server.py": (
        (),
        [
            "audit: call_1 drop_table {'table': 'logs'} -> ok",
            '{"dropped":"logs"}',
            "audit: call_2 drop_table {'table': 'users'} -> FORBIDDEN",
            '{"error":{"code":"FORBIDDEN","message":"Table users is protected."}}',
        ],
    ),
    "openai_loop.py": ((), ['Done: {"value":3}']),
    "anthropic_loop.py": ((), ['Done: {"value":3}']),
    "typed_tools.py": (
        (),
        [
            "add_card: Add a card to the task board. (required: title)",
            '  title: {"type": "string", "minLength": 1, "maxLength": 80, "description": '
            '"The card\'s title, as the user said it."}',
            '  column: {"type": "string", "enum": ["todo", "doing", "done"], "description": '
            '"The column the card starts in.", "default": "todo"}',
            '  labels: {"type": "array", "items": {"type": "string", "pattern": '
            '"^[a-z][a-z0-9-]*$", "maxLength": 20}, "maxItems": 5, "uniqueItems": true, '
            '"description": "Lower-case labels, at most five."}',
            '  priority: {"type": "integer", "enum": [1, 2, 3], "description": '
            '"1 (low), 2 (normal) or 3 (high).", "default": 2}',
            '  due: {"type": "object", "properties": {"date": {"type": "string", "pattern": '
            '"^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "YYYY-MM-DD."}, "time": {"type": '
            '"string", "pattern": "^[0-2][0-9]:[0-5][0-9]$", "description": "HH:MM."}}, '
            '"required": ["date"], "description": "When the card is due, if the user said so."}',
            "list_cards: List the cards on the board, optionally of one column. (required: -)",
            '  column: {"type": "string", "enum": ["todo", "doing", "done"]}',
            'add_card -> {"id":1,"title":"Ship v1","column":"todo","labels":["release"],'
            '"priority":"high"}',
            'add_card -> Invalid arguments for tool "add_card": /title: must be at least 1 '
            'character long, got 0 (minLength); /column: must be one of "todo", "doing", "done"; '
            'got "later" (enum); /labels/0: must match pattern "^[a-z][a-z0-9-]*$", got "Docs" '
            "(pattern). Correct the arguments and call the tool again.",
            'list_cards -> [{"id":1,"title":"Ship v1","column":"todo","labels":["release"],'
            '"priority":"high"}]',
        ],
    ),
    "strict_mode.py": (
        (),
        [
            'openai: {"query":"milk","limit":10}',
            "not strict: /properties/meta",
            "not strict: the tool's arguments object declares no properties, so it accepts any "
            "arguments, and strict mode closes every object",
            'anthropic: {"error":{"code":"TOOL_ARGS_INVALID","message":"Invalid arguments for '
            'tool \\"notes__search\\": (root): missing required property \\"query\\" '
            "(required); /limit: must be >= 1, got 0 (minimum). Correct the arguments and call "
            'the tool again.","details":{"tool":"notes__search","errors":[{"path":"",'
            '"keyword":"required","message":"missing required property \\"query\\""},'
            '{"path":"/limit","keyword":"minimum","message":"must be >= 1, got 0"}]}}}',
        ],
    ),
    "interactive_confirm.py": (
        (),
        [
            "ui: call_1 asks: delete notes.txt, draft.md?",
            "ui: call_1 answered yes",
            'agent gets: {"deleted":["notes.txt","draft.md"]}',
            "ui: call_2 asks: delete thesis.tex?",
            "ui: call_2 answered no",
            'agent gets: {"error":{"code":"USER_DECLINED","message":"The user declined to delete '
            'these files; do not try again unless they ask.","details":{"paths":["thesis.tex"]}}}',
            "ui: call_3 asks: delete old.log?",
            "tool: call_3 cancelled (ctx.cancelled=True)",
            "ui: call_3 withdrawn",
            'agent gets: {"error":{"code":"TOOL_TIMEOUT","message":"Tool \\"delete_files\\" did '
            'not finish within 200 ms.","details":{"tool":"delete_files","timeoutMs":200}}}',
            "ui: call_4 asks: delete cache.db?",
            "session: ended",
            "tool: call_4 cancelled (ctx.cancelled=True)",
            "ui: call_4 withdrawn",
            'agent gets: {"error":{"code":"SESSION_ENDED","message":"The session ended while tool '
            '\\"delete_files\\" was running; it was cancelled.","details":{"tool":"delete_files"}}}',
            "status: ended",
        ],
    ),
}

# Examples checked by a test of their own below (or, for the main job, in test_project.py,
# which pins its whole output; here it only has to run and show both verdicts).
SPECIAL = {"mcp_server.py", "validate_args.py"}


def test_every_example_is_run() -> None:
    found = {path.name for path in EXAMPLES.glob("*.py")}
    assert found == set(OUTPUT) | SPECIAL


@pytest.mark.parametrize("name", sorted(OUTPUT))
def test_example_prints_what_the_docs_show(name: str) -> None:
    args, lines = OUTPUT[name]
    completed = run_example(name, *args)
    assert (completed.returncode, completed.stderr) == (0, "")
    assert completed.stdout.splitlines() == lines


def test_openai_responses_loop_runs_offline() -> None:
    completed = run_example("openai_loop.py", "--responses")
    assert (completed.returncode, completed.stdout, completed.stderr) == (
        0,
        'Done: {"value":3}\n',
        "",
    )


def test_validate_args_main_job() -> None:
    completed = run_example("validate_args.py")
    assert (completed.returncode, completed.stderr) == (0, "")
    lines = completed.stdout.splitlines()
    assert lines[0] == "schema add_card: inside the subset, compiled"
    assert "  is_valid: True" in lines
    assert "  is_valid: False" in lines
    assert lines[-2].startswith("schema with exclusiveMinimum rejected: INVALID_INPUT: ")


def test_mcp_server_example_answers_an_mcp_client() -> None:
    anyio = pytest.importorskip("anyio")
    mcp = pytest.importorskip("mcp")

    server = mcp.StdioServerParameters(
        command=sys.executable,
        args=[str(EXAMPLES / "mcp_server.py")],
        cwd=str(ROOT),
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        },
    )
    seen: dict[str, object] = {}

    async def talk() -> None:
        with anyio.fail_after(TIMEOUT_S):
            async with mcp.Client(server, mode="legacy") as client:
                listed = (await client.list_tools()).tools
                seen["tools"] = [(tool.name, tool.input_schema["required"]) for tool in listed]
                ok = await client.call_tool("update_counter", {"delta": 2})
                seen["ok"] = (ok.is_error, ok.structured_content)
                bad = await client.call_tool("update_counter", {"delta": 300})
                seen["bad"] = (bad.is_error, bad.content[0].text)

    anyio.run(talk)
    assert seen == {
        "tools": [("update_counter", ["delta"])],
        "ok": (False, {"value": 2}),
        "bad": (
            True,
            '{"error":{"code":"TOOL_ARGS_INVALID","message":"Invalid arguments for tool '
            '\\"update_counter\\": /delta: must be <= 100, got 300 (maximum). Correct the '
            'arguments and call the tool again.","details":{"tool":"update_counter","errors":'
            '[{"path":"/delta","keyword":"maximum","message":"must be <= 100, got 300"}]}}}',
        ),
    }
