"""A session's tools as a Pydantic AI toolset.

:func:`toolset` returns a toolset to pass to ``Agent(toolsets=[...])``. Pydantic AI lists its
tools from the session (each tool's Tool Args Schema as ``parameters_json_schema``) and hands
every call to ``session.dispatch``: pedelec parses and validates the arguments, applies the
tool's timeout, runs the handler and answers with its result. The model reads exactly what the
other adapters send, ``ToolResult.to_text()``: the result as JSON text, or the
``{"error": {...}}`` envelope, so bad arguments, a handler error or a timeout go back to the model
as an answer it can act on instead of using up the run's retries.

Names: Pydantic AI forwards tool names to providers, several of which reject ``.``; names are
sent with ``__`` as in :mod:`pedelec.adapters.openai` and mapped back when a call comes in.

The ``pydantic_ai`` package (``pip install pydantic-ai-slim``) is imported when :func:`toolset`
is called, not when this module is.

Example:
    >>> from pydantic_ai import Agent
    >>> from pedelec.adapters.pydantic_ai import toolset
    >>> agent = Agent("openai:gpt-4.1", instructions=session.guidance,
    ...               toolsets=[toolset(session)])
    >>> result = await agent.run("Add 3 to the counter.")
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pedelec.adapters._calls import normalise_args
from pedelec.adapters._names import NameMap, name_map

if TYPE_CHECKING:
    from pydantic_ai.toolsets import AbstractToolset

    from pedelec.session import Session

__all__ = ["toolset"]

_PROVIDER = "Pydantic AI"


def toolset(
    session: Session, *, names: Iterable[str] | None = None, id: str | None = None
) -> AbstractToolset[Any]:
    """Return a Pydantic AI toolset whose tools are the session's.

    The tools are read from the session at every step of a run, so tools declared after this
    call are included (unless ``names`` fixes the list). Each is sent with ``strict=False``:
    OpenAI's strict mode needs every object closed with ``additionalProperties: false``, which
    the subset does not have. Pydantic AI does not validate the arguments itself (pedelec does,
    with its own messages), and pedelec's timeout applies, not Pydantic AI's.

    Args:
        session: The session that runs the tools.
        names: The session tools to include, in this order (default: all, in declaration
            order).
        id: The toolset's id, which Pydantic AI requires for durable execution.

    Returns:
        An ``AbstractToolset`` whose ``call_tool`` awaits ``session.dispatch(name, args,
        tool_request_id=ctx.tool_call_id)`` and returns ``result.to_text()``.

    Raises:
        PedelecError: ``TOOL_NOT_FOUND`` for a name in ``names`` the session does not declare;
            ``INVALID_INPUT`` when two tools would be sent under the same name or a sent name
            is longer than 64 characters (checked here, and again whenever Pydantic AI lists
            the tools, for tools declared later).
        ImportError: When the ``pydantic-ai-slim`` package is not installed.

    Example:
        >>> agent = Agent(model, toolsets=[toolset(session)])
    """
    chosen = None if names is None else tuple(names)
    # Checked now as well as at every listing, so a mistake shows where the toolset is made.
    for name in chosen or ():
        session.tool_spec(name)
    name_map(session.tool_names() if chosen is None else chosen, _PROVIDER)
    cls: Any = _toolset_class()
    made: AbstractToolset[Any] = cls(session, chosen, id)
    return made


@lru_cache(maxsize=1)
def _toolset_class() -> type:
    """The toolset class, built on first use so that importing this module imports no vendor."""
    from pydantic_ai.tools import ToolDefinition
    from pydantic_ai.toolsets import AbstractToolset, ToolsetTool

    validator = _PassThrough()

    class SessionToolset(AbstractToolset[Any]):
        """A pedelec session's tools; every call goes through ``session.dispatch``."""

        def __init__(self, session: Session, names: tuple[str, ...] | None, id: str | None):
            self._session = session
            self._names = names
            self._id = id

        @property
        def id(self) -> str | None:
            return self._id

        def _table(self) -> tuple[list[str], NameMap]:
            chosen = list(self._session.tool_names() if self._names is None else self._names)
            return chosen, name_map(chosen, _PROVIDER)

        async def get_tools(self, ctx: Any) -> dict[str, Any]:
            chosen, table = self._table()
            tools: dict[str, Any] = {}
            for name in chosen:
                spec = self._session.tool_spec(name)
                sent = table.to_provider(name)
                definition = ToolDefinition(
                    name=sent,
                    parameters_json_schema=spec["argsSchema"],
                    description=spec["description"],
                    strict=False,
                    # Pydantic AI runs a sequential tool as the same barrier pedelec's adapters do.
                    sequential=spec.get("sequential", False),
                )
                tools[sent] = ToolsetTool(
                    toolset=self, tool_def=definition, max_retries=1, args_validator=validator
                )
            return tools

        async def call_tool(self, name: str, tool_args: Any, ctx: Any, tool: Any) -> Any:
            _, table = self._table()
            call_id = getattr(ctx, "tool_call_id", None)
            rid = call_id if isinstance(call_id, str) and call_id else None
            args = tool_args.raw if type(tool_args) is _Raw else tool_args
            result = await self._session.dispatch(
                table.from_provider(name), normalise_args(args), tool_request_id=rid
            )
            return result.to_text()

    return SessionToolset


class _Raw(dict[str, Any]):
    """The arguments as the model sent them, for pedelec to parse and validate.

    Pydantic AI expects its validator to return a dict; this one also carries the original
    JSON text (or value), so pedelec's strict parser and messages see exactly what arrived. The
    dict itself holds a best-effort parse for anything that inspects the arguments on the way.
    """

    __slots__ = ("raw",)

    def __init__(self, raw: Any, parsed: Any) -> None:
        super().__init__(parsed if isinstance(parsed, dict) else {})
        self.raw = raw


class _PassThrough:
    """An ``args_validator`` that accepts everything: validation is the session's job."""

    def validate_json(self, input: Any, **kwargs: Any) -> Any:
        import json

        try:
            parsed = json.loads(input)
        except (ValueError, TypeError):
            parsed = None
        return _Raw(input, parsed)

    def validate_python(self, input: Any, **kwargs: Any) -> Any:
        return _Raw(input, input)
