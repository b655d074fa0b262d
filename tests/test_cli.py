"""The ``pedelec`` command line, through ``main([...])`` (plus one run of each entry point)."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pedelec.adapters import anthropic, mcp, openai
from pedelec.cli import main
from pedelec.session import Session

ROOT = Path(__file__).resolve().parent.parent
COUNTER = "examples/counter.py:session"

COUNTER_SPEC = {
    "name": "update_counter",
    "description": "Increase or decrease the visible counter by a signed delta.",
    "argsSchema": {
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
}


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    # Loading a target puts its folder on sys.path; keep that from leaking into other tests.
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.chdir(ROOT)


Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, str], str]:
    """Write a target module into tmp_path and return its path."""

    def write(source: str, name: str = "target.py") -> str:
        path = tmp_path / name
        path.write_text(textwrap.dedent(source), encoding="utf-8")
        return str(path)

    return write


TOOLS_SOURCE = """
    from pedelec.session import Session

    session = Session.from_manifest({"guidance": "Edit text.", "tools": [
        {"name": "editor.replace_selection", "description": "  Replace the selection.\\n\\nMore.",
         "argsSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
        {"name": "a", "description": "Short.", "argsSchema": {"type": "object"}},
    ]})
    """


# --- tools, tool-spec, tool-call ----------------------------------------------------------------


def test_tools_lists_names_and_first_description_lines(run: Run, write: Any) -> None:
    assert run("tools", f"{write(TOOLS_SOURCE)}:session") == (
        0,
        "editor.replace_selection  Replace the selection.\na                         Short.\n",
        "",
    )
    assert run("tools", COUNTER) == (
        0,
        "update_counter  Increase or decrease the visible counter by a signed delta.\n",
        "",
    )


def test_tool_spec(run: Run) -> None:
    """upstream ``ToolDefinition`` through ``serde_json::Value``: keys sorted, timeoutMs filled."""
    code, out, err = run("tool-spec", COUNTER, "update_counter")
    assert (code, err) == (0, "")
    assert out == (
        '{"ok":true,"result":{"argsSchema":{"properties":{"delta":{"description":"How much to '
        'add to the counter; negative to subtract.","maximum":100,"minimum":-100,"type":'
        '"integer"}},"required":["delta"],"type":"object"},"description":"Increase or decrease '
        'the visible counter by a signed delta.","name":"update_counter","timeoutMs":60000}}\n'
    )
    assert json.loads(out)["result"] == {**COUNTER_SPEC, "timeoutMs": 60000}


def test_tool_call_prints_the_ok_envelope(run: Run) -> None:
    assert run("tool-call", COUNTER, "update_counter", '{"delta": 3}') == (
        0,
        '{"ok":true,"result":{"value":3}}\n',
        "",
    )


def test_tool_call_invalid_args_is_not_delivered(run: Run) -> None:
    """upstream ``normalize_tool_call``: a schema mismatch is the Core's error, ``ok: false``;
    the error is a ``PedelecError`` struct (code, message, details) with ``details`` sorted."""
    assert run("tool-call", COUNTER, "update_counter", '{"delta": 300}') == (
        0,
        '{"ok":false,"error":{"code":"TOOL_ARGS_INVALID","message":"Invalid arguments for tool '
        '\\"update_counter\\": /delta: must be <= 100, got 300 (maximum). Correct the '
        'arguments and call the tool again.","details":{"errors":[{"keyword":"maximum",'
        '"message":"must be <= 100, got 300","path":"/delta"}],"tool":"update_counter"}}}\n',
        "",
    )


def test_tool_call_without_args_is_a_usage_error(run: Run) -> None:
    """upstream ``parse_tool_call_args``: anything but exactly NAME and JSON is a usage error."""
    usage = (
        '{"ok":false,"error":{"code":"TOOL_ARGS_INVALID","message":"usage: pedelec tool-call '
        "TARGET <tool_name> '<json_args>'\"}}\n"
    )
    assert run("tool-call", COUNTER, "update_counter") == (0, usage, "")
    assert run("tool-call", COUNTER) == (0, usage, "")
    assert run("tool-call", COUNTER, "update_counter", "{}", "more") == (0, usage, "")
    assert run("tool-spec", COUNTER) == (
        0,
        '{"ok":false,"error":{"code":"TOOL_ARGS_INVALID","message":"usage: pedelec tool-spec '
        'TARGET <tool_name>"}}\n',
        "",
    )


def test_tool_call_reads_args_from_stdin(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"delta": -4}'))
    assert run("tool-call", COUNTER, "update_counter", "-") == (
        0,
        '{"ok":true,"result":{"value":-4}}\n',
        "",
    )


def test_tool_call_handler_error_is_an_answer(run: Run, write: Any) -> None:
    """The TypeScript SDK submits a throwing handler's ``{"error": ...}`` as its result
    (``sdk/src/index.ts`` ``handleToolCall``), so the Core answers and the CLI says ``ok: true``;
    the result is a ``serde_json::Value``, so the error's keys come sorted."""
    target = write(
        """
        from pedelec.session import Session
        session = Session()
        @session.on_tool("fail", description="Fails.", schema={"type": "object"})
        def fail(args):
            raise KeyError("missing")
        """
    )
    assert run("tool-call", f"{target}:session", "fail", "{}") == (
        0,
        '{"ok":true,"result":{"error":{"code":"TOOL_HANDLER_ERROR","details":{"exception":'
        '"KeyError","tool":"fail"},"message":"Tool \\"fail\\" failed: KeyError: \'missing\'"}}}\n',
        "pedelec: the handler of tool \"fail\" raised: KeyError: 'missing'\n",
    )


@pytest.mark.parametrize(
    ("argv", "out"),
    [
        (
            ("tool-call", COUNTER, "update_counter", '{"delta": 3'),
            '{"ok":false,"error":{"code":"TOOL_ARGS_INVALID","message":"args are not valid JSON: '
            'expected \\",\\" or \\"}\\" after the value at /delta (line 1, column 12), found '
            'the end of the text; fix the JSON syntax.","details":{"column":12,"line":1,'
            '"pointer":"/delta"}}}\n',
        ),
        (
            ("tool-call", COUNTER, "update_countr", "{}"),
            '{"ok":false,"error":{"code":"TOOL_NOT_FOUND","message":"Unknown tool '
            '\\"update_countr\\". Did you mean \\"update_counter\\"?","details":{"tool":'
            '"update_countr"}}}\n',
        ),
        (
            ("tool-spec", COUNTER, "nope"),
            '{"ok":false,"error":{"code":"TOOL_NOT_FOUND","message":"Unknown tool \\"nope\\". '
            'Available tools: \\"update_counter\\".","details":{"tool":"nope"}}}\n',
        ),
        (
            ("tool-spec", "examples/counter.py:sesion", "update_counter"),
            '{"ok":false,"error":{"code":"PEDELEC_TARGET_INVALID","message":"examples/counter.py '
            'has no attribute \'sesion\'","details":{"target":"examples/counter.py:sesion"}}}\n',
        ),
    ],
)
def test_bad_json_unknown_tools_and_targets_are_envelopes(
    run: Run, argv: tuple[str, ...], out: str
) -> None:
    assert run(*argv) == (0, out, "")


# --- manifest -----------------------------------------------------------------------------------


def counter_session() -> Session:
    from pedelec.cli._target import load_target

    return load_target(COUNTER)


@pytest.mark.parametrize(
    ("fmt", "export"),
    [
        ("pedelec", lambda s: s.manifest()),
        ("openai", openai.chat_tools),
        ("openai-responses", openai.responses_tools),
        ("anthropic", anthropic.tools),
        ("mcp", mcp.tools),
    ],
)
def test_manifest_formats(run: Run, fmt: str, export: Callable[[Session], Any]) -> None:
    code, out, err = run("manifest", COUNTER, "--format", fmt)
    assert (code, err) == (0, "")
    assert json.loads(out) == export(counter_session())


def test_manifest_defaults_to_the_pedelec_format(run: Run) -> None:
    code, out, _ = run("manifest", COUNTER)
    assert code == 0
    assert json.loads(out) == {
        "guidance": "Use update_counter to change the visible counter.",
        "tools": [COUNTER_SPEC],
    }


def test_manifest_export_error_exits_1(run: Run, write: Any) -> None:
    target = write(
        """
        from pedelec.session import Session
        session = Session.from_manifest([
            {"name": "a.b", "description": "Dotted.", "argsSchema": {"type": "object"}},
            {"name": "a__b", "description": "Underscored.", "argsSchema": {"type": "object"}},
        ])
        """
    )
    assert run("manifest", f"{target}:session", "--format", "anthropic") == (
        1,
        "",
        'pedelec: error: INVALID_INPUT: Tools "a.b" and "a__b" would both be sent to Anthropic '
        'as "a__b" (each "." is sent as "__"); rename one of them.\n',
    )
    code, out, _ = run("manifest", f"{target}:session", "--format", "mcp")
    assert code == 0
    assert [tool["name"] for tool in json.loads(out)] == ["a.b", "a__b"]


# --- check --------------------------------------------------------------------------------------

LINT_SOURCE = """
    from pedelec.session import Session

    def s(**extra):
        return {"type": "string", "maxLength": 5, "description": "A string.", **extra}

    session = Session.from_manifest({"tools": [
        {"name": "tag", "description": "Tag things.", "argsSchema": {
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"},
                         "description": "Tags."},
                "id": {"oneOf": [{"type": "integer"}, {"type": "number"}], "description": "Id."},
                "target": {"oneOf": [
                    {"type": "object", "properties": {"path": s()}, "required": ["path"]},
                    {"type": "object", "properties": {"url": s()}, "required": ["url"]},
                ], "description": "Target."},
                "mode": {"oneOf": [{"type": "string", "enum": ["a", "b"]},
                                   {"type": "string", "enum": ["c"]}]},
                "n": {"oneOf": [{"type": "integer", "maximum": 0},
                                {"type": "integer", "minimum": 1}], "description": "N."},
                "m": {"oneOf": [{"type": "number", "maximum": 0.5},
                                {"type": "number", "minimum": 0.25}], "description": "M."},
                "w": {"oneOf": [s(maxLength=2), s(minLength=2)], "description": "W."},
                "list": {"oneOf": [
                    {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3},
                    {"type": "array", "items": {"type": "number"}, "maxItems": 3},
                ], "description": "List."},
                "kind": {"oneOf": [{"type": "boolean"}, {"type": "string", "maxLength": 1}],
                         "description": "Kind."},
            },
        }},
        {"name": "bare", "description": "No handler yet.", "argsSchema": {"type": "object"}},
    ]})
    session.on_tool("tag")(lambda args: args)
    """

LINT_REPORT = """\
warning: tag /properties/mode: property has no description to tell the model what to send
warning: tag /properties/tags: array has no maxItems, so an agent may send any number
warning: tag /properties/tags/items: string has a pattern but no maxLength, so the agent may send any length (the pattern runs on up to Limits.max_pattern_length characters; longer strings fail)
warning: tag /properties/id: oneOf branches 0 and 1 both accept 1, so that value matches no branch (oneOf needs exactly one)
warning: tag /properties/target: oneOf branches 0 and 1 both accept {"path":"","url":""}, so that value matches no branch (oneOf needs exactly one)
warning: tag /properties/m: oneOf branches 0 and 1 both accept 0.5, so that value matches no branch (oneOf needs exactly one)
warning: tag /properties/w: oneOf branches 0 and 1 both accept "aa", so that value matches no branch (oneOf needs exactly one)
warning: tag /properties/list: oneOf branches 0 and 1 both accept [1], so that value matches no branch (oneOf needs exactly one)
warning: bare: tool has no handler
2 tools checked: 0 errors, 9 warnings
"""


def test_check_reports_lint_warnings(run: Run, write: Any) -> None:
    target = f"{write(LINT_SOURCE)}:session"
    assert run("check", target) == (0, LINT_REPORT, "")
    assert run("check", target, "--strict") == (1, LINT_REPORT, "")


def test_check_passes_the_counter_example(run: Run) -> None:
    assert run("check", COUNTER, "--strict") == (0, "1 tool checked: 0 errors, 0 warnings\n", "")


def test_check_shows_a_schema_error_with_tool_and_pointer(run: Run, write: Any) -> None:
    target = write(
        """
        from pedelec.session import Session
        session = Session()
        @session.on_tool("tag", description="Tag.",
                         schema={"type": "object", "properties": {"x": {"type": "array"}}})
        def tag(args):
            return args
        """
    )
    assert run("check", f"{target}:session") == (
        1,
        'error: INVALID_INPUT: Invalid schema for tool "tag" at /properties/x: an array node '
        'needs "items", the node every item must match; add e.g. "items": {"type": "string"}.\n'
        "1 error\n",
        "",
    )


def test_check_warns_about_provider_names(run: Run, write: Any) -> None:
    target = write(
        """
        from pedelec.session import Session
        session = Session.from_manifest([
            {"name": "a.b", "description": "Dotted.", "argsSchema": {"type": "object"}},
            {"name": "a__b", "description": "Underscored.", "argsSchema": {"type": "object"}},
        ])
        session.on_any_tool(lambda tool, args, ctx: None)
        """
    )
    assert run("check", f"{target}:session") == (
        0,
        'warning: a.b, a__b: Tools "a.b" and "a__b" would both be sent to OpenAI/Anthropic as '
        '"a__b" (each "." is sent as "__"); rename one of them.\n'
        "2 tools checked: 0 errors, 1 warning\n",
        "",
    )


# --- targets ------------------------------------------------------------------------------------


def test_module_targets_and_factories(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "cli_pkg_targets"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "tools.py").write_text(
        textwrap.dedent(
            """
            from pedelec.session import Session

            class Holder:
                def make(self):
                    return Session.from_manifest([
                        {"name": "made", "description": "Made.", "argsSchema": {"type": "object"}}
                    ])

            holder = Holder()
            make_session = holder.make
            """
        ),
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    assert run("tools", "cli_pkg_targets.tools:make_session") == (0, "made  Made.\n", "")
    assert run("tools", "cli_pkg_targets.tools:holder.make") == (0, "made  Made.\n", "")


BAD_TARGETS: list[tuple[str, str, int, str]] = [
    (
        "no attribute part",
        "{file}",
        2,
        "TARGET '{file}' must look like path/to/file.py:session or package.module:session",
    ),
    ("missing file", "nowhere/none.py:session", 2, "no such file: nowhere/none.py"),
    ("missing module", "no_such_module_xyz:session", 2, "no module named 'no_such_module_xyz'"),
    ("missing attribute", "{file}:sesion", 2, "{file} has no attribute 'sesion'"),
    (
        "not a session",
        "{file}:number",
        2,
        "{file}:number is a int, not a pedelec Session or a function that returns one",
    ),
    (
        "factory needs arguments",
        "{file}:needs_args",
        2,
        "{file}:needs_args needs arguments; point TARGET at a Session or a function that takes none and returns one",
    ),
    (
        "factory raises",
        "{file}:raises",
        1,
        "calling {file}:raises() raised RuntimeError: no database",
    ),
    (
        "factory returns something else",
        "{file}:returns_dict",
        2,
        "{file}:returns_dict() returned a dict, not a pedelec Session",
    ),
]

BAD_TARGET_SOURCE = """
    number = 3

    def needs_args(config):
        return config

    def raises():
        raise RuntimeError("no database")

    def returns_dict():
        return {}
    """


@pytest.mark.parametrize(
    ("target", "code", "message"),
    [case[1:] for case in BAD_TARGETS],
    ids=[case[0] for case in BAD_TARGETS],
)
def test_bad_targets_give_one_line(
    run: Run, write: Any, target: str, code: int, message: str
) -> None:
    file = write(BAD_TARGET_SOURCE)
    assert run("tools", target.format(file=file)) == (
        code,
        "",
        f"pedelec: error: {message.format(file=file)}\n",
    )


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("1 / 0\n", "loading {file} raised ZeroDivisionError: division by zero"),
        (
            "import no_such_dependency_xyz\n",
            "loading {file} raised ModuleNotFoundError: No module named 'no_such_dependency_xyz'",
        ),
        ("def broken(:\n", "loading {file} raised SyntaxError: invalid syntax (target.py, line 1)"),
    ],
)
def test_a_target_that_fails_to_load_exits_1(
    run: Run, write: Any, source: str, message: str
) -> None:
    file = write(source)
    assert run("tools", f"{file}:session") == (
        1,
        "",
        f"pedelec: error: {message.format(file=file)}\n",
    )


# --- help and entry points ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "command", ["tools", "tool-spec", "tool-call", "manifest", "check", "serve"]
)
def test_every_command_has_help(run: Run, command: str) -> None:
    code, out, err = run(command, "--help")
    assert (code, err) == (0, "")
    assert out.startswith(f"usage: pedelec {command} [-h]")
    assert "TARGET" in out


def test_usage_errors_exit_2(run: Run) -> None:
    code, out, err = run("tools")
    assert (code, out) == (2, "")
    assert err.endswith("pedelec tools: error: the following arguments are required: TARGET\n")
    code, _, err = run("manifest", COUNTER, "--format", "yaml")
    assert code == 2
    assert err.endswith(
        "pedelec manifest: error: argument --format: invalid choice: 'yaml' (choose from "
        "'pedelec', 'openai', 'openai-responses', 'anthropic', 'mcp')\n"
    )


def test_version(run: Run) -> None:
    from pedelec import __version__

    assert run("--version") == (0, f"pedelec {__version__}\n", "")


def test_python_dash_m_pedelec() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "pedelec", "--help"], capture_output=True, text=True, cwd=ROOT
    )
    assert (completed.returncode, completed.stderr) == (0, "")
    assert completed.stdout.startswith("usage: pedelec [-h] [--version] COMMAND ...")


def test_console_script_runs_the_readme_command() -> None:
    script = shutil.which("pedelec", path=str(Path(sys.executable).parent))
    assert script is not None, "the pedelec console script is not installed (pip install -e .)"
    completed = subprocess.run(
        [script, "tool-call", COUNTER, "update_counter", '{"delta": 3}'],
        capture_output=True,
        text=True,
        cwd=ROOT,
        # The script imports pedelec from wherever it was installed; this tree is under test.
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert (completed.returncode, completed.stderr) == (0, "")
    assert completed.stdout == '{"ok":true,"result":{"value":3}}\n'


# --- the docs pages ---------------------------------------------------------------------------

DOC_PAGES = ["docs/cli.md", "docs/integrations/openai.md", "docs/integrations/anthropic.md"]
DOC_PAGES += ["docs/integrations/mcp.md"]


def fenced_blocks(page: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced code block of a Markdown page."""
    blocks = []
    lines = (ROOT / page).read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("```"):
            lang = lines[i][3:].strip()
            end = lines.index("```", i + 1)
            blocks.append((lang, "\n".join(lines[i + 1 : end])))
            i = end
        i += 1
    return blocks


@pytest.mark.parametrize("page", DOC_PAGES)
def test_doc_code_comes_from_examples(page: str) -> None:
    for lang, body in fenced_blocks(page):
        if lang != "python":
            continue
        for line in body.splitlines():
            # Every Python block is included from an example that the tests run.
            assert line.startswith('--8<-- "examples/'), line
            ref = line.removeprefix("--8<-- ").strip('"')
            path, _, section = ref.partition(":")
            text = (ROOT / path).read_text(encoding="utf-8")
            if section:
                assert f"# --8<-- [start:{section}]" in text
                assert f"# --8<-- [end:{section}]" in text


def console_sessions() -> list[tuple[str, str]]:
    sessions = []
    for lang, body in fenced_blocks("docs/cli.md"):
        if lang != "console":
            continue
        command, out = "", []
        for line in [*body.splitlines(), "$ "]:
            if line.startswith("$ "):
                if command.startswith("pedelec ") and "examples/" in command:
                    sessions.append((command, "\n".join(out)))
                command, out = line[2:], []
            else:
                out.append(line)
    return sessions


@pytest.mark.parametrize(("command", "shown"), console_sessions())
def test_cli_reference_shows_real_output(run: Run, command: str, shown: str) -> None:
    import shlex

    code, out, err = run(*shlex.split(command)[1:])
    assert (out + err).rstrip("\n") == shown
    assert code == (2 if "pedelec: error:" in shown else 0)
