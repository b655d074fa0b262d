"""A session's tools for the OpenAI API: Chat Completions and Responses.

Export the tools with :func:`chat_tools` or :func:`responses_tools`, pass the model's tool calls
to :func:`dispatch_tool_calls` or :func:`dispatch_responses_calls`, and append what they return
to the conversation. Tool names that contain ``.`` are sent as ``__`` and mapped back when the
calls come in (see :mod:`pedelec.adapters`).

The ``openai`` package is never imported: the dispatchers read the SDK's objects by attribute
and accept plain dicts of the same shape.

Example:
    >>> from openai import OpenAI
    >>> from pedelec.adapters import openai as pedelec_openai
    >>> client = OpenAI()
    >>> messages = [{"role": "system", "content": session.guidance}, {"role": "user", ...}]
    >>> reply = client.chat.completions.create(
    ...     model="gpt-4.1", messages=messages, tools=pedelec_openai.chat_tools(session)
    ... ).choices[0].message
    >>> messages.append(reply.model_dump(exclude_none=True))
    >>> messages += await pedelec_openai.dispatch_tool_calls(session, reply.tool_calls)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal

from typing_extensions import TypedDict

from pedelec._json.render import render
from pedelec.adapters._calls import (
    MISSING,
    Call,
    field,
    items_of,
    no_id,
    no_name,
    normalise_args,
    run_calls,
    run_calls_sync,
    text_field,
)
from pedelec.adapters._names import NameMap, name_map
from pedelec.adapters._strict import (
    OPENAI,
    Blocker,
    Exported,
    StrictMode,
    export,
    nulls_as_absent,
    problems,
)
from pedelec.errors import TOOL_NOT_FOUND, PedelecError

if TYPE_CHECKING:
    from pedelec._result import ToolResult
    from pedelec.session import Session

__all__ = [
    "ChatFunction",
    "ChatTool",
    "ChatToolMessage",
    "FunctionCallOutput",
    "ResponsesTool",
    "chat_tools",
    "dispatch_responses_calls",
    "dispatch_responses_calls_sync",
    "dispatch_tool_calls",
    "dispatch_tool_calls_sync",
    "responses_tools",
    "strict_problems",
]

_PROVIDER = "OpenAI"


class ChatFunction(TypedDict):
    """The ``function`` part of a Chat Completions tool."""

    name: str
    description: str
    parameters: dict[str, Any]
    strict: bool


class ChatTool(TypedDict):
    """A Chat Completions function tool: ``{"type": "function", "function": {...}}``."""

    type: Literal["function"]
    function: ChatFunction


class ResponsesTool(TypedDict):
    """A Responses API function tool."""

    type: Literal["function"]
    name: str
    description: str
    parameters: dict[str, Any]
    strict: bool


class ChatToolMessage(TypedDict):
    """The message that answers one Chat Completions tool call."""

    role: Literal["tool"]
    tool_call_id: str
    content: str


class FunctionCallOutput(TypedDict):
    """The Responses API input item that answers one ``function_call``."""

    type: Literal["function_call_output"]
    call_id: str
    output: str


def _names(session: Session) -> NameMap:
    return name_map(session.tool_names(), _PROVIDER)


def strict_problems(session: Session) -> dict[str, Blocker]:
    """The tools that :func:`chat_tools` and :func:`responses_tools` export non-strict, and why.

    Under ``strict="auto"`` such a tool is sent with ``strict: false``; this tells which and
    where, so a developer (or ``pedelec check --provider openai``) can fix the schema.

    Example:
        >>> strict_problems(session)
        {}
    """
    return problems(session, OPENAI)


def _exported(session: Session, strict: StrictMode) -> list[Exported]:
    names = _names(session)
    return [
        item._replace(name=names.to_provider(item.name)) for item in export(session, OPENAI, strict)
    ]


def chat_tools(session: Session, strict: StrictMode = "auto") -> list[ChatTool]:
    """Return the session's tools in the Chat Completions ``tools`` format.

    Each schema is a fresh copy. Names containing ``.`` are sent with ``__`` instead.

    Under strict mode every object is closed and fully required, optional properties are
    nullable, and keywords strict mode does not accept (``minLength``, ``maxLength``,
    ``uniqueItems``, ``default``, ``examples``) are written into the description; the dispatch
    functions read a ``null`` for an optional property as "absent", and pedelec still
    enforces every keyword on every call. The keywords and limits follow OpenAI's "Supported
    schemas" (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas);
    the comment on the profiles in :mod:`pedelec.adapters._strict` says how they were checked.

    Args:
        session: The session whose tools to export.
        strict: ``"auto"`` (default): strict for every tool whose schema allows it (see
            :func:`strict_problems`), non-strict for the others. ``True``: strict for all, or
            raise. ``False``: the schemas as declared, ``strict: false``.

    Returns:
        ``[{"type": "function", "function": {"name", "description", "parameters", "strict"}},
        ...]`` in registration order.

    Raises:
        PedelecError: ``INVALID_INPUT`` when two tool names map to the same OpenAI name, a
            mapped name is longer than 64 characters, ``strict`` is not ``True``/``False``/
            ``"auto"``, or ``strict=True`` and a schema cannot be strict (naming its pointer).

    Example:
        >>> chat_tools(session)[0]["function"]["name"]
        'update_counter'
    """
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": parameters,
                "strict": is_strict,
            },
        }
        for name, description, parameters, is_strict, _ in _exported(session, strict)
    ]


def responses_tools(session: Session, strict: StrictMode = "auto") -> list[ResponsesTool]:
    """Return the session's tools in the Responses API ``tools`` format.

    ``strict`` works as for :func:`chat_tools`.

    Args:
        session: The session whose tools to export.
        strict: ``"auto"`` (default), ``True`` or ``False``, as for :func:`chat_tools`.

    Returns:
        ``[{"type": "function", "name", "description", "parameters", "strict"}, ...]``.

    Raises:
        PedelecError: ``INVALID_INPUT`` as :func:`chat_tools`.

    Example:
        >>> responses_tools(session)[0]["name"]
        'update_counter'
    """
    return [
        {
            "type": "function",
            "name": name,
            "description": description,
            "parameters": parameters,
            "strict": is_strict,
        }
        for name, description, parameters, is_strict, _ in _exported(session, strict)
    ]


def _chat_call(session: Session, call: Any, names: NameMap) -> Call:
    call_id = text_field(call, "id") or ""
    kind = field(call, "type")
    if kind is not MISSING and kind != "function":
        message = f"Tool call type {render(kind)} is not supported; call one of the function tools."
        return Call(call_id, "", None, PedelecError(TOOL_NOT_FOUND, message))
    function = field(call, "function")
    name = None if function is MISSING or function is None else text_field(function, "name")
    if name is None:
        return no_name(call_id, "tool call")
    if not call_id:
        return no_id(name, "tool call")
    return _call(session, call_id, names.from_provider(name), field(function, "arguments"))


def _call(session: Session, call_id: str, name: str, arguments: Any) -> Call:
    return Call(call_id, name, nulls_as_absent(session, name, normalise_args(arguments)))


def _responses_call(session: Session, item: Any, names: NameMap) -> Call:
    call_id = text_field(item, "call_id") or ""
    name = text_field(item, "name")
    if name is None:
        return no_name(call_id, "function_call item")
    if not call_id:
        return no_id(name, "function_call item")
    return _call(session, call_id, names.from_provider(name), field(item, "arguments"))


def _chat_messages(results: list[ToolResult]) -> list[ChatToolMessage]:
    return [
        {"role": "tool", "tool_call_id": r.tool_request_id, "content": r.to_text()} for r in results
    ]


def _outputs(results: list[ToolResult]) -> list[FunctionCallOutput]:
    return [
        {"type": "function_call_output", "call_id": r.tool_request_id, "output": r.to_text()}
        for r in results
    ]


def _chat_calls(session: Session, tool_calls: Iterable[Any] | None) -> list[Call]:
    names = _names(session)
    return [_chat_call(session, call, names) for call in items_of(tool_calls, "message.tool_calls")]


def _function_calls(session: Session, output_items: Iterable[Any] | None) -> list[Call]:
    names = _names(session)
    return [
        _responses_call(session, item, names)
        for item in items_of(output_items, "response.output")
        if field(item, "type") == "function_call"
    ]


async def dispatch_tool_calls(
    session: Session, tool_calls: Iterable[Any] | None, *, turn_id: str | None = None
) -> list[ChatToolMessage]:
    """Run a Chat Completions message's tool calls and return the ``tool`` messages.

    The calls run concurrently; the messages come back in the order of the calls. A malformed
    call (arguments that are not JSON, no id, no name, an unknown tool, a non-function call
    type) is answered with an error envelope and never raises.

    Args:
        session: The session that runs the tools.
        tool_calls: ``message.tool_calls`` as the SDK returns it (``None`` means no calls),
            or dicts ``{"id", "type": "function", "function": {"name", "arguments"}}``.
        turn_id: Passed to every handler's ``ctx.turn_id``.

    Returns:
        ``[{"role": "tool", "tool_call_id", "content"}, ...]``; ``content`` is the JSON text of
        the result or of the ``{"error": {...}}`` envelope.

    Raises:
        TypeError: When given one object (the whole message or response) instead of
            ``message.tool_calls``.

    Example:
        >>> messages += await dispatch_tool_calls(session, reply.tool_calls)
    """
    return _chat_messages(
        await run_calls(
            session, _chat_calls(session, tool_calls), turn_id=turn_id, names=_names(session)
        )
    )


def dispatch_tool_calls_sync(
    session: Session, tool_calls: Iterable[Any] | None, *, turn_id: str | None = None
) -> list[ChatToolMessage]:
    """Synchronous :func:`dispatch_tool_calls`, for code without an event loop.

    Raises:
        RuntimeError: When called from a thread that is running an event loop.

    Example:
        >>> messages += dispatch_tool_calls_sync(session, reply.tool_calls)
    """
    calls = _chat_calls(session, tool_calls)
    return _chat_messages(
        run_calls_sync(
            "dispatch_tool_calls", session, calls, turn_id=turn_id, names=_names(session)
        )
    )


async def dispatch_responses_calls(
    session: Session, output_items: Iterable[Any] | None, *, turn_id: str | None = None
) -> list[FunctionCallOutput]:
    """Run a Responses API output's ``function_call`` items and return their outputs.

    Items of other types (messages, reasoning) are skipped, so ``response.output`` can be
    passed as it is. Calls run concurrently; outputs come back in the order of the calls.
    Malformed calls are answered with an error envelope and never raise.

    Args:
        session: The session that runs the tools.
        output_items: ``response.output`` as the SDK returns it, or dicts
            ``{"type": "function_call", "call_id", "name", "arguments"}``.
        turn_id: Passed to every handler's ``ctx.turn_id``.

    Returns:
        ``[{"type": "function_call_output", "call_id", "output"}, ...]`` to send as ``input``
        of the next request (with ``previous_response_id``) or to append to the input list.

    Raises:
        TypeError: When given one object (the whole message or response) instead of
            ``response.output``.

    Example:
        >>> outputs = await dispatch_responses_calls(session, response.output)
    """
    return _outputs(
        await run_calls(
            session, _function_calls(session, output_items), turn_id=turn_id, names=_names(session)
        )
    )


def dispatch_responses_calls_sync(
    session: Session, output_items: Iterable[Any] | None, *, turn_id: str | None = None
) -> list[FunctionCallOutput]:
    """Synchronous :func:`dispatch_responses_calls`, for code without an event loop.

    Raises:
        RuntimeError: When called from a thread that is running an event loop.

    Example:
        >>> outputs = dispatch_responses_calls_sync(session, response.output)
    """
    calls = _function_calls(session, output_items)
    return _outputs(
        run_calls_sync(
            "dispatch_responses_calls", session, calls, turn_id=turn_id, names=_names(session)
        )
    )
