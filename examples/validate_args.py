"""Check a tool's argument schema, then validate arguments an agent might send.

Run it with ``python examples/validate_args.py`` after ``pip install -e .`` in the checkout. It shows the three
things ``pedelec.compile_schema`` does: it checks the schema against the Tool Args Schema subset
(a schema outside it is rejected with ``INVALID_INPUT``), it compiles a validator once, and the
validator reports every failure in the args with its JSON pointer, keyword and message.
"""

from __future__ import annotations

import json
from typing import Any

import pedelec

ADD_CARD_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Add a card to the board.",
    "properties": {
        "title": {"type": "string", "minLength": 1, "maxLength": 80},
        "labels": {
            "type": "array",
            "items": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"},
            "maxItems": 5,
            "uniqueItems": True,
        },
        "priority": {"type": "integer", "minimum": 1, "maximum": 5},
    },
    "required": ["title", "priority"],
}

VALID_ARGS: dict[str, Any] = {"title": "Ship v1", "labels": ["release", "docs"], "priority": 2}
INVALID_ARGS: dict[str, Any] = {"title": "", "labels": ["docs", "Docs", "docs"], "priority": "high"}

# exclusiveMinimum is JSON Schema, but not in the subset agents and providers all understand.
OUT_OF_SUBSET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"delta": {"type": "integer", "exclusiveMinimum": 0}},
}


def main() -> None:
    """Check and compile the example schema, validate two args dicts, reject a bad schema."""
    validator = pedelec.compile_schema(ADD_CARD_SCHEMA)
    print("schema add_card: inside the subset, compiled")
    for args in (VALID_ARGS, INVALID_ARGS):
        print(f"args: {json.dumps(args)}")
        print(f"  is_valid: {validator.is_valid(args)}")
        errors = validator.errors(args)
        if not errors:
            print("  errors: none")
        for error in errors:
            print(f"  error: {error}")

    try:
        pedelec.compile_schema(OUT_OF_SUBSET_SCHEMA)
    except pedelec.PedelecError as error:
        print(f"schema with exclusiveMinimum rejected: {error}")
        print(f"  details: {json.dumps(error.details)}")
    else:
        raise SystemExit("expected the out-of-subset schema to be rejected")


if __name__ == "__main__":
    main()
