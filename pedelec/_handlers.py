"""Handler normalisation: every handler style becomes one ``HandlerSpec`` at registration.

It stands apart from ``pedelec.tools`` because typed-tool inference needs it too, and inference
must not import tool definitions (that was an import cycle).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, final

from pedelec._context import ToolCallContext
from pedelec.errors import INVALID_INPUT, PedelecError

__all__ = ["HandlerSpec", "handler_spec", "is_async_callable"]


@final
class HandlerSpec:
    """A handler, normalised once at registration.

    Attributes:
        call: ``call(args, ctx)``; every handler style is adapted to this shape.
        is_async: Whether ``call`` returns an awaitable (the handler is a coroutine function).
        source: The function the user registered; ``off_tool`` compares it by identity.
        args_only: For handlers that take only ``(args)``, the handler itself, so the dispatcher
            can skip building a context nobody reads. ``None`` otherwise.
    """

    __slots__ = ("args_only", "call", "is_async", "source")

    call: Callable[[dict[str, Any], ToolCallContext], Any]
    is_async: bool
    source: Callable[..., Any]
    args_only: Callable[[dict[str, Any]], Any] | None

    def __init__(
        self,
        call: Callable[[dict[str, Any], ToolCallContext], Any],
        is_async: bool,
        source: Callable[..., Any],
        *,
        args_only: Callable[[dict[str, Any]], Any] | None = None,
    ) -> None:
        self.call = call
        self.is_async = is_async
        self.source = source
        self.args_only = args_only

    def __repr__(self) -> str:
        return f"HandlerSpec(source={self.source!r}, is_async={self.is_async!r})"


def is_async_callable(fn: Any) -> bool:
    """Whether calling ``fn`` returns a coroutine: ``async def`` functions, partials of them,
    and objects whose ``__call__`` is ``async def``."""
    if inspect.iscoroutinefunction(fn):
        return True
    call = getattr(type(fn), "__call__", None)  # noqa: B004 - the class attribute, not callable()
    return call is not None and inspect.iscoroutinefunction(call)


def _takes(fn: Callable[..., Any], n: int) -> bool | None:
    """Whether ``fn`` can be called with ``n`` positional arguments (``None``: unknown)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    required = total = 0
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            total = n
        elif p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            total += 1
            required += p.default is p.empty
        elif p.kind is p.KEYWORD_ONLY and p.default is p.empty:
            return False  # a required keyword-only parameter is never filled
    return required <= n <= total


def handler_spec(fn: Any, *, tool: str | None = None, fallback: bool = False) -> HandlerSpec:
    """Normalise a user handler into a ``HandlerSpec`` (the style is decided here, once).

    A handler takes ``(args, ctx)`` if it can be called with two positional arguments, else
    ``(args)``; a fallback handler takes ``(tool, args, ctx)``. A callable whose signature cannot
    be read (some builtins) is called as ``(args, ctx)``, or ``(tool, args, ctx)`` as fallback.

    Args:
        fn: The user's handler.
        tool: The tool name, for error messages.
        fallback: Whether ``fn`` is the session's ``on_any_tool`` handler.

    Returns:
        The normalised handler.

    Raises:
        PedelecError: ``INVALID_INPUT`` when ``fn`` is not callable or cannot take the arguments.

    Example:
        >>> spec = handler_spec(lambda args: args["n"], tool="echo")
        >>> spec.is_async, spec.args_only is not None
        (False, True)
    """
    if fallback:
        where = "The fallback handler"
    elif tool is None:
        where = "The handler"
    else:
        where = f'The handler of tool "{tool}"'
    details: dict[str, Any] = (
        {"field": "handler"} if tool is None else {"tool": tool, "field": "handler"}
    )
    if not callable(fn):
        raise PedelecError(
            INVALID_INPUT, f"{where} must be callable, got {type(fn).__name__}.", details
        )
    is_async = is_async_callable(fn)
    if fallback:
        if _takes(fn, 3) is False:
            raise PedelecError(
                INVALID_INPUT,
                f"{where} must take (tool, args, ctx); {_describe_signature(fn)} cannot.",
                details,
            )
        return HandlerSpec(lambda args, ctx: fn(ctx.tool, args, ctx), is_async, fn)
    if _takes(fn, 2) is not False:
        return HandlerSpec(fn, is_async, fn)
    if _takes(fn, 1):
        return HandlerSpec(lambda args, ctx: fn(args), is_async, fn, args_only=fn)
    raise PedelecError(
        INVALID_INPUT,
        f"{where} must take (args) or (args, ctx); {_describe_signature(fn)} cannot.",
        details,
    )


def _describe_signature(fn: Callable[..., Any]) -> str:
    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    name = name.rsplit("<locals>.", 1)[-1]  # "make.<locals>.handler" reads as "handler"
    try:
        return f"{name}{inspect.signature(fn)}"
    except (TypeError, ValueError):  # pragma: no cover - only called when signature() worked
        return name
