"""Run every conformance case (derived from JSON-Schema-Test-Suite, see README.md here).

The verdicts come from the reference implementation, so a failure here is a semantic bug in the
validator, not a matter of taste. ``is_valid`` and ``errors`` are checked separately because the
compiled validator has two code paths (a fast boolean one and an error-collecting one) that must
agree on every input; ``is_valid`` is checked in both its stages, the interpreter a new
validator answers with and the generated function it switches to.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import pedelec

CASES_FILE = Path(__file__).with_name("cases.json")
CASES: list[dict[str, Any]] = json.loads(CASES_FILE.read_text(encoding="utf-8"))


def test_case_ids_are_unique() -> None:
    ids = [case["id"] for case in CASES]
    assert len(ids) == len(set(ids)) == 747


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_case(case: dict[str, Any]) -> None:
    validator = pedelec.compile_schema(case["schema"])

    assert validator._interpreted(case["args"]) is case["valid"], case["source"]
    assert validator._bool_function()(case["args"]) is case["valid"], case["source"]
    errors = validator.errors(case["args"])
    if case["valid"]:
        assert errors == [], case["source"]
    else:
        assert errors != [], case["source"]
        assert all(isinstance(error, pedelec.ArgError) for error in errors)
