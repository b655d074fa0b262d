"""A session's tools as OpenAI Agents SDK ``FunctionTool`` objects.

:func:`function_tools` gives an ``agents.Agent`` one ``FunctionTool`` per session tool. The
SDK hands each call's raw JSON arguments to the tool, which passes them to
``session.dispatch``: pedelec parses and validates them, applies the tool's timeout, runs the
handler and answers with its result. The model reads exactly what the other adapters send,
``ToolResult.to_text()``: the result as JSON text, or the ``{"error": {...}}`` envelope, so bad
arguments, a handler error or a timeout go back to the model as an answer it can act on instead
of ending the run.

Names: the SDK forwards tool names to OpenAI-style providers, which reject ``.``; names are
sent with ``__`` as in :mod:`pedelec.adapters.openai`, and error messages name tools that way.

Strict mode: as :func:`pedelec.adapters.openai.chat_tools` exports them, every tool whose schema
allows it is a ``strict_json_schema=True`` tool with the exact strict form (optional properties
nullable, a ``null`` read back as "absent" before validation), so the model's arguments are
grammar-constrained and pedelec still enforces every keyword strict mode leaves out.

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

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from pedelec.adapters._frameworks import answer, offered
from pedelec.adapters._strict import OPENAI, StrictMode

if TYPE_CHECKING:
    from agents import FunctionTool

    from pedelec.adapters._names import NameMap
    from pedelec.session import Session

__all__ = ["function_tools"]

_PROVIDER = "the OpenAI Agents SDK"


def function_tools(
    session: Session, *, names: Iterable[str] | None = None, strict: StrictMode = "auto"
) -> list[FunctionTool]:
    """Return the session's tools as Agents SDK ``FunctionTool`` objects.

    Each tool's ``params_json_schema`` is a fresh copy of its schema: the strict form of
    :func:`pedelec.adapters.openai.chat_tools` (every object closed and fully required, optional
    properties nullable, keywords strict mode does not take moved into the description) with
    ``strict_json_schema=True``, or the Tool Args Schema as declared with
    ``strict_json_schema=False``. The SDK's own rewrite to strict form leaves the strict form
    unchanged (it never sees a schema it would have to make lossy). A ``null`` the model sends
    for an optional property reaches the handler as an absent property; every other value is
    validated by pedelec against the full schema.

    Args:
        session: The session that runs the tools. Tools declared later are not included; call
            this again after declaring more.
        names: The session tools to include, in this order (default: all, in declaration
            order).
        strict: ``"auto"`` (default): strict for every tool whose schema allows it (see
            :func:`pedelec.adapters.openai.strict_problems`), non-strict for the others.
            ``True``: strict for all, or raise. ``False``: the schemas as declared.

    Returns:
        One ``FunctionTool`` per tool; its ``on_invoke_tool(ctx, args_json)`` dispatches the
        call through the session (``tool_request_id=ctx.tool_call_id``) and returns
        ``result.to_text()``, with tools named as the model saw them.

    Raises:
        PedelecError: ``TOOL_NOT_FOUND`` for a name in ``names`` the session does not declare;
            ``INVALID_INPUT`` when two tools would be sent under the same name, a sent name
            is longer than 64 characters, ``strict`` is not ``True``/``False``/``"auto"``, or
            ``strict=True`` and a schema cannot be strict (naming its pointer).
        ImportError: When the ``openai-agents`` package is not installed.

    Example:
        >>> [(tool.name, tool.strict_json_schema) for tool in function_tools(session)]
        [('notes__search', True)]
    """
    from agents import FunctionTool

    tools, table = offered(session, names, _PROVIDER, OPENAI, strict)
    chosen = tuple(tool.tool for tool in tools)
    return [
        FunctionTool(
            name=tool.name,
            description=tool.description,
            params_json_schema=tool.schema,
            on_invoke_tool=_invoker(session, chosen, table, tool.name),
            strict_json_schema=tool.strict,
        )
        for tool in tools
    ]


def _invoker(session: Session, chosen: Sequence[str], table: NameMap, sent: str) -> Any:
    """The ``on_invoke_tool`` of one tool: the SDK's call, answered by the session."""

    async def on_invoke_tool(ctx: Any, args_json: str) -> str:
        call_id = getattr(ctx, "tool_call_id", None)
        return await answer(session, chosen, table, sent, args_json, call_id)

    return on_invoke_tool
