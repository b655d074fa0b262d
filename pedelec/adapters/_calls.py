"""Run a batch of provider tool calls through a session, concurrently, keeping their order.

Provider calls arrive as SDK objects (pydantic models) or plain dicts; :func:`field` reads both
without importing any vendor package. Each call is first normalised to a :class:`Call`: either a
tool name with its arguments, or an error the call already carries (no id, no name, an
unsupported call type). Normalised calls run together with ``asyncio.gather`` over
``session.dispatch``, except that a call of a ``sequential`` tool waits for the calls before it
and runs before those after it; a call that carries an error comes back as a ``ToolResult``
holding it, so every call is answered the same way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeVar, final

from pedelec.errors import INVALID_INPUT, TOOL_NOT_FOUND, PedelecError

if TYPE_CHECKING:
    from pedelec._result import ToolResult
    from pedelec.adapters._names import NameMap
    from pedelec.session import Session

__all__ = [
    "MISSING",
    "Call",
    "field",
    "items_of",
    "no_id",
    "no_name",
    "provider_facing",
    "run_calls",
    "run_calls_sync",
]

MISSING: Final[Any] = object()

T = TypeVar("T")


def field(obj: Any, key: str) -> Any:
    """Read ``key`` from a dict or an attribute of an SDK object; :data:`MISSING` if absent."""
    if isinstance(obj, dict):
        return obj.get(key, MISSING)
    return getattr(obj, key, MISSING)


def text_field(obj: Any, key: str) -> str | None:
    """Read a non-empty string field, or ``None`` when it is absent, empty or not a string."""
    value = field(obj, key)
    return value if isinstance(value, str) and value else None


@final
class Call:
    """One provider tool call, normalised.

    Attributes:
        call_id: The provider's id for the call (``""`` when the call had none).
        name: The session tool name (already mapped back from the provider name).
        args: The arguments as the provider sent them: JSON text or a dict.
        error: Set when the call cannot be dispatched at all; ``name``/``args`` are then unused.
    """

    __slots__ = ("args", "call_id", "error", "name")

    def __init__(
        self, call_id: str, name: str, args: Any, error: PedelecError | None = None
    ) -> None:
        self.call_id = call_id
        self.name = name
        self.args = args
        self.error = error


def items_of(items: Iterable[Any] | None, expected: str) -> Iterable[Any]:
    """The provider's list of calls; ``None`` is no calls.

    Raises:
        TypeError: For a single object where a list belongs (the whole message or response
            instead of its ``tool_calls``/``content``/``output``): iterating it would produce
            nonsense calls instead of an error the developer can see.
    """
    if items is None:
        return ()
    if isinstance(items, (str, bytes, dict)) or hasattr(items, "model_dump"):
        raise TypeError(f"expected {expected} (a list), got a {type(items).__name__}")
    return items


def no_name(call_id: str, what: str) -> Call:
    """A call that names no tool: ``TOOL_NOT_FOUND``, without running anything."""
    message = f"A {what} arrived without a tool name; call one of the session's tools by name."
    return Call(call_id, "", None, PedelecError(TOOL_NOT_FOUND, message))


def no_id(name: str, what: str) -> Call:
    """A call without an id: its result could not be paired with it, so it is not run."""
    message = (
        f'A {what} of "{name}" arrived without an id, so its result could not be matched to it; '
        "it was not run."
    )
    return Call("", name, None, PedelecError(INVALID_INPUT, message, {"tool": name}))


def normalise_args(args: Any) -> Any:
    """Map "no arguments" to ``{}``: a missing field, ``None`` or blank JSON text.

    Some models send ``""`` for a tool that takes no arguments; every other value goes to the
    session unchanged, which parses JSON text strictly and reports anything else.
    """
    if args is MISSING or args is None:
        return {}
    if isinstance(args, str) and not args.strip():
        return {}
    return args


async def run_calls(
    session: Session,
    calls: Sequence[Call],
    *,
    turn_id: str | None = None,
    names: NameMap | None = None,
) -> list[ToolResult]:
    """Dispatch ``calls`` concurrently and return their results in input order.

    A call of a ``sequential`` tool is a barrier: it starts when every call before it has
    finished (or timed out), and the calls after it start when it has.

    The provider's call id becomes the result's (and the handler's) ``tool_request_id``; a call
    without one (Gemini's ids are optional) gets a fresh id from the session. With ``names``,
    error results name tools as the provider sent them (see :func:`provider_facing`).
    """
    import asyncio

    from pedelec._result import ToolResult

    async def one(call: Call) -> ToolResult:
        if call.error is not None:
            return ToolResult(call.name, call.call_id, None, call.error)
        if type(call.args) is dict:  # parsed by the provider's SDK, from the agent's text
            from pedelec._result import args_unsendable

            refused = args_unsendable(call.name, call.call_id, call.args)
            if refused is not None:
                return refused
        return await session.dispatch(
            call.name, call.args, turn_id=turn_id, tool_request_id=call.call_id or None
        )

    from pedelec._session.concurrency import batches

    groups = batches(session._registry, calls)
    if groups is None:
        results = list(await asyncio.gather(*(one(call) for call in calls)))
    else:  # a sequential tool's call runs alone, after the calls before it
        results = []
        for group in groups:
            results += await asyncio.gather(*(one(call) for call in group))
    if names is None:
        return results
    return [provider_facing(session, result, names) for result in results]


def provider_facing(session: Session, result: ToolResult, names: NameMap) -> ToolResult:
    """``result`` with its error naming tools by the names the provider's model was given.

    The model only ever saw ``notes__search``; a hint to call ``"notes.search"`` would send it
    to a tool it cannot name. An unknown tool is answered again from the provider's names (the
    "did you mean" and the list of tools); any other error has its tool's quoted name and its
    ``details["tool"]`` mapped. ``result.tool`` stays the session's name.
    """
    from pedelec._result import ToolResult, tool_not_found

    error = result.error
    if error is None:
        return result
    if error.code == TOOL_NOT_FOUND and isinstance(error.details, dict) and "tool" in error.details:
        sent = [names.to_provider(name) for name in session.tool_names()]
        return tool_not_found(result.tool, result.tool_request_id, sent)
    try:
        shown = names.to_provider(result.tool)
    except KeyError:
        return result
    if shown == result.tool:
        return result
    details = error.details
    if isinstance(details, dict) and details.get("tool") == result.tool:
        details = {**details, "tool": shown}
    message = error.message.replace(f'"{result.tool}"', f'"{shown}"')
    mapped = PedelecError(error.code, message, details)
    return ToolResult(result.tool, result.tool_request_id, result.value, mapped)


def run_sync(fn_name: str, make: Callable[[], Awaitable[T]]) -> T:
    """Run the coroutine ``make()`` to completion from synchronous code.

    Raises:
        RuntimeError: When called from a thread that is running an event loop: blocking it
            would freeze every other task, so the caller must ``await`` the async variant.
    """
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RuntimeError(
            f"{fn_name}_sync() was called from a running event loop; use await {fn_name}(...) "
            "there instead."
        )

    async def main() -> T:
        return await make()

    return asyncio.run(main())


def run_calls_sync(
    fn_name: str,
    session: Session,
    calls: Sequence[Call],
    *,
    turn_id: str | None = None,
    names: NameMap | None = None,
) -> list[ToolResult]:
    """Synchronous :func:`run_calls`; ``fn_name`` names the public function in errors."""
    return run_sync(fn_name, lambda: run_calls(session, calls, turn_id=turn_id, names=names))
