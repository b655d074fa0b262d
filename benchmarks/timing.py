"""Measuring and reporting helpers shared by the benchmark scripts.

Every timing is the best of N repeats: noise (other processes, frequency scaling, GC) only ever
adds time, so the minimum is the most stable estimate of what the code itself costs.
"""

from __future__ import annotations

import argparse
import gc
import math
import platform
import time
import timeit
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

__all__ = [
    "Settings",
    "Target",
    "best_ns",
    "best_ns_async",
    "environment_line",
    "geomean",
    "parse_settings",
    "print_table",
    "print_targets",
    "ratio",
    "show_ns",
    "time_stmt",
]


@dataclass(frozen=True)
class Settings:
    """How long to measure: ``repeat`` runs of about ``budget`` seconds each."""

    repeat: int
    budget: float
    import_runs: int


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
    options = parser.parse_args(argv)
    if options.quick:
        return Settings(repeat=3, budget=0.005, import_runs=3)
    return Settings(options.repeat, options.budget, options.import_runs)


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
    timer = timeit.Timer(stmt, globals=namespace)
    number = _calibrate(timer.timeit, settings.budget)
    return min(timer.repeat(repeat=settings.repeat, number=number)) / number * 1e9


def best_ns(prepare: Callable[[int], Any], run: Callable[[Any], None], settings: Settings) -> float:
    """Best nanoseconds per item when ``run(prepare(n))`` processes ``n`` items.

    ``prepare`` builds the inputs before the clock starts (e.g. ``n`` schemas no cache has
    seen); only ``run`` is timed, with the garbage collector off as in ``timeit``.
    """

    def once(number: int) -> float:
        items = prepare(number)
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            start = time.perf_counter()
            run(items)
            return time.perf_counter() - start
        finally:
            if gc_was_enabled:
                gc.enable()

    number = _calibrate(once, settings.budget)
    return min(once(number) for _ in range(settings.repeat)) / number * 1e9


async def best_ns_async(call: Callable[[], Awaitable[Any]], settings: Settings) -> float:
    """Best nanoseconds per ``await call()`` on the running event loop."""

    async def once(number: int) -> float:
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            start = time.perf_counter()
            for _ in range(number):
                await call()
            return time.perf_counter() - start
        finally:
            if gc_was_enabled:
                gc.enable()

    number = 1
    while True:
        elapsed = await once(number)
        if elapsed >= settings.budget / 5 or number >= 10_000_000:
            number = max(1, round(number * settings.budget / max(elapsed, 1e-9)))
            break
        number *= 10
    return min([await once(number) for _ in range(settings.repeat)]) / number * 1e9


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


def print_targets(title: str, targets: Sequence[Target]) -> None:
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
    versions = ", ".join(f"{dist} {_version(dist)}" for dist in dists)
    return (
        f"Python {platform.python_version()} ({platform.python_implementation()}) on "
        f"{platform.platform()}; {versions}; best of {settings.repeat} repeats of "
        f"~{settings.budget * 1e3:.0f} ms each."
    )
