"""Generated validator source: shown in tracebacks while its validator lives, gone after."""

from __future__ import annotations

import gc
import linecache
import traceback

import pytest

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
    validator._generate()  # past the interpreted stage: is_valid is generated on this call
    assert validator.is_valid({"a": 1}) is True
    assert validator.errors({}) != []
    mine = _generated() - before
    assert len(mine) == 2  # is_valid and collect
    # Lazy until a traceback asks: a loader that writes the source again, no lines yet.
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
    validator._bool_function()
    code = validator._fast.__code__  # type: ignore[union-attr]
    assert code.co_filename.startswith("pedelec validator ")
    frame = traceback.FrameSummary(code.co_filename, code.co_firstlineno, code.co_name)
    assert frame.line == "def is_valid(v):"


def test_validators_of_one_shape_share_a_compile_and_keep_their_own_lines() -> None:
    from pedelec.schema import _codegen

    def shaped(most: int, text: str) -> dict[str, object]:
        return {
            "type": "object",
            "description": text,
            "properties": {"n": {"type": "integer", "maximum": most}},
            "required": ["n"],
        }

    _clear_cache()
    low, high = compile_schema(shaped(5, "low")), compile_schema(shaped(6, "high"))
    low._generate(), high._generate()
    assert (low.is_valid({"n": 6}), high.is_valid({"n": 6})) == (False, True)
    assert len(_codegen._codes) == 1  # one shape, one compile()
    codes = [v._fast.__code__ for v in (low, high)]  # type: ignore[union-attr]
    assert codes[0].co_filename != codes[1].co_filename
    assert codes[0].co_code == codes[1].co_code
    frame = traceback.FrameSummary(codes[1].co_filename, codes[1].co_firstlineno, "is_valid")
    assert frame.line == "def is_valid(v):"
    _clear_cache()
    assert _codegen._codes == {}


def test_source_is_written_again_for_a_traceback_exactly_as_compiled() -> None:
    from pedelec.schema import _codegen

    compiled: list[str] = []
    write = _codegen._source

    def spy(*args: object) -> tuple[str, dict[str, object]]:
        source, free = write(*args)  # type: ignore[arg-type]
        compiled.append(source)
        return source, free

    point = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
    schema = {
        "type": "object",
        "description": "rewrite probe",
        "properties": {"at": {"oneOf": [point, {"type": "string", "pattern": "^[a-z]+$"}]}},
    }
    gc.collect()
    before = _generated()
    _codegen._source = spy  # type: ignore[assignment]
    try:
        validator = compile_schema(schema)
        validator._generate()
        assert validator.is_valid({"at": {"x": 1}}) is True
        assert [e.keyword for e in validator.errors({"at": 1})] == ["oneOf"]
        assert validator._copy({"at": "ab"}, 64, 100) == ({"at": "ab"}, 1)
    finally:
        _codegen._source = write  # type: ignore[assignment]
    mine = sorted(_generated() - before)
    # The root's three functions; each branch's is_valid, collect and copy, shared by all three.
    assert (
        sorted(name.rsplit(" ", 1)[1] for name in mine) == ["bool"] * 3 + ["copy"] * 3 + ["err"] * 3
    )
    assert len(compiled) == 9
    rewritten = {"".join(linecache.getlines(name)) for name in mine}
    assert rewritten == set(compiled)


def test_a_huge_source_is_compiled_but_not_kept() -> None:
    from pedelec.schema import _codegen

    wide = {
        "type": "object",
        "properties": {f"p{i}": {"type": "integer", "maximum": i} for i in range(400)},
    }
    _clear_cache()
    validator = compile_schema(wide)
    assert validator.is_valid({"p399": 399, "p7": 7}) is True
    assert validator.is_valid({"p7": 8}) is False
    assert _codegen._codes == {}


_NESTED: dict[str, object] = {"type": "object", "properties": {"x": {"type": "integer"}}}
for _ in range(14):  # deeper than the generator inlines: the inner nodes get functions of their own
    _NESTED = {"type": "object", "properties": {"in": _NESTED}}

FREED_BY_REFCOUNT = [
    ("flat", {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}),
    (
        "oneOf branches",
        {
            "type": "object",
            "properties": {
                "shape": {
                    "oneOf": [
                        {"type": "object", "properties": {"r": {"type": "number"}}},
                        {"type": "object", "properties": {"w": {"type": "integer"}}},
                    ]
                }
            },
        },
    ),
    ("nested past inlining", _NESTED),
    (
        "uniqueItems over objects",
        {
            "type": "object",
            "properties": {
                "tags": {"type": "array", "uniqueItems": True, "items": {"type": "object"}}
            },
        },
    ),
]


@pytest.mark.parametrize(
    ("case", "schema"), FREED_BY_REFCOUNT, ids=[c for c, _ in FREED_BY_REFCOUNT]
)
def test_an_evicted_validator_is_freed_at_once_without_the_garbage_collector(
    case: str, schema: dict[str, object]
) -> None:
    # A validator in a reference cycle would wait for a full collection, rare with thousands of
    # validators alive, holding its code and its linecache entries: memory grew under churn.
    gc.collect()
    before = _generated()
    gc.disable()
    try:
        validator = compile_schema({**schema, "description": f"refcount probe: {case}"})
        assert validator.is_valid([]) is False  # interpreted
        validator._generate()
        assert validator.is_valid([]) is False  # generated
        assert validator._copy([], 64, 100) is False
        assert validator.errors([]) != []
        assert _generated() - before != set()
        del validator
        _clear_cache()
        assert _generated() - before == set()  # gone now: no collection ran
        assert gc.collect() == 0  # and nothing was left for one to find
    finally:
        gc.enable()
