"""Measuring and reporting helpers shared by the benchmark scripts.

Every timing is the best of N repeats: noise (other processes, frequency scaling, GC) only ever
adds time, so the minimum is the most stable estimate of what the code itself costs.

Every script also takes ``--json PATH``: it then writes every ratio it printed and every target
it checked to ``PATH``, which is how ``compare.py`` reads one run of a script.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import time
import timeit
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from typing import Any

__all__ = [
    "Settings",
    "Target",
    "best_ns",
    "best_ns_async_batches_interleaved",
    "best_ns_interleaved",
    "environment_line",
    "geomean",
    "parse_settings",
    "print_table",
    "print_targets",
    "ratio",
    "record",
    "show_ns",
    "time_side_by_side",
    "time_stmt",
    "write_json",
]


@dataclass(frozen=True)
class Settings:
    """How long to measure: ``repeat`` runs of about ``budget`` seconds each."""

    repeat: int
    budget: float
    import_runs: int
    quick: bool = False
    json_path: str | None = None


@dataclass(frozen=True)
class Target:
    """A target of an issue: ``measured`` must be >= ``limit``, or <= it when ``upper``."""

    name: str
    measured: float
    limit: float
    upper: bool = False

    @property
    def passed(self) -> bool:
        return self.measured <= self.limit if self.upper else self.measured >= self.limit


def parse_settings(argv: Sequence[str] | None, description: str | None) -> Settings:
    """Read ``--repeat``, ``--budget``, ``--import-runs`` and ``--quick`` from the command line."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--repeat", type=int, default=7, help="repeats per measurement (best kept)")
    parser.add_argument("--budget", type=float, default=0.05, help="seconds per repeat")
    parser.add_argument("--import-runs", type=int, default=20, help="processes per module")
    parser.add_argument("--quick", action="store_true", help="a fast, noisy run (smoke test)")
    parser.add_argument("--json", metavar="PATH", help="also write every ratio and target here")
    options = parser.parse_args(argv)
    if options.quick:
        return Settings(repeat=3, budget=0.005, import_runs=3, quick=True, json_path=options.json)
    return Settings(options.repeat, options.budget, options.import_runs, json_path=options.json)


def _calibrate(run: Callable[[int], float], budget: float) -> int:
    """Return how many calls make one repeat last about ``budget`` seconds."""
    number = 1
    while True:
        elapsed = run(number)
        if elapsed >= budget / 5 or number >= 10_000_000:
            return max(1, round(number * budget / max(elapsed, 1e-9)))
        number *= 10


def time_stmt(stmt: str, namespace: dict[str, Any], settings: Settings) -> float:
    """Best nanoseconds per execution of ``stmt`` (timeit: a compiled loop with GC off).

    A statement string rather than a callable, so no wrapper call is added to the timing of
    validators that run in ~100 ns.
    """
    return time_side_by_side([(stmt, namespace)], settings)[0]


def time_side_by_side(
    items: Sequence[tuple[str, dict[str, Any]]], settings: Settings
) -> list[float]:
    """Best nanoseconds per execution of each ``(stmt, namespace)``, timed side by side.

    Every repeat runs one batch of each statement in turn, so when the machine changes speed
    during a row (a virtual machine's neighbours, frequency scaling) every side of a ratio sees
    it, instead of whichever side happened to be timed at that moment.
    """
    timers = [timeit.Timer(stmt, globals=namespace) for stmt, namespace in items]
    numbers = [_calibrate(timer.timeit, settings.budget) for timer in timers]
    best = [math.inf] * len(timers)
    for _ in range(settings.repeat):
        for index, (timer, number) in enumerate(zip(timers, numbers, strict=True)):
            best[index] = min(best[index], timer.timeit(number) / number * 1e9)
    return best


@contextmanager
def _gc_off() -> Iterator[None]:
    """The garbage collector off while timing, as ``timeit`` does."""
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if gc_was_enabled:
            gc.enable()


def best_ns(prepare: Callable[[int], Any], run: Callable[[Any], None], settings: Settings) -> float:
    """Best nanoseconds per item when ``run(prepare(n))`` processes ``n`` items.

    ``prepare`` builds the inputs before the clock starts (e.g. ``n`` schemas no cache has
    seen); only ``run`` is timed, with the garbage collector off as in ``timeit``.
    """

    def once(number: int) -> float:
        items = prepare(number)
        with _gc_off():
            start = time.perf_counter()
            run(items)
            return time.perf_counter() - start

    number = _calibrate(once, settings.budget)
    return min(once(number) for _ in range(settings.repeat)) / number * 1e9


async def _calibrate_async(run: Callable[[int], Awaitable[float]], budget: float) -> int:
    """``_calibrate`` for a timing that is awaited."""
    number = 1
    while True:
        elapsed = await run(number)
        if elapsed >= budget / 5 or number >= 10_000_000:
            return max(1, round(number * budget / max(elapsed, 1e-9)))
        number *= 10


async def best_ns_async_batches_interleaved(
    prepare: Callable[[int], Any],
    runs: dict[str, Callable[[Any], Awaitable[None]]],
    settings: Settings,
) -> dict[str, float]:
    """Best nanoseconds per item for each of ``runs``, where ``await run(prepare(n))``
    processes ``n`` items, measured side by side.

    The async twin of ``best_ns``: the inputs are built before each clock starts, and each run
    is awaited on the running loop, so no event-loop start-up is timed. Each repeat runs one
    batch of every run in turn, so a change of machine load reaches every side alike.
    """

    def timed(run: Callable[[Any], Awaitable[None]]) -> Callable[[int], Awaitable[float]]:
        async def once(number: int) -> float:
            items = prepare(number)
            with _gc_off():
                start = time.perf_counter()
                await run(items)
                return time.perf_counter() - start

        return once

    return await _best_side_by_side({name: timed(run) for name, run in runs.items()}, settings)


async def best_ns_interleaved(
    calls: dict[str, Callable[[], Awaitable[Any]]], settings: Settings
) -> dict[str, float]:
    """Best nanoseconds per ``await call()`` for each of ``calls``, measured side by side.

    Each repeat runs one batch of every call in turn, so a change of machine load during the
    measurement reaches all of them alike; used wherever two awaited costs are compared (a
    dispatch against the direct await, a thread hand-off against ``run_in_executor``).
    """

    def looped(call: Callable[[], Awaitable[Any]]) -> Callable[[int], Awaitable[float]]:
        async def once(number: int) -> float:
            with _gc_off():
                start = time.perf_counter()
                for _ in range(number):
                    await call()
                return time.perf_counter() - start

        return once

    return await _best_side_by_side({name: looped(call) for name, call in calls.items()}, settings)


async def _best_side_by_side(
    onces: dict[str, Callable[[int], Awaitable[float]]], settings: Settings
) -> dict[str, float]:
    """Best nanoseconds per item of each ``await once(n)`` (seconds for ``n`` items), each
    calibrated to the budget, every repeat running one batch of each in turn."""
    numbers = {name: await _calibrate_async(once, settings.budget) for name, once in onces.items()}
    best = dict.fromkeys(onces, math.inf)
    for _ in range(settings.repeat):
        for name, once in onces.items():
            best[name] = min(best[name], await once(numbers[name]) / numbers[name] * 1e9)
    return best


def geomean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(value) for value in values) / len(values))


def show_ns(value: float) -> str:
    return f"{value:,.0f}"


def ratio(value: float, digits: int = 1) -> str:
    return f"{value:.{digits}f}x"


def print_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Print a Markdown table: first column left-aligned, the others right-aligned."""
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]

    def line(cells: Sequence[str]) -> str:
        padded = [
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        return "| " + " | ".join(padded) + " |"

    print(line(headers))
    print(
        "|"
        + "|".join(("-" * (w + 1) + ":") if i else "-" * (w + 2) for i, w in enumerate(widths))
        + "|"
    )
    for row in rows:
        print(line(row))
    print()


# Every ratio and target of this run, by name, for ``--json`` (read by ``compare.py``).
_results: dict[str, dict[str, Any]] = {}


def record(name: str, value: float, *, higher_is_better: bool) -> None:
    """Keep one printed ratio for ``--json``; ``higher_is_better`` says which way is faster."""
    _results[name] = {"value": value, "higher_is_better": higher_is_better}


def write_json(settings: Settings) -> None:
    """Write what ``record`` and ``print_targets`` kept to ``--json PATH``, if it was given."""
    if settings.json_path is not None:
        with open(settings.json_path, "w", encoding="utf-8") as out:
            json.dump(_results, out, indent=1)


def print_targets(title: str, targets: Sequence[Target]) -> None:
    for t in targets:
        _results[f"target: {t.name}"] = {
            "value": t.measured,
            "higher_is_better": not t.upper,
            "limit": t.limit,
            "passed": t.passed,
        }
    print(f"## Targets ({title})\n")
    print_table(
        ["target", "measured", "result"],
        [[t.name, ratio(t.measured, 2), "PASS" if t.passed else "MISS"] for t in targets],
    )
    print(f"{sum(t.passed for t in targets)} of {len(targets)} targets met.\n")


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def environment_line(settings: Settings, dists: Sequence[str]) -> str:
    """One line saying what ran where, for the top of a report."""
    import pedelec

    versions = ", ".join(f"{dist} {_version(dist)}" for dist in dists)
    # Which tree was measured: an editable install and PYTHONPATH can point at different ones.
    where = os.path.dirname(os.path.dirname(os.path.abspath(pedelec.__file__)))
    return (
        f"Python {platform.python_version()} ({platform.python_implementation()}) on "
        f"{platform.platform()}; {versions}; best of {settings.repeat} repeats of "
        f"~{settings.budget * 1e3:.0f} ms each; pedelec from `{where}`"
        + (" (--quick: rough numbers)." if settings.quick else ".")
    )
