"""A session's tools in the Model Context Protocol (MCP) format.

``pedelec serve TARGET`` runs a complete MCP server built on these two functions; use them
directly to put a session's tools inside an MCP server of your own. MCP allows ``.`` in tool
names, so names are kept as they are.

The ``mcp`` package is never imported here: both functions work on the protocol's JSON shapes
(``camelCase`` keys), which the SDK's models accept through ``model_validate``.

Example:
    >>> from mcp import types
    >>> from pedelec.adapters import mcp as pedelec_mcp
    >>> listed = [types.Tool.model_validate(t) for t in pedelec_mcp.tools(session)]
    >>> result = types.CallToolResult.model_validate(
    ...     await pedelec_mcp.dispatch_tool_call(session, "update_counter", {"delta": 3})
    ... )
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, Literal, NotRequired

from typing_extensions import TypedDict

from pedelec.adapters._calls import run_sync

if TYPE_CHECKING:
    from pedelec.session import Session, ToolResult

__all__ = [
    "INVALID_PARAMS",
    "CallToolResult",
    "McpTool",
    "ProtocolError",
    "TextContent",
    "call_tool_result",
    "dispatch_tool_call",
    "dispatch_tool_call_sync",
    "tools",
    "unknown_cursor",
    "unknown_tool",
]

#: JSON-RPC's "Invalid params", the code MCP gives an unknown tool or cursor.
INVALID_PARAMS: Final = -32602


class McpTool(TypedDict):
    """A tool as ``tools/list`` returns it; ``title``, ``annotations`` and ``outputSchema``
    only when set."""

    name: str
    description: str
    inputSchema: dict[str, Any]
    title: NotRequired[str]
    annotations: NotRequired[dict[str, bool]]
    outputSchema: NotRequired[dict[str, Any]]


class TextContent(TypedDict):
    """A text content block."""

    type: Literal["text"]
    text: str


class CallToolResult(TypedDict):
    """The result of ``tools/call``."""

    content: list[TextContent]
    structuredContent: NotRequired[Any]
    isError: bool


class ProtocolError(TypedDict):
    """A JSON-RPC error object, for ``McpError(code, message, data)`` or the ``error`` member."""

    code: int
    message: str
    data: dict[str, Any]


def tools(session: Session) -> list[McpTool]:
    """Return the session's tools in the ``tools/list`` format.

    Each schema is a fresh copy; names are kept as they are. A tool's output schema is its
    ``outputSchema``: as it is when it is an object node, else wrapped as
    ``{"type": "object", "properties": {"result": schema}, "required": ["result"]}``, since MCP
    (through 2025-11-25) allows only object output schemas; its results then carry
    ``structuredContent`` ``{"result": value}`` (see :func:`call_tool_result`).
    Each schema is a fresh copy; names are kept as they are. A tool declared
    ``requires_approval`` is listed with ``destructiveHint: true`` unless its annotations set
    ``destructiveHint`` themselves or say ``readOnlyHint: true``.

    Args:
        session: The session whose tools to export.

    Returns:
        ``[{"name", "description", "inputSchema", "title"?, "annotations"?, "outputSchema"?},
        ...]`` in registration order.

    Example:
        >>> tools(session)[0]["inputSchema"]["type"]
        'object'
    """
    listed: list[McpTool] = []
    for tool in session.manifest()["tools"]:
        entry: McpTool = {
            "name": tool["name"],
            "description": tool["description"],
            "inputSchema": tool["argsSchema"],
        }
        if "title" in tool:
            entry["title"] = tool["title"]
        if "annotations" in tool:
            entry["annotations"] = tool["annotations"]
        if "outputSchema" in tool:
            from pedelec._output import mcp_output_schema

            entry["outputSchema"] = mcp_output_schema(tool["outputSchema"])
        if tool.get("requiresApproval"):
            # A call a person must approve is one a client should treat with care, unless the
            # tool's own hints say how it behaves.
            hints = entry.get("annotations", {})
            if "destructiveHint" not in hints and not hints.get("readOnlyHint"):
                entry["annotations"] = {**hints, "destructiveHint": True}
        listed.append(entry)
    return listed


def unknown_tool(session: Session, name: Any) -> ProtocolError | None:
    """The JSON-RPC error for a ``tools/call`` of a tool the session does not have, else ``None``.

    The specification (2025-11-25, server/tools, Error Handling) lists an unknown tool as a
    protocol error rather than a tool result, so a client's ``callTool`` rejects. The message
    is pedelec's ``TOOL_NOT_FOUND`` message ("Did you mean ...?"); ``data`` holds its code, the
    name asked for and the names the session has.

    Example:
        >>> unknown_tool(session, "update_countr")
        {'code': -32602, 'message': 'Unknown tool "update_countr". Did you mean "update_counter"?', 'data': {'code': 'TOOL_NOT_FOUND', 'tool': 'update_countr', 'tools': ['update_counter']}}
    """
    from pedelec._result import tool_not_found

    names = session.tool_names()
    if isinstance(name, str) and name in names:
        return None
    error = tool_not_found(name, "", names).error
    assert error is not None
    return {
        "code": INVALID_PARAMS,
        "message": error.message,
        "data": {"code": error.code, "tool": (error.details or {}).get("tool"), "tools": names},
    }


def unknown_cursor(cursor: str) -> ProtocolError:
    """The JSON-RPC error for a ``tools/list`` cursor: :func:`tools` is one page, so none was issued.

    Example:
        >>> unknown_cursor("abc")["message"]
        'Unknown cursor "abc": every tool is on the first page, so no cursor was issued.'
    """
    from pedelec._json.render import render

    return {
        "code": INVALID_PARAMS,
        "message": f"Unknown cursor {render(cursor, 80)}: every tool is on the first page, "
        "so no cursor was issued.",
        "data": {"cursor": cursor if len(cursor) <= 200 else cursor[:200] + "…"},
    }


def call_tool_result(result: ToolResult, session: Session | None = None) -> CallToolResult:
    """Format a :class:`~pedelec.ToolResult` as a ``tools/call`` result.

    The content is one text block holding the JSON text of the result (or of the error
    envelope), which MCP recommends beside structured content for clients that read only text.
    A successful result whose value is a JSON object is also given as ``structuredContent``;
    given the ``session``, a result of a tool whose output schema is not an object node is given
    as ``{"result": value}``, as that tool's ``outputSchema`` in :func:`tools` says. Every error
    envelope, ``TOOL_ARGS_INVALID`` included, sets ``isError`` so the model sees the message
    and can correct its call.

    Args:
        result: What ``session.dispatch`` returned.
        session: The session that ran the call, to find the tool's output schema.

    Returns:
        ``{"content": [{"type": "text", "text"}], "structuredContent"?, "isError"}``.

    Example:
        >>> call_tool_result(session.dispatch_sync("update_counter", {"delta": 3}))
        {'content': [{'type': 'text', 'text': '{"value":3}'}], 'structuredContent': {'value': 3}, 'isError': False}
    """
    if result.error is None and getattr(result, "_text", None) is None:
        # A result dispatch did not check (built by hand): the wire may not carry it, and the
        # SDK would fail later, far from the call. The model gets the reason as an error.
        from pedelec._json.wire import wire_problem
        from pedelec._result import result_unsendable

        problem = wire_problem(result.value)
        if problem is not None:
            result = result_unsendable(result.tool, result.tool_request_id, problem)
    text = result.to_text()
    out: CallToolResult = {
        "content": [{"type": "text", "text": text}],
        "isError": result.is_error,
    }
    if not result.is_error:
        output = None if session is None else _output_schema(session, result.tool)
        if output is not None:
            from pedelec._output import structured_content

            out["structuredContent"] = structured_content(output, result.value)
        elif isinstance(result.value, dict):
            out["structuredContent"] = result.value
    return out


def _output_schema(session: Session, name: str) -> dict[str, Any] | None:
    """The output schema of the session's tool ``name`` (not a copy: only read), or ``None``."""
    entry = session._registry.get(name)
    output = None if entry is None else entry.output
    return None if output is None else output.schema


def _cancelled_by_caller(exc: BaseException) -> bool:
    """Whether ``exc`` is this task's own cancellation (the client cancelled the request),
    which must go on, rather than a ``CancelledError`` a handler raised."""
    import asyncio

    if not isinstance(exc, asyncio.CancelledError):
        return False
    try:
        task = asyncio.current_task()
    except RuntimeError:
        return False
    return task is not None and task.cancelling() > 0


async def dispatch_tool_call(
    session: Session,
    name: str,
    arguments: Any,
    *,
    turn_id: str | None = None,
    tool_request_id: str | None = None,
    _owned: bool = False,
) -> CallToolResult:
    """Run one ``tools/call`` request and return its result.

    Never raises for agent input: an unknown tool, invalid arguments, a handler error or a
    timeout come back as a result with ``isError: true``.

    Args:
        session: The session that runs the tool.
        name: ``params.name`` of the request.
        arguments: ``params.arguments`` (``None`` means no arguments).
        turn_id: Passed to the handler's ``ctx.turn_id``.
        tool_request_id: The handler's ``ctx.tool_request_id``: the JSON-RPC id of the
            ``tools/call`` request (default: a fresh unique id).
        _owned: Internal: ``arguments`` was parsed from the request for this call only
            (``pedelec serve``), so the session uses it without copying it.

    Returns:
        The ``tools/call`` result, see :func:`call_tool_result`.

    Example:
        >>> (await dispatch_tool_call(session, "update_counter", {"delta": 3}))["isError"]
        False
    """
    from pedelec._result import args_unsendable, handler_failed

    if type(arguments) is dict:  # parsed by the MCP SDK, which lets lone surrogates through
        refused = args_unsendable(name, tool_request_id or "", arguments)
        if refused is not None:
            return call_tool_result(refused)
    try:
        result = await session.dispatch(
            name,
            {} if arguments is None else arguments,
            turn_id=turn_id,
            tool_request_id=tool_request_id,
            _owned=_owned,
        )
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:
        # Whatever a handler raises ends as its call's result, never as the end of the
        # server or of a client's session; only the caller's own cancellation goes on.
        if _cancelled_by_caller(exc):
            raise
        import logging

        logging.getLogger("pedelec").error(
            'pedelec: the call of tool "%s" raised out of dispatch', name, exc_info=exc
        )
        result = handler_failed(name if isinstance(name, str) else str(name), "", exc)
    return call_tool_result(result, session)


def dispatch_tool_call_sync(
    session: Session, name: str, arguments: Any, *, turn_id: str | None = None
) -> CallToolResult:
    """Synchronous :func:`dispatch_tool_call`, for code without an event loop.

    Raises:
        RuntimeError: When called from a thread that is running an event loop.

    Example:
        >>> dispatch_tool_call_sync(session, "update_counter", {"delta": 3})["isError"]
        False
    """
    return run_sync(
        "dispatch_tool_call",
        lambda: dispatch_tool_call(session, name, arguments, turn_id=turn_id),
    )
