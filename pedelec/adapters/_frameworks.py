"""What the Agents SDK and Pydantic AI adapters share: the export of some tools, and one call.

A framework is given the tools one by one and hands every call back to one tool. Each call is
answered by the provider adapters' own machinery (:func:`pedelec.adapters._calls.run_calls`, for
a batch of one), so a framework call is read, validated, timed and answered exactly as an OpenAI
or Anthropic call is: a ``null`` for an optional property means "absent" (strict exports make
optional properties nullable), args the wire cannot carry are refused, and error messages name
tools by the names the model was given.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from pedelec.adapters._calls import Call, normalise_args, run_calls
from pedelec.adapters._names import NameMap, name_map
from pedelec.adapters._strict import Profile, StrictMode, export, nulls_as_absent

if TYPE_CHECKING:
    from pedelec.session import Session

__all__ = ["Offered", "answer", "offered"]


class Offered(NamedTuple):
    """One session tool as a framework is given it."""

    #: The session's name for the tool.
    tool: str
    #: The name the model sees.
    name: str
    description: str
    schema: dict[str, Any]
    strict: bool


def offered(
    session: Session,
    names: Iterable[str] | None,
    provider: str,
    profile: Profile,
    strict: StrictMode,
) -> tuple[list[Offered], NameMap]:
    """The tools ``names`` (default: all) as sent, strict where ``strict`` asks and they can be.

    Raises:
        PedelecError: ``TOOL_NOT_FOUND`` for a name the session does not declare;
            ``INVALID_INPUT`` for names that collide once mapped or are too long, a bad
            ``strict``, or ``strict=True`` and a tool that cannot be strict (naming its pointer).
    """
    chosen = session.tool_names() if names is None else list(names)
    specs = [session.tool_spec(name) for name in chosen]
    table = name_map(chosen, provider)
    tools = [
        Offered(
            item.name, table.to_provider(item.name), item.description, item.parameters, item.strict
        )
        for item in export(session, profile, strict, specs)
    ]
    return tools, table


async def answer(
    session: Session, chosen: Sequence[str], table: NameMap, sent: str, args: Any, call_id: Any
) -> str:
    """The text the model reads for its call of ``sent`` (a name it was given) with ``args``.

    ``chosen`` are the session tools the framework was given, ``table`` their name map. A name
    outside them (a framework never sends one, but nothing the model sends may raise) is an
    unknown tool listed against the names the model was given.
    """
    from pedelec._result import tool_not_found

    rid = call_id if isinstance(call_id, str) and call_id else ""
    tool = table.from_provider(sent)
    if tool not in chosen:
        available = [table.to_provider(name) for name in chosen]
        return tool_not_found(sent, rid, available).to_text()
    call = Call(rid, tool, nulls_as_absent(session, tool, normalise_args(args)))
    [result] = await run_calls(session, [call], names=table)
    return result.to_text()
