"""Approval, output schemas, middleware and the concurrency cap on one call path.

Each feature has its own tests; these pin how they compose: approval is decided before the
middleware runs (a deferred call never reaches it), a resumed call passes through the same
middleware and cap as a direct one, and the output schema checks what the agent finally gets,
after every middleware.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pedelec import Session, ToolCall

DISK: Any = {"type": "object", "properties": {"disk": {"type": "string"}}, "required": ["disk"]}


def wiping_session(seen: list[str], **options: Any) -> Session:
    session = Session(**options)

    @session.on_tool(
        "wipe",
        description="Wipe a disk.",
        schema=DISK,
        requires_approval=True,
        output_schema={"type": "string", "pattern": "^wiped "},
    )
    def wipe(args: dict[str, str]) -> str:
        return f"wiped {args['disk']}"

    async def audit(call: ToolCall, call_next: Any) -> Any:
        seen.append(f"{call.tool} {call.args['disk']}")
        return await call_next(call)

    session.use(audit)
    return session


@pytest.mark.parametrize("how", ["sync", "async"])
def test_a_deferred_call_skips_the_middleware_and_its_resumption_passes_it(how: str) -> None:
    seen: list[str] = []
    session = wiping_session(seen, max_concurrency=1)
    if how == "sync":
        deferred = session.dispatch_sync("wipe", {"disk": "d1"})
    else:
        deferred = asyncio.run(session.dispatch("wipe", {"disk": "d1"}))
    assert deferred.error is not None and deferred.error.code == "TOOL_APPROVAL_REQUIRED"
    assert seen == []
    token = deferred.error.details["token"]
    if how == "sync":
        result = session.resume_sync(token, approve=True)
    else:
        result = asyncio.run(session.resume(token, approve=True))
    assert result.to_json() == "wiped d1"
    assert seen == ["wipe d1"]
    session.end()


@pytest.mark.parametrize("how", ["sync", "async"])
def test_the_output_schema_checks_what_the_middleware_returns(how: str) -> None:
    seen: list[str] = []
    session = wiping_session(seen, approver=lambda request: True)

    async def rewrite(call: ToolCall, call_next: Any) -> Any:
        await call_next(call)
        return "done"  # not what the output schema promises

    session.use(rewrite)
    reported: list[str] = []
    session.on_error(lambda result: reported.append(result.error.code if result.error else ""))
    if how == "sync":
        result = session.dispatch_sync("wipe", {"disk": "d2"})
    else:
        result = asyncio.run(session.dispatch("wipe", {"disk": "d2"}))
    assert result.to_json() == {
        "error": {
            "code": "SUBMIT_TOOL_RESULT_FAILED",
            "message": 'Tool "wipe" returned a result that does not match its output schema: '
            '(root): must match pattern "^wiped ", got "done" (pattern). This is a bug in the '
            "tool, not in the arguments; calling it again unchanged will not help.",
            "details": {
                "tool": "wipe",
                "errors": [
                    {
                        "path": "",
                        "keyword": "pattern",
                        "message": 'must match pattern "^wiped ", got "done"',
                    }
                ],
            },
        }
    }
    assert seen == ["wipe d2"]
    assert reported == ["SUBMIT_TOOL_RESULT_FAILED"]
    session.end()
