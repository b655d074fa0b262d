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
