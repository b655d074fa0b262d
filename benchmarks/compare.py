"""Run one benchmark script against two checkouts of pedelec, side by side, and compare them.

Usage (from any directory; the scripts of *this* ``benchmarks/`` are run, with ``pedelec``
imported from each checkout in turn)::

    python benchmarks/compare.py --before /path/a --after /path/b bench_validate.py
    python benchmarks/compare.py --before ../main --after . --rounds 5 bench_dispatch.py -- --quick

Each round runs the script once per checkout, the order alternating between rounds (before
then after, after then before, ...), so a change of machine load during the comparison reaches
both alike. Each run writes its ratios with ``--json``; the table shows, per ratio, the median
over the rounds for each checkout and the change for pedelec (``+4.0 %``: the after tree is 4 %
faster on that row, whichever way the ratio reads), then the targets before and after.
Arguments after ``--`` go to the script (``--quick``, ``--repeat``, ``--budget``).

A checkout is a directory holding a ``pedelec/`` package (e.g. ``git worktree add /tmp/a
cf55d12``); it is put first on ``PYTHONPATH``, and each checkout is checked to import from
itself before anything is timed. The compared ratios are peer / pedelec (or pedelec / floor)
within one run, so they cancel most of what load does to absolute times; the absolute times
are not compared.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from timing import print_table

HERE = Path(__file__).resolve().parent


def environment(checkout: Path) -> dict[str, str]:
    """The environment that makes ``import pedelec`` load ``checkout``'s package."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(checkout), env.get("PYTHONPATH")]))
    return env


def check_checkout(checkout: Path) -> None:
    """Stop unless ``checkout``'s own ``pedelec`` is what its runs will import."""
    found = subprocess.run(
        [sys.executable, "-c", "import pedelec; print(pedelec.__file__)"],
        env=environment(checkout),
        cwd=tempfile.gettempdir(),
        capture_output=True,
        text=True,
        check=False,
    )
    if found.returncode or not Path(found.stdout.strip()).is_relative_to(checkout):
        raise SystemExit(
            f"{checkout}: `import pedelec` loads {found.stdout.strip() or found.stderr.strip()}"
        )


def run_once(script: Path, checkout: Path, extra: Sequence[str]) -> dict[str, Any]:
    """Run ``script`` once with ``checkout``'s pedelec and return what it wrote with ``--json``."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        done = subprocess.run(
            [sys.executable, str(script), *extra, "--json", str(out)],
            env=environment(checkout),
            cwd=checkout,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode:
            raise SystemExit(f"{script.name} failed on {checkout}:\n{done.stdout}{done.stderr}")
        result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        return result


def change(before: float, after: float, higher_is_better: bool) -> float:
    """How much faster pedelec got from ``before`` to ``after``, as a fraction (+ is faster)."""
    return (after / before if higher_is_better else before / after) - 1.0


def cell(row: dict[str, list[dict[str, Any]]], side: str) -> str:
    values = [entry["value"] for entry in row[side]]
    return f"{statistics.median(values):.2f}x" if values else "—"


def verdict(row: dict[str, list[dict[str, Any]]], side: str) -> str:
    if not row[side]:
        return "—"
    passed = [entry["passed"] for entry in row[side]]
    return f"{sum(passed)}/{len(passed)} PASS"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="checkout measured first")
    parser.add_argument("--after", type=Path, required=True, help="checkout compared with it")
    parser.add_argument("--rounds", type=int, default=3, help="runs per checkout (default 3)")
    parser.add_argument("script", help="a script of benchmarks/, e.g. bench_validate.py")
    parser.add_argument("extra", nargs=argparse.REMAINDER, help="-- then the script's options")
    options = parser.parse_args(argv)
    extra = options.extra[1:] if options.extra[:1] == ["--"] else options.extra
    script = HERE / options.script
    if not script.is_file():
        raise SystemExit(f"no benchmark script {script}")
    sides = {"before": options.before.resolve(), "after": options.after.resolve()}
    for checkout in sides.values():
        check_checkout(checkout)

    runs: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
    for number in range(options.rounds):
        order = ("before", "after") if number % 2 == 0 else ("after", "before")
        for side in order:
            print(f"round {number + 1}/{options.rounds}: {side} ...", file=sys.stderr)
            runs[side].append(run_once(script, sides[side], extra))

    names: list[str] = []
    for result in runs["before"] + runs["after"]:
        names += [name for name in result if name not in names]
    table: dict[str, dict[str, list[dict[str, Any]]]] = {
        name: {side: [r[name] for r in runs[side] if name in r] for side in runs} for name in names
    }

    print(f"# {options.script}: before `{sides['before']}`, after `{sides['after']}`\n")
    print(f"Median of {options.rounds} alternating rounds per checkout; arguments: {extra}.")
    print("*change*: how much faster pedelec is after than before on that row (+ is faster).\n")
    rows: list[list[str]] = []
    slower: list[str] = []
    for name, row in table.items():
        if name.startswith("target: "):
            continue
        text = "—"
        if row["before"] and row["after"]:
            higher = row["before"][0]["higher_is_better"]
            delta = change(
                statistics.median(entry["value"] for entry in row["before"]),
                statistics.median(entry["value"] for entry in row["after"]),
                higher,
            )
            text = f"{delta * 100:+.1f} %"
            if delta < -0.05:
                slower.append(name)
        rows.append([name, cell(row, "before"), cell(row, "after"), text])
    print_table(["ratio", "before", "after", "change"], rows)

    targets = [
        [name.removeprefix("target: "), cell(row, "before"), verdict(row, "before"),
         cell(row, "after"), verdict(row, "after")]
        for name, row in table.items()
        if name.startswith("target: ")
    ]  # fmt: skip
    if targets:
        print("## Targets (measured: median; result: rounds that passed)\n")
        print_table(["target", "before", "result", "after", "result"], targets)
    if slower:
        print(f"{len(slower)} rows more than 5 % slower after: " + "; ".join(slower))
    else:
        print("No row is more than 5 % slower after than before.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
