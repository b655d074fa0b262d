"""A session with middleware: an audit log and an authorisation check around every call.

Serve it to an MCP client; every ``tools/call`` goes through both, after its arguments are
validated, without a line in the handler:

    pedelec serve examples/audited_server.py:session

Run this file to make two calls without a transport:

    python examples/audited_server.py
"""

import logging
import sys
from collections.abc import Awaitable, Callable

from pedelec import PedelecError, Session, ToolCall, ToolResult

session = Session()
audit = logging.getLogger("audit")
CallNext = Callable[[ToolCall], Awaitable[ToolResult]]

# --8<-- [start:middleware]
TABLE = {"type": "object", "properties": {"table": {"type": "string"}}, "required": ["table"]}
PROTECTED = {"users", "payments"}


@session.on_tool("drop_table", description="Drop a database table.", schema=TABLE)
def drop_table(args: dict[str, str]) -> dict[str, str]:
    return {"dropped": args["table"]}


async def audit_log(call: ToolCall, call_next: CallNext) -> ToolResult:
    result = await call_next(call)
    outcome = result.error.code if result.error else "ok"
    audit.info("%s %s %s -> %s", call.ctx.tool_request_id, call.tool, call.args, outcome)
    return result


async def authorise(call: ToolCall, call_next: CallNext) -> ToolResult:
    if call.tool == "drop_table" and call.args["table"] in PROTECTED:
        raise PedelecError("FORBIDDEN", f"Table {call.args['table']} is protected.")
    return await call_next(call)


session.use(audit_log)  # registered first, so outermost: it also logs what authorise refuses
session.use(authorise)
# --8<-- [end:middleware]

if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="audit: %(message)s", stream=sys.stdout)
    for rid, table in [("call_1", "logs"), ("call_2", "users")]:
        print(session.dispatch_sync("drop_table", {"table": table}, tool_request_id=rid).to_text())
