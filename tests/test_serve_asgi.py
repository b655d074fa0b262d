"""``pedelec.serve.asgi_app``: mounted in Starlette, run directly, stateless, with its Host checks.

Each app runs in a real uvicorn server on 127.0.0.1 (in a thread of the test process, stopped
on the way out) and is driven by the official ``mcp`` client, or by hand-written HTTP requests
where a header or a JSON-RPC id has to be exactly one thing.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
import uvicorn
from mcp import Client
from mcp.types import CallToolResult
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route
from test_mcp_server import serving

from pedelec import Session
from pedelec._mcp.server import listen
from pedelec.cli import main
from pedelec.cli._http import uses_loopback
from pedelec.serve import McpApp, asgi_app

TEXT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


def make_session() -> Session:
    session = Session(guidance="Tools of the ASGI tests.")

    @session.on_tool("echo", description="Echo the text.", schema=TEXT)
    def echo(args: dict[str, Any]) -> dict[str, Any]:
        return {"text": args["text"]}

    @session.on_tool("whoami", description="The call's request id.", schema={"type": "object"})
    def whoami(args: dict[str, Any], ctx: Any) -> Any:
        return ctx.tool_request_id

    @session.on_tool("chatty", description="Log at info.", schema={"type": "object"})
    def chatty(args: dict[str, Any], ctx: Any) -> str:
        ctx.log("info", "said at info")
        return "logged"

    return session


@contextlib.contextmanager
def running(app: Any) -> Iterator[str]:
    """Serve ``app`` with uvicorn on a free 127.0.0.1 port; yield ``http://127.0.0.1:PORT``."""
    sock = listen("127.0.0.1", 0)
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert thread.is_alive(), "the server stopped while starting"
            assert time.monotonic() < deadline, "the server did not start within 30 s"
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()
    assert not thread.is_alive()


def text_of(result: CallToolResult) -> str:
    (block,) = result.content
    assert block.type == "text"
    return block.text


async def list_and_call(url: str) -> tuple[list[str], str, Any]:
    async with Client(url, mode="legacy") as client:
        listed = [tool.name for tool in (await client.list_tools()).tools]
        info = client.session.initialize_result.server_info  # type: ignore[attr-defined]
        result = await client.call_tool("echo", {"text": "hi"})
        return listed, text_of(result), (info.name, result.structured_content)


def test_mounted_in_starlette_with_the_hosts_lifespan() -> None:
    mcp = asgi_app(make_session(), name="mounted", version="2.0")

    async def health(request: Request) -> PlainTextResponse:
        return PlainTextResponse("ok")

    app = Starlette(
        routes=[Route("/health", health), Mount("/tools", app=mcp)], lifespan=mcp.lifespan
    )
    assert not mcp.running
    with running(app) as base:
        assert mcp.running
        assert httpx2.get(f"{base}/health").text == "ok"
        listed, text, (name, structured) = anyio.run(list_and_call, f"{base}/tools/mcp")
    assert listed == ["echo", "whoami", "chatty"]
    assert (text, name, structured) == ('{"text":"hi"}', "mounted", {"text": "hi"})
    assert not mcp.running


def test_a_host_lifespan_that_enters_the_apps_own() -> None:
    mcp = asgi_app(make_session())
    events: list[str] = []

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        events.append("host up")
        async with mcp.lifespan(app):
            events.append("mcp up")
            yield
        events.append("mcp down")

    with running(Starlette(routes=[Mount("/", app=mcp)], lifespan=lifespan)) as base:
        listed, text, _ = anyio.run(list_and_call, f"{base}/mcp")
    assert (listed, text) == (["echo", "whoami", "chatty"], '{"text":"hi"}')
    assert events == ["host up", "mcp up", "mcp down"]


def test_mounted_without_running_its_lifespan_is_a_503_that_says_why() -> None:
    mcp = asgi_app(make_session())
    with running(Starlette(routes=[Mount("/tools", app=mcp)])) as base:
        response = httpx2.post(f"{base}/tools/mcp", json={})
    assert response.status_code == 503
    assert response.text == (
        "pedelec: this MCP app is not running: its lifespan was not started. A host app that "
        "mounts it runs it, e.g. Starlette(routes=[Mount('/tools', app=mcp)], "
        "lifespan=mcp.lifespan)."
    )


def test_run_directly_a_factory_is_called_at_start_and_its_session_ended_at_stop() -> None:
    made: list[Session] = []

    def factory() -> Session:
        made.append(make_session())
        return made[-1]

    mcp = asgi_app(factory, stateless=True)
    assert made == []
    with running(mcp) as base:
        assert len(made) == 1 and made[0].status == "idle"
        listed, text, _ = anyio.run(list_and_call, f"{base}/mcp")
        assert (listed, text) == (["echo", "whoami", "chatty"], '{"text":"hi"}')
    assert made[0].status == "ended"
    # A lifespan may run again (a fresh SDK session manager each time): a second session.
    with running(mcp) as base:
        assert anyio.run(list_and_call, f"{base}/mcp")[1] == '{"text":"hi"}'
    assert [s.status for s in made] == ["ended", "ended"]


def test_a_session_given_itself_is_left_running() -> None:
    session = make_session()
    with running(asgi_app(session)) as base:
        anyio.run(list_and_call, f"{base}/mcp")
    assert session.status == "idle"


def test_a_factory_that_returns_no_session_fails_the_start() -> None:
    mcp = asgi_app(lambda: "not a session")  # type: ignore[arg-type, return-value]

    async def start() -> str:
        async with mcp.lifespan():
            return "started"

    with pytest.raises(TypeError) as caught:
        anyio.run(start)
    assert str(caught.value) == "the session factory returned a str, not a Session"
    assert not mcp.running


def test_one_lifespan_at_a_time() -> None:
    mcp = asgi_app(make_session())

    async def twice() -> None:
        async with mcp.lifespan():
            with pytest.raises(RuntimeError) as caught:
                async with mcp.lifespan():
                    pass
            assert (
                str(caught.value) == "this MCP app's lifespan already runs; it runs once at a time"
            )
            assert mcp.running

    anyio.run(twice)
    assert not mcp.running


# --- by hand: exact headers and ids ---------------------------------------------------------


ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def rpc(base: str, body: dict[str, Any], **headers: str) -> httpx2.Response:
    return httpx2.post(f"{base}/mcp", json=body, headers={**ACCEPT, **headers}, timeout=30)


def messages_of(response: httpx2.Response) -> list[Any]:
    """The JSON-RPC messages in an SSE (or JSON) response."""
    if response.headers["content-type"].startswith("application/json"):
        return [response.json()]
    data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
    return [json.loads(d) for d in data if d]


def answer_of(response: httpx2.Response) -> Any:
    (message,) = messages_of(response)
    return message


def whoami(request_id: Any) -> dict[str, Any]:
    params = {"name": "whoami", "arguments": {}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


@pytest.mark.parametrize(("request_id", "seen"), [("req-42", "req-42"), (9001, "9001")])
def test_ctx_tool_request_id_is_the_json_rpc_id(request_id: Any, seen: str) -> None:
    # Stateless: each POST stands alone, so one tools/call needs no initialize before it.
    with running(asgi_app(make_session(), stateless=True)) as base:
        response = rpc(base, whoami(request_id))
    assert response.status_code == 200
    assert "mcp-session-id" not in response.headers
    message = answer_of(response)
    assert message["id"] == request_id
    assert message["result"]["content"] == [{"type": "text", "text": json.dumps(seen)}]


def test_stateful_needs_a_session_and_stateless_does_not() -> None:
    with running(asgi_app(make_session())) as base:
        refused = rpc(base, whoami(1))
    assert refused.status_code == 400
    with running(asgi_app(make_session(), stateless=True)) as base:
        answered = rpc(base, whoami(1))
        again = rpc(base, whoami(2))
    assert (answered.status_code, again.status_code) == (200, 200)
    assert [answer_of(r)["result"]["isError"] for r in (answered, again)] == [False, False]


def test_stateless_keeps_no_log_level_between_requests() -> None:
    set_level = {"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel"}
    call = {**whoami(2), "params": {"name": "chatty", "arguments": {}}}
    with running(asgi_app(make_session(), stateless=True)) as base:
        assert answer_of(rpc(base, {**set_level, "params": {"level": "error"}})) == {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {},
        }
        messages = messages_of(rpc(base, call))
    # Each request is a connection of its own: the "error" level set before is not this one's.
    assert [m.get("method") for m in messages] == ["notifications/message", None]
    assert messages[0]["params"]["level"] == "info"
    assert messages[1]["result"]["content"] == [{"type": "text", "text": '"logged"'}]


def test_the_official_client_over_stateless() -> None:
    async def calls(url: str) -> list[str]:
        async with Client(url, mode="legacy") as client:
            return [text_of(await client.call_tool("echo", {"text": str(n)})) for n in range(3)]

    with running(asgi_app(make_session(), stateless=True)) as base:
        assert anyio.run(calls, f"{base}/mcp") == [f'{{"text":"{n}"}}' for n in range(3)]


def test_the_default_accepts_only_loopback_hosts() -> None:
    with running(asgi_app(make_session(), stateless=True)) as base:
        port = base.rsplit(":", 1)[1]
        good = rpc(base, whoami(1), host=f"localhost:{port}")
        bad_host = rpc(base, whoami(1), host="evil.example")
        bad_origin = rpc(base, whoami(1), origin="http://evil.example")
        good_origin = rpc(base, whoami(1), origin=f"http://127.0.0.1:{port}")
    assert (good.status_code, good_origin.status_code) == (200, 200)
    assert (bad_host.status_code, bad_host.text) == (421, "Invalid Host header")
    assert (bad_origin.status_code, bad_origin.text) == (403, "Invalid Origin header")


def test_allowed_hosts_and_the_origins_they_imply() -> None:
    app = asgi_app(make_session(), stateless=True, allowed_hosts=["tools.example.com"])
    with running(app) as base:
        host = rpc(base, whoami(1), host="tools.example.com")
        origin = rpc(base, whoami(1), host="tools.example.com", origin="https://tools.example.com")
        loopback = rpc(base, whoami(1))
        other = rpc(base, whoami(1), host="tools.example.com", origin="https://evil.example")
    assert (host.status_code, origin.status_code) == (200, 200)
    assert (loopback.status_code, loopback.text) == (421, "Invalid Host header")
    assert (other.status_code, other.text) == (403, "Invalid Origin header")


def test_allowed_origins_given_and_any_host() -> None:
    app = asgi_app(
        make_session(),
        stateless=True,
        allowed_hosts=["tools.example.com"],
        allowed_origins=["https://app.example.com"],
    )
    anyhost = asgi_app(make_session(), stateless=True, allowed_hosts=["*"])
    with running(app) as base:
        mine = rpc(base, whoami(1), host="tools.example.com", origin="https://app.example.com")
        own = rpc(base, whoami(1), host="tools.example.com", origin="https://tools.example.com")
    with running(anyhost) as base:
        free = rpc(base, whoami(1), host="evil.example", origin="http://evil.example")
    assert (mine.status_code, own.status_code, free.status_code) == (200, 403, 200)


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (
            lambda: asgi_app(42),
            TypeError,
            "asgi_app takes a Session or a function returning one, got int",
        ),  # type: ignore[arg-type]
        (
            lambda: asgi_app(Session(), heartbeat=0),
            ValueError,
            "heartbeat must be a positive number of seconds, got 0",
        ),
        (
            lambda: asgi_app(Session(), heartbeat=True),
            ValueError,
            "heartbeat must be a positive number of seconds, got True",
        ),
        (
            lambda: asgi_app(Session(), path="mcp"),
            ValueError,
            "path must start with '/', got 'mcp'",
        ),
        (
            lambda: asgi_app(Session(), max_body=0),
            ValueError,
            "max_body must be a positive number of bytes, got 0",
        ),
        (
            lambda: asgi_app(Session(), allowed_hosts="localhost"),
            TypeError,
            "allowed_hosts must be a list of non-empty strings, got 'localhost'",
        ),
        (
            lambda: asgi_app(Session(), allowed_hosts=7),  # type: ignore[arg-type]
            TypeError,
            "allowed_hosts must be a list of non-empty strings, got 7",
        ),
        (
            lambda: asgi_app(Session(), allowed_origins=[""]),
            TypeError,
            "allowed_origins must be a list of non-empty strings, got ['']",
        ),
        (
            lambda: asgi_app(Session(), allowed_hosts=["*", "a.example"]),
            ValueError,
            "allowed_hosts=['*'] turns the Host and Origin checks off, so it stands alone "
            "(got allowed_hosts=['*', 'a.example'], allowed_origins=None)",
        ),
        (
            lambda: asgi_app(Session(), allowed_origins=["*"]),
            ValueError,
            "allowed_origins cannot hold '*'; allowed_hosts=['*'] turns the Host and Origin "
            "checks off together",
        ),
    ],
)
def test_bad_arguments(make: Callable[[], McpApp], error: type[Exception], message: str) -> None:
    with pytest.raises(error) as caught:
        make()
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--workers", "0"], "pedelec: error: --workers must be a number from 1 to 64, got '0'\n"),
        (["--workers", "x"], "pedelec: error: --workers must be a number from 1 to 64, got 'x'\n"),
        (
            ["--transport", "stdio", "--workers", "2", "--stateless"],
            "pedelec: error: --stateless, --workers need --transport http\n",
        ),
        (
            ["--allow-origin", "https://a.example"],
            "pedelec: error: --allow-origin needs --transport http\n",
        ),
        (
            ["--transport", "http", "--allow-host", "*", "--allow-host", "a.example"],
            "pedelec: error: --allow-host '*' turns the Host and Origin checks off, so it stands "
            "alone (got allowed_hosts=['*', 'a.example'], allowed_origins=None)\n",
        ),
    ],
)
def test_serve_usage_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", "examples/counter.py:session", *argv]) == 2
    assert capsys.readouterr().err == message


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),
        ("::1", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.5", False),
        ("tools.example.com", False),
    ],
)
def test_which_bound_hosts_count_as_loopback(host: str, loopback: bool) -> None:
    # A server bound beyond loopback checks no Host header unless told to, as the SDK does.
    assert uses_loopback(host) is loopback


def test_serve_stateless_says_so_and_answers_without_a_session(tmp_path: Path) -> None:
    with serving(["examples/counter.py:session", "--stateless"], tmp_path / "err.txt") as url:
        deadline = time.monotonic() + 10  # the second line may follow the first a moment later
        while len(lines := (tmp_path / "err.txt").read_text(encoding="utf-8").splitlines()) < 2:
            assert time.monotonic() < deadline, lines
            time.sleep(0.02)
        assert lines[1:] == ["pedelec: one process, stateless HTTP"]
        base = url.removesuffix("/mcp")
        call = {**whoami(5), "params": {"name": "update_counter", "arguments": {"delta": 2}}}
        response = rpc(base, call)
    assert "mcp-session-id" not in response.headers
    assert answer_of(response)["result"]["structuredContent"] == {"value": 2}


def test_serve_allow_host_refuses_every_other_host(tmp_path: Path) -> None:
    argv = ["examples/counter.py:session", "--stateless", "--allow-host", "tools.example.com:*"]
    with serving(argv, tmp_path / "err.txt") as url:
        base = url.removesuffix("/mcp")
        port = base.rsplit(":", 1)[1]
        loopback = rpc(base, whoami(1))
        named = rpc(base, whoami(1), host=f"tools.example.com:{port}")
        origin = rpc(base, whoami(1), host=f"tools.example.com:{port}", origin="https://x.example")
    assert (loopback.status_code, loopback.text) == (421, "Invalid Host header")
    # whoami is not a tool of the counter: answered (-32602), so the Host check let it through.
    assert answer_of(named)["error"]["code"] == -32602
    assert (origin.status_code, origin.text) == (403, "Invalid Origin header")


def test_fastapi_mount_when_installed() -> None:
    fastapi = pytest.importorskip("fastapi")
    mcp = asgi_app(make_session())
    api = fastapi.FastAPI(lifespan=mcp.lifespan)
    api.mount("/tools", mcp)
    with running(api) as base:
        assert anyio.run(list_and_call, f"{base}/tools/mcp")[1] == '{"text":"hi"}'


def test_the_examples_factory_and_host_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent / "examples"))
    example = importlib.import_module("mcp_asgi")

    async def ping(url: str) -> str:
        async with Client(url, mode="legacy") as client:
            return text_of(await client.call_tool("ping", {}))

    with running(example.per_process) as base:
        assert anyio.run(ping, f"{base}/mcp") == '"pong"'
        bad = rpc(base, whoami(1), host="tools.example.com")
    assert (bad.status_code, bad.text) == (421, "Invalid Host header")
    with running(example.public) as base:
        good = rpc(
            base,
            {**whoami(1), "params": {"name": "update_counter", "arguments": {"delta": 1}}},
            host="tools.example.com:8443",
            origin="https://app.example.com",
        )
    assert good.status_code == 200
