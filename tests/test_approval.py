"""Human approval of tool calls, through the public API: declaring, approvers, deferral, resume.

Every scenario counts what the handler ran, so "denied" means "never ran" and "approved"
means "ran once, with the args that were approved".
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from openai.types.chat import ChatCompletionMessageFunctionToolCall
from openai.types.chat.chat_completion_message_function_tool_call import Function

from pedelec import (
    ERROR_CODES,
    TOOL_APPROVAL_DENIED,
    TOOL_APPROVAL_INVALID,
    TOOL_APPROVAL_REQUIRED,
    ApprovalRequest,
    Denied,
    Limits,
    PedelecError,
    Session,
    ToolCallContext,
    ToolResult,
    define_tool,
    tool,
)
from pedelec.adapters import mcp as mcp_adapter, openai as openai_adapter

WIPE = {"type": "object", "properties": {"disk": {"type": "string"}}, "required": ["disk"]}
INVALID = (
    "The approval token is unknown, already used or expired, so nothing was run; call the "
    "tool again to ask for a new approval."
)
REQUIRED = (
    'Tool "wipe" needs a person\'s approval before it runs, and has not run yet: tell the user '
    "it waits for their approval; do not call it again."
)


def denial(reason: str | None = None) -> dict[str, Any]:
    because = f": {reason.rstrip('.')}" if reason else ""
    details: dict[str, Any] = {"tool": "wipe"}
    if reason:
        details["reason"] = reason
    return {
        "error": {
            "code": "TOOL_APPROVAL_DENIED",
            "message": f'The call of tool "wipe" was denied{because}. It was not run; do not call '
            "it again with the same arguments, ask the user what to do instead.",
            "details": details,
        }
    }


class Wiper:
    """A session with a ``wipe`` tool that needs approval, and a log of what its handler ran."""

    def __init__(self, approver: Any = None, limits: Limits | None = None, **tool: Any) -> None:
        self.ran: list[dict[str, Any]] = []
        self.session = Session(approver=approver, limits=limits)
        options = {"requires_approval": True, **tool}

        @self.session.on_tool("wipe", description="Wipe a disk.", schema=WIPE, **options)
        def wipe(args: dict[str, Any]) -> str:
            self.ran.append(args)
            return f"wiped {args['disk']}"

    def defer(self, disk: str = "sdb") -> str:
        result = self.session.dispatch_sync("wipe", {"disk": disk})
        assert result.error is not None and result.error.code == TOOL_APPROVAL_REQUIRED
        token: str = result.error.details["token"]
        return token


def test_the_codes_are_public_and_listed() -> None:
    assert (TOOL_APPROVAL_REQUIRED, TOOL_APPROVAL_DENIED, TOOL_APPROVAL_INVALID) == (
        "TOOL_APPROVAL_REQUIRED",
        "TOOL_APPROVAL_DENIED",
        "TOOL_APPROVAL_INVALID",
    )
    assert ERROR_CODES[-3:] == (TOOL_APPROVAL_REQUIRED, TOOL_APPROVAL_DENIED, TOOL_APPROVAL_INVALID)


# --- declaring --------------------------------------------------------------------------------


def _on_tool(value: Any) -> Session:
    session = Session()
    session.on_tool("t", description="T.", schema={"type": "object"}, requires_approval=value)(
        lambda args: 1
    )
    return session


def _define(value: Any) -> Session:
    return Session(
        tools=[
            define_tool(
                name="t",
                description="T.",
                schema={"type": "object"},
                handler=lambda args: 1,
                requires_approval=value,
            )
        ]
    )


def _decorator(value: Any) -> Session:
    @tool("t", schema={"type": "object"}, requires_approval=value)
    def t(args: Any) -> int:
        """T."""
        return 1

    return Session(tools=[t])


def _typed(value: Any) -> Session:
    session = Session()

    @session.tool(requires_approval=value)
    def t() -> int:
        """T."""
        return 1

    return session


def _typed_definition(value: Any) -> Session:
    @tool(requires_approval=value)
    def t() -> int:
        """T."""
        return 1

    return Session(tools=[t])


def _manifest(value: Any) -> Session:
    return Session.from_manifest(
        {
            "tools": [
                {
                    "name": "t",
                    "description": "T.",
                    "argsSchema": {"type": "object"},
                    "requiresApproval": value,
                }
            ]
        }
    )


DECLARE = [_on_tool, _define, _decorator, _typed, _typed_definition, _manifest]


@pytest.mark.parametrize("declare", DECLARE)
def test_every_way_to_declare_takes_requires_approval(declare: Any) -> None:
    session = declare(True)
    assert session.tool_spec("t")["requiresApproval"] is True
    if declare is _manifest:
        session.on_tool("t")(lambda args: 1)
    result = session.dispatch_sync("t", {})
    assert result.error is not None and result.error.code == TOOL_APPROVAL_REQUIRED
    assert "requiresApproval" not in declare(False).tool_spec("t")


@pytest.mark.parametrize("declare", DECLARE)
@pytest.mark.parametrize("value", ["yes", 1, None, [True]])
def test_a_requires_approval_that_is_not_a_bool_or_function_is_refused(
    declare: Any, value: Any
) -> None:
    with pytest.raises(PedelecError) as caught:
        declare(value)
    assert caught.value.to_dict() == {
        "code": "INVALID_INPUT",
        "message": 'Tool "t": requires_approval must be True, False or a function (args, ctx) '
        f"-> bool, got {type(value).__name__}.",
        "details": {"tool": "t", "field": "requires_approval"},
    }


def test_requires_approval_needs_a_declaration() -> None:
    session = _on_tool(False)
    with pytest.raises(PedelecError) as caught:
        session.on_tool("t", requires_approval=True)
    assert caught.value.to_dict() == {
        "code": "INVALID_INPUT",
        "message": 'Tool "t": requires_approval only applies when declaring the tool with schema=.',
        "details": {"tool": "t", "field": "schema"},
    }


def test_a_function_is_written_to_the_manifest_as_true() -> None:
    """A manifest cannot hold a function: the session read back asks for every call."""
    session = _on_tool(lambda args, ctx: False)
    assert session.manifest()["tools"][0]["requiresApproval"] is True
    again = Session.from_manifest(session.manifest())
    again.on_tool("t")(lambda args: 1)
    assert again.dispatch_sync("t", {}).error.code == TOOL_APPROVAL_REQUIRED  # type: ignore[union-attr]


def test_an_approver_that_is_not_callable_is_refused() -> None:
    with pytest.raises(PedelecError) as caught:
        Session(approver="yes")  # type: ignore[arg-type]
    assert caught.value.to_dict() == {
        "code": "INVALID_INPUT",
        "message": "approver must be a function (request) -> bool | Denied, got str.",
        "details": {"field": "approver"},
    }


def test_denied_takes_a_string_reason() -> None:
    assert Denied("No.") == Denied("No.") and Denied() != Denied("No.")
    assert (repr(Denied()), repr(Denied("No."))) == ("Denied()", "Denied('No.')")
    with pytest.raises(PedelecError) as caught:
        Denied(5)  # type: ignore[arg-type]
    assert caught.value.message == "Denied(reason) must be a string or None, got int."


# --- approvers ----------------------------------------------------------------------------------


def _sync(answer: Any) -> Any:
    return lambda request: answer


def _async(answer: Any) -> Any:
    async def approver(request: ApprovalRequest) -> Any:
        await asyncio.sleep(0)
        return answer

    return approver


ANSWERS = [
    (True, "wiped sdb"),
    (False, denial()),
    (Denied(), denial()),
    (Denied("Not that disk."), denial("Not that disk.")),
    (Denied("   "), denial()),
]


@pytest.mark.parametrize("kind", [_sync, _async])
@pytest.mark.parametrize(("answer", "expected"), ANSWERS)
def test_an_approver_approves_or_denies(kind: Any, answer: Any, expected: Any) -> None:
    sync = Wiper(kind(answer))
    assert sync.session.dispatch_sync("wipe", {"disk": "sdb"}).to_json() == expected
    awaited = Wiper(kind(answer))
    assert asyncio.run(awaited.session.dispatch("wipe", {"disk": "sdb"})).to_json() == expected
    runs = [{"disk": "sdb"}] if answer is True else []
    assert (sync.ran, awaited.ran) == (runs, runs)


def test_the_approver_gets_a_copy_of_the_validated_args_and_the_context() -> None:
    seen: list[ApprovalRequest] = []

    def approver(request: ApprovalRequest) -> bool:
        seen.append(request)
        request.args["disk"] = "sda"  # changes nothing the handler gets
        return True

    wiper = Wiper(approver)
    sent = {"disk": "sdb"}
    result = wiper.session.dispatch_sync("wipe", sent, turn_id="turn-1", tool_request_id="c1")
    assert (result.value, wiper.ran, sent) == ("wiped sdb", [{"disk": "sdb"}], {"disk": "sdb"})
    (request,) = seen
    assert (request.tool, request.args) == ("wipe", {"disk": "sda"})
    assert isinstance(request.ctx, ToolCallContext)
    ctx = request.ctx
    assert (ctx.tool, ctx.tool_request_id, ctx.turn_id, ctx.session_id) == (
        "wipe",
        "c1",
        "turn-1",
        wiper.session.session_id,
    )
    assert repr(request) == "<ApprovalRequest 'wipe' 'c1'>"


@pytest.mark.parametrize("args", [{"disk": 5}, {}, '{"disk": ', {"disk": "x", "timeoutMs": 0}])
def test_invalid_args_never_reach_the_approver(args: Any) -> None:
    asked: list[ApprovalRequest] = []
    wiper = Wiper(lambda request: asked.append(request) or True)
    result = wiper.session.dispatch_sync("wipe", args)
    assert result.error is not None and result.error.code == "TOOL_ARGS_INVALID"
    assert (asked, wiper.ran) == ([], [])


def test_a_function_decides_per_call_from_the_args_and_ctx() -> None:
    seen: list[tuple[dict[str, Any], str | None]] = []

    def needs(args: dict[str, Any], ctx: ToolCallContext) -> bool:
        seen.append((args, ctx.turn_id))
        args["disk"] = "changed"  # a copy as well
        return ctx.turn_id != "trusted"

    wiper = Wiper(requires_approval=needs)
    free = wiper.session.dispatch_sync("wipe", {"disk": "sdb"}, turn_id="trusted")
    held = wiper.session.dispatch_sync("wipe", {"disk": "sdc"}, turn_id="other")
    assert free.value == "wiped sdb"
    assert held.error is not None and held.error.code == TOOL_APPROVAL_REQUIRED
    assert wiper.ran == [{"disk": "sdb"}]
    assert seen == [({"disk": "changed"}, "trusted"), ({"disk": "changed"}, "other")]
    assert wiper.session.resume_sync(held.error.details["token"], approve=True).value == (
        "wiped sdc"
    )


@pytest.mark.parametrize(
    "verdict", [None, "no", 0, RuntimeError("boom")], ids=["None", "str", "zero", "raises"]
)
def test_a_function_that_does_not_answer_false_asks_for_approval(verdict: Any) -> None:
    def needs(args: Any, ctx: Any) -> Any:
        if isinstance(verdict, Exception):
            raise verdict
        return verdict

    wiper = Wiper(requires_approval=needs)
    result = wiper.session.dispatch_sync("wipe", {"disk": "sdb"})
    assert result.error is not None and result.error.code == TOOL_APPROVAL_REQUIRED
    assert wiper.ran == []


def _raising(request: ApprovalRequest) -> bool:
    raise LookupError("no such person")


async def _raising_async(request: ApprovalRequest) -> bool:
    raise LookupError("no such person")


@pytest.mark.parametrize("approver", [_raising, _raising_async])
def test_an_approver_that_raises_denies_and_is_reported(approver: Any) -> None:
    wiper = Wiper(approver)
    errors: list[ToolResult] = []
    wiper.session.on_error(errors.append)
    result = wiper.session.dispatch_sync("wipe", {"disk": "sdb"})
    assert result.to_json() == {
        "error": {
            "code": "TOOL_APPROVAL_DENIED",
            "message": 'Tool "wipe" was not run: its approval could not be had (the approver '
            "raised LookupError). Do not call it again with the same arguments.",
            "details": {"tool": "wipe", "exception": "LookupError"},
        }
    }
    assert (errors, wiper.ran) == ([result], [])


@pytest.mark.parametrize("answer", [None, "yes", 1, {"approved": True}])
def test_an_approver_answer_that_is_not_a_decision_denies_and_is_reported(answer: Any) -> None:
    wiper = Wiper(_sync(answer))
    errors: list[ToolResult] = []
    wiper.session.on_error(errors.append)
    result = wiper.session.dispatch_sync("wipe", {"disk": "sdb"})
    assert result.error is not None and result.error.code == TOOL_APPROVAL_DENIED
    assert result.error.details == {"tool": "wipe", "answer": type(answer).__name__}
    assert result.error.message.startswith('Tool "wipe" was not run: its approver answered ')
    assert result.error.message.endswith(", which is neither True, False nor Denied(reason).")
    assert (errors, wiper.ran) == ([result], [])


def test_an_async_approver_that_does_not_answer_in_time_denies() -> None:
    async def never(request: ApprovalRequest) -> bool:
        await asyncio.Event().wait()
        return True

    wiper = Wiper(never, Limits(approval_timeout_ms=20))
    result = asyncio.run(wiper.session.dispatch("wipe", {"disk": "sdb"}))
    assert result.to_json() == {
        "error": {
            "code": "TOOL_APPROVAL_DENIED",
            "message": 'Tool "wipe" was not run: no approval came within 20 ms '
            "(Limits.approval_timeout_ms). Ask the user before calling it again.",
            "details": {"tool": "wipe", "timeoutMs": 20},
        }
    }
    assert wiper.ran == []


def test_a_tool_without_approval_never_asks() -> None:
    asked: list[ApprovalRequest] = []
    session = Session(approver=lambda request: asked.append(request) or False)
    session.on_tool("free", description="F.", schema={"type": "object"})(lambda args: 1)
    assert session.dispatch_sync("free", {}).value == 1
    assert asyncio.run(session.dispatch("free", {})).value == 1
    assert asked == []


# --- deferral and resume ------------------------------------------------------------------------


def test_without_an_approver_the_call_is_deferred_and_resumed_once() -> None:
    wiper = Wiper()
    sent = {"disk": "sdb"}
    deferred = wiper.session.dispatch_sync("wipe", sent, tool_request_id="c7")
    assert deferred.error is not None
    token = deferred.error.details["token"]
    assert isinstance(token, str) and len(token) == 32
    assert deferred.to_json() == {
        "error": {
            "code": "TOOL_APPROVAL_REQUIRED",
            "message": REQUIRED,
            "details": {"tool": "wipe", "token": token},
        }
    }
    sent["disk"] = "sda"  # what the caller does with its dict afterwards changes nothing
    assert wiper.ran == []
    resumed = wiper.session.resume_sync(token, approve=True)
    assert (resumed.tool, resumed.tool_request_id, resumed.value) == ("wipe", "c7", "wiped sdb")
    assert wiper.ran == [{"disk": "sdb"}]
    again = wiper.session.resume_sync(token, approve=True)
    assert again.to_json() == {"error": {"code": "TOOL_APPROVAL_INVALID", "message": INVALID}}
    assert wiper.ran == [{"disk": "sdb"}]


def test_resume_awaits_and_denies_with_a_reason() -> None:
    wiper = Wiper()

    async def main() -> list[Any]:
        first = await wiper.session.dispatch("wipe", {"disk": "sdb"})
        second = await wiper.session.dispatch("wipe", {"disk": "sdc"})
        assert first.error is not None and second.error is not None
        approved = await wiper.session.resume(first.error.details["token"], approve=True)
        refused = await wiper.session.resume(
            second.error.details["token"], approve=False, reason="Keep sdc."
        )
        return [approved.to_json(), refused.to_json()]

    assert asyncio.run(main()) == ["wiped sdb", denial("Keep sdc.")]
    assert wiper.ran == [{"disk": "sdb"}]


def test_an_async_handler_resumes_both_ways() -> None:
    session = Session()
    ran: list[str] = []

    @session.on_tool("wipe", description="W.", schema=WIPE, requires_approval=True)
    async def wipe(args: dict[str, Any], ctx: ToolCallContext) -> str:
        await asyncio.sleep(0)
        ran.append(ctx.tool_request_id)
        return args["disk"]

    def token() -> str:
        error = session.dispatch_sync("wipe", {"disk": "d"}, tool_request_id="a").error
        assert error is not None
        return str(error.details["token"])

    assert session.resume_sync(token(), approve=True).value == "d"
    assert asyncio.run(session.resume(token(), approve=True)).value == "d"
    assert ran == ["a", "a"]


@pytest.mark.parametrize("token", ["", "nope", None, 5, ["x"], {"a": 1}])
def test_an_unknown_token_is_invalid(token: Any) -> None:
    wiper = Wiper()
    wiper.defer()
    result = wiper.session.resume_sync(token, approve=True)
    assert result.to_json() == {"error": {"code": "TOOL_APPROVAL_INVALID", "message": INVALID}}
    assert result.tool == "" and wiper.ran == []


def test_an_expired_token_is_invalid() -> None:
    wiper = Wiper(limits=Limits(approval_timeout_ms=1))
    token = wiper.defer()
    deadline = time.monotonic() + 0.002
    while time.monotonic() <= deadline:
        time.sleep(0.001)
    result = wiper.session.resume_sync(token, approve=True)
    assert result.to_json() == {
        "error": {
            "code": "TOOL_APPROVAL_INVALID",
            "message": 'The approval of tool "wipe" expired after 1 ms '
            "(Limits.approval_timeout_ms), so it was not run; call the tool again to ask for a "
            "new approval.",
            "details": {"tool": "wipe"},
        }
    }
    assert wiper.session.resume_sync(token, approve=True).error.message == INVALID  # type: ignore[union-attr]
    assert wiper.ran == []


def test_pending_approvals_are_bounded() -> None:
    wiper = Wiper(limits=Limits(max_pending_approvals=2))
    errors: list[ToolResult] = []
    wiper.session.on_error(errors.append)
    first, _ = wiper.defer("a"), wiper.defer("b")
    refused = wiper.session.dispatch_sync("wipe", {"disk": "c"})
    assert refused.to_json() == {
        "error": {
            "code": "TOOL_APPROVAL_DENIED",
            "message": 'Tool "wipe" was not run: 2 calls already wait for a person\'s approval, '
            "the most this session holds (Limits.max_pending_approvals); let the user decide "
            "those before calling it again.",
            "details": {"tool": "wipe", "pending": 2, "limit": 2},
        }
    }
    assert errors == [refused]
    # A decided call makes room again.
    assert wiper.session.resume_sync(first, approve=False).error.code == TOOL_APPROVAL_DENIED  # type: ignore[union-attr]
    wiper.defer("d")
    assert wiper.ran == []


def test_expired_calls_make_room() -> None:
    wiper = Wiper(limits=Limits(max_pending_approvals=1, approval_timeout_ms=1))
    stale = wiper.defer("a")
    deadline = time.monotonic() + 0.002
    while time.monotonic() <= deadline:
        time.sleep(0.001)
    fresh = wiper.defer("b")
    assert wiper.session.resume_sync(stale, approve=True).error.message == INVALID  # type: ignore[union-attr]
    assert fresh != stale


def test_end_drops_pending_approvals() -> None:
    wiper = Wiper()
    token = wiper.defer()
    wiper.session.end()
    result = wiper.session.resume_sync(token, approve=True)
    assert result.to_json() == {"error": {"code": "TOOL_APPROVAL_INVALID", "message": INVALID}}
    assert wiper.ran == []
    ended = wiper.session.dispatch_sync("wipe", {"disk": "sdb"})
    assert ended.error is not None and ended.error.code == "SESSION_ENDED"


def test_resume_checks_its_options() -> None:
    wiper = Wiper()
    token = wiper.defer()
    with pytest.raises(PedelecError) as caught:
        wiper.session.resume_sync(token, approve="yes")  # type: ignore[arg-type]
    assert caught.value.to_dict() == {
        "code": "INVALID_INPUT",
        "message": "resume(approve=...) must be True or False, got str.",
        "details": {"field": "approve"},
    }
    with pytest.raises(PedelecError) as caught:
        wiper.session.resume_sync(token, approve=False, reason=3)  # type: ignore[arg-type]
    assert caught.value.message == "resume(reason=...) must be a string or None, got int."
    # A refused option leaves the call pending.
    assert wiper.session.resume_sync(token, approve=True).value == "wiped sdb"


def test_resume_sync_refuses_to_block_a_running_loop() -> None:
    wiper = Wiper()
    token = wiper.defer()

    async def main() -> None:
        wiper.session.resume_sync(token, approve=True)

    with pytest.raises(RuntimeError) as caught:
        asyncio.run(main())
    assert str(caught.value) == (
        "Session.resume_sync() was called from a thread that is running an event loop, where "
        "it would block that loop; use `await session.resume(...)` instead."
    )
    assert wiper.session.resume_sync(token, approve=True).value == "wiped sdb"


def test_a_thousand_deferred_calls_each_resume_exactly_once() -> None:
    limits = Limits(max_pending_approvals=1000)
    session = Session(limits=limits)
    ran: list[int] = []

    @session.on_tool(
        "n",
        description="N.",
        requires_approval=True,
        schema={"type": "object", "properties": {"i": {"type": "integer"}}, "required": ["i"]},
    )
    async def n(args: dict[str, Any]) -> int:
        await asyncio.sleep(0)
        ran.append(args["i"])
        return int(args["i"])

    async def main() -> None:
        deferred = await asyncio.gather(*(session.dispatch("n", {"i": i}) for i in range(1000)))
        tokens = [r.error.details["token"] for r in deferred if r.error is not None]
        assert len(set(tokens)) == 1000
        # Every token resumed twice at once: one of each pair runs, the other is invalid.
        results = await asyncio.gather(
            *(session.resume(t, approve=True) for t in tokens for _ in range(2))
        )
        values = [r.value for r in results if r.error is None]
        codes = [r.error.code for r in results if r.error is not None]
        assert sorted(values) == list(range(1000))
        assert codes == [TOOL_APPROVAL_INVALID] * 1000

    asyncio.run(main())
    assert sorted(ran) == list(range(1000))


def test_threads_racing_to_resume_one_token_run_it_once() -> None:
    wiper = Wiper()
    for _ in range(20):
        token = wiper.defer()
        barrier = threading.Barrier(8)
        results: list[ToolResult] = []

        def resume(
            token: str = token,
            barrier: threading.Barrier = barrier,
            results: list[ToolResult] = results,
        ) -> None:
            barrier.wait()
            results.append(wiper.session.resume_sync(token, approve=True))

        threads = [threading.Thread(target=resume) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(r.error.code if r.error else "ran" for r in results) == [
            *([TOOL_APPROVAL_INVALID] * 7),
            "ran",
        ]
    assert wiper.ran == [{"disk": "sdb"}] * 20


def test_resume_uses_the_current_handler() -> None:
    wiper = Wiper()
    token = wiper.defer()
    wiper.session.on_tool("wipe")(lambda args: f"named {args['disk']}")
    assert wiper.session.resume_sync(token, approve=True).value == "named sdb"


def test_worker_dispatch_resumes_in_a_worker() -> None:
    session = Session(sync_dispatch="worker")
    threads: list[str] = []

    @session.on_tool("wipe", description="W.", schema=WIPE, requires_approval=True)
    def wipe(args: dict[str, Any]) -> str:
        threads.append(threading.current_thread().name)
        return "ok"

    error = session.dispatch_sync("wipe", {"disk": "x"}).error
    assert error is not None
    assert session.resume_sync(error.details["token"], approve=True).value == "ok"
    assert threads != [threading.current_thread().name] and len(threads) == 1


# --- through the adapters -----------------------------------------------------------------------


def test_approval_results_reach_the_model_through_openai() -> None:
    wiper = Wiper()
    call = ChatCompletionMessageFunctionToolCall(
        id="c1", type="function", function=Function(name="wipe", arguments='{"disk": "sdb"}')
    )
    (message,) = openai_adapter.dispatch_tool_calls_sync(wiper.session, [call])
    assert message["role"] == "tool" and message["tool_call_id"] == "c1"
    assert message["content"].startswith(
        '{"error":{"code":"TOOL_APPROVAL_REQUIRED","message":"Tool \\"wipe\\" needs a person'
    )
    denier = Wiper(_sync(Denied("Not today.")))
    (denied,) = openai_adapter.dispatch_tool_calls_sync(denier.session, [call])
    assert denied["content"] == (
        '{"error":{"code":"TOOL_APPROVAL_DENIED","message":"The call of tool \\"wipe\\" was '
        "denied: Not today. It was not run; do not call it again with the same arguments, ask "
        'the user what to do instead.","details":{"tool":"wipe","reason":"Not today."}}}'
    )
    assert (wiper.ran, denier.ran) == ([], [])


def test_approval_results_reach_the_model_through_mcp() -> None:
    denier = Wiper(_sync(False))
    result = mcp_adapter.dispatch_tool_call_sync(denier.session, "wipe", {"disk": "sdb"})
    assert result["isError"] is True
    assert "structuredContent" not in result
    assert result["content"][0]["text"].startswith('{"error":{"code":"TOOL_APPROVAL_DENIED"')


@pytest.mark.parametrize(
    ("annotations", "listed"),
    [
        (None, {"destructiveHint": True}),
        ({"idempotentHint": True}, {"idempotentHint": True, "destructiveHint": True}),
        ({"destructiveHint": False}, {"destructiveHint": False}),
        ({"readOnlyHint": True}, {"readOnlyHint": True}),
    ],
)
def test_mcp_lists_a_tool_needing_approval_as_destructive(
    annotations: Any, listed: dict[str, bool]
) -> None:
    wiper = Wiper(annotations=annotations)
    (entry,) = mcp_adapter.tools(wiper.session)
    assert entry["annotations"] == listed
    assert wiper.session.tool_spec("wipe").get("annotations") == annotations


# --- limits and manifests -----------------------------------------------------------------------


def test_the_approval_limits_have_documented_defaults_and_are_checked() -> None:
    from pedelec.limits import (
        DEFAULT_APPROVAL_TIMEOUT_MS,
        DEFAULT_LIMITS,
        DEFAULT_MAX_PENDING_APPROVALS,
        MAX_TIMEOUT_MS,
    )

    assert (DEFAULT_APPROVAL_TIMEOUT_MS, DEFAULT_MAX_PENDING_APPROVALS) == (900_000, 100)
    assert (DEFAULT_LIMITS.approval_timeout_ms, DEFAULT_LIMITS.max_pending_approvals) == (
        900_000,
        100,
    )
    for name in ("approval_timeout_ms", "max_pending_approvals"):
        for bad in (0, -1, 1.5, True):
            with pytest.raises(PedelecError) as caught:
                Limits(**{name: bad})
            assert caught.value.to_dict() == {
                "code": "INVALID_INPUT",
                "message": f"Limits({name}=...) must be a positive integer, got {bad!r}.",
                "details": {"limit": name},
            }
    with pytest.raises(PedelecError) as caught:
        Limits(approval_timeout_ms=MAX_TIMEOUT_MS + 1)
    assert caught.value.to_dict() == {
        "code": "INVALID_INPUT",
        "message": f"Limits(approval_timeout_ms=...) may be at most {MAX_TIMEOUT_MS} "
        "(pedelec.limits.MAX_TIMEOUT_MS), the longest timeout a tool may declare, got "
        f"{MAX_TIMEOUT_MS + 1}.",
        "details": {"limit": "approval_timeout_ms"},
    }


def test_from_manifest_takes_an_approver() -> None:
    session = Session.from_manifest(
        {"tools": [{"name": "wipe", "description": "W.", "argsSchema": WIPE}]},
        approver=_sync(Denied("No.")),
    )
    session.on_tool("wipe")(lambda args: "wiped")
    assert session.tool_spec("wipe").get("requiresApproval") is None
    assert session.dispatch_sync("wipe", {"disk": "x"}).value == "wiped"
    approving = Session.from_manifest(
        [{"name": "wipe", "description": "W.", "argsSchema": WIPE, "requiresApproval": True}],
        approver=_sync(Denied("No.")),
    )
    approving.on_tool("wipe")(lambda args: "wiped")
    assert approving.dispatch_sync("wipe", {"disk": "x"}).to_json() == denial("No.")


def test_check_does_not_warn_about_a_destructive_tool_that_needs_approval() -> None:
    from pedelec.cli._lint import lint_session

    session = Session()
    session.on_tool("delete_user", description="D.", schema={"type": "object"})(lambda a: 1)
    session.on_tool(
        "delete_note", description="D.", schema={"type": "object"}, requires_approval=True
    )(lambda a: 1)
    assert [f.tool for f in lint_session(session) if "destructive" in f.message] == ["delete_user"]


def test_a_long_reason_is_shortened_for_the_agent() -> None:
    wiper = Wiper()
    result = wiper.session.resume_sync(wiper.defer(), approve=False, reason="x" * 5000)
    assert result.error is not None
    assert result.error.details == {"tool": "wipe", "reason": "x" * 1000 + "…"}
    assert result.error.message == (
        f'The call of tool "wipe" was denied: {"x" * 1000}…. It was not run; do not call it again '
        "with the same arguments, ask the user what to do instead."
    )


def test_a_call_approved_after_its_handler_was_removed_finds_none() -> None:
    wiper = Wiper()
    errors: list[ToolResult] = []
    wiper.session.on_error(errors.append)
    token = wiper.defer()
    handler = wiper.session._registry.handler("wipe")
    assert handler is not None and wiper.session.off_tool("wipe", handler.source)
    result = wiper.session.resume_sync(token, approve=True)
    assert result.to_json() == {
        "error": {
            "code": "TOOL_HANDLER_NOT_FOUND",
            "message": 'Tool "wipe" has no handler registered, so it cannot be run.',
            "details": {"tool": "wipe"},
        }
    }
    assert errors == [result]


def test_a_session_ended_while_the_approver_decides_runs_nothing() -> None:
    holder: list[Session] = []

    async def approver(request: ApprovalRequest) -> bool:
        holder[0].end()
        return True

    wiper = Wiper(approver)
    holder.append(wiper.session)
    result = asyncio.run(wiper.session.dispatch("wipe", {"disk": "sdb"}))
    assert result.to_json() == {
        "error": {
            "code": "SESSION_ENDED",
            "message": 'The session has ended; tool "wipe" was not run.',
            "details": {"tool": "wipe"},
        }
    }
    assert wiper.ran == []
