"""Memory benchmark (issue 12): the validator cache under churn, and what one validator holds.

Run ``python benchmarks/bench_memory.py`` (``--quick`` for a smoke run, ``--json PATH`` to keep
the ratios for ``compare.py``) after ``pip install -e '.[bench]'``. Linux only: resident memory
(RSS) is read from ``/proc/self/statm``. Every measurement runs in a fresh ``python`` process of
its own (this script with ``--child``), so what one measurement allocates cannot blur another.

- *Cache churn*: distinct schemas are compiled one after another, each forced to generate both
  of its functions (``is_valid``'s forced at once, where a new validator would interpret its
  first calls, and ``errors`` on invalid args), until the cache is
  full (its steady state: as many validators as it keeps), then on to 10 000, so the oldest are
  evicted, then on to 30 000 (does RSS level off?). The target: RSS after the 10 000 within
  10 % of RSS at the steady state. The Python blocks allocated are read at each step, after
  a full collection, with the number of objects that collection found unreachable. The sizes
  of ``linecache`` (entries, and bytes of source held) are shown at each step, and after
  ``pedelec.schema._clear_cache()``, since generated source is registered there for tracebacks.
- *Per validator*: the RSS a process gains per validator while it builds N distinct ones and
  keeps them (the slope over the last two thirds; the Python heap ``tracemalloc`` sees, for
  reference), for pedelec (both functions generated, ``is_valid`` alone, and a validator
  that answered one call with its interpreter and so generated no code),
  ``fastjsonschema`` (compiled and called once), ``jsonschema-rs`` (``validator_for`` +
  ``is_valid``) and pydantic (a ``TypeAdapter`` of the tool's ``TypedDict``, from
  ``pydantic_peers.py``, + ``validate_python``). The N schemas rotate over the six workload
  tools and are built before the first reading, so only validators are counted. The target:
  pedelec at most 2x fastjsonschema.

Distinct schemas: each is a workload schema with new descriptions (``unseen_variant``) and one
extra integer property whose ``maximum`` is the schema's number, so even a cache that ignored
descriptions would hold a different validator for each.
"""

from __future__ import annotations

import argparse
import gc
import json
import linecache
import os
import statistics
import subprocess
import sys
import tracemalloc
from collections.abc import Callable, Sequence
from typing import Any

from timing import (
    Settings,
    Target,
    environment_line,
    parse_settings,
    print_table,
    print_targets,
    record,
    write_json,
)
from workload import TOOLS, Tool, unseen_variant

CHURN_SCHEMAS = 10_000
LIBRARIES = (
    "pedelec",
    "pedelec (is_valid only)",
    "pedelec (first call, no code)",
    "fastjsonschema",
    "jsonschema-rs",
    "pydantic",
)
# Used when pedelec.schema no longer names its bound ``_CACHE_SIZE`` (then said in the output).
ASSUMED_CACHE_SIZE = 2048


def rss_bytes() -> int:
    """Resident memory of this process, after a full garbage collection."""
    gc.collect()
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            pages = int(statm.read().split()[1])
    except OSError as exc:
        raise SystemExit(f"bench_memory.py reads /proc/self/statm (Linux only): {exc}") from exc
    return pages * os.sysconf("SC_PAGE_SIZE")


def linecache_size() -> tuple[int, int]:
    """Entries in ``linecache`` and the bytes of source text they hold."""
    entries = list(linecache.cache.values())
    held = sum(sum(map(len, entry[2])) for entry in entries if len(entry) > 2 and entry[2])
    return len(entries), held


def distinct(number: int) -> tuple[Tool, dict[str, Any]]:
    """Schema ``number``: a workload schema no other number gives, and the tool it comes from."""
    tool = TOOLS[number % len(TOOLS)]
    schema = unseen_variant(tool.schema)
    schema["properties"] = {
        **schema["properties"],
        "revision": {"type": "integer", "maximum": number},
    }
    return tool, schema


def cache_size() -> tuple[int, bool]:
    """pedelec's cache bound, and whether it was read from ``pedelec.schema``."""
    import pedelec.schema

    size = getattr(pedelec.schema, "_CACHE_SIZE", None)
    return (size, True) if isinstance(size, int) else (ASSUMED_CACHE_SIZE, False)


def child_churn(total: int) -> dict[str, Any]:
    """Compile ``total`` distinct schemas, both functions each; RSS and linecache on the way."""
    import pedelec
    import pedelec.schema

    size, known = cache_size()
    readings: dict[str, Any] = {"cache_size": size, "cache_size_known": known}

    def compile_range(start: int, stop: int) -> None:
        for number in range(start, stop):
            tool, schema = distinct(number)
            validator = pedelec.compile_schema(schema)
            validator._bool_function()(tool.valid_args)  # generated now, not after ~1 ms
            validator.errors(tool.invalid_args)

    def reading(name: str) -> None:
        # What a full collection finds first: cyclic garbage that only such a collection frees
        # (rare with thousands of objects alive) would pile up between readings.
        freed = gc.collect()
        readings[name] = {
            "freed": freed,
            "rss": rss_bytes(),
            "linecache": linecache_size(),
            "blocks": sys.getallocatedblocks(),
        }

    compile_range(0, len(TOOLS))  # every code path and module loaded once
    pedelec.schema._clear_cache()
    reading("start")
    compile_range(len(TOOLS), len(TOOLS) + size)
    reading("steady")
    compile_range(len(TOOLS) + size, len(TOOLS) + total)
    reading("after")
    compile_range(len(TOOLS) + total, len(TOOLS) + 3 * total)
    reading("longer")
    pedelec.schema._clear_cache()
    reading("cleared")
    return readings


def child_validators(library: str, number: int, traced: bool) -> dict[str, Any]:
    """Build ``number`` distinct validators of ``library`` and keep them; memory gained by each.

    RSS, or with ``traced`` the Python heap as ``tracemalloc`` counts it (which sees no memory a
    Rust extension allocates, and costs memory of its own, hence a process of its own).
    """
    schemas = [distinct(n) for n in range(number + len(TOOLS))]
    build: Callable[[Tool, dict[str, Any]], Any]
    if library.startswith("pedelec"):
        import pedelec

        both = library == "pedelec"
        interpreted = library == "pedelec (first call, no code)"

        def build(tool: Tool, schema: dict[str, Any]) -> Any:
            validator = pedelec.compile_schema(schema)
            if interpreted:
                validator.is_valid(tool.valid_args)
                return validator
            validator._bool_function()(tool.valid_args)
            if both:
                validator.errors(tool.invalid_args)
            return validator

    elif library == "fastjsonschema":
        import fastjsonschema

        def build(tool: Tool, schema: dict[str, Any]) -> Any:
            validate = fastjsonschema.compile(schema)
            validate(tool.valid_args)
            return validate

    elif library == "jsonschema-rs":
        import jsonschema_rs

        def build(tool: Tool, schema: dict[str, Any]) -> Any:
            validator = jsonschema_rs.validator_for(schema)
            validator.is_valid(tool.valid_args)
            return validator

    elif library == "pydantic":
        from pydantic_peers import build_adapters

        # A pydantic validator is built from classes, not from the schema dict: a fresh set of
        # classes per adapter (build_adapters defines them anew on every call).
        def build(tool: Tool, schema: dict[str, Any]) -> Any:
            adapter = build_adapters(only=tool.name)[tool.name]
            adapter.validate_python(tool.valid_args, strict=True)
            return adapter

    else:
        raise SystemExit(f"unknown library {library!r}")
    # Warm-up on six schemas of their own: imports, first-use caches, regex compilation.
    warm = [build(tool, schema) for tool, schema in schemas[number:]]
    if traced:
        tracemalloc.start()

    def reading() -> int:
        if traced:
            gc.collect()
            return tracemalloc.get_traced_memory()[0]
        return rss_bytes()

    # The slope over the last two thirds: the first validators partly fill memory the process
    # had already freed (warm-up garbage), which RSS would not show as growth.
    third = number // 3
    kept = [build(tool, schema) for tool, schema in schemas[:third]]
    before = reading()
    kept += [build(tool, schema) for tool, schema in schemas[third:number]]
    after = reading()
    del kept, warm
    return {"per_validator": (after - before) / (number - third)}


def run_child(*args: str) -> dict[str, Any]:
    """Run one measurement in a fresh process and return what it printed."""
    done = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"bench_memory child {args} failed:\n{done.stdout}{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def mib(value: float) -> str:
    return f"{value / 2**20:,.1f}"


def kib(value: float) -> str:
    return f"{value / 2**10:,.1f}"


def bench_churn(total: int) -> Target:
    readings = run_child("churn", str(total))
    size, known = readings["cache_size"], readings["cache_size_known"]
    source = "pedelec.schema._CACHE_SIZE" if known else "assumed: _CACHE_SIZE not found"
    print(f"## Cache churn: {total:,} distinct schemas, both functions each (one process)\n")
    print(f"The cache keeps {size:,} validators ({source}); *steady* is the cache just full.\n")
    labels = {
        "start": "after warm-up, cache empty",
        "steady": f"{size:,} compiled: the cache full (steady state)",
        "after": f"{total:,} compiled: {total - size:,} evicted",
        "longer": f"{3 * total:,} compiled: still bounded?",
        "cleared": "after `_clear_cache()`",
    }
    steady = readings["steady"]["rss"]
    rows = []
    for key, label in labels.items():
        entries, held = readings[key]["linecache"]
        rss = readings[key]["rss"]
        blocks, freed = readings[key]["blocks"], readings[key]["freed"]
        row = [label, mib(rss), f"{rss / steady:.2f}x", f"{blocks:,}", f"{freed:,}"]
        rows.append([*row, f"{entries:,}", mib(held)])
    print("*Python blocks* is `sys.getallocatedblocks()` after `gc.collect()`: the objects the")
    print("interpreter holds. *Freed by gc* is what that collection found unreachable: garbage")
    print("in reference cycles, which waits for a full collection (rare with thousands of")
    print("validators alive) and meanwhile holds its memory.\n")
    headers = ["point", "RSS MiB", "/ steady", "Python blocks", "freed by gc"]
    print_table([*headers, "linecache entries", "linecache MiB"], rows)
    after = readings["after"]["rss"] / steady
    record("RSS after churn / steady state", after, higher_is_better=False)
    return Target(f"RSS after {total:,} schemas <= 1.10x the steady state", after, 1.10, True)


def bench_per_validator(number: int, rounds: int) -> Target:
    per: dict[str, float] = {}
    samples: dict[str, list[float]] = {library: [] for library in LIBRARIES}
    for round_number in range(rounds):
        order = LIBRARIES if round_number % 2 == 0 else LIBRARIES[::-1]
        for library in order:
            got = run_child("validators", library, str(number), "rss")
            samples[library].append(got["per_validator"])
    per = {library: statistics.median(values) for library, values in samples.items()}
    traced = {
        library: run_child("validators", library, str(number), "tracemalloc")["per_validator"]
        for library in LIBRARIES
    }
    fast = per["fastjsonschema"]
    print(f"## Memory per validator: {number:,} kept, growth per validator after the first third\n")
    print(f"RSS: median of {rounds} processes per library. Python heap: `tracemalloc` in one")
    print("process more, for reference (it cannot see what jsonschema-rs and pydantic-core")
    print("allocate in Rust). The schemas rotate over the six tools.\n")
    print_table(
        ["library", "RSS KiB per validator", "/ fastjsonschema", "Python heap KiB (tracemalloc)"],
        [
            [library, kib(value), f"{value / fast:.2f}x", kib(traced[library])]
            for library, value in per.items()
        ],
    )
    share = per["pedelec"] / fast
    record("per-validator RSS, pedelec / fastjsonschema", share, higher_is_better=False)
    return Target("memory per validator (both functions) <= 2x fastjsonschema", share, 2.0, True)


def main(argv: Sequence[str] | None = None) -> int:
    """Run every measurement in its own process, print the tables and the target verdicts."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--child"]:
        child = argparse.ArgumentParser()
        child.add_argument("kind", choices=("churn", "validators"))
        child.add_argument("rest", nargs="+")
        options = child.parse_args(argv[1:])
        if options.kind == "churn":
            result = child_churn(int(options.rest[0]))
        else:
            library, number, how = options.rest
            result = child_validators(library, int(number), how == "tracemalloc")
        print(json.dumps(result))
        return 0
    settings: Settings = parse_settings(argv, description=(__doc__ or "").splitlines()[0])
    print("# pedelec memory benchmark\n")
    dists = ("pedelec", "fastjsonschema", "jsonschema-rs", "pydantic")
    line = environment_line(settings, dists).replace(
        f"best of {settings.repeat} repeats of ~{settings.budget * 1e3:.0f} ms each",
        "RSS from /proc/self/statm",
    )
    print(line + "\n")
    number = 240 if settings.quick else 600
    rounds = 1 if settings.quick else 3
    # Quick: still more than twice the cache, so eviction is exercised, in half the time.
    churn = CHURN_SCHEMAS // 2 if settings.quick else CHURN_SCHEMAS
    targets = [bench_churn(churn), bench_per_validator(number, rounds)]
    print_targets("issue 12", targets)
    write_json(settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
