"""The ``pedelec-cli`` envelope, byte for byte as upstream prints it, and what no call can do to it.

Upstream is the TypeScript SDK's ``desktop/crates/pedelec-cli/src/lib.rs`` (``run``,
``run_tool_cli``, ``parse_tool_cli_args``, ``thread_id_from_env`` and its ``#[test]``s, mirrored
by the first tests here, one for one).
"""

from __future__ import annotations

import io
import logging
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pedelec.cli import main
from pedelec.cli._envelope import dumps_value
from pedelec.cli._tool_cli import tool_cli_main

ROOT = Path(__file__).resolve().parent.parent
COUNTER = "examples/counter.py:session"
ENV = {"PEDELEC_TARGET": COUNTER}

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.chdir(ROOT)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """``pedelec-cli ARGS...`` with the given environment."""

    def cli(*argv: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
        code = tool_cli_main(["pedelec-cli", *argv], ENV if env is None else env)
        out, err = capsys.readouterr()
        return code, out, err

    return cli


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


HOSTILE = """
import asyncio
import concurrent.futures

from pedelec import Limits
from pedelec.session import Session

session = Session(limits=Limits(max_args_bytes=40))
S = {"type": "object", "properties": {"s": {"type": "string"}, "n": {"type": "integer"}}}


class Odd(BaseException):
    pass


@session.on_tool("echo", description="Echo.", schema=S)
def echo(args):
    return {"s": args.get("s")}


@session.on_tool("power", description="Ten to the n.", schema=S)
def power(args):
    return 10 ** args["n"]


@session.on_tool("cancelled", description="Raises CancelledError.", schema=S)
def cancelled(args):
    raise concurrent.futures.CancelledError()


@session.on_tool("acancelled", description="Raises CancelledError.", schema=S)
async def acancelled(args):
    raise asyncio.CancelledError()


@session.on_tool("odd", description="Raises a BaseException.", schema=S)
def odd(args):
    raise Odd("odd")


@session.on_tool("genexit", description="Raises GeneratorExit.", schema=S)
def genexit(args):
    raise GeneratorExit()


@session.on_tool("group", description="Raises a BaseExceptionGroup.", schema=S)
def group(args):
    raise BaseExceptionGroup("many", [Odd("a")])


@session.on_tool("boom", description="Raises ValueError.", schema=S)
def boom(args):
    raise ValueError("bad thing")


@session.on_tool("nothing", description="Returns None.", schema=S)
def nothing(args):
    return None


def odd_factory():
    raise Odd("no session today")
"""


@pytest.fixture
def hostile(tmp_path: Path) -> str:
    path = tmp_path / "hostile.py"
    path.write_text(textwrap.dedent(HOSTILE), encoding="utf-8")
    return str(path)


# --- upstream's #[test]s, one for one ------------------------------------------------------------


def test_invalid_cli_args_return_json_error_shape(cli: Run) -> None:
    """upstream ``invalid_cli_args_return_json_error_shape`` (``parse_tool_cli_args``)."""
    usage = (
        '{"ok":false,"error":{"code":"TOOL_ARGS_INVALID","message":"usage: pedelec-cli tool-spec '
        "<tool_name> OR pedelec-cli tool-call <tool_name> '<json_args>'\"}}\n"
    )
    assert cli() == (0, usage, "")
    assert cli("tools") == (0, usage, "")


def test_invalid_json_args_return_tool_args_invalid(cli: Run) -> None:
    """upstream ``invalid_json_args_return_tool_args_invalid``: parsed before the tool lookup."""
    assert cli("tool-call", "get_app_state", "{") == (
        0,
        '{"ok":false,"error":{"code":"TOOL_ARGS_INVALID","message":"args are not valid JSON: '
        "expected a key in double quotes in the object at the root (line 1, column 2), found the "
        'end of the text; send the complete JSON text.","details":{"column":2,"line":1,"pointer":""}}}\n',
        "",
    )


def test_new_tool_call_format_reads_target_from_env(cli: Run) -> None:
    """upstream ``new_tool_call_format_reads_thread_id_from_env``."""
    assert cli("tool-call", "update_counter", '{"delta": 3}') == (
        0,
        '{"ok":true,"result":{"value":3}}\n',
        "",
    )


def test_tool_spec_format_reads_target_from_env(cli: Run) -> None:
    """upstream ``tool_spec_format_reads_thread_id_from_env``; the spec as ``ToolDefinition``."""
    assert cli("tool-spec", "update_counter") == (
        0,
        '{"ok":true,"result":{"argsSchema":{"properties":{"delta":{"description":"How much to '
        'add to the counter; negative to subtract.","maximum":100,"minimum":-100,"type":'
        '"integer"}},"required":["delta"],"type":"object"},"description":"Increase or decrease '
        'the visible counter by a signed delta.","name":"update_counter","timeoutMs":60000}}\n',
        "",
    )


@pytest.mark.parametrize("env", [{}, {"PEDELEC_TARGET": ""}], ids=["missing", "empty"])
def test_missing_target_env_returns_specific_error(cli: Run, env: dict[str, str]) -> None:
    """upstream ``missing_thread_id_env_returns_specific_error`` (``thread_id_from_env``)."""
    assert cli("tool-call", "get_app_state", "{}", env=env) == (
        0,
        '{"ok":false,"error":{"code":"PEDELEC_TARGET_NOT_FOUND","message":"PEDELEC_TARGET is '
        'required for pedelec-cli tool-call."}}\n',
        "",
    )


def test_blank_target_env_returns_specific_error(cli: Run) -> None:
    """upstream ``blank_thread_id_env_returns_specific_error``: the value is trimmed."""
    assert cli("tool-spec", "get_app_state", env={"PEDELEC_TARGET": "   "}) == (
        0,
        '{"ok":false,"error":{"code":"PEDELEC_TARGET_NOT_FOUND","message":"PEDELEC_TARGET is '
        'required for pedelec-cli tool-spec."}}\n',
        "",
    )


# --- the rest of upstream's rules ------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "usage"),
    [
        (("tool-call", "update_counter"), "usage: pedelec-cli tool-call <tool_name> '<json_args>'"),
        (("tool-call", "a", "{}", "b"), "usage: pedelec-cli tool-call <tool_name> '<json_args>'"),
        (("tool-spec",), "usage: pedelec-cli tool-spec <tool_name>"),
        (("tool-spec", "a", "b"), "usage: pedelec-cli tool-spec <tool_name>"),
    ],
)
def test_argument_counts_are_checked_before_the_env(
    cli: Run, argv: tuple[str, ...], usage: str
) -> None:
    """``parse_tool_call_args`` / ``parse_tool_spec_args`` count before ``thread_id_from_env``."""
    out = f'{{"ok":false,"error":{{"code":"TOOL_ARGS_INVALID","message":"{usage}"}}}}\n'
    assert cli(*argv, env={}) == (0, out, "")


def test_a_target_that_cannot_load_is_an_envelope(cli: Run) -> None:
    assert cli("tool-spec", "x", env={"PEDELEC_TARGET": "examples/nope.py:session"}) == (
        0,
        '{"ok":false,"error":{"code":"PEDELEC_TARGET_INVALID","message":"no such file: '
        'examples/nope.py","details":{"target":"examples/nope.py:session"}}}\n',
        "",
    )


def test_stdin_is_not_a_form_of_pedelec_cli(cli: Run) -> None:
    """Upstream parses ``-`` as JSON text; so does the port's ``pedelec-cli``."""
    code, out, err = cli("tool-call", "update_counter", "-")
    assert (code, err) == (0, "")
    assert out.startswith('{"ok":false,"error":{"code":"TOOL_ARGS_INVALID","message":"args are ')


def test_a_null_result_is_left_out(cli: Run, hostile: str) -> None:
    """``ToolCliResponse.result`` is an ``Option``: ``null`` is skipped when serialised."""
    env = {"PEDELEC_TARGET": f"{hostile}:session"}
    assert cli("tool-call", "nothing", "{}", env=env) == (0, '{"ok":true}\n', "")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({"b": 1, "a": {"d": [], "c": None}}, '{"a":{"c":null,"d":[]},"b":1}'),
        ({"é": 1, "z": 2, "Z": 3}, '{"Z":3,"z":2,"é":1}'),
        ('line\nbreak\x01\x7f"\\/é', '"line\\nbreak\\u0001\x7f\\"\\\\/é"'),
        ([True, False, 0, -0.0, 1.0, 0.5], "[true,false,0,-0.0,1.0,0.5]"),
        (
            [1e15, 1e16, 1.5e-7, 1e-5, 5.5e-5, 1e-4],
            "[1000000000000000.0,1e16,1.5e-7,0.00001,0.000055,0.0001]",
        ),
        (
            [2**63 - 1, -(2**63), 2**64 - 1],
            "[9223372036854775807,-9223372036854775808,18446744073709551615]",
        ),
        ([2**64, -(2**63) - 1, 10**300], "[1.8446744073709552e19,-9.223372036854776e18,1e300]"),
        ([5e-324, 1.7976931348623157e308, 123.456], "[5e-324,1.7976931348623157e308,123.456]"),
    ],
)
def test_values_are_written_as_serde_json_writes_them(value: Any, text: str) -> None:
    """``serde_json::Value``: a ``BTreeMap`` (code-point order), numbers as ``serde_json::Number``."""
    assert dumps_value(value) == text


# --- nothing a handler does prints a traceback (issue 11, item 8) -------------------------------


def handler_error(tool: str, exception: str, message: str) -> str:
    return (
        '{"ok":true,"result":{"error":{"code":"TOOL_HANDLER_ERROR","details":{"exception":'
        f'"{exception}","tool":"{tool}"}},"message":"Tool \\"{tool}\\" failed: {message}"}}}}}}\n'
    )


@pytest.mark.parametrize(
    ("tool", "out"),
    [
        ("cancelled", handler_error("cancelled", "CancelledError", "CancelledError")),
        ("acancelled", handler_error("acancelled", "CancelledError", "CancelledError")),
        ("odd", handler_error("odd", "Odd", "Odd: odd")),
        ("genexit", handler_error("genexit", "GeneratorExit", "GeneratorExit")),
        (
            "group",
            handler_error(
                "group", "BaseExceptionGroup", "BaseExceptionGroup: many (1 sub-exception)"
            ),
        ),
    ],
)
def test_any_handler_exception_is_an_answer(run: Run, hostile: str, tool: str, out: str) -> None:
    code, printed, err = run("tool-call", f"{hostile}:session", tool, "{}")
    assert (code, printed) == (0, out)
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("tool", "args", "reason"),
    [
        ("power", '{"n": 400}', "OverflowError: int too large to convert to float"),
    ],
)
def test_an_answer_that_cannot_be_written_is_submit_failed(
    run: Run, hostile: str, tool: str, args: str, reason: str
) -> None:
    assert run("tool-call", f"{hostile}:session", tool, args) == (
        0,
        '{"ok":false,"error":{"code":"SUBMIT_TOOL_RESULT_FAILED","message":"The result of tool '
        f'\\"{tool}\\" cannot be written as JSON text ({reason}); return plain JSON values.",'
        f'"details":{{"tool":"{tool}"}}}}}}\n',
        "",
    )


def test_args_with_a_lone_surrogate_are_args_invalid(run: Run, hostile: str) -> None:
    """Caught as the args come in (issue 11 finding 4), so the echo never has to fail."""
    assert run("tool-call", f"{hostile}:session", "echo", '{"s": "\\ud800"}') == (
        0,
        '{"ok":false,"error":{"code":"TOOL_ARGS_INVALID","message":"Invalid arguments for tool '
        '\\"echo\\": /s: the string holds a lone surrogate (U+D800), which UTF-8 cannot encode '
        '(type). Correct the arguments and call the tool again.","details":{"errors":[{"keyword":'
        '"type","message":"the string holds a lone surrogate (U+D800), which UTF-8 cannot encode",'
        '"path":"/s"}],"tool":"echo"}}}\n',
        "",
    )


def test_invalid_utf8_on_stdin_is_args_invalid(
    run: Run, hostile: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"s": "\xff"}')))
    assert run("tool-call", f"{hostile}:session", "echo", "-") == (
        0,
        '{"ok":false,"error":{"code":"TOOL_ARGS_INVALID","message":"args are not valid JSON: '
        'byte 7 (line 1, column 8) is not valid UTF-8; send the text as UTF-8.","details":'
        '{"byte":7,"column":8,"line":1}}}\n',
        "",
    )


def test_invalid_utf8_on_the_command_line_is_args_invalid(run: Run, hostile: str) -> None:
    # What Python makes of the argument bytes b'{"s": "\xff"}' (the filesystem encoding's
    # surrogate escapes).
    assert run("tool-call", f"{hostile}:session", "echo", '{"s": "\udcff"}') == (
        0,
        '{"ok":false,"error":{"code":"TOOL_ARGS_INVALID","message":"args are not valid JSON: '
        'byte 7 (line 1, column 8) is not valid UTF-8; send the text as UTF-8.","details":'
        '{"byte":7,"column":8,"line":1}}}\n',
        "",
    )


MAX_BYTES_OUT = (
    '{"ok":false,"error":{"code":"TOOL_ARGS_INVALID","message":"args are too large: the JSON '
    'text is longer than 40 bytes of UTF-8; send smaller args.","details":{"maxBytes":40}}}\n'
)


def test_max_args_bytes_applies(run: Run, hostile: str, monkeypatch: pytest.MonkeyPatch) -> None:
    args = '{"s": "' + "x" * 32 + '"}'
    assert len(args) == 41
    assert run("tool-call", f"{hostile}:session", "echo", args) == (0, MAX_BYTES_OUT, "")
    stdin = io.BytesIO(args.encode() + b"y" * 10_000)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(stdin))
    assert run("tool-call", f"{hostile}:session", "echo", "-") == (0, MAX_BYTES_OUT, "")
    assert stdin.tell() == 41  # read no further than the limit allows


def test_a_handler_exception_is_one_log_line_by_default(run: Run, hostile: str) -> None:
    code, out, err = run("tool-call", f"{hostile}:session", "boom", "{}")
    assert (code, out) == (0, handler_error("boom", "ValueError", "ValueError: bad thing"))
    assert err == 'pedelec: the handler of tool "boom" raised: ValueError: bad thing\n'


def test_traceback_shows_the_traceback(run: Run, hostile: str) -> None:
    code, _, err = run("tool-call", f"{hostile}:session", "boom", "{}", "--traceback")
    assert code == 0
    assert err.startswith('pedelec: the handler of tool "boom" raised\nTraceback')
    assert err.endswith("ValueError: bad thing\n")


def test_log_level_decides_what_reaches_stderr(run: Run, hostile: str) -> None:
    log = logging.getLogger("pedelec")
    before = (log.level, log.propagate, list(log.handlers))
    logging.basicConfig()  # a root handler the target set up does not get a copy
    try:
        for level in ("off", "critical"):
            code, _, err = run(
                "tool-call", f"{hostile}:session", "boom", "{}", "--log-level", level
            )
            assert (code, err) == (0, "")
    finally:
        root = logging.getLogger()
        for handler in root.handlers[:]:
            root.removeHandler(handler)
    assert (log.level, log.propagate, log.handlers) == before  # the command restored them


def test_a_base_exception_in_any_command_is_one_line(run: Run, hostile: str) -> None:
    assert run("tools", f"{hostile}:odd_factory") == (
        1,
        "",
        "pedelec: error: Odd: no session today (run with --traceback for details)\n",
    )
    with pytest.raises(BaseException, match="no session today"):
        main(["tools", f"{hostile}:odd_factory", "--traceback"])


def test_no_traceback_from_a_real_process(hostile: str) -> None:
    """Through the interpreter, stdout and stderr as the user sees them."""
    for tool, args in (("echo", '{"s": "\\ud800"}'), ("power", '{"n": 5000}'), ("cancelled", "{}")):
        done = subprocess.run(
            [sys.executable, "-m", "pedelec", "tool-call", f"{hostile}:session", tool, args],
            capture_output=True,
            cwd=ROOT,
            timeout=60,
        )
        assert done.returncode == 0
        assert b"Traceback" not in done.stderr
        assert done.stdout.startswith(b'{"ok":')
        assert done.stdout.endswith(b"}\n")


SCRIPT = "from pedelec.cli._tool_cli import tool_cli_main as m; m()"


def test_pedelec_cli_is_a_console_script() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["scripts"] == {
        "pedelec": "pedelec.cli:main",
        "pedelec-cli": "pedelec.cli._tool_cli:tool_cli_main",
    }
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, "tool-call", "update_counter", '{"delta": 2}'],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PEDELEC_TARGET": COUNTER, "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        '{"ok":true,"result":{"value":2}}\n',
        "",
    )
