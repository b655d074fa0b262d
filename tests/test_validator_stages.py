"""A validator's two stages: the interpreter it starts with, and the code it generates once that
pays (``pedelec.schema.validator``, ``INTERPRET_NS``).

* A new validator answers ``is_valid`` without generating code: no function, no ``linecache``
  entry; its copier declines, so a session takes the general path (clone, then ``is_valid``).
* It switches when its interpreted time reaches the budget, or when generated code exists
  anyway (a forced ``_bool_function``, ``_copy_function``); from then on ``is_valid`` is the
  generated function itself, with no wrapper left on the hot path.
* Both stages give a session the same result for the same call, handler args isolated from the
  caller's in both, on generated schemas and values (hypothesis).
* What an agent sends cannot make the interpreted stage raise, and gets the same result from
  both stages (non-JSON objects, garbage text, invalid UTF-8: the hardening suite's inputs).
"""

from __future__ import annotations

import itertools
import linecache
from typing import Any

from hypothesis import given, strategies as st
from test_hardening_properties import agent_args, check_result, examples, root_schemas, values_for

from pedelec import Session, compile_schema
from pedelec.schema.validator import INTERPRET_NS, Validator

_fresh = itertools.count()


def fresh(properties: dict[str, Any] | None = None) -> Validator:
    """A validator no earlier test has used: its schema's description is new."""
    return compile_schema(
        {
            "type": "object",
            "description": f"stage probe {next(_fresh)}",
            "properties": properties or {"n": {"type": "integer", "minimum": 1}},
            "required": ["n"],
        }
    )


def generated_files() -> set[str]:
    return {name for name in linecache.cache if name.startswith("pedelec validator ")}


def test_a_new_validator_answers_without_generating_code() -> None:
    before = generated_files()
    validator = fresh()
    assert [validator.is_valid({"n": 2}), validator.is_valid({"n": 0})] == [True, False]
    assert validator.is_valid({}) is False
    assert (validator._fast, validator._copy_fn) == (None, None)
    assert validator._copy({"n": 2}, 64, 100) is False
    assert generated_files() - before == set()
    assert 0 < validator._spent < INTERPRET_NS


def test_the_budget_spent_switches_to_generated_code_on_the_next_call() -> None:
    validator = fresh()
    validator._spent = INTERPRET_NS - 1
    assert validator.is_valid({"n": 2}) is True  # still interpreted, and the last such call
    assert validator._fast is None
    assert "is_valid" not in validator.__dict__  # the class's method, which interprets
    assert validator.is_valid({"n": 0}) is False  # generates
    assert validator._fast is not None
    assert validator.is_valid is validator._fast
    assert validator._copy({"n": 2}, 64, 100) == ({"n": 2}, 1)
    assert validator._copy is validator._copy_fn


def test_a_reference_taken_before_the_switch_runs_the_generated_code() -> None:
    validator = fresh()
    check = validator.is_valid  # the interpreted stage's function
    validator._spent = INTERPRET_NS - 1
    assert [check({"n": 2}), check({"n": 2})] == [True, True]
    assert validator._fast is not None  # the second call went to generated code
    assert [check({"n": 0}), validator._spent] == [False, INTERPRET_NS]


def test_generated_code_made_anyway_ends_the_interpreted_stage() -> None:
    validator = fresh()
    function = validator._bool_function()
    assert validator.is_valid is function
    assert "_copy" not in validator.__dict__  # the class's method: generates on first use
    other = fresh()
    copier = other._copy_function()
    assert other._copy is copier
    assert "is_valid" not in other.__dict__  # generated on its next call


def test_a_session_call_takes_the_general_path_then_the_copier() -> None:
    session = Session()
    seen: list[Any] = []
    schema = {
        "type": "object",
        "description": f"stage probe {next(_fresh)}",
        "properties": {"tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["tags"],
    }

    @session.on_tool("t", description="T.", schema=schema)
    def t(args: Any) -> int:
        seen.append(args)
        return len(args["tags"])

    validator = compile_schema(schema)
    args = {"tags": ["a", "b"]}
    assert session.dispatch_sync("t", args).value == 2
    assert validator._copy_fn is None
    validator._spent = INTERPRET_NS
    assert session.dispatch_sync("t", args).value == 2  # the interpreted is_valid, then switched
    assert session.dispatch_sync("t", args).value == 2  # the generated copier
    assert validator._copy_fn is not None
    assert [a == args for a in seen] == [True, True, True]
    assert [a is args or a["tags"] is args["tags"] for a in seen] == [False, False, False]


@examples(150)
@given(schema=root_schemas, data=st.data())
def test_both_stages_give_a_session_the_same_result(schema: dict[str, Any], data: Any) -> None:
    # A description no other example has: the validator starts interpreted.
    schema = {**schema, "description": f"stage probe {next(_fresh)}"}
    values = [data.draw(values_for(schema), label="value") for _ in range(3)]
    session = Session()
    seen: list[Any] = []

    @session.on_tool("t", description="T.", schema=schema)
    def t(args: Any) -> Any:
        seen.append(args)
        return "ran"

    validator = compile_schema(schema)
    # Held in the interpreted stage however long its calls take on a slow machine (a first call
    # that interprets for over INTERPRET_NS would otherwise end the stage in the middle).
    validator._spent = -(10**15)

    def results() -> list[Any]:
        return [session.dispatch_sync("t", v, tool_request_id="1").to_json() for v in values]

    interpreted = results()
    assert validator._copy_fn is None and validator._fast is None
    validator._generate()
    assert results() == interpreted
    # Dict args go through the generated copier now; other values are refused as before.
    assert (validator._copy_fn is not None) is any(type(v) is dict for v in values)
    assert all(args is not value for args, value in zip(seen, values + values, strict=False))


class Hostile:
    """A key whose hash is the required property's and that raises when compared."""

    def __hash__(self) -> int:
        return hash("n")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("asked")


def test_a_hostile_value_is_refused_in_both_stages() -> None:
    validator = fresh()
    value = {Hostile(): 1}
    assert validator.is_valid(value) is False  # "n" in value raises inside the interpreter
    assert validator._fast is None
    assert validator._bool_function()(value) is False


@examples(200)
@given(args=agent_args)
def test_agent_input_gets_the_same_result_from_both_stages(args: Any) -> None:
    # What an agent may send (non-JSON objects, garbage text, invalid UTF-8), through a session
    # whose validator is interpreting and through one whose code is generated.
    schema = {
        "type": "object",
        "description": f"stage probe {next(_fresh)}",
        "properties": {"a": {"type": "integer"}, "s": {"type": "string", "pattern": "^x"}},
        "required": ["a"],
    }
    session = Session()
    session.on_tool("t", description="T.", schema=schema)(lambda args: "ran")
    validator = compile_schema(schema)
    interpreted = session.dispatch_sync("t", args, tool_request_id="1")
    assert validator._fast is None and validator._copy_fn is None
    validator._generate()
    generated = session.dispatch_sync("t", args, tool_request_id="1")
    check_result(interpreted)
    assert generated.to_json() == interpreted.to_json()
