"""A oneOf of objects told apart by a required enum tag runs only the tagged branch.

The fast path must give exactly the verdicts of the general rule (count the branches that
match, exactly one): these cases are checked against that rule as the interpreter
``accepts`` applies it and against jsonschema.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from pedelec import compile_schema
from pedelec.schema._codegen import discriminator
from pedelec.schema.interpret import accepts

TAGGED = {
    "type": "object",
    "properties": {
        "target": {
            "oneOf": [
                {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "enum": ["cell"]},
                        "row": {"type": "integer", "minimum": 0},
                    },
                    "required": ["kind", "row"],
                },
                {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "enum": ["user", "member"]},
                        "id": {"type": "string"},
                    },
                    "required": ["kind", "id"],
                },
            ]
        }
    },
    "required": ["target"],
}

VALUES: list[Any] = [
    {"kind": "cell", "row": 1},
    {"kind": "cell", "row": -1},
    {"kind": "cell"},
    {"kind": "user", "id": "u1"},
    {"kind": "member", "id": "u1"},
    {"kind": "member", "id": 5},
    {"kind": "other", "id": "u1"},
    {"kind": ["cell"], "row": 1},
    {"kind": 1, "row": 1},
    {"row": 1},
    {},
    [],
    "cell",
    None,
    {"kind": "cell", "row": 1, "id": "x"},
]


def test_the_tag_is_found() -> None:
    assert discriminator(TAGGED["properties"]["target"]["oneOf"]) == (
        "kind",
        {"cell": 0, "user": 1, "member": 1},
    )


@pytest.mark.parametrize(
    "branches",
    [
        # the tag is optional in one branch
        [
            {"type": "object", "properties": {"k": {"type": "string", "enum": ["a"]}}},
            {
                "type": "object",
                "properties": {"k": {"type": "string", "enum": ["b"]}},
                "required": ["k"],
            },
        ],
        # the enums overlap
        [
            {
                "type": "object",
                "properties": {"k": {"type": "string", "enum": ["a", "b"]}},
                "required": ["k"],
            },
            {
                "type": "object",
                "properties": {"k": {"type": "string", "enum": ["b"]}},
                "required": ["k"],
            },
        ],
        # a branch is not an object
        [
            {
                "type": "object",
                "properties": {"k": {"type": "string", "enum": ["a"]}},
                "required": ["k"],
            },
            {"type": "string"},
        ],
    ],
)
def test_no_tag_when_branches_are_not_told_apart(branches: list[dict[str, Any]]) -> None:
    assert discriminator(branches) is None


@pytest.mark.parametrize("value", VALUES)
def test_tagged_fast_path_agrees_with_the_general_rule(value: Any) -> None:
    validator = compile_schema(TAGGED)
    args = {"target": value}
    expected = jsonschema.Draft202012Validator(TAGGED).is_valid(args)
    assert accepts(TAGGED, args) is expected
    assert validator.is_valid(args) is expected
    assert (validator.errors(args) == []) is expected
