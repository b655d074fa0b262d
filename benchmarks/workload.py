"""The benchmark workload: six realistic tool schemas, each with valid and invalid args.

Shared by ``bench_validate.py`` and ``bench_dispatch.py`` so both time the same tools. Every
schema is inside the Tool Args Schema subset (so pedelec accepts it) and is plain JSON Schema
(so ``jsonschema``, ``fastjsonschema`` and ``jsonschema-rs`` accept it too). Every invalid args
dict breaks the schema in several places at once where the schema allows it, because the
"collect all errors" comparison is only meaningful when there is more than one error to find.
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass
from typing import Any

__all__ = ["TOOLS", "UNIQUE_OBJECTS", "Tool", "unseen_variant"]


@dataclass(frozen=True)
class Tool:
    """One tool of the workload: its schema and one valid and one invalid args dict."""

    name: str
    description: str
    schema: dict[str, Any]
    valid_args: dict[str, Any]
    invalid_args: dict[str, Any]


SET_VOLUME = Tool(
    name="set_volume",
    description="Set the speaker volume.",
    schema={
        "type": "object",
        "properties": {
            "level": {
                "type": "integer",
                "minimum": 0,
                "maximum": 100,
                "description": "Volume in percent.",
            }
        },
        "required": ["level"],
    },
    valid_args={"level": 40},
    # One integer can only break one rule at a time.
    invalid_args={"level": 250},
)

UPDATE_CARD = Tool(
    name="update_card",
    description="Update a card on the board: title, labels and position.",
    schema={
        "type": "object",
        "properties": {
            "card": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "pattern": "^card-[0-9]{1,8}$"},
                    "title": {"type": "string", "minLength": 1, "maxLength": 120},
                    "labels": {
                        "type": "array",
                        "items": {"type": "string", "minLength": 1, "maxLength": 24},
                        "maxItems": 8,
                        "uniqueItems": True,
                        "description": "Distinct labels, at most eight.",
                    },
                    "position": {
                        "type": "object",
                        "properties": {
                            "column": {"type": "integer", "minimum": 0, "maximum": 9},
                            "row": {"type": "integer", "minimum": 0},
                        },
                        "required": ["column", "row"],
                    },
                },
                "required": ["id", "title"],
            },
            "notify": {"type": "boolean", "default": False},
        },
        "required": ["card"],
    },
    valid_args={
        "card": {
            "id": "card-1042",
            "title": "Write the release notes",
            "labels": ["docs", "release", "v1", "writing"],
            "position": {"column": 2, "row": 7},
        },
        "notify": True,
    },
    invalid_args={
        "card": {
            "id": "card-x",
            "title": "",
            "labels": ["docs", "release", "docs"],
            "position": {"column": 12, "row": 7},
        },
        "notify": "yes",
    },
)

MOVE_TO = Tool(
    name="move_to",
    description="Move the cursor to a cell, a user or a link.",
    schema={
        "type": "object",
        "properties": {
            "target": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {
                            "kind": {"type": "string", "enum": ["cell"]},
                            "row": {"type": "integer", "minimum": 0},
                            "column": {"type": "integer", "minimum": 0},
                        },
                        "required": ["kind", "row", "column"],
                    },
                    {
                        "type": "object",
                        "properties": {
                            "kind": {"type": "string", "enum": ["user"]},
                            "user_id": {"type": "string", "pattern": "^u_[a-z0-9]{6,12}$"},
                        },
                        "required": ["kind", "user_id"],
                    },
                    {
                        "type": "object",
                        "properties": {
                            "kind": {"type": "string", "enum": ["link"]},
                            "url": {"type": "string", "pattern": "^https://", "maxLength": 2048},
                        },
                        "required": ["kind", "url"],
                    },
                ]
            },
            "reason": {"type": "string", "maxLength": 200},
        },
        "required": ["target"],
    },
    valid_args={"target": {"kind": "link", "url": "https://example.com/docs"}, "reason": "cite"},
    invalid_args={"target": {"kind": "cell", "row": "3", "column": -1}, "reason": 42},
)

LANGUAGES = ["ar", "de", "en", "es", "fa", "fr", "hi", "id", "it", "ja"]
LANGUAGES += ["ko", "nl", "pl", "pt", "ru", "sv", "th", "tr", "uk", "zh"]

SEARCH = Tool(
    name="search_messages",
    description="Search the message archive.",
    schema={
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "maxLength": 200},
            "mode": {"type": "string", "enum": ["any", "all", "phrase"], "default": "all"},
            "language": {"type": "string", "enum": LANGUAGES},
            "sort": {"type": "string", "enum": ["relevance", "newest", "oldest"]},
            "filters": {
                "type": "object",
                "properties": {
                    "author": {"type": "string", "pattern": "^@?[A-Za-z0-9_]{1,15}$"},
                    "since": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
                    "until": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
                    "channel": {"type": "string", "pattern": "^#[a-z0-9][a-z0-9-]{0,30}$"},
                    "tags": {
                        "type": "array",
                        "items": {"type": "string", "pattern": "^[a-z0-9-]{1,20}$"},
                        "maxItems": 10,
                    },
                    "has": {
                        "type": "array",
                        "items": {"type": "string", "enum": ["link", "image", "file", "code"]},
                        "uniqueItems": True,
                    },
                },
            },
            "page": {"type": "integer", "minimum": 1, "maximum": 100},
            "page_size": {"type": "integer", "enum": [10, 20, 50, 100]},
        },
        "required": ["query"],
    },
    valid_args={
        "query": "release notes draft",
        "mode": "all",
        "language": "en",
        "sort": "newest",
        "filters": {
            "author": "@kaoru",
            "since": "2024-01-01",
            "until": "2024-06-30",
            "channel": "#release-team",
            "tags": ["v1", "docs", "planning"],
            "has": ["link", "code"],
        },
        "page": 2,
        "page_size": 20,
    },
    invalid_args={
        "query": "",
        "mode": "fuzzy",
        "language": "english",
        "sort": "newest",
        "filters": {
            "author": "not a handle!",
            "since": "01/01/2024",
            "until": "2024-06-30",
            "channel": "release",
            "tags": ["v1", "Docs"],
            "has": ["link", "gif"],
        },
        "page": 0,
        "page_size": 25,
    },
)

BULK_UPDATE = Tool(
    name="bulk_update_tasks",
    description="Apply one change to many tasks at once.",
    schema={
        "type": "object",
        "properties": {
            "ids": {
                "type": "array",
                "items": {"type": "integer", "minimum": 1},
                "minItems": 1,
                "maxItems": 100,
                "uniqueItems": True,
            },
            "patch": {
                "type": "object",
                "properties": {
                    "status": {"type": "string", "enum": ["todo", "doing", "done", "dropped"]},
                    "priority": {"type": "integer", "minimum": 1, "maximum": 5},
                    "assignee": {"type": "string", "pattern": "^[a-z][a-z0-9_]{2,31}$"},
                },
            },
            "dry_run": {"type": "boolean"},
        },
        "required": ["ids", "patch"],
    },
    valid_args={
        "ids": list(range(1001, 1051)),
        "patch": {"status": "done", "priority": 2, "assignee": "kaoru_isaac"},
        "dry_run": False,
    },
    invalid_args={
        "ids": [*range(1001, 1047), 1003, -4, "1049", 1050],
        "patch": {"status": "finished", "priority": 9, "assignee": "K"},
        "dry_run": "no",
    },
)

POINTS: list[dict[str, Any]] = [
    {"x": round(i * 0.5, 2), "y": round((i % 17) * 1.25 - 10, 2)} for i in range(200)
]
BAD_POINTS = copy.deepcopy(POINTS)
BAD_POINTS[17]["x"] = "12.5"
del BAD_POINTS[90]["y"]
BAD_POINTS[151] = {"x": None, "y": True}

DRAW_PATH = Tool(
    name="draw_path",
    description="Draw a polyline through the given points.",
    schema={
        "type": "object",
        "properties": {
            "points": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                    "required": ["x", "y"],
                },
                "minItems": 2,
                "maxItems": 1000,
            },
            "closed": {"type": "boolean"},
            "stroke": {
                "type": "object",
                "properties": {
                    "color": {"type": "string", "pattern": "^#[0-9a-fA-F]{6}$"},
                    "width": {"type": "number", "minimum": 0.5, "maximum": 20},
                },
                "required": ["color"],
            },
        },
        "required": ["points"],
    },
    valid_args={"points": POINTS, "closed": False, "stroke": {"color": "#1e90ff", "width": 2}},
    invalid_args={"points": BAD_POINTS, "closed": 0, "stroke": {"color": "blue", "width": 40}},
)

TOOLS: tuple[Tool, ...] = (SET_VOLUME, UPDATE_CARD, MOVE_TO, SEARCH, BULK_UPDATE, DRAW_PATH)

ROWS: list[dict[str, Any]] = [
    {"id": i, "name": f"row {i}", "tags": ["imported", f"batch-{i % 4}"]} for i in range(100)
]

# Not one of the six: ``uniqueItems`` over an array of objects on its own (issue 12), where
# uniqueness means JSON equality of whole objects. The invalid args repeat the first row at the
# end, so every pair is compared before the duplicate is found.
UNIQUE_OBJECTS = Tool(
    name="import_rows",
    description="Import rows, each at most once.",
    schema={
        "type": "object",
        "properties": {
            "rows": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "name": {"type": "string"},
                        "tags": {"type": "array", "items": {"type": "string"}},
                    },
                    "required": ["id", "name"],
                },
                "uniqueItems": True,
            }
        },
        "required": ["rows"],
    },
    valid_args={"rows": ROWS},
    invalid_args={"rows": [*copy.deepcopy(ROWS), copy.deepcopy(ROWS[0])]},
)

_variant_counter = itertools.count()


def unseen_variant(schema: dict[str, Any]) -> dict[str, Any]:
    """Return a copy of ``schema`` that no cache has seen: every object node gets a new description.

    Changing only the root would let a cache keyed on sub-schemas hit, so every object node
    (root, nested objects, ``oneOf`` branches, array item objects) gets a fresh description.
    """
    tag = f"variant {next(_variant_counter)}"

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            out = {key: walk(value) for key, value in node.items()}
            if out.get("type") == "object":
                out["description"] = tag
            return out
        if isinstance(node, list):
            return [walk(item) for item in node]
        return node

    result: dict[str, Any] = walk(schema)
    return result


def generated(schema: dict[str, Any]) -> Any:
    """The cached validator of ``schema`` with its ``is_valid`` and copier generated: what the
    steady-state rows time. A new validator answers its first calls with the interpreter and
    generates code only once that pays (``pedelec/schema/validator.py``); forcing it here
    keeps a row from timing that stage, or a function reference taken before the switch."""
    import pedelec

    validator = pedelec.compile_schema(schema)
    validator._bool_function()
    validator._copy_function()
    return validator
