"""The Tool Args Schema subset: registration checks, compiled validators and their cache.

``compile_schema`` is the one entry point: it checks a schema exactly like tool registration does
and returns a compiled ``Validator``, compiling each distinct schema once per process.
``convert`` turns a foreign JSON Schema into the closest Tool Args Schema; it is imported on
first use, so ``import pedelec.schema`` does not load it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from pedelec.limits import DEFAULT_MAX_PATTERN_LENGTH
from pedelec.schema import _cache
from pedelec.schema.check import Invalid, check_schema
from pedelec.schema.validator import ArgError, Validator

if TYPE_CHECKING:
    from pedelec.schema._convert import Change, convert, convert_text

__all__ = [
    "ArgError",
    "Change",
    "Validator",
    "check_schema",
    "compile_schema",
    "convert",
    "convert_text",
]

#: Names loaded from ``pedelec.schema._convert`` on first use.
_LAZY: Final = frozenset({"Change", "convert", "convert_text"})


def compile_schema(
    schema: Any, *, max_pattern_length: int = DEFAULT_MAX_PATTERN_LENGTH
) -> Validator:
    """Check a Tool Args Schema and return its compiled, cached validator.

    The schema is checked like tool registration checks it (every rule of the subset) and
    cloned; the validator keeps the clone, so later changes to ``schema`` change nothing.
    Validators are cached by the schema's JSON text, key order included (and
    ``max_pattern_length``), so the same schema compiles once per process, from any thread; a
    schema whose ``properties`` come in another order gets its own validator, which reports
    errors in its own order.

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
        return _cache.compiled(schema, max_pattern_length)
    except Invalid as bad:
        raise bad.error(None) from None


# The bound of the cache, for benchmarks that measure a full one.
_CACHE_SIZE: Final = _cache.CACHE_SIZE


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
