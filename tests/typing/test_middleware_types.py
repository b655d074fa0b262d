"""The middleware and concurrency options are typed: ``ToolCall``'s fields, ``use``'s return,
and a wrong type for ``sequential=`` or ``max_concurrency=`` is a type error.

Checked by ``mypy --strict`` with ``warn_unused_ignores``: the lines that must be type errors
carry ``# type: ignore[<code>]``, so an ignore that stopped being needed fails mypy.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, assert_type

import pytest

from pedelec import PedelecError, Session, ToolCall, ToolCallContext, ToolResult, define_tool


async def typed_middleware(
    call: ToolCall, call_next: Callable[[ToolCall], Awaitable[ToolResult]]
) -> ToolResult:
    assert_type(call.tool, str)
    assert_type(call.args, dict[str, Any])
    assert_type(call.ctx, ToolCallContext)
    assert_type(call.with_args({"n": 1}), ToolCall)
    return await call_next(call)


def test_use_returns_a_remover() -> None:
    session = Session()
    session.on_tool("t", description="T.", schema={"type": "object"})(lambda args: 1)
    remove = session.use(typed_middleware)
    assert_type(remove, Callable[[], None])
    assert session.dispatch_sync("t", {}).value == 1
    remove()


def test_wrong_option_types_are_refused() -> None:
    with pytest.raises(PedelecError):
        Session(max_concurrency="2")  # type: ignore[arg-type]
    with pytest.raises(PedelecError):
        define_tool(name="t", description="T.", schema={"type": "object"}, sequential="yes")  # type: ignore[call-overload]
