"""Benchmark what a ``Session`` adds on top of validation, and what building one costs, and
check the targets of issues 3 and 12.

Run ``python benchmarks/bench_dispatch.py`` (``--quick`` for a smoke run, ``--json PATH`` to
keep the ratios for ``compare.py``) after ``pip install -e '.[bench]'``. Times are nanoseconds
per call, best of N repeats. Every workload tool gets the same trivial handler,
``len(args)``, so what is timed is the call path, not the handler.

- ``dispatch_sync(name, args)`` per tool, against the same work done by hand:
  ``is_valid(args) and handler(args)``; against pydantic,
  ``handler(TypeAdapter(T).validate_python(args, strict=True))`` with ``T`` the tool's
  ``TypedDict`` (``pydantic_peers.py``, which also says what pydantic cannot express); and
  against ``jsonschema-rs`` ``is_valid(args) and handler(args)``. Pydantic's output is a new
  dict, so like ``dispatch_sync`` it hands the handler args the caller cannot change.
- ``await dispatch`` with an ``async def`` handler against ``is_valid(args)`` plus a direct
  ``await handler(args)``.
- ``await dispatch`` with a sync handler, whose hand-off to a worker thread is the difference
  to the same call with an ``async def`` handler, against ``await loop.run_in_executor(None,
  noop)`` measured side by side (batches alternate within each repeat).
- Args as JSON text: ``dispatch_sync(name, text)`` against ``json.loads(text)`` plus
  ``is_valid`` plus the call. ``json.loads`` is laxer (it takes duplicate keys and ``NaN``),
  which the issue's target accepts as the price of pedelec's strictness.
- Session building: ``Session(tools=...)`` with the six workload tools, against
  ``fastjsonschema.compile`` of the same six schemas. Cold: schemas no cache has seen (each tool
  defined anew with ``define_tool``); warm: the already compiled tools.

Before timing, every path is called once and must give the handler's value: a fast wrong answer
is not a result.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable, Sequence
from time import monotonic
from typing import Any, cast

from timing import (
    Settings,
    Target,
    best_ns,
    best_ns_interleaved,
    environment_line,
    geomean,
    parse_settings,
    print_table,
    print_targets,
    ratio,
    record,
    show_ns,
    time_side_by_side,
    time_stmt,
    write_json,
)
from workload import TOOLS, Tool, generated, unseen_variant

try:
    import fastjsonschema
    import jsonschema_rs
    import pydantic
    from pydantic_peers import build_adapters
except ImportError as exc:
    raise SystemExit(f"{exc}; install the benchmark extra: pip install -e '.[bench]'") from exc

import pedelec
import pedelec.schema
from pedelec import DEFAULT_LIMITS, Session, ToolArgsSchema, ToolDefinition, define_tool
from pedelec._json.wire import SAFE_INT
from pedelec._result import ToolResult, _new, next_request_number
from pedelec._session.deadlines import deadlines_of

ONE_INTEGER = TOOLS[0]
# Issue 12's 2x target is for tools whose validation takes 1 µs or more: these four in the
# recorded idle run of 2026-11-29 (update_card 1.09 µs, the others 2.3 to 26 µs; move_to 0.44
# µs has no target). Fixed rather than decided by this run's timing, so a noisy or a faster
# run cannot move a tool out of the target.
TWO_X_TOOLS = frozenset({"update_card", "search_messages", "bulk_update_tasks", "draw_path"})


def handler(args: dict[str, Any]) -> Any:
    """The trivial handler of every tool: a scalar result, so no result conversion is timed."""
    return len(args)


async def handler_async(args: dict[str, Any]) -> Any:
    """The same handler as a coroutine function (awaited on the loop, no worker thread)."""
    return len(args)


class Never:
    """A call whose deadline is never reached in the hand-off rows."""

    def expire(self) -> None:  # pragma: no cover - 60 s away
        raise AssertionError("a benchmark deadline expired")


def noop() -> None:
    """What ``run_in_executor`` runs in the hand-off comparison."""


_running: list[None] = []
_loop_getter = asyncio._get_running_loop
_ended = False
#: ``name -> (validating copy, handler)`` of the tools ``floor_call`` answers (``bench_sync``).
_floor_tools: dict[str, tuple[Callable[[Any, int, int], Any], Callable[[Any], Any]]] = {}
_DEPTH = DEFAULT_LIMITS.max_depth
_ROOM = DEFAULT_LIMITS.max_args_values - 1  # as a session passes it (``Session._room``)


def floor_call(name: str, args: dict[str, Any]) -> ToolResult:
    """The usual call of ``dispatch_sync`` reduced to what the contract asks of it: the *floor*
    under the per-tool rows, timed to tell a miss that better dispatch code could close from one
    that no pure-Python dispatch with this copy can. Each step as cheap as Python allows.

    The steps (``../shared/DESIGN.md`` §5 and §9): refuse a thread that runs an event loop; draw
    the call's request id; answer an ended session (``SESSION_ENDED``) and find the tool
    (``TOOL_NOT_FOUND``); validate the args and copy them, so the handler's args are its own (the
    tool's generated validating copy, as ``dispatch_sync`` uses it); look for a per-call
    ``timeoutMs``; count the call as running (the status and ``end()`` read that count); read
    the clock before and after the handler and compare with the timeout (an inline handler that
    overran is ``TOOL_TIMEOUT``); call the handler inside the one exception boundary; check that
    the value is one the wire carries as it is (``None`` or a bounded integer, as the workload's
    handler returns); build the ``ToolResult``.
    """
    if _loop_getter() is not None:
        raise RuntimeError("called from a thread that runs an event loop")
    rid = next_request_number()
    tool = None if _ended else _floor_tools.get(name)
    if tool is None:
        raise AssertionError("the floor answers the workload's tools only")
    copy, fn = tool
    got = copy(args, _DEPTH, _ROOM)
    if got is False or "timeoutMs" in got[0]:
        raise AssertionError("the floor times the usual call of valid args only")
    _running.append(None)
    try:
        start = monotonic()
        try:
            value = fn(got[0])
        except BaseException as exc:
            raise AssertionError("the workload's handler does not raise") from exc
        if monotonic() - start > 60.0 or not (
            value is None or (type(value) is int and -SAFE_INT < value < SAFE_INT)
        ):
            raise AssertionError("a benchmark call ran late or returned an unusual value")
        done: ToolResult = _new(ToolResult)
        done.tool = name
        done._rid = rid
        done.value = value
        done.error = None
        return done
    finally:
        _running.pop()


def define(
    tool: Tool, schema: dict[str, Any], fn: Callable[[dict[str, Any]], Any] = handler
) -> ToolDefinition[..., Any]:
    """``define_tool`` for a workload tool (the workload's schemas are plain dicts)."""
    return define_tool(
        name=tool.name,
        description=tool.description,
        schema=cast("ToolArgsSchema", schema),
        handler=fn,
    )


def expect(what: str, tool: Tool, got: Any) -> None:
    """Stop unless ``got`` is what the handler returns for the tool's valid args."""
    if isinstance(got, pedelec.ToolResult):
        got = got.to_json() if not got.is_error else got.error
    if got != len(tool.valid_args):
        raise SystemExit(f"{what} on {tool.name} gave {got!r}, not {len(tool.valid_args)}")


def bench_sync(settings: Settings, session: Session) -> tuple[list[Target], float]:
    """Time ``dispatch_sync`` per tool against the same work by hand, pydantic and jsonschema-rs.

    Returns the targets and the one-integer tool's ``is_valid(args) and handler(args)`` time,
    the baseline of issue 3's targets.
    """
    adapters = build_adapters()
    rows: list[list[str]] = []
    targets: list[Target] = []
    own: list[float] = []
    baseline = 0.0
    pydantic_ratios: list[float] = []
    rust_ratios: list[float] = []
    floor_rows: list[list[str]] = []
    floor_bounds: list[float] = []
    for tool in TOOLS:
        args = tool.valid_args
        validator = generated(tool.schema)
        is_valid = validator.is_valid
        rust = jsonschema_rs.validator_for(tool.schema).is_valid
        validate = adapters[tool.name].validate_python
        expect("dispatch_sync", tool, session.dispatch_sync(tool.name, args))
        _floor_tools[tool.name] = (validator._copy, handler)
        expect("floor_call", tool, floor_call(tool.name, args))
        expect("pydantic", tool, handler(validate(args, strict=True)))
        try:
            validate(tool.invalid_args, strict=True)
        except pydantic.ValidationError:
            pass
        else:
            raise SystemExit(f"pydantic accepts the invalid args of {tool.name}")
        if not rust(args) or rust(tool.invalid_args):
            raise SystemExit(f"jsonschema-rs gets the wrong verdicts on {tool.name}")
        if validator._copy(args, session._max_depth, session._room)[0] != args:
            raise SystemExit(f"the validating copy of {tool.name} is not equal to its args")
        space = {"v": is_valid, "r": rust, "p": validate, "h": handler, "a": args}
        space |= {"d": session.dispatch_sync, "n": tool.name, "f": floor_call}
        space |= {"c": validator._copy, "D": session._max_depth, "R": session._room}
        statements = ["v(a)", "v(a) and h(a)", "d(n, a)", "h(p(a, strict=True))", "r(a) and h(a)"]
        statements += ["c(a, D, R)", "f(n, a)"]
        alone, floor, sync, peer, rs, copying, least = time_side_by_side(
            [(statement, space) for statement in statements], settings
        )
        floor_bounds.append(peer / least)
        floor_rows.append(
            [
                tool.name,
                show_ns(copying),
                show_ns(least),
                show_ns(sync),
                show_ns(sync - least),
                ratio(least / floor, 2),
                ratio(peer / least, 2),
            ]
        )
        overhead = sync / floor
        own.append(overhead)
        pydantic_ratios.append(peer / sync)
        rust_ratios.append(rs / sync)
        record(f"dispatch_sync / (is_valid + call): {tool.name}", overhead, higher_is_better=False)
        record(f"pydantic + call / dispatch_sync: {tool.name}", peer / sync, higher_is_better=True)
        if tool is ONE_INTEGER:
            baseline = floor
            limit, why = 8.0, "<= 8x (one integer)"
        elif tool.name in TWO_X_TOOLS:
            limit, why = 2.0, "<= 2x"
        else:
            limit, why = 0.0, "none (validation < 1 µs)"
        verdict = ""
        if limit:
            target = Target(f"dispatch_sync {why}: {tool.name}", overhead, limit, upper=True)
            targets.append(target)
            verdict = "PASS" if target.passed else "MISS"
        rows.append(
            [
                tool.name,
                show_ns(alone),
                show_ns(floor),
                show_ns(sync),
                ratio(overhead, 2),
                why,
                verdict,
                show_ns(peer),
                ratio(peer / sync, 2),
                show_ns(rs),
                ratio(rs / sync, 2),
            ]
        )
    means = geomean(own), geomean(pydantic_ratios), geomean(rust_ratios)
    record("pydantic + call / dispatch_sync: geometric mean", means[1], higher_is_better=True)
    rows.append(
        ["geometric mean", "", "", "", ratio(means[0], 2), "", "", "", ratio(means[1], 2), "",
         ratio(means[2], 2)]
    )  # fmt: skip
    print("## `dispatch_sync` per tool (ns per call)\n")
    print("*overhead* = dispatch_sync / (is_valid + call), lower is better; the peer ratios are")
    print("peer time / dispatch_sync, so above 1x means dispatch_sync is faster.\n")
    print_table(
        ["tool", "is_valid", "is_valid + call", "dispatch_sync", "overhead", "target", "result",
         "pydantic strict + call", "pydantic / dispatch", "jsonschema-rs + call",
         "rs / dispatch"],
        rows,
    )  # fmt: skip
    targets.append(
        Target("dispatch_sync >= 1x pydantic strict + call (geometric mean)", means[1], 1.0)
    )
    floor_rows.append(["geometric mean", "", "", "", "", "", ratio(geomean(floor_bounds), 2)])
    record("pydantic + call / floor_call: geometric mean", geomean(floor_bounds),
           higher_is_better=True)  # fmt: skip
    print("\n### The floor: what no faster dispatch code could take away (ns per call)\n")
    print("For reading the misses above, not a target. *copy* is the tool's validating copy")
    print("alone: the generated walk that checks the args and copies them, which isolating a")
    print("caller's dict needs. *floor* is `floor_call`: the usual call reduced to what the")
    print("contract asks of it (running-loop check, request id, ended session and tool lookup,")
    print("the validating copy, a `timeoutMs` looked for, running count, two clock reads and the")
    print("timeout check, the handler call in its exception boundary, the result's check, the")
    print("`ToolResult`), each step as cheap as Python allows, in one function. *left* is what")
    print("`dispatch_sync` spends beyond it; the two ratios are what a dispatch at the floor")
    print("would read against the targets' baselines.\n")
    print_table(
        ["tool", "copy", "floor", "dispatch_sync", "left", "floor / (is_valid + call)",
         "pydantic / floor"],
        floor_rows,
    )  # fmt: skip
    return targets, baseline


async def bench_async(settings: Settings) -> tuple[list[Target], float, float]:
    """Time ``await dispatch`` with an async handler per tool, and the sync-handler hand-off.

    Returns the targets and the one-integer tool's ``await dispatch`` times with a sync and
    with an async handler, for issue 3's targets.
    """
    session = Session(tools=[define(tool, tool.schema, handler_async) for tool in TOOLS])
    threaded = Session(tools=[define(ONE_INTEGER, ONE_INTEGER.schema)])
    rows: list[list[str]] = []
    targets: list[Target] = []
    dispatch = session.dispatch
    for tool in TOOLS:
        args = tool.valid_args
        is_valid = generated(tool.schema).is_valid
        expect("await dispatch", tool, await dispatch(tool.name, args))

        # Both sides are a plain call that returns the awaitable: one handler coroutine here,
        # dispatch's own coroutine (and whatever it awaits) there.
        def direct(v: Any = is_valid, a: Any = args) -> Any:
            return v(a) and handler_async(a)

        def call(n: str = tool.name, a: Any = args) -> Any:
            return dispatch(n, a)

        times = await best_ns_interleaved({"direct": direct, "dispatch": call}, settings)
        overhead = times["dispatch"] / times["direct"]
        record(
            f"await dispatch / (is_valid + await): {tool.name}", overhead, higher_is_better=False
        )
        target = Target(f"await dispatch, async handler <= 10x: {tool.name}", overhead, 10.0, True)
        targets.append(target)
        rows.append(
            [tool.name, show_ns(times["direct"]), show_ns(times["dispatch"]), ratio(overhead, 2),
             "PASS" if target.passed else "MISS"]
        )  # fmt: skip
    print("## `await dispatch` with an `async def` handler (ns per call)\n")
    print_table(
        ["tool", "is_valid + await handler", "await dispatch", "overhead (<= 10x)", "result"],
        rows,
    )

    tool, args = ONE_INTEGER, ONE_INTEGER.valid_args
    expect("await dispatch (sync handler)", tool, await threaded.dispatch(tool.name, args))
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, noop)  # the default executor's first thread started
    is_valid = generated(tool.schema).is_valid
    # What the hand-off is made of: the session's own pool of threads alone (a private API,
    # read here only to explain the row), and the same with the deadline timer every call sets.
    pool = threaded._runner._get_workers()
    assert pool is not None

    async def pool_alone() -> None:
        await pool.submit_for(loop, noop)[1]

    async def executor_with_deadline() -> None:
        # run_in_executor with the deadline a dispatch has (a default tool's, far off)
        await asyncio.wait_for(loop.run_in_executor(None, noop), 60.0)

    deadlines = deadlines_of(loop)

    async def pool_and_deadline() -> None:
        # the call's deadline as a dispatch keeps it: an entry in the loop's shared timer
        entry = deadlines.add(loop, loop.time() + 60.0, Never())
        await pool.submit_for(loop, noop)[1]
        deadlines.remove(entry)

    async def pool_and_timer() -> None:
        # the same deadline as a timer of its own (how every call kept it before)
        timer = loop.call_at(loop.time() + 60.0, noop)
        await pool.submit_for(loop, noop)[1]
        timer.cancel()

    times = await best_ns_interleaved(
        {
            "async": lambda: dispatch(tool.name, args),
            "sync": lambda: threaded.dispatch(tool.name, args),
            "executor": lambda: loop.run_in_executor(None, noop),
            "deadline": executor_with_deadline,
            "pool": pool_alone,
            "deadline entry": pool_and_deadline,
            "timer": pool_and_timer,
        },
        settings,
    )
    hand_off = times["sync"] - times["async"]
    share = hand_off / times["executor"]
    record("hand-off / run_in_executor(noop)", share, higher_is_better=False)
    record(
        "session pool / run_in_executor(noop)",
        times["pool"] / times["executor"],
        higher_is_better=False,
    )
    print(f"## The sync-handler hand-off under `await dispatch` (`{tool.name}`, ns per call)\n")
    print("Measured side by side: each repeat runs a batch of every row in turn. The last four")
    print("rows are for reading the hand-off: `run_in_executor` under a deadline as a dispatch")
    print("has one (`asyncio.wait_for`), the session's pool of threads alone, the pool with the")
    print("call's deadline kept as a dispatch keeps it (an entry under the loop's one timer,")
    print("`pedelec/_session/deadlines.py`), and the pool with a timer of its own per call")
    print("(`loop.call_at`, cancelled when the call returns).")
    print("The pool's worker settles the awaiting loop's future itself (one")
    print("`call_soon_threadsafe`), where `run_in_executor` chains a `concurrent.futures.Future`")
    print("to an asyncio one (`asyncio.wrap_future`).\n")
    print_table(
        ["call", "ns/call"],
        [
            ["`await dispatch`, `async def` handler", show_ns(times["async"])],
            ["`await dispatch`, sync handler (worker thread)", show_ns(times["sync"])],
            ["hand-off: the difference of the two", show_ns(hand_off)],
            ["`await loop.run_in_executor(None, noop)`", show_ns(times["executor"])],
            ["hand-off / run_in_executor (target <= 1x)", ratio(share, 2)],
            ["`await wait_for(loop.run_in_executor(None, noop), 60)`",
             show_ns(times["deadline"])],
            ["the session's pool alone: `await pool.submit_for(loop, noop)[1]`",
             show_ns(times["pool"])],
            ["the pool and the call's deadline under the loop's one timer",
             show_ns(times["deadline entry"])],
            ["the pool and a timer per call", show_ns(times["timer"])],
        ],
    )  # fmt: skip
    targets.append(Target("sync-handler hand-off <= run_in_executor(None, noop)", share, 1.0, True))
    return targets, times["sync"], times["async"]


def bench_text(settings: Settings, session: Session) -> list[Target]:
    """Time ``dispatch_sync`` of args given as JSON text against ``json.loads`` + the call."""
    rows: list[list[str]] = []
    targets: list[Target] = []
    for tool in TOOLS:
        text = json.dumps(tool.valid_args)
        is_valid = generated(tool.schema).is_valid
        expect("dispatch_sync(text)", tool, session.dispatch_sync(tool.name, text))
        space = {"v": is_valid, "h": handler, "l": json.loads, "t": text}
        space |= {"d": session.dispatch_sync, "n": tool.name}
        floor, sync = time_side_by_side(
            [("a = l(t)\nv(a) and h(a)", space), ("d(n, t)", space)], settings
        )
        record(f"dispatch_sync(text) / (json.loads + is_valid + call): {tool.name}", sync / floor,
               higher_is_better=False)  # fmt: skip
        target = Target(f"JSON text args <= 2x: {tool.name}", sync / floor, 2.0, upper=True)
        targets.append(target)
        rows.append(
            [tool.name, f"{len(text):,}", show_ns(floor), show_ns(sync), ratio(sync / floor, 2),
             "PASS" if target.passed else "MISS"]
        )  # fmt: skip
    print("## Args as JSON text (ns per call)\n")
    print_table(
        ["tool", "bytes", "json.loads + is_valid + call", "dispatch_sync(name, text)",
         "overhead (<= 2x)", "result"],
        rows,
    )  # fmt: skip
    return targets


def bench_session(settings: Settings) -> float:
    """Time building a session with the six tools; return fastjsonschema / warm-session ratio."""
    clear_cache = pedelec.schema._clear_cache

    def unseen_schemas(number: int) -> list[list[dict[str, Any]]]:
        return [[unseen_variant(tool.schema) for tool in TOOLS] for _ in range(number)]

    def build_cold(batches: list[list[dict[str, Any]]]) -> None:
        for schemas in batches:
            clear_cache()  # see bench_validate.bench_compile: varying alone may not be enough
            Session(tools=[define(tool, s) for tool, s in zip(TOOLS, schemas, strict=True)])

    def compile_fast(batches: list[list[dict[str, Any]]]) -> None:
        for schemas in batches:
            clear_cache()  # the same extra work on both sides
            for schema in schemas:
                fastjsonschema.compile(schema)

    def compile_fast_and_call(batches: list[list[dict[str, Any]]]) -> None:
        for schemas in batches:
            clear_cache()
            for tool, schema in zip(TOOLS, schemas, strict=True):
                fastjsonschema.compile(schema)(tool.valid_args)

    def build_cold_and_call(batches: list[list[dict[str, Any]]], force: bool = False) -> None:
        for schemas in batches:
            clear_cache()
            session = Session(
                tools=[define(tool, s) for tool, s in zip(TOOLS, schemas, strict=True)]
            )
            for tool, schema in zip(TOOLS, schemas, strict=True):
                if force:  # the validator's copier generated before its first call
                    pedelec.compile_schema(schema)._copy_function()
                session.dispatch_sync(tool.name, tool.valid_args)

    def build_cold_and_call_forced(batches: list[list[dict[str, Any]]]) -> None:
        build_cold_and_call(batches, force=True)

    fast = best_ns(unseen_schemas, compile_fast, settings)
    cold = best_ns(unseen_schemas, build_cold, settings)
    fast_called = best_ns(unseen_schemas, compile_fast_and_call, settings)
    cold_called = best_ns(unseen_schemas, build_cold_and_call, settings)
    cold_forced = best_ns(unseen_schemas, build_cold_and_call_forced, settings)
    record("cold session + one call per tool vs fastjsonschema compile + call",
           fast_called / cold_called, higher_is_better=True)  # fmt: skip

    for tool in TOOLS:
        pedelec.compile_schema(tool.schema)
    definitions = [define(tool, tool.schema) for tool in TOOLS]
    warm_defined = time_stmt(
        "S(tools=[d(t, t.schema) for t in T])", {"S": Session, "d": define, "T": TOOLS}, settings
    )
    warm = time_stmt("S(tools=D)", {"S": Session, "D": definitions}, settings)

    print("## Building a session with the six workload tools (ns per session)\n")
    print("Building alone generates none of pedelec's validator code, so the *called* rows")
    print("compare the same answers: every tool called once, against each fastjsonschema")
    print("function compiled and called once. pedelec validates a first call with its")
    print("interpreter (code is generated once a validator has spent about 1 ms interpreting);")
    print("*code forced* generates each validator's copier before its first call.\n")
    print_table(
        ["build", "ns/session", "fastjsonschema / this"],
        [
            ["`fastjsonschema.compile` of the six schemas", show_ns(fast), ratio(1.0)],
            ["cold: `define_tool` x6 + `Session`, unseen schemas", show_ns(cold), ratio(fast / cold)],
            ["called: `fastjsonschema.compile(s)(args)` x6", show_ns(fast_called), ratio(1.0)],
            ["called: cold `Session` + `dispatch_sync` of each tool", show_ns(cold_called),
             ratio(fast_called / cold_called)],
            ["called, code forced: the same, each copier generated first",
             show_ns(cold_forced), ratio(fast_called / cold_forced)],
            ["warm: `define_tool` x6 + `Session`, compiled schemas", show_ns(warm_defined),
             ratio(fast / warm_defined)],
            ["warm: `Session(tools=definitions)`", show_ns(warm), ratio(fast / warm)],
        ],
    )  # fmt: skip
    return fast / warm


def main(argv: Sequence[str] | None = None) -> int:
    """Run every part, print the tables and the target verdicts."""
    settings = parse_settings(argv, description=(__doc__ or "").splitlines()[0])
    print("# pedelec dispatch benchmark\n")
    dists = ("pedelec", "fastjsonschema", "jsonschema-rs", "pydantic")
    print(environment_line(settings, dists) + "\n")
    session = Session(tools=[define(tool, tool.schema) for tool in TOOLS])
    sync_targets, baseline = bench_sync(settings, session)
    async_targets, threaded, awaited = asyncio.run(bench_async(settings))
    text_targets = bench_text(settings, session)
    session_ratio = bench_session(settings)
    print_targets("issue 12", [*sync_targets, *async_targets, *text_targets])
    one_integer = next(t for t in sync_targets if t.name.endswith(ONE_INTEGER.name))
    # Issue 3 measured against the synchronous `is_valid(args) and handler(args)`.
    print_targets(
        "issue 3",
        [
            Target(
                "dispatch_sync: <= 10x is_valid + direct call", one_integer.measured, 10.0, True
            ),
            Target(
                "await dispatch, sync handler: <= 25x is_valid + direct call",
                threaded / baseline,
                25.0,
                upper=True,
            ),
            Target(
                "await dispatch, async handler: <= 25x is_valid + direct call",
                awaited / baseline,
                25.0,
                upper=True,
            ),
            Target(
                "Session from six compiled tools: >= 20x faster than fastjsonschema.compile x6",
                session_ratio,
                20.0,
            ),
        ],
    )
    write_json(settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
