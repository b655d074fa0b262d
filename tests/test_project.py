"""Pin the packaging facts users and CI rely on.

These are properties of the installed distribution and of the repository, not of the code: the
console script, ``py.typed``, the single runtime dependency, a light ``import pedelec``, and the
README's commands matching what CI runs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata, resources
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent

# Modules that cost real time or start machinery at import; pedelec loads them lazily, inside the
# functions that need them, so `import pedelec` stays close to `import typing_extensions`.
HEAVY_MODULES = (
    "asyncio",
    "concurrent",
    "dataclasses",
    "difflib",
    "json",
    "logging",
    "opentelemetry",
    "threading",
)

TEST_COMMAND = (
    "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest"
)
MAIN_JOB_COMMAND = (
    "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/pedelec tool-call"
    """ examples/counter.py:session update_counter '{"delta": 3}'"""
)


def test_console_script_points_at_the_cli() -> None:
    (entry,) = metadata.entry_points(group="console_scripts", name="pedelec")
    assert entry.value == "pedelec.cli:main"
    assert entry.dist is not None
    assert entry.dist.name == "pedelec"


def test_package_is_marked_typed() -> None:
    assert resources.files("pedelec").joinpath("py.typed").is_file()
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    # hatchling ships every file of the package directory, py.typed included.
    assert pyproject["build-system"]["build-backend"] == "hatchling.build"
    assert pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == ["pedelec"]


def test_a_user_project_outside_the_checkout_type_checks(tmp_path: Path) -> None:
    """``mypy --strict`` finds the installed pedelec from a directory that is not the checkout.

    The editable install must be a path entry that type checkers read (setuptools' import-hook
    finder is invisible to them: every pedelec name would be a missing import). CI runs the
    same check in ``.ci/run``.
    """
    pytest.importorskip("mypy")
    shutil.copy(ROOT / "tests" / "typing_user_project" / "app.py", tmp_path / "app.py")
    completed = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "app.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": "", "PYTHONPATH": ""},
    )
    assert (completed.stdout, completed.returncode) == (
        "Success: no issues found in 1 source file\n",
        0,
    )


def test_only_runtime_dependency_is_typing_extensions() -> None:
    requirements = [Requirement(text) for text in metadata.requires("pedelec") or []]
    runtime = [req.name for req in requirements if req.marker is None]
    assert runtime == ["typing-extensions"]


def test_import_pedelec_loads_no_heavy_module() -> None:
    script = (
        "import sys; import pedelec; "
        f"print(','.join(m for m in {HEAVY_MODULES!r} if m in sys.modules))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert completed.stdout == "\n"
    assert completed.stderr == ""


def test_readme_test_command_is_what_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert f"\n{TEST_COMMAND}\n" in readme
    assert f"\n{TEST_COMMAND} || rc=$?\n" in ci


def test_readme_main_job_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"\n{MAIN_JOB_COMMAND}\n" in readme
    assert (ROOT / "examples" / "counter.py").is_file()


def test_main_job_answers_the_tool_call() -> None:
    """The README's main job, run as the console script right after installation."""
    script = Path(sys.executable).parent / "pedelec"
    completed = subprocess.run(
        [str(script), "tool-call", "examples/counter.py:session", "update_counter", '{"delta": 3}'],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    assert completed.stdout == '{"ok":true,"result":{"value":3}}\n'
    assert completed.stderr == ""


def test_conformance_data_keeps_its_attribution() -> None:
    readme = (ROOT / "tests" / "conformance" / "README.md").read_text(encoding="utf-8")
    assert "JSON-Schema-Test-Suite" in readme
    assert "Copyright (c) 2012 Julian Berman" in readme


def test_main_job_prints_the_checked_schema_and_every_error() -> None:
    completed = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "validate_args.py")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert completed.stderr == ""
    assert completed.stdout.splitlines() == [
        "schema add_card: inside the subset, compiled",
        'args: {"title": "Ship v1", "labels": ["release", "docs"], "priority": 2}',
        "  is_valid: True",
        "  errors: none",
        'args: {"title": "", "labels": ["docs", "Docs", "docs"], "priority": "high"}',
        "  is_valid: False",
        "  error: /title: must be at least 1 character long, got 0 (minLength)",
        '  error: /labels/1: must match pattern "^[a-z][a-z0-9-]*$", got "Docs" (pattern)',
        "  error: /labels/2: duplicate of item 0 (uniqueItems)",
        '  error: /priority: expected integer, got string "high" (type)',
        "schema with exclusiveMinimum rejected: INVALID_INPUT: Invalid schema at"
        ' /properties/delta/exclusiveMinimum: "exclusiveMinimum" is not supported in a Tool Args'
        " Schema integer node (allowed: description, default, examples, enum, minimum, maximum);"
        ' use "minimum" (inclusive) instead.',
        '  details: {"pointer": "/properties/delta/exclusiveMinimum", "keyword": "exclusiveMinimum"}',
    ]


def test_readme_quick_start_runs_as_written() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    session_block, typed_block = re.findall(r"```python\n(.*?)```", readme, flags=re.S)

    scope: dict[str, Any] = {}
    exec(compile(session_block, "README.md", "exec"), scope)
    assert scope["counter"] == {"value": 3}
    assert scope["result"].is_error
    assert scope["result"].to_json()["error"]["message"] == (
        'Invalid arguments for tool "update_counter": /delta: must be <= 100, got 300 (maximum).'
        " Correct the arguments and call the tool again."
    )

    scope = {}
    exec(compile(typed_block, "README.md", "exec"), scope)
    session = scope["session"]
    assert session.dispatch_sync("move", {"steps": 2}).to_json() == {
        "moved": 2,
        "direction": "right",
    }
    assert session.tool_spec("move")["argsSchema"] == {
        "type": "object",
        "properties": {
            "steps": {
                "type": "integer",
                "minimum": 1,
                "maximum": 10,
                "description": "How many cells to move.",
            },
            "direction": {
                "type": "string",
                "enum": ["left", "right"],
                "description": "Which way to go.",
                "default": "right",
            },
        },
        "required": ["steps"],
    }


def test_a_handler_error_prints_nothing_when_the_application_configured_no_logging() -> None:
    """The ``pedelec`` logger has a NullHandler, so Python's last-resort handler stays silent."""
    script = (
        "from pedelec import Session\n"
        "s = Session()\n"
        "@s.on_tool('boom', description='Fails.', schema={'type': 'object'})\n"
        "def boom(args):\n"
        "    raise RuntimeError('secret path /srv/app.py')\n"
        "print(s.dispatch_sync('boom', {}).error.code)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert completed.stdout == "TOOL_HANDLER_ERROR\n"
    assert completed.stderr == ""
