"""Benchmark pedelec's schema compiler and validator against jsonschema, fastjsonschema and
jsonschema-rs on the six tools of ``workload.py``, and check the targets of issue 2.

Run ``python benchmarks/bench_validate.py`` (``--quick`` for a smoke run) after
``pip install -e '.[bench]'``. Times are nanoseconds per call, best of N repeats. Ratios are
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
    show_ns,
    time_stmt,
)
from workload import TOOLS, unseen_variant

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
            "pedelec is_valid": (ours.is_valid(valid), ours.is_valid(invalid)),
            "pedelec errors": (not ours.errors(valid), not ours.errors(invalid)),
            "jsonschema": (reference.is_valid(valid), reference.is_valid(invalid)),
            "jsonschema-rs": (rust.is_valid(valid), rust.is_valid(invalid)),
        }
        for name, verdict in verdicts.items():
            if verdict != (True, False):
                raise SystemExit(f"{name} gets the wrong verdicts on {tool.name}: {verdict}")


def bench_valid(settings: Settings) -> dict[str, float]:
    """Time ``is_valid`` on valid args; return the geometric mean ratio per peer."""
    print("## Valid args (ns per call; ratio = peer / pedelec)\n")
    print("pedelec, jsonschema and jsonschema-rs: `is_valid(args)`; fastjsonschema: the compiled")
    print("function (it returns the data or raises).\n")
    rows: list[list[str]] = []
    ratios: dict[str, list[float]] = {peer: [] for peer in PEERS}
    for tool in TOOLS:
        calls: dict[str, Any] = {
            "pedelec": pedelec.compile_schema(tool.schema).is_valid,
            "jsonschema": jsonschema.Draft202012Validator(tool.schema).is_valid,
            "fastjsonschema": fastjsonschema.compile(tool.schema),
            "jsonschema-rs": jsonschema_rs.validator_for(tool.schema).is_valid,
        }
        times = {
            name: time_stmt("f(a)", {"f": call, "a": tool.valid_args}, settings)
            for name, call in calls.items()
        }
        row = [tool.name, show_ns(times["pedelec"])]
        for peer in PEERS:
            ratios[peer].append(times[peer] / times["pedelec"])
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
    print("pedelec: `errors(args)`; jsonschema and jsonschema-rs: `list(iter_errors(args))`.")
    print("fastjsonschema stops at the first error, so its column is for reference only.\n")
    rows: list[list[str]] = []
    ratios: dict[str, list[float]] = {"jsonschema": [], "jsonschema-rs": []}
    for tool in TOOLS:
        args = tool.invalid_args
        ours = pedelec.compile_schema(tool.schema)
        reference = jsonschema.Draft202012Validator(tool.schema)
        rust = jsonschema_rs.validator_for(tool.schema)
        fast = fastjsonschema.compile(tool.schema)
        counts = [len(ours.errors(args)), len(list(reference.iter_errors(args)))]
        counts.append(len(list(rust.iter_errors(args))))
        mine = time_stmt("f(a)", {"f": ours.errors, "a": args}, settings)
        ref = time_stmt("list(f(a))", {"f": reference.iter_errors, "a": args}, settings)
        rs = time_stmt("list(f(a))", {"f": rust.iter_errors, "a": args}, settings)
        first = time_stmt(
            "try:\n    f(a)\nexcept E:\n    pass",
            {"f": fast, "a": args, "E": fastjsonschema.JsonSchemaValueException},
            settings,
        )
        ratios["jsonschema"].append(ref / mine)
        ratios["jsonschema-rs"].append(rs / mine)
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

    pedelec generates a validator's code on its first use, not in ``compile_schema``, while
    ``fastjsonschema.compile`` generates it at once; so "unseen + first is_valid" is timed too,
    the comparison of the same work.
    """
    print("## Compiling a schema (ns per call; ratio = fastjsonschema.compile / pedelec)\n")
    print("Unseen: every call gets a schema no cache has seen: a new description on every")
    print("object node (built before the clock starts), and pedelec's caches cleared before each")
    print("call (`pedelec.schema._clear_cache()`, ~0.1 µs). Python's `re` cache stays warm for")
    print("both. pedelec generates a validator's code on first use, so the *unseen + first")
    print("is_valid* column (`compile_schema(s).is_valid(valid_args)`) is the same work as")
    print("`fastjsonschema.compile(s)`; the error-collecting function is generated later still,")
    print("on the first invalid args. Cached: the same schema again.\n")
    rows: list[list[str]] = []
    unseen_ratios: list[float] = []
    first_use_ratios: list[float] = []
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

        def compile_fast(schemas: list[dict[str, Any]]) -> None:
            for schema in schemas:
                clear_cache()  # the same per-call extra work on both sides
                fastjsonschema.compile(schema)

        fast = best_ns(variants, compile_fast, settings)
        unseen = best_ns(variants, compile_pedelec, settings)
        first_use = best_ns(variants, compile_and_use, settings)
        pedelec.compile_schema(tool.schema)
        cached = time_stmt("f(s)", {"f": pedelec.compile_schema, "s": tool.schema}, settings)
        unseen_ratios.append(fast / unseen)
        first_use_ratios.append(fast / first_use)
        cached_ratios.append(fast / cached)
        rows.append(
            [
                tool.name,
                show_ns(fast),
                show_ns(unseen),
                ratio(fast / unseen),
                show_ns(first_use),
                ratio(fast / first_use),
                show_ns(cached),
                ratio(fast / cached, 0),
            ]
        )
    means = geomean(unseen_ratios), geomean(first_use_ratios), geomean(cached_ratios)
    rows.append(
        ["geometric mean", "", "", ratio(means[0]), "", ratio(means[1]), "", ratio(means[2], 0)]
    )
    headers = ["tool", "fastjsonschema.compile", "pedelec unseen", "ratio"]
    headers += ["unseen + first is_valid", "ratio", "pedelec cached", "ratio"]
    print_table(headers, rows)
    return means


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
                "(same work) compile_schema + first is_valid, unseen: >= 5x",
                first_use,
                5.0,
            ),
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
