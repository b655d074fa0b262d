"""Benchmark what a ``Session`` adds on top of validation, and what building one costs, and
check the targets of issue 3.

Run ``python benchmarks/bench_dispatch.py`` (``--quick`` for a smoke run) after
``pip install -e '.[bench]'``. Times are nanoseconds per call, best of N repeats.

- Dispatch: ``session.dispatch_sync`` and ``await session.dispatch`` of the one-integer tool with
  a trivial handler, against the floor of the same work done by hand: ``is_valid(args)`` plus a
  direct handler call. The ratio is the SDK's own overhead (lookup, context, result, JSON check).
- Session building: ``Session(tools=...)`` with the six workload tools, against
  ``fastjsonschema.compile`` of the same six schemas. Cold: schemas no cache has seen (each tool
  defined anew with ``define_tool``); warm: the already compiled tools.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Sequence
from typing import Any, cast

from timing import (
    Settings,
    Target,
    best_ns,
    best_ns_async,
    environment_line,
    parse_settings,
    print_table,
    print_targets,
    ratio,
    show_ns,
    time_stmt,
)
from workload import TOOLS, Tool, unseen_variant

try:
    import fastjsonschema
except ImportError as exc:
    raise SystemExit(f"{exc}; install the benchmark extra: pip install -e '.[bench]'") from exc

import pedelec
import pedelec.schema
from pedelec import Session, ToolArgsSchema, ToolDefinition, define_tool

ONE_INTEGER = TOOLS[0]


def set_volume(args: dict[str, Any]) -> Any:
    """The trivial handler: hand back the one argument."""
    return args["level"]


async def set_volume_async(args: dict[str, Any]) -> Any:
    """The same trivial handler as a coroutine function (awaited on the loop, no worker thread)."""
    return args["level"]


def noop(args: dict[str, Any]) -> Any:
    """Handler of the other workload tools; never called here."""
    return None


def define(
    tool: Tool, schema: dict[str, Any], handler: Callable[[dict[str, Any]], Any] | None = None
) -> ToolDefinition[..., Any]:
    """``define_tool`` for a workload tool (the workload's schemas are plain dicts)."""
    if handler is None:
        handler = set_volume if tool is ONE_INTEGER else noop
    return define_tool(
        name=tool.name,
        description=tool.description,
        schema=cast("ToolArgsSchema", schema),
        handler=handler,
    )


def bench_dispatch(settings: Settings) -> tuple[float, float, float]:
    """Time the baseline, ``dispatch_sync`` and ``await dispatch``; return the three ratios.

    ``await dispatch`` runs a sync handler in a worker thread (so its timeout can be enforced
    without blocking the loop), which is why it is timed with an ``async def`` handler too.
    """
    tool, args = ONE_INTEGER, ONE_INTEGER.valid_args
    session = Session(tools=[define(tool, tool.schema)])
    async_session = Session(tools=[define(tool, tool.schema, set_volume_async)])
    result = session.dispatch_sync(tool.name, args)
    if result.is_error or result.value != args["level"]:
        raise SystemExit(f"dispatch_sync returned {result.to_json()!r}")

    is_valid = pedelec.compile_schema(tool.schema).is_valid
    baseline = time_stmt("v(a) and h(a)", {"v": is_valid, "h": set_volume, "a": args}, settings)
    sync = time_stmt("d(n, a)", {"d": session.dispatch_sync, "n": tool.name, "a": args}, settings)

    async def measure_async(on: Session) -> float:
        first = await on.dispatch(tool.name, args)
        if first.is_error or first.value != args["level"]:
            raise SystemExit(f"dispatch returned {first.to_json()!r}")
        dispatch = on.dispatch
        return await best_ns_async(lambda: dispatch(tool.name, args), settings)

    awaited = asyncio.run(measure_async(session))
    awaited_async = asyncio.run(measure_async(async_session))

    print(f"## Dispatch of `{tool.name}` with a trivial handler (ns per call)\n")
    print("Ratio: time / baseline, the factor the SDK adds (lower is better).\n")
    print_table(
        ["call", "ns/call", "ratio to baseline"],
        [
            ["baseline: `is_valid(args) and handler(args)`", show_ns(baseline), ratio(1.0)],
            ["`session.dispatch_sync(name, args)`", show_ns(sync), ratio(sync / baseline)],
            ["`await session.dispatch(name, args)`, sync handler (worker thread)",
             show_ns(awaited), ratio(awaited / baseline)],
            ["`await session.dispatch(name, args)`, `async def` handler",
             show_ns(awaited_async), ratio(awaited_async / baseline)],
        ],
    )  # fmt: skip
    return sync / baseline, awaited / baseline, awaited_async / baseline


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

    fast = best_ns(unseen_schemas, compile_fast, settings)
    cold = best_ns(unseen_schemas, build_cold, settings)

    for tool in TOOLS:
        pedelec.compile_schema(tool.schema)
    definitions = [define(tool, tool.schema) for tool in TOOLS]
    warm_defined = time_stmt(
        "S(tools=[d(t, t.schema) for t in T])", {"S": Session, "d": define, "T": TOOLS}, settings
    )
    warm = time_stmt("S(tools=D)", {"S": Session, "D": definitions}, settings)

    print("## Building a session with the six workload tools (ns per session)\n")
    print_table(
        ["build", "ns/session", "fastjsonschema.compile x6 / this"],
        [
            ["`fastjsonschema.compile` of the six schemas", show_ns(fast), ratio(1.0)],
            ["cold: `define_tool` x6 + `Session`, unseen schemas", show_ns(cold), ratio(fast / cold)],
            ["warm: `define_tool` x6 + `Session`, compiled schemas", show_ns(warm_defined),
             ratio(fast / warm_defined)],
            ["warm: `Session(tools=definitions)`", show_ns(warm), ratio(fast / warm)],
        ],
    )  # fmt: skip
    return fast / warm


def main(argv: Sequence[str] | None = None) -> int:
    """Run both parts, print the tables and the target verdicts."""
    settings = parse_settings(argv, description=(__doc__ or "").splitlines()[0])
    print("# pedelec dispatch benchmark\n")
    print(environment_line(settings, ("pedelec", "fastjsonschema")) + "\n")
    sync_ratio, thread_ratio, async_ratio = bench_dispatch(settings)
    session_ratio = bench_session(settings)
    print_targets(
        "issue 3",
        [
            Target("dispatch_sync: <= 10x is_valid + direct call", sync_ratio, 10.0, upper=True),
            Target(
                "await dispatch, sync handler: <= 25x is_valid + direct call",
                thread_ratio,
                25.0,
                upper=True,
            ),
            Target(
                "await dispatch, async handler: <= 25x is_valid + direct call",
                async_ratio,
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
