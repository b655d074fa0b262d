"""A session's tools as OpenAI Agents SDK ``FunctionTool`` objects.

:func:`function_tools` gives an ``agents.Agent`` one ``FunctionTool`` per session tool. The
SDK hands each call's raw JSON arguments to the tool, which passes them to
``session.dispatch``: pedelec parses and validates them, applies the tool's timeout, runs the
handler and answers with its result. The model reads exactly what the other adapters send,
``ToolResult.to_text()``: the result as JSON text, or the ``{"error": {...}}`` envelope, so bad
arguments, a handler error or a timeout go back to the model as an answer it can act on instead
of ending the run.

Names: the SDK forwards tool names to OpenAI-style providers, which reject ``.``; names are
sent with ``__`` as in :mod:`pedelec.adapters.openai`.

The ``agents`` package (``pip install openai-agents``) is imported when :func:`function_tools`
is called, not when this module is.

Example:
    >>> from agents import Agent, Runner
    >>> from pedelec.adapters.agents import function_tools
    >>> agent = Agent(name="assistant", instructions=session.guidance,
    ...               tools=function_tools(session))
    >>> result = await Runner.run(agent, "Add 3 to the counter.")
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pedelec.adapters._calls import normalise_args
from pedelec.adapters._names import name_map

if TYPE_CHECKING:
    from agents import FunctionTool

    from pedelec.session import Session

__all__ = ["function_tools"]

_PROVIDER = "the OpenAI Agents SDK"


def function_tools(session: Session, *, names: Iterable[str] | None = None) -> list[FunctionTool]:
    """Return the session's tools as Agents SDK ``FunctionTool`` objects.

    Each tool's ``params_json_schema`` is the tool's Tool Args Schema (a fresh copy) with
    ``strict_json_schema=False``: OpenAI's strict mode needs every object closed with
    ``additionalProperties: false``, which the subset does not have, and the SDK's own rewrite
    to strict form would make optional properties required. pedelec validates every call
    itself, so nothing the schema says goes unchecked.

    Args:
        session: The session that runs the tools. Tools declared later are not included; call
            this again after declaring more.
        names: The session tools to include, in this order (default: all, in declaration
            order).

    Returns:
        One ``FunctionTool`` per tool; its ``on_invoke_tool(ctx, args_json)`` awaits
        ``session.dispatch(name, args_json, tool_request_id=ctx.tool_call_id)`` and returns
        ``result.to_text()``.

    Raises:
        PedelecError: ``TOOL_NOT_FOUND`` for a name in ``names`` the session does not declare;
            ``INVALID_INPUT`` when two tools would be sent under the same name or a sent name
            is longer than 64 characters.
        ImportError: When the ``openai-agents`` package is not installed.

    Example:
        >>> [tool.name for tool in function_tools(session)]
        ['notes__search']
    """
    from agents import FunctionTool

    chosen = session.tool_names() if names is None else list(names)
    specs = [session.tool_spec(name) for name in chosen]
    table = name_map(chosen, _PROVIDER)
    return [
        FunctionTool(
            name=table.to_provider(spec["name"]),
            description=spec["description"],
            params_json_schema=spec["argsSchema"],
            on_invoke_tool=_invoker(session, spec["name"]),
            strict_json_schema=False,
        )
        for spec in specs
    ]


def _invoker(session: Session, name: str) -> Any:
    """The ``on_invoke_tool`` of one tool: the SDK's call, answered by the session."""

    async def on_invoke_tool(ctx: Any, args_json: str) -> str:
        call_id = getattr(ctx, "tool_call_id", None)
        rid = call_id if isinstance(call_id, str) and call_id else None
        result = await session.dispatch(name, normalise_args(args_json), tool_request_id=rid)
        return result.to_text()

    return on_invoke_tool
