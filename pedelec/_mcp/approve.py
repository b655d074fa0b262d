"""Approval under ``pedelec serve``: a person approves a call through MCP elicitation.

A session served without an approver defers every call that needs approval
(``TOOL_APPROVAL_REQUIRED`` with a token). Here that result never reaches the model as it is:

* when the client declared the ``elicitation`` capability (form mode), the server asks its user
  "run tool X with these args?": on a handshake-era connection with an ``elicitation/create``
  request on the call's own stream, on a 2026-07-28 connection with an ``InputRequiredResult``
  that the client answers by sending the call again with the user's answer (the token rides in
  ``requestState``). ``accept`` resumes the call (the handler runs once, with the args stored at
  deferral, never the retry's), ``decline`` and ``cancel`` deny it;
* otherwise (or when the client cannot be asked), the deferred call is dropped and the model
  gets ``TOOL_APPROVAL_REQUIRED`` as an ``isError`` result that says a person must approve it,
  without the token, which nobody on this connection could use.

An elicitation answer is what the client reports its user chose: the server trusts the client
for that, as the specification does.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

from pedelec.errors import TOOL_APPROVAL_REQUIRED

if TYPE_CHECKING:
    from mcp import types

    from pedelec.session import Session, ToolResult

__all__ = ["ServeApprovals"]

#: The key of the one input request in an ``InputRequiredResult``.
INPUT_KEY: Final = "pedelec.approval"
#: Characters of the args' JSON text shown to the person; longer is cut, saying so.
_SHOWN_ARGS: Final = 4000
#: Nothing to fill in: the person's answer is the action (accept, decline, cancel).
_NO_FIELDS: Final = {"type": "object", "properties": {}}


class ServeApprovals:
    """The approval step of ``pedelec serve``'s ``tools/call`` for one session."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.timeout = session.limits.approval_timeout_ms / 1000

    async def call(
        self,
        ctx: Any,
        params: types.CallToolRequestParams,
        dispatch: Callable[[], Awaitable[dict[str, Any]]],
        run: Callable[[Awaitable[Any]], Awaitable[Any]],
    ) -> types.CallToolResult | types.InputRequiredResult:
        """Run ``tools/call``: ``dispatch()`` the call, and ask a person if it needs approval.

        ``run(call)`` runs an approved call with the request's progress and log notifications.
        """
        from mcp import types

        if params.request_state is not None:
            return await self._answered(params, run)
        result = await dispatch()
        token = _deferred_token(result)
        pending = None if token is None else self.session._approvals.peek(token)
        if token is None or pending is None:
            return types.CallToolResult.model_validate(result)
        if not _can_elicit(ctx):
            # No capabilities at all: a stateless request, which no initialize came before.
            known = getattr(ctx.session, "client_capabilities", None) is not None
            return await self._unaskable(token, None if known else _NO_CHANNEL)
        message = _question(pending.tool, pending.args)
        if not ctx.session.can_send_request:
            # 2026-07-28: no server-to-client requests; the client asks and calls again.
            return types.InputRequiredResult(
                input_requests={
                    INPUT_KEY: types.ElicitRequest(
                        params=types.ElicitRequestFormParams(
                            message=message, requested_schema=dict(_NO_FIELDS)
                        )
                    )
                },
                request_state=token,
            )
        import anyio
        from mcp.shared.exceptions import NoBackChannelError

        try:
            with anyio.fail_after(self.timeout):
                answer = await ctx.session.elicit_form(
                    message, dict(_NO_FIELDS), related_request_id=ctx.request_id
                )
        except NoBackChannelError:  # stateless HTTP: no channel to put a question on
            return await self._unaskable(token, _NO_CHANNEL)
        except Exception:  # an error answer, a malformed one, no answer in time
            return await self._decide(token, "cancel", run)
        return await self._decide(token, answer.action, run)

    async def _answered(
        self, params: types.CallToolRequestParams, run: Callable[[Awaitable[Any]], Awaitable[Any]]
    ) -> types.CallToolResult | types.InputRequiredResult:
        """A 2026-07-28 client's retry: the user's answer to the question, and the token."""
        token = params.request_state if isinstance(params.request_state, str) else ""
        pending = self.session._approvals.peek(token)
        if pending is None or pending.tool != params.name:
            if pending is not None:  # a token sent with another tool's call: used up, not run
                await self.session.resume(token, approve=False)
            return _result(await self.session.resume("", approve=False), self.session)
        response = (params.input_responses or {}).get(INPUT_KEY)
        action = getattr(response, "action", None)
        if action is None and isinstance(response, dict):
            action = response.get("action")
        return await self._decide(token, action if isinstance(action, str) else "cancel", run)

    async def _decide(
        self, token: str, action: str, run: Callable[[Awaitable[Any]], Awaitable[Any]]
    ) -> types.CallToolResult:
        session = self.session
        if action == "accept":
            return _result(await run(session.resume(token, approve=True)), session)
        reason = (
            "The user declined it"
            if action == "decline"
            else "The user dismissed the question without deciding"
        )
        return _result(await session.resume(token, approve=False, reason=reason), session)

    async def _unaskable(self, token: str, why: str | None = None) -> types.CallToolResult:
        """Drop the deferred call: nobody here can resume it. The model is told why."""
        denied = await self.session.resume(token, approve=False)
        from pedelec._result import ToolResult
        from pedelec.errors import PedelecError

        tool = denied.tool
        return _result(
            ToolResult(
                tool,
                denied.tool_request_id,
                None,
                PedelecError(
                    TOOL_APPROVAL_REQUIRED,
                    f'Tool "{tool}" needs a person\'s approval before it runs, and '
                    + (why or _NO_ELICITATION)
                    + ", so it was not run: a person must approve it. Tell the user; do not call "
                    "it again from here.",
                    {"tool": tool},
                ),
            ),
            self.session,
        )


#: Why a call that needs approval cannot be put to the user, as its message says.
_NO_ELICITATION: Final = "this client cannot ask for it (it does not support MCP elicitation)"
_NO_CHANNEL: Final = (
    "this server cannot ask for it (it serves stateless HTTP, which has no channel for a "
    "question to the user)"
)


def _result(result: ToolResult, session: Session) -> types.CallToolResult:
    """The ``tools/call`` result, with the ``structuredContent`` of a tool's output schema."""
    from mcp import types

    from pedelec.adapters.mcp import call_tool_result

    return types.CallToolResult.model_validate(call_tool_result(result, session))


def _deferred_token(result: dict[str, Any]) -> str | None:
    """The token of a ``TOOL_APPROVAL_REQUIRED`` result of ``dispatch_tool_call``, else None."""
    if not result.get("isError"):
        return None
    content = result.get("content") or []
    text = content[0].get("text") if content and isinstance(content[0], dict) else None
    if not isinstance(text, str) or TOOL_APPROVAL_REQUIRED not in text:
        return None
    try:
        error = json.loads(text)["error"]
    except (ValueError, KeyError, TypeError):
        return None
    if not isinstance(error, dict) or error.get("code") != TOOL_APPROVAL_REQUIRED:
        return None
    details = error.get("details")
    token = details.get("token") if isinstance(details, dict) else None
    return token if isinstance(token, str) else None


def _can_elicit(ctx: Any) -> bool:
    """Whether the client declared form-mode elicitation (an empty capability means form)."""
    caps = getattr(ctx.session, "client_capabilities", None)
    elicitation = getattr(caps, "elicitation", None)
    if elicitation is None:
        return False
    return elicitation.form is not None or elicitation.url is None


def _question(tool: str, args: Any) -> str:
    """What the person is asked: the tool and the exact args that will run."""
    shown = json.dumps(args, ensure_ascii=False, indent=2, sort_keys=True)
    if len(shown) > _SHOWN_ARGS:
        shown = shown[:_SHOWN_ARGS] + f"\n… ({len(shown) - _SHOWN_ARGS} more characters)"
    return (
        f'The agent wants to run the tool "{tool}" with these arguments:\n{shown}\n'
        "Accept to run it once with exactly these arguments; decline to refuse."
    )
