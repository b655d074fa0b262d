"""The approval types hold statically: ``requires_approval``, approvers and ``Denied``.

Checked by ``mypy --strict`` with ``warn_unused_ignores``: the lines that must be type errors
carry ``# type: ignore[<code>]``, so an ignore that stopped being needed fails mypy.
"""

from __future__ import annotations

from typing import Any

import pytest

from pedelec import ApprovalRequest, Denied, PedelecError, Session, ToolCallContext, define_tool


def per_call(args: dict[str, Any], ctx: ToolCallContext) -> bool:
    return ctx.turn_id is None


def sync_approver(request: ApprovalRequest) -> bool | Denied:
    return Denied("no") if request.tool == "wipe" else True


async def async_approver(request: ApprovalRequest) -> bool:
    return request.args == {}


def test_the_approval_types_check() -> None:
    for approver in (sync_approver, async_approver):
        session = Session(approver=approver)
        session.on_tool("t", description="T.", schema={"type": "object"}, requires_approval=True)(
            lambda args: 1
        )
        define_tool(
            name="u", description="U.", schema={"type": "object"}, requires_approval=per_call
        )
    reason: str | None = Denied("why").reason
    assert reason == "why"


def test_wrong_values_are_type_errors() -> None:
    with pytest.raises(PedelecError):
        define_tool(name="u", description="U.", requires_approval="yes", schema={})  # type: ignore[call-overload]
    with pytest.raises(PedelecError):
        Session(approver=5)  # type: ignore[arg-type]
