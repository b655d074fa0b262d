"""End to end over MCP: ``pedelec serve`` against the MCP SDK's own ``MCPServer`` (issue 16).

Both servers run the same tool (echo one short string back as an object, an ``async def``
handler on each side) over streamable HTTP on 127.0.0.1, each in its own process under uvicorn,
and the official ``mcp`` client calls it: ``tools/call`` requests one after another, and eight
at a time from one client. Rounds alternate which server goes first, so machine load reaches
both alike; the best calls/s of the rounds is kept. Ratio = pedelec calls/s / MCPServer calls/s
(``1.00x``: the same pace). Both answers are checked before anything is timed.

The client and the server share the machine, and the client is most of the cost of a call, so
this measures what a caller on the same host sees, not the server alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
from mcp import Client
from timing import (
    Settings,
    Target,
    environment_line,
    parse_settings,
    print_table,
    print_targets,
    ratio,
    record,
    write_json,
)

PEDELEC_TARGET = """
from pedelec import Session

session = Session()
TEXT = {"type": "object", "properties": {"text": {"type": "string", "maxLength": 100}},
        "required": ["text"]}


@session.on_tool("echo", description="Echo the text.", schema=TEXT)
async def echo(args):
    return {"text": args["text"]}
"""

MCPSERVER_SCRIPT = """
import socket
import sys

import uvicorn
from mcp.server.mcpserver import MCPServer

server = MCPServer("bench")


@server.tool()
async def echo(text: str) -> dict[str, str]:
    \"\"\"Echo the text.\"\"\"
    return {"text": text}


stateless = sys.argv[1] == "stateless"
app = server.streamable_http_app(stateless_http=stateless)
# Listening before the announcement, as pedelec serve does, so no client is refused.
sock = socket.create_server(("127.0.0.1", 0))
print(f"ready http://127.0.0.1:{sock.getsockname()[1]}/mcp", file=sys.stderr, flush=True)
uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
"""

ARGS = {"text": "hello"}
ANSWER = {"text": "hello"}
CONCURRENCY = 8


@contextmanager
def _server(argv: list[str], marker: str, workdir: Path) -> Iterator[str]:
    """Start a server process, yield the URL it announces on stderr, stop it."""
    import pedelec

    log = workdir / f"{abs(hash(tuple(argv)))}.log"
    tree = os.path.dirname(os.path.dirname(os.path.abspath(pedelec.__file__)))
    env = {**os.environ, "PYTHONPATH": tree + os.pathsep + os.environ.get("PYTHONPATH", "")}
    with log.open("w") as err:
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=env
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            text = log.read_text()
            if marker in text and text.endswith("\n"):
                break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"server did not start: {' '.join(argv)}\n{text}")
            time.sleep(0.05)
        line = next(line for line in text.splitlines() if marker in line)
        yield "http://" + line.split("http://", 1)[1].split()[0]
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(30)


async def _rate(url: str, calls: int, concurrent: bool) -> float:
    """Calls per second of ``calls`` tools/call requests on one client (after a warm-up)."""
    async with Client(url, mode="legacy") as client:
        for _ in range(10):
            result = await client.call_tool("echo", ARGS)
            if result.is_error or result.structured_content != ANSWER:
                raise SystemExit(f"wrong answer from {url}: {result}")

        async def some(n: int) -> None:
            for _ in range(n):
                await client.call_tool("echo", ARGS)

        start = time.perf_counter()
        if concurrent:
            async with anyio.create_task_group() as tg:
                for _ in range(CONCURRENCY):
                    tg.start_soon(some, calls // CONCURRENCY)
        else:
            await some(calls)
        return calls / (time.perf_counter() - start)


def _measure(urls: dict[str, str], calls: int, rounds: int, concurrent: bool) -> dict[str, float]:
    best = dict.fromkeys(urls, 0.0)
    names = list(urls)
    for i in range(rounds):
        for name in names if i % 2 == 0 else names[::-1]:
            best[name] = max(best[name], anyio.run(_rate, urls[name], calls, concurrent))
    return best


def main(argv: list[str] | None = None) -> None:
    settings: Settings = parse_settings(argv, __doc__)
    calls = 64 if settings.quick else 200
    rounds = settings.repeat
    print("# End to end over MCP: pedelec serve against MCPServer (issue 16)\n")
    print(environment_line(settings, ["mcp", "uvicorn"]))
    print(f"{calls} tools/call a round, {rounds} rounds, best kept.\n")
    rows: list[list[str]] = []
    targets: list[Target] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "bench_target.py").write_text(textwrap.dedent(PEDELEC_TARGET))
        (work / "mcpserver_app.py").write_text(MCPSERVER_SCRIPT)
        target = f"{work / 'bench_target.py'}:session"
        for mode in ("stateful", "stateless"):
            flag = ["--stateless"] if mode == "stateless" else []
            with (
                _server(
                    [
                        sys.executable,
                        "-m",
                        "pedelec",
                        "serve",
                        target,
                        "--transport",
                        "http",
                        "--port",
                        "0",
                        *flag,
                    ],
                    "over MCP at",
                    work,
                ) as ours,
                _server(
                    [sys.executable, str(work / "mcpserver_app.py"), mode], "ready", work
                ) as theirs,
            ):
                for concurrent in (False, True):
                    how = f"{CONCURRENCY} at a time" if concurrent else "one after another"
                    best = _measure({"mcp": theirs, "pedelec": ours}, calls, rounds, concurrent)
                    r = best["pedelec"] / best["mcp"]
                    label = f"{mode}, {how}"
                    record(f"{label}: pedelec / MCPServer calls/s", r, higher_is_better=True)
                    rows.append(
                        [label, f"{best['mcp']:.0f}", f"{best['pedelec']:.0f}", ratio(r, 2)]
                    )
                    targets.append(Target(f"{label}: pedelec serve >= 1.0x MCPServer", r, 1.0))
    print_table(["calls", "MCPServer calls/s", "pedelec calls/s", "pedelec / MCPServer"], rows)
    print_targets("end to end", targets)
    write_json(settings)


if __name__ == "__main__":
    main()
