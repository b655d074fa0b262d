"""The ``pedelec`` logger while a CLI command runs: ``--log-level`` decides, one line a record."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import logging

__all__ = ["LOG_LEVELS", "quiet_logging", "summary"]

#: What ``--log-level`` takes; ``off`` silences the ``pedelec`` logger.
LOG_LEVELS: Final = ("debug", "info", "warning", "error", "critical", "off")


def summary(exc: BaseException) -> str:
    """``Type: first line of the message``, for one line on stderr."""
    try:
        text = str(exc).strip().splitlines()
    except Exception:  # an exception whose __str__ fails is still reported
        text = []
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _formatter(traceback: bool) -> logging.Formatter:
    import logging

    class OneLine(logging.Formatter):
        """A record as its message, plus the exception's one-line summary (its traceback only
        with ``--traceback``): file paths and source lines stay out of stderr by default."""

        def format(self, record: logging.LogRecord) -> str:
            message = record.getMessage()
            if traceback or not record.exc_info or record.exc_info[1] is None:
                return super().format(record)
            return f"{message}: {summary(record.exc_info[1])}"

    return OneLine("%(message)s")


@contextlib.contextmanager
def quiet_logging(level: str, *, traceback: bool) -> Iterator[None]:
    """While a command runs, the ``pedelec`` logger writes to stderr at ``level`` and above, in
    one line a record unless ``traceback``; its settings are restored afterwards."""
    import logging

    log = logging.getLogger("pedelec")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_formatter(traceback))
    saved = (log.level, log.propagate)
    log.setLevel(logging.CRITICAL + 1 if level == "off" else level.upper())
    # The CLI owns the process's stderr: a target that configured the root logger does not get
    # to add a second copy of every record, tracebacks included.
    log.propagate = False
    log.addHandler(handler)
    try:
        yield
    finally:
        log.removeHandler(handler)
        log.setLevel(saved[0])
        log.propagate = saved[1]
