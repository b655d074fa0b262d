"""``main``: parse the command line, run one command, turn its failure into one line and a code."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Final

from pedelec._logs import quiet_logging, summary
from pedelec.cli._commands import EXIT_FAILED, EXIT_USAGE, Fail
from pedelec.cli._envelope import stdout_gone
from pedelec.cli._parser import build_parser

__all__ = ["EXIT_INTERRUPTED", "main"]

#: The shell's status for a process stopped by Ctrl-C (128 + SIGINT).
EXIT_INTERRUPTED: Final = 130


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``pedelec`` command line and return its exit code.

    Args:
        argv: The arguments after the program name; ``None`` reads ``sys.argv[1:]``.

    Returns:
        0 on success (and for every ``tool-spec``/``tool-call`` that printed its envelope), 1
        when a check or export failed, 2 for a wrong command line.

    Example:
        >>> main(["tool-call", "examples/counter.py:session", "update_counter", '{"delta": 3}'])
        0
    """
    parser = build_parser()
    try:
        ns = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        with quiet_logging(ns.log_level, traceback=ns.traceback):
            code: int = ns.run(ns, sys.stdout)
    except Fail as exc:
        print(f"pedelec: error: {exc}", file=sys.stderr)
        return exc.code
    except BrokenPipeError:
        return stdout_gone()
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except SystemExit:
        raise
    except BaseException as exc:
        # Nothing reaches the user as a traceback unless they ask for one.
        if ns.traceback:
            raise
        print(f"pedelec: error: {summary(exc)} (run with --traceback for details)", file=sys.stderr)
        return EXIT_FAILED
    return code
