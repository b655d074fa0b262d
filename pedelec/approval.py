"""Human approval of tool calls: what an approver is given and what it may answer.

A tool declared with ``requires_approval=True`` (or a function ``(args, ctx) -> bool`` that
decides per call) runs only once someone has approved that very call, after its args have been
validated. A ``Session(approver=fn)`` asks ``fn(request)`` with an ``ApprovalRequest``; it
answers ``True``, ``False`` or ``Denied(reason)``. Without an approver the call is deferred: its
result is ``TOOL_APPROVAL_REQUIRED`` with a single-use token, and ``session.resume(token,
approve=...)`` decides it later.

Example:
    >>> from pedelec import Denied, Session
    >>> def approver(request):
    ...     return True if request.args["amount"] <= 100 else Denied("over the limit")
    >>> session = Session(approver=approver)
    >>> @session.on_tool("pay", description="Pay an amount.", requires_approval=True, schema={
    ...     "type": "object", "properties": {"amount": {"type": "integer"}},
    ...     "required": ["amount"]})
    ... def pay(args):
    ...     return {"paid": args["amount"]}
    >>> session.dispatch_sync("pay", {"amount": 5}).value
    {'paid': 5}
    >>> session.dispatch_sync("pay", {"amount": 500}).error.code
    'TOOL_APPROVAL_DENIED'
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeAlias, final

from pedelec.errors import INVALID_INPUT, PedelecError

if TYPE_CHECKING:
    from pedelec._context import ToolCallContext

__all__ = ["ApprovalRequest", "Approver", "Denied", "RequiresApproval"]


@final
class Denied:
    """An approver's refusal with a reason, which the agent reads in the denial's message.

    Args:
        reason: Why the call was refused, in a sentence the agent can act on (optional).

    Raises:
        PedelecError: ``INVALID_INPUT`` when ``reason`` is not a string or ``None``.

    Example:
        >>> Denied("Payments over 100 need a manager.")
        Denied('Payments over 100 need a manager.')
    """

    __slots__ = ("reason",)

    reason: str | None

    def __init__(self, reason: str | None = None) -> None:
        if reason is not None and not isinstance(reason, str):
            raise PedelecError(
                INVALID_INPUT,
                f"Denied(reason) must be a string or None, got {type(reason).__name__}.",
                {"field": "reason"},
            )
        self.reason = None if reason is None else str(reason)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Denied) and other.reason == self.reason

    def __hash__(self) -> int:
        return hash((Denied, self.reason))

    def __repr__(self) -> str:
        return "Denied()" if self.reason is None else f"Denied({self.reason!r})"


@final
class ApprovalRequest:
    """One call waiting for approval: what the approver is asked to decide.

    Attributes:
        tool: The tool's name.
        args: A copy of the call's validated args: what the handler will get if approved.
            Changing it changes nothing the handler sees.
        ctx: The call's ``ToolCallContext`` (session id, request id, turn id, timeout).

    Example:
        >>> async def approver(request):
        ...     return await ask_a_person(f"Run {request.tool} with {request.args}?")
    """

    __slots__ = ("args", "ctx", "tool")

    tool: str
    args: dict[str, Any]
    ctx: ToolCallContext

    def __init__(self, tool: str, args: dict[str, Any], ctx: ToolCallContext) -> None:
        self.tool = tool
        self.args = args
        self.ctx = ctx

    def __repr__(self) -> str:
        return f"<ApprovalRequest {self.tool!r} {self.ctx.tool_request_id!r}>"


#: A session's approver: ``fn(request) -> True | False | Denied``, sync or async.
Approver: TypeAlias = Callable[[ApprovalRequest], "bool | Denied | Awaitable[bool | Denied]"]

#: A tool's ``requires_approval``: ``True``, ``False``, or ``fn(args, ctx) -> bool`` per call.
RequiresApproval: TypeAlias = "bool | Callable[[dict[str, Any], ToolCallContext], bool]"
