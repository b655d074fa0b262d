"""Mount the counter session's MCP endpoint inside a Starlette app of your own.

``pedelec.serve.asgi_app`` is the app ``pedelec serve --transport http`` runs; here it sits at
``/tools`` beside a route of the host app, and the host app's lifespan runs it. Serve it with
any ASGI server:

    pip install -e '.[mcp]'   # from the checkout; pedelec is not on PyPI yet
    uvicorn mcp_asgi:app --app-dir examples    # MCP at http://127.0.0.1:8000/tools/mcp

Running this file starts the app on a free 127.0.0.1 port, makes one call with the official
MCP client, prints the answer and stops:

    python examples/mcp_asgi.py
"""

# --8<-- [start:app]
from counter import session
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route

from pedelec.serve import asgi_app

# Some MCP clients send array and object arguments as JSON text; accept them when they parse.
session.lenient_json_args = True
mcp = asgi_app(session, name="counter", stateless=True)


async def health(request):
    return PlainTextResponse("ok")


app = Starlette(
    routes=[Route("/health", health), Mount("/tools", app=mcp)],
    # Starlette does not run a mounted app's lifespan; the host runs the endpoint's.
    lifespan=mcp.lifespan,
)
# --8<-- [end:app]


# --8<-- [start:fastapi]
def fastapi_app():
    """The same endpoint in a FastAPI app whose lifespan does work of its own."""
    import contextlib

    from fastapi import FastAPI  # pip install fastapi: not a pedelec dependency

    @contextlib.asynccontextmanager
    async def lifespan(api):
        # ... your own start-up ...
        async with mcp.lifespan(api):
            yield
        # ... your own shut-down ...

    api = FastAPI(lifespan=lifespan)
    api.mount("/tools", mcp)  # MCP at /tools/mcp
    return api


# --8<-- [end:fastapi]


# --8<-- [start:factory]
from pedelec import Session  # noqa: E402


def make_session() -> Session:
    made = Session(guidance="One session per worker process.")

    @made.on_tool("ping", description="Answer pong.", schema={"type": "object"})
    def ping(args):
        return "pong"

    return made


# Called when the app's lifespan starts, in the process that serves: uvicorn mcp_asgi:per_process
per_process = asgi_app(make_session, stateless=True)
# --8<-- [end:factory]

# --8<-- [start:hosts]
public = asgi_app(
    session,
    stateless=True,
    allowed_hosts=["tools.example.com", "tools.example.com:8443"],
    allowed_origins=["https://app.example.com"],
)
anywhere = asgi_app(session, allowed_hosts=["*"])  # a proxy in front checks Host and Origin
# --8<-- [end:hosts]


def main() -> None:
    import socket
    import threading
    import time

    import anyio
    import uvicorn
    from mcp import Client

    sock = socket.create_server(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]})
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.02)

        async def call() -> str:
            async with Client(f"http://127.0.0.1:{port}/tools/mcp", mode="legacy") as client:
                result = await client.call_tool("update_counter", {"delta": 3})
                return result.content[0].text

        print(f"update_counter -> {anyio.run(call)}")
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


if __name__ == "__main__":
    main()
