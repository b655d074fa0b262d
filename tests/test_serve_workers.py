"""``pedelec serve --transport http --workers 2``: a real parent and two worker processes.

The official ``mcp`` client makes calls until both workers have answered (bounded), every call
is checked to come back with its own answer, and after the parent is stopped (SIGTERM, SIGINT,
or killed outright) every worker process is gone.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

ROOT = Path(__file__).resolve().parent.parent
SERVE = [sys.executable, "-m", "pedelec", "serve"]
WORKERS = ["--transport", "http", "--port", "0", "--workers", "2"]

TARGET_SOURCE = """
import os

from pedelec.session import Session

session = Session()
N = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


@session.on_tool("where", description="Which process answers, and the call's number.", schema=N)
def where(args, ctx):
    return {"n": args["n"], "pid": os.getpid(), "ppid": os.getppid(), "id": ctx.tool_request_id}
"""


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("mcp-workers") / "workers_target.py"
    path.write_text(TARGET_SOURCE, encoding="utf-8")
    return f"{path}:session"


def gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie counts: it runs nothing)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


def wait_gone(pids: set[int], seconds: float) -> set[int]:
    """The pids still running after up to ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = {pid for pid in pids if not gone(pid)}
        if not left:
            return left
        time.sleep(0.1)
    return {pid for pid in pids if not gone(pid)}


async def spread(url: str) -> list[dict[str, Any]]:
    """Calls on fresh connections (each client its own) until both workers answered, at most 60."""
    answers: list[dict[str, Any]] = []
    n = 0
    while n < 60 and (n < 12 or len({a["pid"] for a in answers}) < 2):
        async with Client(url, mode="legacy") as client:
            for _ in range(3):
                result = await client.call_tool("where", {"n": n})
                assert not result.is_error, result
                answers.append({**json.loads(result.content[0].text), "client": n // 3})  # type: ignore[union-attr]
                n += 1
    return answers


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc for the workers' state")
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_two_workers_share_the_calls_and_stop_with_the_parent(
    target: str, stop: signal.Signals, tmp_path: Path
) -> None:
    log = tmp_path / "stderr.txt"
    with log.open("w", encoding="utf-8") as err:
        proc = subprocess.Popen(
            [*SERVE, target, *WORKERS],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    pids: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        lines: list[str] = []
        while len(lines) < 2:
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"server did not start: {log.read_text(encoding='utf-8')}")
            time.sleep(0.05)
            lines = log.read_text(encoding="utf-8").splitlines()
        assert lines[0].startswith("pedelec: serving 1 tool over MCP at http://127.0.0.1:")
        assert lines[1] == "pedelec: 2 worker processes, stateless HTTP"
        url = lines[0].split(" over MCP at ", 1)[1]

        answers = anyio.run(spread, url)
        pids = {a["pid"] for a in answers}
        # Every call came back, in order, with its own number: none lost, none mixed up.
        assert [a["n"] for a in answers] == list(range(len(answers)))
        assert len(pids) == 2, f"one worker answered all {len(answers)} calls"
        assert {a["ppid"] for a in answers} == {proc.pid}
        assert proc.pid not in pids
        # ctx.tool_request_id is the JSON-RPC id, which each client counts up on its own.
        for client in {a["client"] for a in answers}:
            ids = [int(a["id"]) for a in answers if a["client"] == client]
            assert len(ids) == 3 and ids == sorted(set(ids)), ids

        os.kill(proc.pid, stop)
        if stop != signal.SIGKILL:
            assert proc.wait(30) == 0
        else:
            proc.wait(30)
        # A killed parent cannot stop its workers: each notices its parent gone, by itself.
        assert wait_gone(pids, 30) == set()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
        for pid in pids:
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)
    assert "Traceback" not in log.read_text(encoding="utf-8")


def test_a_worker_that_cannot_load_the_target_stops_them_all(tmp_path: Path) -> None:
    # The parent loads the target first; a target that fails only in a worker process.
    path = tmp_path / "parent_only.py"
    path.write_text(
        "import multiprocessing\n"
        "from pedelec.session import Session\n"
        "if multiprocessing.parent_process() is not None:\n"
        "    raise RuntimeError('not in a worker')\n"
        "session = Session()\n",
        encoding="utf-8",
    )
    completed = subprocess.run(
        [*SERVE, f"{path}:session", *WORKERS],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 1
    lines = completed.stderr.splitlines()
    assert lines[-1] == "pedelec: error: a worker process failed to start; its reason is above"
    assert (
        f"pedelec: error: a worker could not start: loading {path} raised RuntimeError: "
        "not in a worker"
    ) in lines
