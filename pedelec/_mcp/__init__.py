"""The MCP server behind ``pedelec serve`` and :func:`pedelec.serve.asgi_app`, on the official
``mcp`` SDK: the server and its ``tools/call`` (``server``), the raw-body checks (``wire``),
progress and log notifications (``notify``) and approval through elicitation (``approve``).

Kept below both the command line and :mod:`pedelec.serve`, which build on it.
"""
