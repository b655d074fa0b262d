"""The Tool Args Schema subset: registration checks, compiled validators and their cache.

``compile_schema`` is the one entry point: it checks a schema exactly like tool registration does
and returns a compiled ``Validator``, compiling each distinct schema once per process.
``convert`` turns a foreign JSON Schema into the closest Tool Args Schema; it is imported on
first use, so ``import pedelec.schema`` does not load it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from pedelec._json import NotJsonError, clone_json, dumps_canonical
from pedelec.schema.check import check_node, check_schema
from pedelec.schema.validator import ArgError, Validator, compile_node

if TYPE_CHECKING:
    from pedelec.schema._convert import Change, convert, convert_text

__all__ = [
    "ArgError",
    "Change",
    "Validator",
    "check_node",
    "check_schema",
    "compile_schema",
    "convert",
    "convert_text",
]

#: Names loaded from ``pedelec.schema._convert`` on first use.
_LAZY: Final = frozenset({"Change", "convert", "convert_text"})

# Enough for every tool of many sessions; bounded so schemas built on the fly cannot grow the
# process without limit (the oldest entry goes first).
_CACHE_SIZE: Final = 2048

_cache: dict[tuple[str, int], Validator] = {}
_lock: Any = None


def _get_lock() -> Any:
    global _lock
    if _lock is None:
        import threading

        # Two threads may both get here at first use; both locks are equivalent until one wins
        # the assignment, and compiling twice is the only cost of that race.
        _lock = threading.Lock()
    return _lock


def compile_schema(schema: Any, *, max_pattern_length: int = 1024) -> Validator:
    """Check a Tool Args Schema and return its compiled, cached validator.

    The schema is checked like tool registration checks it (every rule of the subset) and
    cloned; the validator keeps the clone, so later changes to ``schema`` change nothing.
    Validators are cached by the schema's canonical JSON (and ``max_pattern_length``), so the
    same schema compiles once per process, from any thread.

    Args:
        schema: A root object schema, e.g. ``{"type": "object", "properties": {...}}``.
        max_pattern_length: Strings longer than this (in code points) fail ``pattern`` without
            being searched, so a slow pattern cannot be run on a huge agent-sent string.

    Returns:
        A ``Validator`` with ``is_valid(value)`` and ``errors(value)``.

    Raises:
        PedelecError: ``INVALID_INPUT`` when the schema breaks a rule of the subset; ``details``
            holds the JSON pointer of the offending keyword.

    Example:
        >>> from pedelec import compile_schema
        >>> v = compile_schema({
        ...     "type": "object",
        ...     "properties": {"delta": {"type": "integer", "minimum": -100, "maximum": 100}},
        ...     "required": ["delta"],
        ... })
        >>> v.is_valid({"delta": 3})
        True
        >>> [str(e) for e in v.errors({"delta": 300})]
        ['/delta: must be <= 100, got 300 (maximum)']
    """
    try:
        key = (dumps_canonical(clone_json(schema)), max_pattern_length)
    except NotJsonError:
        check_schema(schema)  # raises INVALID_INPUT with the pointer of the bad value
        raise  # pragma: no cover - check_schema always raises for non-JSON input
    validator = _cache.get(key)
    if validator is not None:
        return validator
    with _get_lock():
        validator = _cache.get(key)
        if validator is None:
            validator = compile_node(check_schema(schema), max_pattern_length=max_pattern_length)
            if len(_cache) >= _CACHE_SIZE:
                del _cache[next(iter(_cache))]
            _cache[key] = validator
    return validator


def _clear_cache() -> None:
    """Forget every compiled validator (for benchmarks and tests of the cold path)."""
    _cache.clear()


if not TYPE_CHECKING:
    # Hidden from type checkers, so a misspelt ``pedelec.schema.comvert`` is an error there.

    def __getattr__(name: str) -> object:
        if name not in _LAZY:
            raise AttributeError(f"module 'pedelec.schema' has no attribute {name!r}")
        from pedelec.schema import _convert

        value = getattr(_convert, name)
        globals()[name] = value  # later uses skip this function
        return value
