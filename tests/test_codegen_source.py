"""Generated validator source: shown in tracebacks while its validator lives, gone after."""

from __future__ import annotations

import gc
import linecache
import traceback

from pedelec import compile_schema
from pedelec.schema import _clear_cache


def _generated() -> set[str]:
    return {name for name in linecache.cache if name.startswith("pedelec validator ")}


def test_source_leaves_linecache_with_its_validator() -> None:
    gc.collect()
    before = _generated()
    validator = compile_schema(
        {
            "type": "object",
            "description": "linecache probe",
            "properties": {"a": {"type": "integer"}},
            "required": ["a"],
        }
    )
    assert validator.is_valid({"a": 1}) is True
    assert validator.errors({}) != []
    mine = _generated() - before
    assert len(mine) == 2  # is_valid and collect
    # Lazy until a traceback asks: a loader of the compressed source, no lines yet.
    assert [len(linecache.cache[name]) for name in mine] == [1, 1]
    lines = [linecache.getline(name, 1) for name in sorted(mine)]
    assert [line.startswith("def _factory(") for line in lines] == [True, True]
    assert [len(linecache.cache[name]) for name in mine] == [4, 4]
    del validator
    _clear_cache()
    gc.collect()
    assert _generated() - before == set()


def test_a_traceback_through_generated_code_shows_its_line() -> None:
    validator = compile_schema({"type": "object", "description": "traceback probe"})
    validator.is_valid({})
    code = validator._fast.__code__  # type: ignore[union-attr]
    assert code.co_filename.startswith("pedelec validator ")
    frame = traceback.FrameSummary(code.co_filename, code.co_firstlineno, code.co_name)
    assert frame.line == "def is_valid(v):"
