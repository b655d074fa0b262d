"""A session's tools as a Pydantic AI toolset.

:func:`toolset` returns a toolset to pass to ``Agent(toolsets=[...])``. Pydantic AI lists its
tools from the session (each tool's schema, in strict form where it can be, as
``parameters_json_schema``) and hands every call to ``session.dispatch``: pedelec parses and validates the arguments, applies the
tool's timeout, runs the handler and answers with its result. The model reads exactly what the
other adapters send, ``ToolResult.to_text()``: the result as JSON text, or the
``{"error": {...}}`` envelope, so bad arguments, a handler error or a timeout go back to the model
as an answer it can act on instead of using up the run's retries.

Names: Pydantic AI forwards tool names to providers, several of which reject ``.``; names are
sent with ``__`` as in :mod:`pedelec.adapters.openai`, mapped back when a call comes in, and
used in error messages.

Strict mode: every tool whose schema allows it is sent with ``strict=True`` and the exact strict
form of the run's provider (Anthropic's for an Anthropic model, OpenAI's otherwise), a ``null``
for an optional property read back as "absent" before validation, so the model's arguments are
grammar-constrained where the provider supports it and pedelec still enforces every keyword
strict mode leaves out.

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

from pedelec.adapters._frameworks import answer, offered
from pedelec.adapters._names import name_map
from pedelec.adapters._strict import ANTHROPIC, OPENAI, Profile, StrictMode, check_mode

if TYPE_CHECKING:
    from pydantic_ai.toolsets import AbstractToolset

    from pedelec.session import Session

__all__ = ["toolset"]

_PROVIDER = "Pydantic AI"


def toolset(
    session: Session,
    *,
    names: Iterable[str] | None = None,
    id: str | None = None,
    strict: StrictMode = "auto",
) -> AbstractToolset[Any]:
    """Return a Pydantic AI toolset whose tools are the session's.

    The tools are read from the session at every step of a run, so tools declared after this
    call are included (unless ``names`` fixes the list). Pydantic AI does not validate the
    arguments itself (pedelec does, with its own messages), and pedelec's timeout applies, not
    Pydantic AI's.

    Strict mode: each tool whose schema allows it is sent with ``strict=True`` and the strict
    form for the run's model: Anthropic's (:func:`pedelec.adapters.anthropic.tools`, within its
    per-request caps counted over this toolset's tools) when the model's ``system`` is
    ``"anthropic"``, OpenAI's (:func:`pedelec.adapters.openai.chat_tools`: optional properties
    nullable) for every other model. A ``null`` the model sends for an optional property reaches
    the handler as an absent property.

    Args:
        session: The session that runs the tools.
        names: The session tools to include, in this order (default: all, in declaration
            order).
        id: The toolset's id, which Pydantic AI requires for durable execution.
        strict: ``"auto"`` (default): strict for every tool whose schema allows it, the others
            ``strict=False``. ``True``: strict for all, or raise when the tools are listed.
            ``False``: the schemas as declared, ``strict=False``.

    Returns:
        An ``AbstractToolset`` whose ``call_tool`` dispatches the call through the session
        (``tool_request_id=ctx.tool_call_id``) and returns ``result.to_text()``, with tools
        named as the model saw them.

    Raises:
        PedelecError: ``TOOL_NOT_FOUND`` for a name in ``names`` the session does not declare;
            ``INVALID_INPUT`` when two tools would be sent under the same name, a sent name
            is longer than 64 characters, ``strict`` is not ``True``/``False``/``"auto"``, or
            ``strict=True`` and a tool cannot be strict (checked here with OpenAI's strict form,
            and again whenever Pydantic AI lists the tools, for tools declared later and the
            run's model).
        ImportError: When the ``pydantic-ai-slim`` package is not installed.

    Example:
        >>> agent = Agent(model, toolsets=[toolset(session)])
    """
    mode = check_mode(strict)
    chosen = None if names is None else tuple(names)
    # Checked now as well as at every listing, so a mistake shows where the toolset is made.
    offered(session, chosen, _PROVIDER, OPENAI, mode)
    cls: Any = _toolset_class()
    made: AbstractToolset[Any] = cls(session, chosen, id, mode)
    return made


def _profile(ctx: Any) -> Profile:
    """The strict form for the run's model: Anthropic's for Claude, OpenAI's for the rest."""
    system = getattr(getattr(ctx, "model", None), "system", None)
    return ANTHROPIC if system == "anthropic" else OPENAI


@lru_cache(maxsize=1)
def _toolset_class() -> type:
    """The toolset class, built on first use so that importing this module imports no vendor."""
    from pydantic_ai.tools import ToolDefinition
    from pydantic_ai.toolsets import AbstractToolset, ToolsetTool

    from pedelec._result import ToolResult
    from pedelec.errors import PedelecError

    validator = _PassThrough()

    class SessionToolset(AbstractToolset[Any]):
        """A pedelec session's tools; every call goes through ``session.dispatch``."""

        def __init__(
            self,
            session: Session,
            names: tuple[str, ...] | None,
            id: str | None,
            strict: StrictMode,
        ):
            self._session = session
            self._names = names
            self._id = id
            self._strict = strict

        @property
        def id(self) -> str | None:
            return self._id

        async def get_tools(self, ctx: Any) -> dict[str, Any]:
            listed, _ = offered(self._session, self._names, _PROVIDER, _profile(ctx), self._strict)
            tools: dict[str, Any] = {}
            for tool in listed:
                definition = ToolDefinition(
                    name=tool.name,
                    parameters_json_schema=tool.schema,
                    description=tool.description,
                    strict=tool.strict,
                    # Pydantic AI runs a sequential tool as the same barrier pedelec's adapters do.
                    sequential=self._session.tool_spec(tool.tool).get("sequential", False),
                )
                tools[tool.name] = ToolsetTool(
                    toolset=self, tool_def=definition, max_retries=1, args_validator=validator
                )
            return tools

        async def call_tool(self, name: str, tool_args: Any, ctx: Any, tool: Any) -> Any:
            session = self._session
            chosen = session.tool_names() if self._names is None else self._names
            call_id = getattr(ctx, "tool_call_id", None)
            try:
                table = name_map(chosen, _PROVIDER)
            except PedelecError as exc:  # a tool declared since the listing collides
                rid = call_id if isinstance(call_id, str) else ""
                return ToolResult(name, rid, None, exc).to_text()
            args = tool_args.raw if type(tool_args) is _Raw else tool_args
            return await answer(session, chosen, table, name, args, call_id)

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
