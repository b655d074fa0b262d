"""Typed tools benchmark (issues 5 and 12): tools inferred from signatures, registered and called.

pedelec builds the schema from the signature with the standard library and `typing-extensions`;
the MCP SDK's `MCPServer().tool()` does the same job with pydantic. Both are timed in one run on
the same functions, each on a fresh server/session per iteration so nothing is reused between
iterations (pedelec's compiled validators and its parsed or compiled annotation texts are
forgotten before each one: `forget`), and the sides of each row timed side by side (each
repeat runs one batch of every side in turn). The constraints are `annotated-types` objects
(`Ge`, `Le`, `MaxLen`), which both understand, so both validators check the same bounds.

- *Register*: infer and register a 6-parameter tool (issue 5); pedelec cold, with the
  annotation texts seen before (validators forgotten), and warm. Registering alone leaves pedelec's validator
  code ungenerated, which is why the next rows exist.
- *Register and call once* (issue 12): the same tool registered and its first call made,
  `Session().tool(fn)` + `await session.dispatch(name, args)` against `MCPServer().tool()(fn)` +
  `await server.call_tool(name, args)`, with an `async def` handler (both run it on the loop)
  and with a sync one (both hand it to a worker thread; pedelec's session starts its executor
  on that first call). The MCP call also renders the result as JSON text content, which a
  pedelec result leaves to the adapter. pedelec's first call is validated by its interpreter
  (code is generated once a validator has spent about 1 ms interpreting); the *code forced*
  column generates the validator's code before the call instead.
- *The floor under the sync row*, timed side by side with it: the `async def` row's work plus
  one hand-off of a no-op to a warm pool's thread (what a dispatch that shared threads across
  sessions would pay at least); that hand-off alone; and a thread started for one no-op (what a
  session that owns its threads pays on its first threaded call, before any registration).
- *Session of 50 tools*: 50 distinct `async def` tools registered on one session/server and each
  called once; the 50 functions are made anew for every iteration, and pedelec starts cold.

Compiling an unseen schema plus its first `is_valid` against `fastjsonschema.compile` plus its
first call is in `bench_validate.py`'s compile table (issue 12's cold-start target is there).

Before timing, both sides must answer the valid args with the handler's value and refuse args
that break a bound: a fast wrong answer is not a result.

Run: `python benchmarks/bench_infer.py` (`--quick` for a smoke run, `--json PATH` to keep the
ratios for `compare.py`; needs `pip install -e '.[bench]'`).
"""

from __future__ import annotations

import asyncio
import functools
import sys
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, Any, Literal

from timing import (
    Settings,
    Target,
    best_ns,
    best_ns_async_batches_interleaved,
    environment_line,
    parse_settings,
    print_table,
    print_targets,
    ratio,
    record,
    show_ns,
    write_json,
)

try:
    from annotated_types import Ge, Le, MaxLen
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError as exc:
    raise SystemExit(f"{exc}; install the benchmark extra: pip install -e '.[bench]'") from exc

import pedelec.schema
from pedelec import Session
from pedelec.typed import hints

ARGS = {"title": "Standup", "day": 3, "month": 4, "attendees": ["kaoru@example.com"]}
BAD_ARGS = {**ARGS, "day": 40}
ANSWER = {"title": "Standup", "day": 3}
SESSION_TOOLS = 50


def create_event(
    title: Annotated[str, MaxLen(120)],
    day: Annotated[int, Ge(1), Le(31)],
    month: Annotated[int, Ge(1), Le(12)],
    attendees: list[str],
    kind: Literal["meeting", "call", "focus"] = "meeting",
    remind: bool = True,
) -> dict[str, object]:
    """Create a calendar event.

    Args:
        title: Short title shown in the calendar.
        day: Day of the month.
        month: Month of the year.
        attendees: E-mail addresses of the people to invite.
        kind: What sort of event it is.
        remind: Whether to send a reminder.
    """
    return {"title": title, "day": day}


# ``create_event`` as a coroutine function: the same signature, docstring and answer.
@functools.wraps(create_event)
async def create_event_async(*args: Any, **kwargs: Any) -> dict[str, object]:
    return create_event(*args, **kwargs)


create_event_async.__name__ = create_event_async.__qualname__ = "create_event_async"


# One tool of the 50-tool session; {k} makes every tool's name and bounds its own.
TOOL_SOURCE = '''
async def find_{k}(
    query: Annotated[str, MaxLen({max_length})],
    limit: Annotated[int, Ge(1), Le({maximum})] = 10,
    mode: Literal["any", "all"] = "all",
    verbose: bool = False,
) -> dict[str, object]:
    """Search collection {k}.

    Args:
        query: Words to look for.
        limit: Most results to return.
        mode: Whether every word must match.
        verbose: Whether to include snippets.
    """
    return {{"tool": {k}, "limit": limit}}
'''
SESSION_SOURCE = compile(
    "".join(
        TOOL_SOURCE.format(k=k, max_length=100 + k, maximum=20 + k) for k in range(SESSION_TOOLS)
    ),
    "<bench_infer tools>",
    "exec",
)
SESSION_ARGS = {"query": "release notes", "limit": 5}


def session_tools() -> list[Callable[..., Any]]:
    """Fresh function objects for the 50 tools (nothing cached on a function can be reused)."""
    namespace: dict[str, Any] = {"Annotated": Annotated, "Literal": Literal}
    namespace |= {"Ge": Ge, "Le": Le, "MaxLen": MaxLen}
    exec(SESSION_SOURCE, namespace)
    return [namespace[f"find_{k}"] for k in range(SESSION_TOOLS)]


def answer_of(result: Any) -> Any:
    """The handler's value from a pedelec ``ToolResult`` or an MCP ``CallToolResult``."""
    if isinstance(result, pedelec.ToolResult):
        return result.error.code if result.error is not None else result.to_json()
    return "ERROR" if result.is_error else result.structured_content


async def check_answers() -> None:
    """Stop unless both sides answer the valid args right and refuse the out-of-bounds ones
    (pedelec in both of its validator's stages: interpreted, then with its code forced)."""
    for fn in (create_event, create_event_async):
        pedelec.schema._clear_cache()
        session = Session()
        session.tool(fn)
        server = MCPServer()
        server.tool()(fn)
        name = fn.__name__
        got = {
            "pedelec": answer_of(await session.dispatch(name, ARGS)),
            "mcp": answer_of(await server.call_tool(name, ARGS)),
        }
        generate(session, name)
        got["pedelec, code forced"] = answer_of(await session.dispatch(name, ARGS))
        for side, value in got.items():
            if value != ANSWER:
                raise SystemExit(f"{side} answers {name} with {value!r}, not {ANSWER!r}")
        refused = answer_of(await session.dispatch(name, BAD_ARGS))
        if refused != "TOOL_ARGS_INVALID":
            raise SystemExit(f"pedelec answers {name} day=40 with {refused!r}")
        try:
            await server.call_tool(name, BAD_ARGS)
        except ToolError:
            pass
        else:
            raise SystemExit(f"mcp accepts day=40 for {name}")
        session.end()
    fns = session_tools()
    session, server = Session(), MCPServer()
    for k, fn in enumerate(fns):
        session.tool(fn)
        server.tool()(fn)
        want = {"tool": k, "limit": 5}
        for side, value in (
            ("pedelec", answer_of(await session.dispatch(fn.__name__, SESSION_ARGS))),
            ("mcp", answer_of(await server.call_tool(fn.__name__, SESSION_ARGS))),
        ):
            if value != want:
                raise SystemExit(f"{side} answers {fn.__name__} with {value!r}, not {want!r}")


def register_pedelec(count: int) -> None:
    for _ in range(count):
        Session().tool(create_event)


def forget() -> None:
    """What a cold iteration starts from: pedelec keeps nothing from the iterations before.

    Two caches outlive a session: compiled validators (``pedelec.schema``) and annotation
    texts read before, parsed or compiled (``pedelec.typed.hints``, used for ``from __future__
    import annotations`` functions such as this file's). ``MCPServer`` keeps neither: it reads
    a signature with ``inspect.signature(func, eval_str=True)`` (``mcp/server/mcpserver/
    utilities/func_metadata.py``), which ``eval``s each annotation text, compiling it, for
    each server.
    """
    pedelec.schema._clear_cache()
    hints._ANNOTATION_CODE.clear()


def register_pedelec_cold(count: int) -> None:
    for _ in range(count):
        forget()
        Session().tool(create_event)


def register_pedelec_seen(count: int) -> None:
    """Validators forgotten, annotation texts seen before: a later session of a process that
    registered the same functions (or functions annotated the same way) already."""
    clear = pedelec.schema._clear_cache
    for _ in range(count):
        clear()
        Session().tool(create_event)


def register_mcp(count: int) -> None:
    for _ in range(count):
        MCPServer().tool()(create_event)


def count(number: int) -> int:
    return number


async def sync_floor(pool: ThreadPoolExecutor, number: int) -> None:
    """The floor under the sync row: the async row's whole work (infer, register, the first
    call validated and answered) plus one hand-off of a no-op to a thread of a warm pool and
    back. A sync handler must reach a worker thread (``../shared/DESIGN.md`` §5), so no
    dispatch of it, whoever's threads it uses, costs less than this with pedelec's
    registration as it is."""
    loop = asyncio.get_running_loop()
    for _ in range(number):
        forget()
        session = Session()
        session.tool(create_event_async)
        await session.dispatch("create_event_async", ARGS)
        await loop.run_in_executor(pool, count, 0)
        session.end()


async def hand_off(loop: asyncio.AbstractEventLoop, pool: ThreadPoolExecutor, number: int) -> None:
    """The hand-off alone: ``loop.run_in_executor`` of a no-op on a thread of a warm pool, the
    part of the sync row that no registration or dispatch code can shorten."""
    for _ in range(number):
        await loop.run_in_executor(pool, count, 0)


async def new_thread(loop: asyncio.AbstractEventLoop, number: int) -> None:
    """A thread started and handed one no-op, then let go: what a session that owns its worker
    threads (``docs/handlers.md``, "Worker threads") pays on its first threaded call beyond the
    hand-off, with no registration and no validation at all."""
    for _ in range(number):
        pool = ThreadPoolExecutor(max_workers=1)
        await loop.run_in_executor(pool, count, 0)
        pool.shutdown(wait=False)  # as ``end()`` lets a session's idle thread go


async def register_and_call(
    fn: Callable[..., Any],
    number: int,
    *,
    start: Callable[[], None] = forget,
    force: bool = False,
    executor: ThreadPoolExecutor | None = None,
) -> None:
    """pedelec's side of a first-call row, ``number`` times: from ``start`` (cold by default), a
    new session (given ``executor``, if any), ``fn`` registered, its validator's code generated
    first when ``force``, one call, then ``end()``: a session's own worker thread is not left
    to the next iteration, and a given executor is used, never shut down."""
    name = fn.__name__
    for _ in range(number):
        start()
        session = Session() if executor is None else Session(executor=executor)
        session.tool(fn)
        if force:
            generate(session, name)
        await session.dispatch(name, ARGS)
        session.end()


async def mcp_register_and_call(fn: Callable[..., Any], number: int) -> None:
    """``MCPServer``'s side of a first-call row: a new server, ``fn`` registered, one call."""
    name = fn.__name__
    for _ in range(number):
        server = MCPServer()
        server.tool()(fn)
        await server.call_tool(name, ARGS)


async def bench_first_call(settings: Settings) -> dict[str, tuple[float, ...]]:
    """Time register + first call, its floor, and the 50-tool session: ns per iteration by row,
    as (MCPServer, pedelec cold, pedelec with code forced, pedelec with annotation texts seen)
    or, for the floor rows, (MCPServer, the floor side, its companion side)."""
    seen: Callable[[], None] = pedelec.schema._clear_cache  # annotation texts kept
    times: dict[str, tuple[float, ...]] = {}
    loop = asyncio.get_running_loop()
    # One warm pool whose threads outlive every session, as anyio's do for MCPServer: used by
    # the shared-executor row and by the floor under the sync row.
    with ThreadPoolExecutor() as shared:
        shared.submit(count, 0).result()
        for label, fn in (("async def", create_event_async), ("sync", create_event)):
            runs: dict[str, Callable[[int], Awaitable[None]]] = {
                "theirs": functools.partial(mcp_register_and_call, fn),
                "ours": functools.partial(register_and_call, fn),
                "forced": functools.partial(register_and_call, fn, force=True),
                "seen": functools.partial(register_and_call, fn, start=seen),
            }
            if fn is create_event:
                runs["floor"] = functools.partial(sync_floor, shared)
                runs["hand-off"] = functools.partial(hand_off, loop, shared)
                runs["new thread"] = functools.partial(new_thread, loop)
            side = await best_ns_async_batches_interleaved(count, runs, settings)
            times[label] = (side["theirs"], side["ours"], side["forced"], side["seen"])
            if fn is create_event:
                times["sync floor"] = (side["theirs"], side["floor"], side["hand-off"])
                times["new thread"] = (side["theirs"], side["new thread"], 0.0)

        # The same sync row with the warm pool given to every session (``executor=``).
        side = await best_ns_async_batches_interleaved(
            count,
            {
                "theirs": functools.partial(mcp_register_and_call, create_event),
                "ours": functools.partial(register_and_call, create_event, executor=shared),
            },
            settings,
        )
        times["sync, shared threads"] = (side["theirs"], side["ours"], 0.0)

    def batches(number: int) -> list[list[Callable[..., Any]]]:
        return [session_tools() for _ in range(number)]

    async def session_ours(
        items: list[list[Callable[..., Any]]],
        force: bool = False,
        start: Callable[[], None] = forget,
    ) -> None:
        for fns in items:
            start()
            session = Session()
            for fn in fns:
                session.tool(fn)
            for fn in fns:
                if force:
                    generate(session, fn.__name__)
                await session.dispatch(fn.__name__, SESSION_ARGS)

    async def session_forced(items: list[list[Callable[..., Any]]]) -> None:
        await session_ours(items, force=True)

    async def session_seen(items: list[list[Callable[..., Any]]]) -> None:
        await session_ours(items, start=seen)

    async def session_theirs(items: list[list[Callable[..., Any]]]) -> None:
        for fns in items:
            server = MCPServer()
            for fn in fns:
                server.tool()(fn)
            for fn in fns:
                await server.call_tool(fn.__name__, SESSION_ARGS)

    side = await best_ns_async_batches_interleaved(
        batches,
        {"theirs": session_theirs, "ours": session_ours, "forced": session_forced,
         "seen": session_seen},
        settings,
    )  # fmt: skip
    times["session"] = (side["theirs"], side["ours"], side["forced"], side["seen"])
    return times


def generate(session: Session, name: str) -> None:
    """Generate the code of the tool's validator now (its copier, what a dispatch runs once
    the validator is past its interpreted stage): the *code forced* column."""
    session._registry.get(name).validator._copy_function()  # type: ignore[union-attr]


def main(argv: Sequence[str] | None = None) -> int:
    settings: Settings = parse_settings(argv, description=(__doc__ or "").splitlines()[0])
    asyncio.run(check_answers())
    print("# pedelec typed-tool benchmark\n")
    print(environment_line(settings, ("pedelec", "mcp", "pydantic")) + "\n")

    mcp = best_ns(count, register_mcp, settings)
    cold = best_ns(count, register_pedelec_cold, settings)
    seen_ns = best_ns(count, register_pedelec_seen, settings)
    warm = best_ns(count, register_pedelec, settings)
    record("register, MCPServer / pedelec cold", mcp / cold, higher_is_better=True)
    record("register, MCPServer / pedelec, annotation texts seen", mcp / seen_ns,
           higher_is_better=True)  # fmt: skip
    print("## Infer and register a tool from a 6-parameter signature (ns per tool)\n")
    print("Registering only: pedelec generates no validator code when a tool is registered.\n")
    print_table(
        ["how", "ns/tool", "MCPServer().tool() / this"],
        [
            ["`MCPServer().tool()(fn)` (mcp, pydantic)", show_ns(mcp), ratio(1.0)],
            [
                "`Session().tool(fn)`, cold: validators and annotation texts forgotten",
                show_ns(cold),
                ratio(mcp / cold),
            ],
            [
                "`Session().tool(fn)`, validators forgotten, annotation texts seen before",
                show_ns(seen_ns),
                ratio(mcp / seen_ns),
            ],
            ["`Session().tool(fn)`, validator cache warm", show_ns(warm), ratio(mcp / warm)],
        ],
    )

    times = asyncio.run(bench_first_call(settings))
    rows: list[list[str]] = []
    targets: list[Target] = []
    labels = {
        "async def": "register + first call, `async def` handler",
        "sync": "register + first call, sync handler (worker thread)",
        "session": f"session of {SESSION_TOOLS} tools, each called once",
    }
    for key, label in labels.items():
        theirs, ours, forced, seen_ns = times[key]
        record(f"{label}: MCPServer / pedelec", theirs / ours, higher_is_better=True)
        record(f"{label}, code forced: MCPServer / pedelec", theirs / forced,
               higher_is_better=True)  # fmt: skip
        record(f"{label}, annotation texts seen: MCPServer / pedelec", theirs / seen_ns,
               higher_is_better=True)  # fmt: skip
        target = Target(f"{label}: >= 10x MCPServer", theirs / ours, 10.0)
        targets.append(target)
        rows.append(
            [label, show_ns(theirs), show_ns(ours), ratio(theirs / ours),
             "PASS" if target.passed else "MISS", show_ns(forced), ratio(theirs / forced),
             show_ns(seen_ns), ratio(theirs / seen_ns)]
        )  # fmt: skip
    print("## Registered and called (ns per iteration; pedelec cold)\n")
    print("pedelec: `Session().tool(fn)` + `await session.dispatch(name, args)`; mcp:")
    print("`MCPServer().tool()(fn)` + `await server.call_tool(name, args)`. Each pedelec")
    print("iteration starts cold: its compiled validators and its read annotation texts")
    print("are forgotten (`forget`), as `MCPServer` keeps neither. pedelec's first call is")
    print("validated by its interpreter (a validator generates code once it has spent about")
    print("1 ms interpreting); *code forced* generates the validator's code before that first")
    print("call. *texts seen* keeps the annotation texts read by earlier iterations, as a")
    print("later session of the same process finds them: for reading, not a target.\n")
    print_table(
        ["work", "MCPServer", "pedelec", "ratio (>= 10x)", "result", "code forced", "ratio",
         "texts seen", "ratio"], rows,
    )  # fmt: skip
    theirs, shared_ns, _ = times["sync, shared threads"][:3]
    record("register + first call, sync, shared executor: MCPServer / pedelec",
           theirs / shared_ns, higher_is_better=True)  # fmt: skip
    print("A session's threads are its own and end with it, so its first threaded call starts")
    print("a thread; MCPServer's sync tools run in anyio's worker threads, which every server")
    print("of the process shares. The same row with threads shared across sessions too")
    print("(`Session(executor=pool)`, one warm `ThreadPoolExecutor`), for comparison only:\n")
    print_table(
        ["work", "MCPServer", "pedelec", "ratio"],
        [["register + first call, sync handler, shared executor", show_ns(theirs),
          show_ns(shared_ns), ratio(theirs / shared_ns)]],
    )  # fmt: skip
    theirs, floor_ns, hand_ns = times["sync floor"]
    thread_ns = times["new thread"][1]
    record("register + first call, sync: MCPServer / a new thread's first hand-off",
           theirs / thread_ns, higher_is_better=True)  # fmt: skip
    record("register + first call, sync, floor: MCPServer / floor", theirs / floor_ns,
           higher_is_better=True)  # fmt: skip
    record("register + first call, sync: MCPServer / hand-off alone", theirs / hand_ns,
           higher_is_better=True)  # fmt: skip
    print("\nThe floor under the sync row, timed side by side with it: the `async def` row's")
    print("work plus one `loop.run_in_executor` of a no-op on a warm pool (`sync_floor`); that")
    print("hand-off alone; and a thread started for one no-op (`new_thread`), what a session")
    print("that owns its threads pays on its first threaded call. A sync handler must reach a")
    print("worker thread: when one of these alone costs a tenth of MCPServer's row or more, no")
    print("dispatch that works that way can read 10x, whatever its registration costs.\n")
    print_table(
        ["work", "MCPServer", "this", "MCPServer / this", "this / MCPServer"],
        [["floor: `async def` row + one hand-off", show_ns(theirs), show_ns(floor_ns),
          ratio(theirs / floor_ns), f"{floor_ns / theirs:.3f}"],
         ["the hand-off alone", show_ns(theirs), show_ns(hand_ns), ratio(theirs / hand_ns),
          f"{hand_ns / theirs:.3f}"],
         ["a new thread's first hand-off alone", show_ns(theirs), show_ns(thread_ns),
          ratio(theirs / thread_ns), f"{thread_ns / theirs:.3f}"]],
    )  # fmt: skip
    print_targets(
        "issue 5",
        [Target("infer + register: >= 10x faster than MCPServer().tool()", mcp / cold, 10.0)],
    )
    print_targets("issue 12", targets)
    write_json(settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
