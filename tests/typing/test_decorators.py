"""The session decorators return the decorated function with its exact type.

Checked by ``mypy --strict`` (``warn_unused_ignores``): ``assert_type`` fails the type check when
a decorator loses or changes the function's type, and every ``# type: ignore[...]`` marks a line
that must stay a type error. pytest runs the same code, so the decorators also return the very
same object at runtime.

Handlers taking ``args`` (and ``ctx``) use positional-only parameters so their type is exactly a
``Callable[[...], ...]``; typed tools need named parameters, so their exact type is pinned with a
``Protocol`` instead.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, Protocol, assert_type

import pytest

from pedelec._context import ToolCallContext
from pedelec.errors import PedelecError
from pedelec.session import Session, SessionStatus, ToolResult
from pedelec.tools import ToolDefinition, define_tool, tool

OBJ: Any = {"type": "object", "properties": {"n": {"type": "integer"}}}


def sync_args(args: dict[str, Any], /) -> int:
    return 1


def sync_args_ctx(args: dict[str, Any], ctx: ToolCallContext, /) -> str:
    return ctx.tool


async def async_args_ctx(args: dict[str, Any], ctx: ToolCallContext, /) -> list[int]:
    return [1]


def fallback(tool: str, args: dict[str, Any], ctx: ToolCallContext, /) -> None:
    return None


def typed(text: str, times: int = 1) -> str:
    """Repeat text."""
    return text * times


async def typed_async(text: str) -> list[int]:
    """Encode text."""
    return list(text.encode())


class Typed(Protocol):
    def __call__(self, text: str, times: int = 1) -> str: ...


class TypedAsync(Protocol):
    async def __call__(self, text: str) -> list[int]: ...


def test_on_tool_keeps_the_type() -> None:
    session = Session()
    declared = session.on_tool("a", description="A.", schema={"type": "object"})(sync_args)
    assert_type(declared, Callable[[dict[str, Any]], int])
    named = session.on_tool("a")(sync_args_ctx)
    assert_type(named, Callable[[dict[str, Any], ToolCallContext], str])
    coroutine = session.on_tool("b", description="B.", schema={"type": "object"})(async_args_ctx)
    assert_type(
        coroutine, Callable[[dict[str, Any], ToolCallContext], Coroutine[Any, Any, list[int]]]
    )
    assert named is sync_args_ctx and declared is sync_args and coroutine is async_args_ctx

    @session.on_tool("c", description="C.", schema={"type": "object", "properties": {}})
    def decorated(args: dict[str, Any], /) -> float:
        return 1.5

    assert_type(decorated, Callable[[dict[str, Any]], float])
    assert decorated({}) == 1.5


def test_on_any_tool_and_off_keep_the_type() -> None:
    session = Session()
    registered = session.on_any_tool(fallback)
    assert_type(registered, Callable[[str, dict[str, Any], ToolCallContext], None])
    assert registered is fallback
    assert_type(session.off_any_tool(fallback), bool)
    assert_type(session.off_tool("x", sync_args), bool)


def test_session_tool_keeps_the_type() -> None:
    session = Session()
    original: Typed = typed
    bare = session.tool(original)
    assert_type(bare, Typed)
    assert_type(bare("a", times=2), str)
    with pytest.raises(TypeError):
        bare(txt="a")  # type: ignore[call-arg]
    original_async: TypedAsync = typed_async
    configured = session.tool(name="enc", description="Encode.", timeout_ms=5)(original_async)
    assert_type(configured, TypedAsync)
    named = session.tool("rep")(typed)
    assert_type(named("x"), str)
    assert bare is typed and configured is typed_async and named is typed


def test_module_tool_and_define_tool_types() -> None:
    definition = tool("t", description="T.", schema={"type": "object"})(sync_args)
    assert_type(definition, ToolDefinition[[dict[str, Any]], int])
    assert_type(definition({"n": 1}), int)
    inferred = tool(typed)
    assert_type(inferred("a", times=3), str)  # callable like the function, with its signature
    with pytest.raises(TypeError):
        inferred("a", tmes=3)  # type: ignore[call-arg]
    with_handler = define_tool(
        name="d", description="D.", schema={"type": "object"}, handler=sync_args
    )
    assert_type(with_handler, ToolDefinition[[dict[str, Any]], int])
    without = define_tool(name="e", description="E.", schema={"type": "object"})
    assert_type(without, ToolDefinition[..., Any])
    assert_type(
        Session(tools=[definition, inferred, with_handler, without]).tool_names(), list[str]
    )


def test_an_integral_float_timeout_type_checks_and_counts_as_an_integer() -> None:
    # The runtime takes 3000.0 as 3000 (JSON Schema's integers), so the hints say float too.
    session = Session()
    session.on_tool("a", schema=OBJ, description="A.", timeout_ms=3000.0)(sync_args)
    session.tool(name="b", description="B.", timeout_ms=2500.0)(typed)
    by_tool = tool("c", description="C.", schema=OBJ, timeout_ms=1500.0)(sync_args)
    defined = define_tool(name="d", description="D.", schema=OBJ, timeout_ms=1000.0)
    timeouts = [by_tool.timeout_ms, defined.timeout_ms]
    assert timeouts == [1500, 1000] and all(type(t) is int for t in timeouts)
    assert session.manifest()["tools"][0]["timeoutMs"] == 3000


def test_dispatch_types() -> None:
    session = Session(
        tools=[define_tool(name="d", description="D.", schema=OBJ, handler=sync_args)]
    )
    result = session.dispatch_sync("d", {"n": 1}, turn_id="t")
    assert_type(result, ToolResult)
    assert_type(result.is_error, bool)
    assert_type(session.status, SessionStatus)
    assert_type(session.manifest(), dict[str, Any])


def test_misuse_is_a_type_error() -> None:
    session = Session()
    with pytest.raises(TypeError):
        session.on_tool("x", description="X.", schema={"type": "object"}, timeout=5)  # type: ignore[call-overload]
    with pytest.raises(PedelecError):
        session.on_tool("x", description="X.", schema={"type": "objet"})(sync_args)  # type: ignore[call-overload]
    with pytest.raises(PedelecError):
        define_tool(name="x", description="X.", schema={"type": "object"}, input={})  # type: ignore[call-overload]
    with pytest.raises(TypeError):
        session.dispatch_sync("x", {}, turn=1)  # type: ignore[call-arg]
