"""Generated validator source: shown in tracebacks while its validator lives, gone after."""

from __future__ import annotations

import gc
import linecache

from pedelec import compile_schema
from pedelec.schema import _clear_cache


def _generated() -> set[str]:
    return {name for name in linecache.cache if name.startswith("<pedelec validator ")}


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
    lines = [linecache.getline(name, 1) for name in sorted(mine)]
    assert [line.startswith("def _factory(") for line in lines] == [True, True]
    del validator
    _clear_cache()
    gc.collect()
    assert _generated() - before == set()
