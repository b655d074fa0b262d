"""A session's tools for the Anthropic Messages API.

Export the tools with :func:`tools`, pass the assistant message's content to
:func:`dispatch_tool_uses`, and send the ``tool_result`` blocks it returns back in a ``user``
message. Tool names that contain ``.`` are sent as ``__`` and mapped back when the calls come
in (see :mod:`pedelec.adapters`).

The ``anthropic`` package is never imported: the dispatcher reads the SDK's content blocks by
attribute and accepts plain dicts of the same shape.

Example:
    >>> from anthropic import Anthropic
    >>> from pedelec.adapters import anthropic as pedelec_anthropic
    >>> message = Anthropic().messages.create(
    ...     model="claude-sonnet-4-5", max_tokens=1024, system=session.guidance,
    ...     tools=pedelec_anthropic.tools(session), messages=messages,
    ... )
    >>> messages.append({"role": "assistant", "content": message.content})
    >>> results = await pedelec_anthropic.dispatch_tool_uses(session, message.content)
    >>> messages.append({"role": "user", "content": results})
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal, NotRequired

from typing_extensions import TypedDict

from pedelec.adapters._calls import (
    MISSING,
    Call,
    field,
    items_of,
    no_id,
    no_name,
    run_calls,
    run_calls_sync,
    text_field,
)
from pedelec.adapters._names import NameMap, name_map
from pedelec.adapters._strict import (
    ANTHROPIC,
    Blocker,
    StrictMode,
    export,
    nulls_as_absent,
    problems,
)

if TYPE_CHECKING:
    from pedelec._result import ToolResult
    from pedelec.session import Session

__all__ = [
    "AnthropicTool",
    "ToolResultBlock",
    "dispatch_tool_uses",
    "dispatch_tool_uses_sync",
    "strict_problems",
    "tools",
]

_PROVIDER = "Anthropic"


class AnthropicTool(TypedDict):
    """A client tool in the Messages API ``tools`` format."""

    name: str
    description: str
    input_schema: dict[str, Any]
    strict: bool


class ToolResultBlock(TypedDict):
    """The ``tool_result`` content block that answers one ``tool_use`` block."""

    type: Literal["tool_result"]
    tool_use_id: str
    content: str
    is_error: NotRequired[bool]


def _names(session: Session) -> NameMap:
    return name_map(session.tool_names(), _PROVIDER)


def tools(session: Session, strict: StrictMode = "auto") -> list[AnthropicTool]:
    """Return the session's tools in the Messages API ``tools`` format.

    Each schema is a fresh copy. Names containing ``.`` are sent with ``__`` instead.

    A strict tool has every object closed (``additionalProperties: false``), ``oneOf`` as
    ``anyOf`` where its branches are proven disjoint, and the keywords Anthropic's strict mode
    does not take (``minimum``, ``maximum``, ``minLength``, ``maxLength``, ``minItems``,
    ``maxItems``, ``uniqueItems``, ``default``, ``examples``, and a ``pattern`` with a
    backreference, lookaround or word boundary) written into the description; pedelec still
    enforces all of them on every call. The limits follow Anthropic's "Structured outputs" page
    (https://platform.claude.com/docs/en/build-with-claude/structured-outputs); the comment on
    the profiles in :mod:`pedelec.adapters._strict` says how they were checked.

    Args:
        session: The session whose tools to export.
        strict: ``"auto"`` (default): strict for every tool whose schema allows it, within
            Anthropic's caps for one request (20 strict tools, 24 optional and 16 union
            parameters across them), taken in registration order; :func:`strict_problems`
            tells which tools are not, and why. ``True``: strict for all, or raise.
            ``False``: the schemas as declared.

    Returns:
        ``[{"name", "description", "input_schema", "strict"}, ...]`` in registration order.

    Raises:
        PedelecError: ``INVALID_INPUT`` when two tool names map to the same Anthropic name, a
            mapped name is longer than 64 characters, ``strict`` is not ``True``/``False``/
            ``"auto"``, or ``strict=True`` and a tool cannot be strict (naming its pointer).

    Example:
        >>> tools(session)[0]["name"]
        'update_counter'
    """
    names = _names(session)
    return [
        {
            "name": names.to_provider(item.name),
            "description": item.description,
            "input_schema": item.parameters,
            "strict": item.strict,
        }
        for item in export(session, ANTHROPIC, strict)
    ]


def strict_problems(session: Session) -> dict[str, Blocker]:
    """The tools :func:`tools` exports non-strict under ``strict="auto"``, each with its reason.

    Example:
        >>> strict_problems(session)
        {}
    """
    return problems(session, ANTHROPIC)


def _tool_use(session: Session, block: Any, names: NameMap) -> Call:
    call_id = text_field(block, "id") or ""
    name = text_field(block, "name")
    if name is None:
        return no_name(call_id, "tool_use block")
    if not call_id:
        return no_id(name, "tool_use block")
    args = field(block, "input")
    tool = names.from_provider(name)
    return Call(call_id, tool, {} if args is MISSING else nulls_as_absent(session, tool, args))


def _tool_uses(session: Session, content_blocks: Iterable[Any] | None) -> list[Call]:
    names = _names(session)
    return [
        _tool_use(session, block, names)
        for block in items_of(content_blocks, "message.content")
        if field(block, "type") == "tool_use"
    ]


def _blocks(results: list[ToolResult]) -> list[ToolResultBlock]:
    blocks: list[ToolResultBlock] = []
    for result in results:
        block: ToolResultBlock = {
            "type": "tool_result",
            "tool_use_id": result.tool_request_id,
            "content": result.to_text(),
        }
        if result.is_error:
            block["is_error"] = True
        blocks.append(block)
    return blocks


async def dispatch_tool_uses(
    session: Session, content_blocks: Iterable[Any] | None, *, turn_id: str | None = None
) -> list[ToolResultBlock]:
    """Run an assistant message's ``tool_use`` blocks and return the ``tool_result`` blocks.

    Blocks of other types (text, thinking) are skipped, so ``message.content`` can be passed
    as it is. Calls run concurrently; results come back in the order of the calls. A malformed
    call (no id, no name, an unknown tool, input that is not an object) is answered with an
    error and never raises.

    Args:
        session: The session that runs the tools.
        content_blocks: ``message.content`` as the SDK returns it, or dicts
            ``{"type": "tool_use", "id", "name", "input"}``.
        turn_id: Passed to every handler's ``ctx.turn_id``.

    Returns:
        ``[{"type": "tool_result", "tool_use_id", "content", "is_error"?}, ...]``; ``content``
        is the JSON text of the result or of the ``{"error": {...}}`` envelope, and
        ``is_error`` is ``True`` for every error envelope.

    Raises:
        TypeError: When given one object (the whole message or response) instead of
            ``message.content``.

    Example:
        >>> results = await dispatch_tool_uses(session, message.content)
        >>> messages.append({"role": "user", "content": results})
    """
    return _blocks(
        await run_calls(
            session, _tool_uses(session, content_blocks), turn_id=turn_id, names=_names(session)
        )
    )


def dispatch_tool_uses_sync(
    session: Session, content_blocks: Iterable[Any] | None, *, turn_id: str | None = None
) -> list[ToolResultBlock]:
    """Synchronous :func:`dispatch_tool_uses`, for code without an event loop.

    Raises:
        RuntimeError: When called from a thread that is running an event loop.

    Example:
        >>> results = dispatch_tool_uses_sync(session, message.content)
    """
    calls = _tool_uses(session, content_blocks)
    return _blocks(
        run_calls_sync("dispatch_tool_uses", session, calls, turn_id=turn_id, names=_names(session))
    )
