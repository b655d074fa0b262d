"""How long ``plan(p).search`` takes on the worst strings for the worst accepted patterns.

Each pattern is searched on a string that makes a backtracking engine pay (a character
repeated, then one that fails the match), at 1 024 code points (``max_pattern_length``) and at
100 000; the table shows the best of N runs and the engine the plan picked. Run:
``python benchmarks/bench_patterns.py [N]``.
"""

from __future__ import annotations

import sys
import time

from pedelec.schema.patterns import pattern_problem
from pedelec.schema.patterns.translate import plan

# (pattern, repeated character, last character): the polynomial patterns of issue 11, the
# classic exponential ones, and the patterns that keep the most matcher states alive at once
CASES = [
    (r"^\w*\s*\w*\s*\w*\s*\w*$", "a", "!"),
    (r"^\d*\d*\d*\d*$", "1", "a"),
    (r"^(?:\w+\s?)(?:\w+\s?)(?:\w+\s?)(?:\w+\s?)$", "a", "!"),
    (r"^.*.*.*.*.*.*.*.*x$", "a", "a"),
    (r"\w+x", "a", "a"),
    (r"^(a+)+$", "a", "!"),
    (r"[ab].{0,990}x", "a", "b"),  # about 990 states, a new set of them at every character
    (r"^[a-z0-9_]+$", "a", "!"),
    (r"^[^@\s]+@[^@\s]+$", "a", "!"),
]


def best(search: object, text: str, runs: int) -> float:
    """The fastest of ``runs`` calls, in seconds."""
    assert callable(search)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        search(text)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    print(f"{'pattern':46} {'engine':8} {'1 024 cp':>10} {'100 000 cp':>11}   (best of {runs})")
    for pattern, unit, last in CASES:
        assert pattern_problem(pattern) is None, pattern
        made = plan(pattern)
        cells = [
            best(made.search, unit * (n - 1) + last, runs if n < 10_000 else 1)
            for n in (1_024, 100_000)
        ]
        print(
            f"{pattern[:46]:46} {made.engine:8} {cells[0] * 1e3:8.2f}ms {cells[1]:10.3f}s",
            flush=True,
        )


if __name__ == "__main__":
    main()
