"""Benchmark pedelec's schema compiler and validator against jsonschema, fastjsonschema and
jsonschema-rs on the six tools of ``workload.py``, and check the targets of issues 2 and 12.

Run ``python benchmarks/bench_validate.py`` (``--quick`` for a smoke run, ``--json PATH`` to
keep the ratios for ``compare.py``) after ``pip install -e '.[bench]'``. Times are nanoseconds per call, best of N repeats. Ratios are
peer time / pedelec time: ``12.0x`` means pedelec is 12 times faster, ``0.5x`` that it takes
twice as long. The output is Markdown, ready to paste into ``docs/performance.md``.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

from timing import (
    Settings,
    Target,
    best_ns,
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
from workload import TOOLS, UNIQUE_OBJECTS, Tool, generated, unseen_variant

try:
    import fastjsonschema
    import jsonschema  # type: ignore[import-untyped]
    import jsonschema_rs
except ImportError as exc:
    raise SystemExit(f"{exc}; install the benchmark extra: pip install -e '.[bench]'") from exc

import pedelec
import pedelec.schema

PEERS = ("jsonschema", "fastjsonschema", "jsonschema-rs")


def check_workload() -> None:
    """Refuse to time anything if a validator disagrees with the workload's verdicts."""
    for tool in TOOLS:
        ours = pedelec.compile_schema(tool.schema)
        reference = jsonschema.Draft202012Validator(tool.schema)
        rust = jsonschema_rs.validator_for(tool.schema)
        fast = fastjsonschema.compile(tool.schema)
        fast(tool.valid_args)
        try:
            fast(tool.invalid_args)
        except fastjsonschema.JsonSchemaValueException:
            pass
        else:
            raise SystemExit(f"fastjsonschema accepts the invalid args of {tool.name}")
        valid, invalid = tool.valid_args, tool.invalid_args
        verdicts = {
            "pedelec interpreted": (ours._interpreted(valid), ours._interpreted(invalid)),
            "pedelec is_valid": (
                ours._bool_function()(valid),
                ours._bool_function()(invalid),
            ),
            "pedelec errors": (not ours.errors(valid), not ours.errors(invalid)),
            "jsonschema": (reference.is_valid(valid), reference.is_valid(invalid)),
            "jsonschema-rs": (rust.is_valid(valid), rust.is_valid(invalid)),
        }
        for name, verdict in verdicts.items():
            if verdict != (True, False):
                raise SystemExit(f"{name} gets the wrong verdicts on {tool.name}: {verdict}")


def fast_first_error_ns(fast: Any, args: Any, settings: Settings) -> float:
    """Time a fastjsonschema function on ``args``, which it may reject by raising."""
    space = {"f": fast, "a": args, "E": fastjsonschema.JsonSchemaValueException}
    return time_stmt("try:\n    f(a)\nexcept E:\n    pass", space, settings)


def bench_valid(settings: Settings) -> dict[str, float]:
    """Time ``is_valid`` on valid args; return the geometric mean ratio per peer."""
    print("## Valid args (ns per call; ratio = peer / pedelec)\n")
    print("pedelec, jsonschema and jsonschema-rs: `is_valid(args)`; fastjsonschema: the compiled")
    print("function (it returns the data or raises).\n")
    rows: list[list[str]] = []
    ratios: dict[str, list[float]] = {peer: [] for peer in PEERS}
    for tool in TOOLS:
        calls: dict[str, Any] = {
            "pedelec": generated(tool.schema).is_valid,
            "jsonschema": jsonschema.Draft202012Validator(tool.schema).is_valid,
            "fastjsonschema": fastjsonschema.compile(tool.schema),
            "jsonschema-rs": jsonschema_rs.validator_for(tool.schema).is_valid,
        }
        measured = time_side_by_side(
            [("f(a)", {"f": call, "a": tool.valid_args}) for call in calls.values()], settings
        )
        times = dict(zip(calls, measured, strict=True))
        row = [tool.name, show_ns(times["pedelec"])]
        for peer in PEERS:
            ratios[peer].append(times[peer] / times["pedelec"])
            record(f"is_valid, {peer} / pedelec: {tool.name}", ratios[peer][-1],
                   higher_is_better=True)  # fmt: skip
            row += [show_ns(times[peer]), ratio(ratios[peer][-1])]
        rows.append(row)
    means = {peer: geomean(values) for peer, values in ratios.items()}
    rows.append(
        [
            "geometric mean",
            "",
            "",
            ratio(means["jsonschema"]),
            "",
            ratio(means["fastjsonschema"]),
            "",
            ratio(means["jsonschema-rs"], 2),
        ]
    )
    headers = ["tool", "pedelec", "jsonschema", "ratio", "fastjsonschema", "ratio"]
    print_table([*headers, "jsonschema-rs", "ratio"], rows)
    return means


def bench_invalid(settings: Settings) -> dict[str, float]:
    """Time collecting every error on invalid args; return the geometric mean ratio per peer."""
    print("## Invalid args, collecting every error (ns per call; ratio = peer / pedelec)\n")
    print("pedelec: `errors(args, max_errors=n)` with `n` above what the peers find (the")
    print("default stops at 50); jsonschema and jsonschema-rs: `list(iter_errors(args))`.")
    print("fastjsonschema stops at the first error, so its column is for reference only.\n")
    rows: list[list[str]] = []
    ratios: dict[str, list[float]] = {"jsonschema": [], "jsonschema-rs": []}
    for tool in TOOLS:
        args = tool.invalid_args
        ours = pedelec.compile_schema(tool.schema)
        reference = jsonschema.Draft202012Validator(tool.schema)
        rust = jsonschema_rs.validator_for(tool.schema)
        fast = fastjsonschema.compile(tool.schema)
        peer_counts = [len(list(reference.iter_errors(args))), len(list(rust.iter_errors(args)))]
        # errors() stops at max_errors (50 by default); asking for every error the peers find
        # (and more) keeps pedelec from being timed on less work than they do.
        limit = max(peer_counts) + 100
        counts = [len(ours.errors(args, max_errors=limit)), *peer_counts]
        if counts[0] != counts[2]:
            raise SystemExit(f"{tool.name}: pedelec finds {counts[0]} errors, rs {counts[2]}")
        mine, ref, rs = time_side_by_side(
            [
                ("f(a, max_errors=m)", {"f": ours.errors, "a": args, "m": limit}),
                ("list(f(a))", {"f": reference.iter_errors, "a": args}),
                ("list(f(a))", {"f": rust.iter_errors, "a": args}),
            ],
            settings,
        )
        first = fast_first_error_ns(fast, args, settings)
        ratios["jsonschema"].append(ref / mine)
        ratios["jsonschema-rs"].append(rs / mine)
        record(f"errors, jsonschema-rs / pedelec: {tool.name}", rs / mine, higher_is_better=True)
        rows.append(
            [
                tool.name,
                "/".join(map(str, counts)),
                show_ns(mine),
                show_ns(ref),
                ratio(ref / mine),
                show_ns(rs),
                ratio(rs / mine, 2),
                show_ns(first),
            ]
        )
    means = {peer: geomean(values) for peer, values in ratios.items()}
    rows.append(
        [
            "geometric mean",
            "",
            "",
            "",
            ratio(means["jsonschema"]),
            "",
            ratio(means["jsonschema-rs"], 2),
            "",
        ]
    )
    headers = ["tool", "errors found (ours/js/rs)", "pedelec", "jsonschema", "ratio"]
    print_table([*headers, "jsonschema-rs", "ratio", "fastjsonschema (1st error)"], rows)
    return means


def bench_compile(settings: Settings) -> tuple[float, float, float]:
    """Time compiling unseen and cached schemas; return the geometric mean ratios.

    pedelec answers a new validator's first ``is_valid`` calls with its interpreter and
    generates code only once that pays, while ``fastjsonschema.compile`` generates it at once;
    so "unseen + first is_valid" (what answering the first call takes, on each side) is the
    comparison of the same answer, and the forced generation is its own column.
    """
    print("## Compiling a schema (ns per call; ratio = fastjsonschema.compile / pedelec)\n")
    print("Unseen: every call gets a schema no cache has seen: a new description on every")
    print("object node (built before the clock starts), and pedelec's caches cleared before each")
    print("call (`pedelec.schema._clear_cache()`, ~0.1 µs). Python's `re` cache stays warm for")
    print("both. *unseen + 1st is_valid* (`compile_schema(s).is_valid(valid_args)`) is compared")
    print("with `fastjsonschema.compile(s)(valid_args)`: each side's answer to its first call.")
    print("pedelec answers it with its interpreter: a validator generates code only after about")
    print("1 ms of interpreted calls (`INTERPRET_NS`). *+ code forced* is the same with the code")
    print("generated at once and called (`compile_schema(s)._bool_function()(valid_args)`),")
    print("fastjsonschema's own way of working; *+ 1st errors()* adds the error-collecting")
    print("function, generated on the first invalid args (for reference: fastjsonschema has no")
    print("second function). Cached: the same schema again.\n")
    rows: list[list[str]] = []
    unseen_ratios: list[float] = []
    first_use_ratios: list[float] = []
    forced_ratios: list[float] = []
    cached_ratios: list[float] = []
    clear_cache = pedelec.schema._clear_cache
    for tool in TOOLS:

        def variants(number: int, schema: dict[str, Any] = tool.schema) -> list[dict[str, Any]]:
            return [unseen_variant(schema) for _ in range(number)]

        def compile_pedelec(schemas: list[dict[str, Any]]) -> None:
            # Clearing as well as varying: a cache keyed on what validation depends on (and not
            # on descriptions) would otherwise turn these calls into hits.
            for schema in schemas:
                clear_cache()
                pedelec.compile_schema(schema)

        def compile_and_use(schemas: list[dict[str, Any]], args: Any = tool.valid_args) -> None:
            for schema in schemas:
                clear_cache()
                pedelec.compile_schema(schema).is_valid(args)

        def compile_and_generate(
            schemas: list[dict[str, Any]], args: Any = tool.valid_args
        ) -> None:
            for schema in schemas:
                clear_cache()
                pedelec.compile_schema(schema)._bool_function()(args)

        def compile_and_errors(schemas: list[dict[str, Any]], tool: Tool = tool) -> None:
            for schema in schemas:
                clear_cache()
                validator = pedelec.compile_schema(schema)
                validator._bool_function()(tool.valid_args)
                validator.errors(tool.invalid_args)

        def compile_fast(schemas: list[dict[str, Any]]) -> None:
            for schema in schemas:
                clear_cache()  # the same per-call extra work on both sides
                fastjsonschema.compile(schema)

        def compile_fast_and_use(
            schemas: list[dict[str, Any]], args: Any = tool.valid_args
        ) -> None:
            for schema in schemas:
                clear_cache()
                fastjsonschema.compile(schema)(args)

        fast = best_ns(variants, compile_fast, settings)
        fast_use = best_ns(variants, compile_fast_and_use, settings)
        unseen = best_ns(variants, compile_pedelec, settings)
        first_use = best_ns(variants, compile_and_use, settings)
        forced = best_ns(variants, compile_and_generate, settings)
        both = best_ns(variants, compile_and_errors, settings)
        pedelec.compile_schema(tool.schema)
        cached = time_stmt("f(s)", {"f": pedelec.compile_schema, "s": tool.schema}, settings)
        unseen_ratios.append(fast / unseen)
        first_use_ratios.append(fast_use / first_use)
        forced_ratios.append(fast_use / forced)
        cached_ratios.append(fast / cached)
        record(f"compile unseen: {tool.name}", fast / unseen, higher_is_better=True)
        record(f"compile + first call: {tool.name}", fast_use / first_use, higher_is_better=True)
        record(f"compile + code + first call: {tool.name}", fast_use / forced,
               higher_is_better=True)  # fmt: skip
        rows.append(
            [
                tool.name,
                show_ns(fast),
                show_ns(unseen),
                ratio(fast / unseen),
                show_ns(fast_use),
                show_ns(first_use),
                ratio(fast_use / first_use),
                show_ns(forced),
                ratio(fast_use / forced),
                show_ns(both),
                show_ns(cached),
                ratio(fast / cached, 0),
            ]
        )
    means = geomean(unseen_ratios), geomean(first_use_ratios), geomean(cached_ratios)
    rows.append(
        ["geometric mean", "", "", ratio(means[0]), "", "", ratio(means[1]), "",
         ratio(geomean(forced_ratios)), "", "", ratio(means[2], 0)]
    )  # fmt: skip
    headers = ["tool", "fastjsonschema.compile", "pedelec unseen", "ratio"]
    headers += ["fastjsonschema.compile + 1st call", "unseen + 1st is_valid", "ratio"]
    headers += ["+ code forced", "ratio", "+ 1st errors()", "pedelec cached", "ratio"]
    print_table(headers, rows)
    return means


def bench_unique_objects(settings: Settings) -> float:
    """Time ``uniqueItems`` over 100 objects against jsonschema-rs; return rs / pedelec."""
    tool = UNIQUE_OBJECTS
    ours = generated(tool.schema)
    rust = jsonschema_rs.validator_for(tool.schema)
    fast = fastjsonschema.compile(tool.schema)
    for name, check in (("pedelec", ours.is_valid), ("jsonschema-rs", rust.is_valid)):
        if (check(tool.valid_args), check(tool.invalid_args)) != (True, False):
            raise SystemExit(f"{name} gets the wrong verdicts on {tool.name}")
    rows: list[list[str]] = []
    result = 0.0
    for label, args in (
        ("100 distinct", tool.valid_args),
        ("101, last repeats first", tool.invalid_args),
    ):
        mine, rs = time_side_by_side(
            [("f(a)", {"f": ours.is_valid, "a": args}), ("f(a)", {"f": rust.is_valid, "a": args})],
            settings,
        )
        reference = fast_first_error_ns(fast, args, settings)
        if args is tool.valid_args:
            result = rs / mine
        record(f"uniqueItems objects, jsonschema-rs / pedelec: {label}", rs / mine,
               higher_is_better=True)  # fmt: skip
        rows.append([label, show_ns(mine), show_ns(rs), ratio(rs / mine, 2), show_ns(reference)])
    print("## `uniqueItems` over an array of objects (`is_valid`, ns per call)\n")
    print("`{id, name, tags}` rows, compared by JSON equality of whole objects; ratio =")
    print("jsonschema-rs / pedelec (target: at least 0.33x, i.e. within 3x).\n")
    print_table(["rows", "pedelec", "jsonschema-rs", "ratio", "fastjsonschema (reference)"], rows)
    return result


def process_seconds(code: str) -> float:
    """Wall time of one whole ``python -c <code>`` process."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def bench_import(settings: Settings) -> float:
    """Median process time of importing pedelec vs typing_extensions; return the ratio."""
    runs = settings.import_runs
    print(f'## Import: a whole `python -c "import X"` process (median of {runs} runs)\n')
    commands = ("pass", "import typing_extensions", "import pedelec")
    for command in commands:
        process_seconds(command)  # warm-up: .pyc files written, OS file cache filled
    samples: dict[str, list[float]] = {command: [] for command in commands}
    for run in range(runs):
        # Interleaved, in alternating order, so drift and caching affect every command alike.
        for command in commands if run % 2 else commands[::-1]:
            samples[command].append(process_seconds(command))
    empty, base, ours = (statistics.median(samples[command]) for command in commands)
    print_table(
        ["process", "ms"],
        [
            ['python -c "pass" (interpreter start-up, for scale)', f"{empty * 1e3:.1f}"],
            ['python -c "import typing_extensions"', f"{base * 1e3:.1f}"],
            ['python -c "import pedelec"', f"{ours * 1e3:.1f}"],
            ["ratio pedelec / typing_extensions", ratio(ours / base, 2)],
        ],
    )
    return ours / base


def main(argv: Sequence[str] | None = None) -> int:
    """Run every part, print the tables and the target verdicts."""
    settings = parse_settings(argv, description=(__doc__ or "").splitlines()[0])
    check_workload()
    print("# pedelec validation benchmark\n")
    dists = ("pedelec", "jsonschema", "fastjsonschema", "jsonschema-rs")
    print(environment_line(settings, dists) + "\n")
    valid = bench_valid(settings)
    invalid = bench_invalid(settings)
    unseen, first_use, cached = bench_compile(settings)
    unique = bench_unique_objects(settings)
    import_ratio = bench_import(settings)
    print_targets(
        "issue 2",
        [
            Target("valid args: >= 4x faster than fastjsonschema", valid["fastjsonschema"], 4.0),
            Target("valid args: >= 40x faster than jsonschema", valid["jsonschema"], 40.0),
            Target(
                "valid args: at most 2x jsonschema-rs (ratio >= 0.5x)", valid["jsonschema-rs"], 0.5
            ),
            Target(
                "invalid args, all errors: no slower than jsonschema-rs (ratio >= 1x)",
                invalid["jsonschema-rs"],
                1.0,
            ),
            Target("compile_schema, unseen: >= 5x faster than fastjsonschema.compile", unseen, 5.0),
            Target(
                "compile_schema, cached: >= 50x faster than fastjsonschema.compile", cached, 50.0
            ),
            Target(
                "import pedelec process: <= 1.5x import typing_extensions",
                import_ratio,
                1.5,
                upper=True,
            ),
        ],
    )
    print_targets(
        "issue 12",
        [
            Target(
                "compile_schema + first is_valid, unseen: >= 5x fastjsonschema.compile + first call",
                first_use,
                5.0,
            ),
            Target("uniqueItems over objects: within 3x jsonschema-rs (ratio >= 0.33x)", unique,
                   1 / 3),
        ],
    )  # fmt: skip
    write_json(settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
