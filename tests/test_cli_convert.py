"""``pedelec convert FILE`` (issue 13, Deliver 5): whole outputs, exit statuses and errors."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from pedelec.cli import main

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


FOREIGN = {
    "type": "object",
    "properties": {"n": {"type": "integer", "exclusiveMinimum": 0, "title": "N"}},
    "additionalProperties": False,
}
CONVERTED = {
    "schema": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}},
    "changes": [
        {
            "pointer": "/properties/n/exclusiveMinimum",
            "was": 0,
            "became": {"minimum": 1},
            "reason": '"exclusiveMinimum" became "minimum" 1, the nearest integer inside the '
            "bound, which allows the same integers.",
        },
        {
            "pointer": "/properties/n/title",
            "was": "N",
            "became": None,
            "reason": '"title" only annotates; it was dropped.',
        },
        {
            "pointer": "/additionalProperties",
            "was": False,
            "became": None,
            "reason": '"additionalProperties": false was dropped: a Tool Args Schema allows '
            "undeclared properties; to reject undeclared arguments, use "
            "Session(reject_unknown_args=True).",
        },
    ],
}


def test_convert_prints_the_schema_and_every_change(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(FOREIGN), encoding="utf-8")
    code, out, err = run("convert", str(path))
    assert (code, err) == (0, "")
    assert out == json.dumps(CONVERTED, indent=2, ensure_ascii=False) + "\n"


def test_convert_reads_stdin(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(json.dumps(FOREIGN).encode()))
    monkeypatch.setattr(sys, "stdin", stdin)
    code, out, err = run("convert", "-")
    assert (code, json.loads(out), err) == (0, CONVERTED, "")


def test_convert_of_something_not_close_is_one_error_line(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "schema.json"
    path.write_text('{"type": "string"}', encoding="utf-8")
    assert run("convert", str(path)) == (
        1,
        "",
        "pedelec: error: Cannot convert the schema to a Tool Args Schema (1 problem): at the "
        'root: the root must be an object node, got "type": "string"; a tool\'s arguments are '
        "always an object, so wrap the value in a property.\n",
    )


def test_convert_of_a_missing_file_is_a_usage_error(run: Run, tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    assert run("convert", str(missing)) == (
        2,
        "",
        f"pedelec: error: cannot read {missing}: No such file or directory\n",
    )
