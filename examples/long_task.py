"""A long tool call that reports progress and logs, served with a heartbeat.

Serve it to an MCP client; progress reaches a client that asked for it, logs reach one at or
above the level it set, and the heartbeat keeps the call alive past a client's idle timeout:

    pedelec serve examples/long_task.py:session --heartbeat 10

Run this file to call the tool without a transport, where both calls do nothing:

    python examples/long_task.py
"""

from pedelec import Session, ToolCallContext

session = Session()

# --8<-- [start:tool]
FILES = {
    "type": "object",
    "properties": {"files": {"type": "array", "items": {"type": "string"}, "maxItems": 100}},
    "required": ["files"],
}


@session.on_tool("copy_files", description="Copy files, reporting each one.", schema=FILES)
def copy_files(args: dict[str, list[str]], ctx: ToolCallContext) -> dict[str, int]:
    files = args["files"]
    for done, name in enumerate(files, 1):
        if ctx.cancel_event.wait(0.01):  # the client cancelled: stop here
            break
        ctx.log("debug", "copying", file=name)
        ctx.report_progress(done, len(files), f"copied {name}")
    ctx.log("info", "all copied", count=len(files))
    return {"copied": len(files)}


# --8<-- [end:tool]

if __name__ == "__main__":
    print(session.dispatch_sync("copy_files", {"files": ["a.txt", "b.txt"]}).to_text())
