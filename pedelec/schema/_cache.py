"""The process-wide cache of compiled validators, keyed by a schema's JSON text.

The key keeps the schema's key order (compact, not sorted): the order of ``properties`` is the
order a validator reports errors in, so two schemas that differ only in that order must not
share a validator (the one compiled first would decide the other's order).

``compiled`` is ``compile_schema`` for callers inside pedelec: a broken rule raises
``check.Invalid``, whose path is a tuple of parts, so typed-tool inference can name the
parameter without parsing a pointer.
"""

from __future__ import annotations

from typing import Any, Final

from pedelec._json import NotJsonError, clone_json, dumps_compact, loads_dumped
from pedelec._json.wire import has_surrogate
from pedelec.schema.check import checked, checked_clone
from pedelec.schema.validator import Validator, compile_node

__all__ = ["CACHE_SIZE", "clear", "compiled", "compiled_built"]

#: Enough for every tool of many sessions; bounded so schemas built on the fly cannot grow the
#: process without limit (the oldest entry goes first).
CACHE_SIZE: Final = 2048

_validators: dict[tuple[str, int, bool], Validator] = {}
_lock: Any = None


def _get_lock() -> Any:
    global _lock
    if _lock is None:
        import threading

        # Two threads may both get here at first use; both locks are equivalent until one wins
        # the assignment, and compiling twice is the only cost of that race.
        _lock = threading.Lock()
    return _lock


def compiled(schema: Any, max_pattern_length: int, root: bool = True) -> Validator:
    """The checked, compiled and cached validator of ``schema`` (``root=False``: any node kind,
    as an output schema may be; ``check.checked``).

    Raises:
        Invalid: (from ``check``) at the first rule the schema breaks, with its path as parts.
    """
    try:
        clone = clone_json(schema)
        text = dumps_compact(clone)
    except (NotJsonError, ValueError):  # not JSON, or an int no JSON text can hold
        checked(schema, root)  # raises Invalid with the path of the bad value
        raise  # pragma: no cover - checked always raises for such input
    return _cached(text, max_pattern_length, root, schema, clone)


def compiled_built(schema: dict[str, Any], max_pattern_length: int) -> Validator:
    """``compiled`` of a tool schema pedelec built itself (``typed.infer_tool``).

    Such a schema holds plain JSON values only (dicts and lists it made, ``str``, ``int``,
    ``float``, ``bool`` and ``None``, or subclasses of ``str`` and ``int``, which JSON text writes
    as their base type). So it gives the same text as its clone: the text is written from the
    schema itself, and when no validator of it is cached, the validator's private copy is read
    back from that text (a JSON decoder is quicker than ``clone_json``).

    Raises:
        Invalid: as ``compiled``.
    """
    try:
        text = dumps_compact(schema)
    except ValueError:  # an int past the digit limit: ``compiled`` reports where it is
        return compiled(schema, max_pattern_length)
    return _cached(text, max_pattern_length, True, schema, None)


def _cached(text: str, max_pattern_length: int, root: bool, schema: Any, clone: Any) -> Validator:
    """The validator keyed by ``text``, compiled from a checked private copy when new: ``clone``
    (``clone_json`` of ``schema``), or, given ``None``, the copy read back from ``text``."""
    key = (text, max_pattern_length, root)
    validator = _validators.get(key)
    if validator is not None:
        return validator
    with _get_lock():
        validator = _validators.get(key)
        if validator is None:
            # The text was written, so every int fits; without a surrogate it is sendable, and
            # the copy is the one to check (``checked`` would copy and walk again).
            if has_surrogate(text):
                node = checked(schema, root)
            else:
                node = checked_clone(loads_dumped(text) if clone is None else clone, root)
            validator = compile_node(node, max_pattern_length=max_pattern_length)
            if len(_validators) >= CACHE_SIZE:
                del _validators[next(iter(_validators))]
            _validators[key] = validator
    return validator


def clear() -> None:
    """Forget every compiled validator, and every cached compile of generated code."""
    _validators.clear()
    from pedelec.schema._codegen import clear_code

    clear_code()
