"""The one interpreter (``pedelec.schema.interpret``) and the one overlap analysis
(``pedelec.schema.overlap``), held to the generated validator.

* ``accepts(node, value)`` agrees with ``compile_schema(...).is_valid`` and with the node
  compiler on generated subset nodes and values, patterns whose ECMA-262 meaning differs from
  Python's included, and on a table of edge cases (``1.0``, ``True``, code points, ``"1\\n"``).
* Every ``witness(a, b)`` is accepted by both nodes; when ``disjoint(a, b)`` no value is accepted
  by both and there is no witness. A table pins exact answers, including what the two former
  analyses (typed-tool inference's and ``pedelec check``'s) each found.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, strategies as st
from test_hardening_properties import examples, nodes, values_for

from pedelec import compile_schema
from pedelec.schema.interpret import accepts
from pedelec.schema.overlap import disjoint, witness
from pedelec.schema.validator import compile_node

#: Patterns where Python's ``re`` and ECMA-262 disagree on some of ``ECMA_TEXT``'s strings
#: (``$`` before a final newline, ``.`` and ``\r``, non-ASCII digits and letters), plus the
#: shapes the validator matches without a regex (literal text, one anchored character class).
ECMA_PATTERNS = [
    "^[0-9]+$",
    "^.$",
    "\\d",
    "^\\w+$",
    "\\s$",
    "a$",
    "^ab",
    "b1",
    "^a[a-c]{1,2}$",
    "^[0-9a]*$",
]
ECMA_TEXT = st.text("a1b\n\r٣é ", max_size=4)


@st.composite
def ecma_string_nodes(draw: Any) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string", "pattern": draw(st.sampled_from(ECMA_PATTERNS))}
    if draw(st.booleans()):
        node["maxLength"] = draw(st.integers(0, 4))
    return node


def checked(node: dict[str, Any], limit: int = 1024) -> tuple[dict[str, Any], Any]:
    """The node as registration stores it, and the root validator that holds it under ``v``."""
    wrapped = {"type": "object", "properties": {"v": node}, "required": ["v"]}
    validator = compile_schema(wrapped, max_pattern_length=limit)
    return validator.schema["properties"]["v"], validator


def agree(node: dict[str, Any], value: Any, limit: int = 1024) -> bool:
    """``accepts`` for ``node`` and ``value``, after asserting both compiled forms agree."""
    inner, validator = checked(node, limit)
    answer = accepts(inner, value, max_pattern_length=limit)
    assert validator._bool_function()({"v": value}) is answer, (node, value)
    branch = compile_node(inner, max_pattern_length=limit)
    assert branch._bool_function()(value) is answer, (node, value)
    return answer


# --- accepts: the generated validator's twin --------------------------------------------------


@examples(300)
@given(node=nodes, data=st.data())
def test_accepts_agrees_with_the_generated_validator(node: dict[str, Any], data: Any) -> None:
    for _ in range(4):
        agree(node, data.draw(values_for(node), label="value"))


@examples(200)
@given(node=ecma_string_nodes(), text=ECMA_TEXT)
def test_accepts_matches_patterns_as_ecma_262_like_the_validator(
    node: dict[str, Any], text: str
) -> None:
    agree(node, text)


ACCEPTS: list[tuple[str, dict[str, Any], Any, bool]] = [
    ("integer_takes_whole_float", {"type": "integer"}, 1.0, True),
    ("integer_refuses_half", {"type": "integer"}, 1.5, False),
    ("integer_refuses_true", {"type": "integer"}, True, False),
    ("number_refuses_false", {"type": "number"}, False, False),
    ("number_refuses_nan", {"type": "number"}, float("nan"), False),
    ("number_refuses_infinity", {"type": "number"}, float("inf"), False),
    ("integer_refuses_infinity", {"type": "integer"}, float("-inf"), False),
    ("number_enum_one_is_one_point_zero", {"type": "number", "enum": [1]}, 1.0, True),
    ("boolean_refuses_one", {"type": "boolean"}, 1, False),
    ("boolean_enum", {"type": "boolean", "enum": [False]}, True, False),
    ("minimum_float", {"type": "number", "minimum": 0.5}, 0.25, False),
    ("maximum_int_of_float", {"type": "integer", "maximum": 2}, 2.0, True),
    ("length_counts_code_points", {"type": "string", "maxLength": 1}, "😀", True),
    ("length_too_short", {"type": "string", "minLength": 2}, "😀", False),
    ("dollar_is_the_very_end", {"type": "string", "pattern": "^[0-9]+$"}, "1\n", False),
    ("dollar_plain", {"type": "string", "pattern": "^[0-9]+$"}, "12", True),
    ("dot_refuses_carriage_return", {"type": "string", "pattern": "^.$"}, "\r", False),
    ("digit_is_ascii", {"type": "string", "pattern": "\\d"}, "٣", False),
    ("pattern_is_a_search", {"type": "string", "pattern": "b1"}, "ab12", True),
    ("literal_suffix", {"type": "string", "pattern": "a$"}, "ba", True),
    ("string_enum", {"type": "string", "enum": ["a"]}, "b", False),
    ("array_refuses_tuple", {"type": "array", "items": {"type": "integer"}}, (1,), False),
    (
        "unique_items_one_and_one_point_zero",
        {"type": "array", "items": {"type": "number"}, "uniqueItems": True},
        [1, 1.0],
        False,
    ),
    (
        "unique_items_true_and_one",
        {"type": "array", "items": {"oneOf": [{"type": "boolean"}, {"type": "integer"}]}},
        [True, 1],
        True,
    ),
    (
        "unique_items_deep",
        {
            "type": "array",
            "items": {"type": "object"},
            "uniqueItems": True,
        },
        [{"a": [1, {"b": 2.0}]}, {"a": [1.0, {"b": 2}]}],
        False,
    ),
    (
        "unique_items_deep_bool",
        {"type": "array", "items": {"type": "object"}, "uniqueItems": True},
        [{"a": True}, {"a": 1}],
        True,
    ),
    ("max_items", {"type": "array", "items": {"type": "string"}, "maxItems": 1}, ["a", "b"], False),
    ("undeclared_property", {"type": "object", "properties": {}}, {"z": [1, "x"]}, True),
    ("undeclared_not_json", {"type": "object"}, {"z": {1, 2}}, False),
    ("undeclared_nan", {"type": "object"}, {"z": [float("nan")]}, False),
    ("key_not_a_string", {"type": "object"}, {1: "a"}, False),
    (
        "required_missing",
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        {},
        False,
    ),
    (
        "declared_checked",
        {"type": "object", "properties": {"a": {"type": "string"}}},
        {"a": 1},
        False,
    ),
    ("object_refuses_list", {"type": "object"}, [], False),
    ("one_of_none", {"oneOf": [{"type": "string"}, {"type": "integer"}]}, True, False),
    ("one_of_exactly_one", {"oneOf": [{"type": "string"}, {"type": "integer"}]}, 1, True),
    ("one_of_two_is_none", {"oneOf": [{"type": "number"}, {"type": "integer"}]}, 1, False),
    ("one_of_two_float", {"oneOf": [{"type": "number"}, {"type": "integer"}]}, 1.5, True),
]


@pytest.mark.parametrize(
    ("node", "value", "expected"),
    [case[1:] for case in ACCEPTS],
    ids=[case[0] for case in ACCEPTS],
)
def test_accepts_edge_cases(node: dict[str, Any], value: Any, expected: bool) -> None:
    assert agree(node, value) is expected


def test_accepts_fails_a_pattern_on_a_string_longer_than_the_bound() -> None:
    node = {"type": "string", "pattern": "^a+$"}
    assert agree(node, "aaa", limit=3) is True
    assert agree(node, "aaaa", limit=3) is False
    assert agree({"type": "string", "maxLength": 9}, "aaaa", limit=3) is True


def test_accepts_refuses_a_value_inside_itself() -> None:
    loop: list[Any] = []
    loop.append(loop)
    assert agree({"type": "object"}, {"z": loop}) is False
    twice = [1]
    assert agree({"type": "object"}, {"y": twice, "z": twice}) is True


# --- overlap: witnesses are real, disjoint is proven ---------------------------------------------


def _registered(node: dict[str, Any]) -> dict[str, Any]:
    return checked(node)[0]


@examples(300)
@given(a=nodes, b=nodes, data=st.data())
def test_witness_is_accepted_by_both_and_disjoint_means_no_shared_value(
    a: dict[str, Any], b: dict[str, Any], data: Any
) -> None:
    a, b = _registered(a), _registered(b)
    found = witness(a, b)
    if found is not None:
        assert accepts(a, found) and accepts(b, found), found
    apart = disjoint(a, b)
    assert disjoint(b, a) is apart
    if apart:
        assert found is None
        assert disjoint(a, b, own_keys=True)
    for _ in range(4):
        value = data.draw(values_for(a) | values_for(b), label="value")
        if apart:
            assert not (accepts(a, value) and accepts(b, value)), value


@examples(100)
@given(a=nodes)
def test_a_node_that_accepts_something_overlaps_itself(a: dict[str, Any]) -> None:
    a = _registered(a)
    found = witness(a, a)
    if found is not None:
        assert accepts(a, found)
        assert not disjoint(a, a)


INT = {"type": "integer"}
NUM = {"type": "number"}
STR = {"type": "string"}
DIGITS = {"type": "string", "pattern": "^[0-9]+$"}


def obj(required: list[str], **properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


# (id, a, b, disjoint, disjoint with own_keys, witness)
OVERLAPS: list[tuple[str, dict[str, Any], dict[str, Any], bool, bool, Any]] = [
    ("int_number", INT, NUM, False, False, 1),
    ("int_bool", INT, {"type": "boolean"}, True, True, None),
    ("ranges_apart", {**INT, "maximum": 0}, {**NUM, "minimum": 0.5}, True, True, None),
    ("integer_gap", {**INT, "minimum": 0.5}, {**NUM, "maximum": 0.9}, True, True, None),
    ("ranges_touch", {**INT, "maximum": 5}, {**INT, "minimum": 5}, False, False, 5),
    (
        "number_range_of_halves",
        {**NUM, "minimum": 0.25},
        {**NUM, "maximum": 0.5},
        False,
        False,
        0.5,
    ),
    # The union bug: with ECMA-262 semantics "1\n" does not match ^[0-9]+$.
    ("newline_enum_vs_digits", {**STR, "enum": ["1\n"]}, DIGITS, True, True, None),
    ("digit_enum_vs_digits", {**STR, "enum": ["x", "12"]}, DIGITS, False, False, "12"),
    (
        "enum_true_vs_one",
        {"type": "boolean", "enum": [True]},
        {**INT, "enum": [1]},
        True,
        True,
        None,
    ),
    ("enum_one_vs_one_point_zero", {**INT, "enum": [1]}, {**NUM, "enum": [1.0]}, False, False, 1),
    ("lengths_apart", {**STR, "maxLength": 1}, {**STR, "minLength": 2}, True, True, None),
    ("strings", {**STR, "minLength": 2}, STR, False, False, "aa"),
    # Two patterns are beyond the analysis: not proven disjoint, and no witness found.
    ("two_patterns", DIGITS, {**STR, "pattern": "^x"}, False, False, None),
    # cli's former analysis used examples and defaults as candidates.
    ("pattern_with_example", {**DIGITS, "examples": ["7"]}, STR, False, False, "7"),
    ("pattern_with_default", STR, {**DIGITS, "default": "42"}, False, False, "42"),
    (
        "empty_lists",
        {"type": "array", "items": INT},
        {"type": "array", "items": STR},
        False,
        False,
        [],
    ),
    (
        "non_empty_lists",
        {"type": "array", "items": INT, "minItems": 2},
        {"type": "array", "items": NUM},
        False,
        False,
        [1, 1],
    ),
    (
        "non_empty_lists_apart",
        {"type": "array", "items": INT, "minItems": 1},
        {"type": "array", "items": STR},
        True,
        True,
        None,
    ),
    (
        "tagged",
        obj(["kind"], kind={**STR, "enum": ["a"]}),
        obj(["kind"], kind={**STR, "enum": ["b"]}),
        True,
        True,
        None,
    ),
    # Each requires a key the other does not declare: only apart for values written for one.
    ("own_keys", obj(["a"], a=INT), obj(["b"], b=INT), False, True, {"a": 1, "b": 1}),
    (
        "subset_of_keys",
        obj(["a"], a=INT),
        obj(["a", "b"], a=INT, b=STR),
        False,
        False,
        {"a": 1, "b": ""},
    ),
    ("free_object", obj([], a=INT), {"type": "object"}, False, False, {}),
    (
        "one_of_members",
        {"oneOf": [STR, {"type": "boolean"}]},
        {"oneOf": [INT, {**STR, "enum": ["z"]}]},
        False,
        False,
        "z",
    ),
    (
        "one_of_apart",
        {"oneOf": [STR, {"type": "boolean"}]},
        {"oneOf": [INT, NUM]},
        True,
        True,
        None,
    ),
]


@pytest.mark.parametrize(
    ("a", "b", "apart", "apart_own", "expected"),
    [case[1:] for case in OVERLAPS],
    ids=[case[0] for case in OVERLAPS],
)
def test_overlap_cases(
    a: dict[str, Any], b: dict[str, Any], apart: bool, apart_own: bool, expected: Any
) -> None:
    a, b = _registered(a), _registered(b)
    assert disjoint(a, b) is apart
    assert disjoint(b, a) is apart
    assert disjoint(a, b, own_keys=True) is apart_own
    found = witness(a, b)
    assert found == expected and type(found) is type(expected)
