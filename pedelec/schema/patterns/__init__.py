"""Rules for ``pattern`` strings in tool schemas, and how the validator matches them.

A pattern must use only syntax that means the same in ECMA-262 (JavaScript) regular
expressions and Python's :mod:`re`, because providers and agents read the schema as JSON
Schema; and it must match any string in time linear in the string's length.

Each pattern is parsed once (:mod:`.parse`); the ECMA-262 reading of character sets
(:mod:`.charsets`), the proof that Python's ``re`` runs a pattern in linear time
(:mod:`.ambiguity`), the linear-time matcher (:mod:`.matcher`) and the validator's matching
plan (:mod:`.translate`, which picks among them) all read that tree.
"""

from __future__ import annotations

import re

from pedelec.schema.patterns.parse import Invalid, TooComplex, Unportable, parse, quote
from pedelec.schema.patterns.translate import plan

__all__ = ["pattern_problem"]


def pattern_problem(pattern: str) -> str | None:
    """Say why a ``pattern`` cannot be used in a tool schema.

    Checks, in order: syntax that is not portable to ECMA-262 (JavaScript) regular
    expressions, syntax errors (worded by Python's :mod:`re`), and whether a linear-time path
    runs it (:func:`pedelec.schema.patterns.translate.plan`: Python ``re`` where proven
    linear, else the linear-time matcher).

    Args:
        pattern: The ``pattern`` keyword's value.

    Returns:
        ``None`` when the pattern may be used, else one sentence (no trailing period) naming
        the problem and the fix, for the developer who wrote the schema.

    Example:
        >>> pattern_problem(r"^[a-z]+(-[a-z]+)*$") is None
        True
        >>> print(pattern_problem(r"\\Ad+"))
        pattern "\\Ad+" uses "\\A" at position 0, which is not portable to ECMA-262 regular expressions (JavaScript, JSON Schema); use "^" instead
    """
    shown = quote(pattern)
    invalid = False
    try:
        parse(pattern)
    except Unportable as exc:
        return (
            f"pattern {shown} uses {exc.what} at position {exc.pos}, which is not portable to "
            f"ECMA-262 regular expressions (JavaScript, JSON Schema); {exc.fix}"
        )
    except Invalid:
        invalid = True  # re.compile words what is wrong
    except TooComplex:
        return _too_complex(shown)
    error = _compile_error(pattern)
    if error is not None:
        return f"pattern {shown} does not compile: {error}"
    if invalid:  # e.g. a variable-width lookbehind that re reports before a later error
        return f"pattern {shown} does not compile; fix the regular expression syntax"
    try:
        plan(pattern)
    except ValueError as exc:
        return str(exc)  # the matcher's reason, naming the construct and the fix
    return None


def _too_complex(shown: str) -> str:
    return (
        f"pattern {shown} is too complex to check for catastrophic backtracking; "
        "simplify its repeated groups"
    )


def _compile_error(pattern: str) -> str | None:
    """Why re.compile refuses the pattern, and the fix, or None."""
    try:
        re.compile(pattern)
    except re.error as exc:
        if exc.msg == "look-behind requires fixed-width pattern":
            return None  # ECMA-262 allows it, and the linear-time matcher runs it
        return f"{exc}; fix the regular expression syntax"
    except OverflowError as exc:  # re raises it for counts such as a{99999999999}
        return f"{exc}; use a smaller count"
    except RecursionError:
        return "it nests groups too deeply for Python's re; use fewer nested groups"
    return None
