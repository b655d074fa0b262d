"""Strict-mode exports for OpenAI, proven against the real ``openai`` and ``openai-agents`` packages.

``agents.strict_schema.ensure_strict_json_schema`` is the Agents SDK's own normaliser to OpenAI's
strict form: an export it leaves unchanged is already strict. The dispatch table shows the way
back: a ``null`` for an optional property reaches the handler as "absent", everything else is
validated as the schema declares it.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from agents.strict_schema import ensure_strict_json_schema
from anthropic.types import ToolParam
from openai.types.chat import ChatCompletionFunctionToolParam
from openai.types.responses import FunctionToolParam
from pydantic import TypeAdapter

from pedelec.adapters import anthropic as anthropic_adapter, openai as adapter
from pedelec.adapters._strict import ANTHROPIC, Blocker, strict_schema
from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.session import Session

ROOT = Path(__file__).resolve().parent.parent

SEARCH = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1, "maxLength": 80, "description": "Words."},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True, "maxItems": 5},
        "target": {
            "oneOf": [
                {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "enum": ["user"]},
                        "id": {"type": "integer"},
                    },
                    "required": ["kind", "id"],
                },
                {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "enum": ["room"]},
                        "name": {"type": "string"},
                    },
                    "required": ["kind"],
                },
            ]
        },
    },
    "required": ["query"],
}

SEARCH_STRICT = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "Words. (minLength: 1, maxLength: 80)"},
        "limit": {
            "anyOf": [
                {"type": "integer", "minimum": 1, "maximum": 50, "description": "(default: 10)"},
                {"type": "null"},
            ]
        },
        "tags": {
            "anyOf": [
                {
                    "type": "array",
                    "maxItems": 5,
                    "description": "(uniqueItems: true)",
                    "items": {"type": "string"},
                },
                {"type": "null"},
            ]
        },
        "target": {
            "anyOf": [
                {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "enum": ["user"]},
                        "id": {"type": "integer"},
                    },
                    "required": ["kind", "id"],
                    "additionalProperties": False,
                },
                {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "enum": ["room"]},
                        "name": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                    },
                    "required": ["kind", "name"],
                    "additionalProperties": False,
                },
                {"type": "null"},
            ]
        },
    },
    "required": ["query", "limit", "tags", "target"],
    "additionalProperties": False,
}

NO_ARGS = {"type": "object"}
FREE_MAP = {"type": "object", "properties": {"meta": {"type": "object"}}}
OVERLAP = {
    "type": "object",
    "properties": {"v": {"oneOf": [{"type": "integer"}, {"type": "number", "maximum": 0.5}]}},
    "required": ["v"],
}


def _workload_schemas() -> dict[str, dict[str, Any]]:
    path = ROOT / "benchmarks" / "workload.py"
    spec = importlib.util.spec_from_file_location("_strict_workload", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return {f"workload {tool.name}": tool.schema for tool in module.TOOLS}


def _upstream_schemas() -> dict[str, dict[str, Any]]:
    text = (ROOT / "tests" / "upstream" / "shape-rain-schemas.json").read_text(encoding="utf-8")
    return {f"shape-rain {name}": schema for name, schema in json.loads(text).items()}


STRICT_SCHEMAS = {
    **_workload_schemas(),
    **_upstream_schemas(),
    "table search": SEARCH,
    "table nested array of objects": {
        "type": "object",
        "properties": {
            "rows": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"a": {"type": "boolean"}, "b": {"type": "number"}},
                    "required": ["a"],
                },
            }
        },
    },
}


def chat_call(arguments: Any) -> dict[str, Any]:
    return {
        "id": "c1",
        "type": "function",
        "function": {"name": "notes__search", "arguments": arguments},
    }


def session_with(schema: dict[str, Any], seen: list[dict[str, Any]] | None = None) -> Session:
    session = Session()

    @session.on_tool("notes.search", description="Search notes.", schema=schema)
    def search(args: dict[str, Any]) -> dict[str, Any]:
        if seen is not None:
            seen.append(args)
        return {"ok": True}

    return session


def test_the_strict_form_of_a_table_schema() -> None:
    assert strict_schema(SEARCH) == SEARCH_STRICT


@pytest.mark.parametrize("name", sorted(STRICT_SCHEMAS))
def test_ensure_strict_json_schema_leaves_every_strict_export_unchanged(name: str) -> None:
    session = session_with(STRICT_SCHEMAS[name])
    for tool in adapter.responses_tools(session, strict=True):
        assert tool["strict"] is True
        exported = tool["parameters"]
        assert ensure_strict_json_schema(copy.deepcopy(exported)) == exported
    (chat,) = adapter.chat_tools(session, strict=True)
    assert chat["function"]["strict"] is True
    assert chat["function"]["parameters"] == strict_schema(STRICT_SCHEMAS[name])


def test_the_sdk_types_accept_the_strict_exports() -> None:
    session = session_with(SEARCH)
    (chat,) = adapter.chat_tools(session)
    (responses,) = adapter.responses_tools(session)
    assert TypeAdapter(ChatCompletionFunctionToolParam).validate_python(chat) == chat
    assert TypeAdapter(FunctionToolParam).validate_python(responses) == responses
    assert chat["function"]["parameters"] == SEARCH_STRICT
    assert responses == {
        "type": "function",
        "name": "notes__search",
        "description": "Search notes.",
        "parameters": SEARCH_STRICT,
        "strict": True,
    }


BLOCKERS = [
    (
        FREE_MAP,
        "/properties/meta",
        "an object that declares no properties accepts any keys, and strict mode closes every "
        "object",
    ),
    (
        OVERLAP,
        "/properties/v/oneOf",
        "branches 0 and 1 are not proven disjoint, so anyOf (the only union strict mode "
        "accepts) could accept values oneOf rejects",
    ),
    # OpenAI's size limits (see the profiles in pedelec/adapters/_strict.py for the source).
    (
        {
            "type": "object",
            "properties": {
                "a": {"type": "integer", "enum": list(range(600))},
                "b": {"type": "integer", "enum": list(range(401))},
            },
        },
        "/properties/b",
        "OpenAI strict mode allows 1000 enum values in one schema",
    ),
    (
        {
            "type": "object",
            "properties": {"e": {"type": "string", "enum": [f"{i:060d}" for i in range(251)]}},
        },
        "/properties/e",
        "OpenAI strict mode allows a string enum of more than 250 values 15000 characters in "
        "all; this one has 15060",
    ),
    (
        {"type": "object", "properties": {f"{i:0121d}": {"type": "boolean"} for i in range(1000)}},
        "",
        "OpenAI strict mode allows 120000 characters of property names and enum values in one "
        "schema",
    ),
]


@pytest.mark.parametrize(("schema", "where", "reason"), BLOCKERS)
def test_a_schema_that_cannot_be_strict(schema: dict[str, Any], where: str, reason: str) -> None:
    assert strict_schema(schema) == Blocker(where, reason)
    session = session_with(schema)
    (auto,) = adapter.responses_tools(session)
    assert (auto["strict"], auto["parameters"]) == (False, schema)
    (chat,) = adapter.chat_tools(session, strict="auto")
    assert (chat["function"]["strict"], chat["function"]["parameters"]) == (False, schema)
    assert adapter.strict_problems(session) == {"notes.search": Blocker(where, reason)}
    for export in (adapter.chat_tools, adapter.responses_tools):
        with pytest.raises(PedelecError) as info:
            export(session, strict=True)
        assert info.value.code == INVALID_INPUT
        at = f'at "{where}", ' if where else ""  # a root reason speaks of the whole tool
        assert info.value.message == (
            f'Tool "notes.search" cannot be exported in OpenAI strict mode: {at}'
            f'{reason}; pass strict="auto" to export it non-strict.'
        )
        assert info.value.details == {"tool": "notes.search", "pointer": where}


NO_ARGS_REASON = (
    "the tool's arguments object declares no properties, so it accepts any arguments, and "
    "strict mode closes every object"
)


@pytest.mark.parametrize("schema", [NO_ARGS, {"type": "object", "properties": {}}])
def test_a_tool_declaring_no_properties_is_not_strict(schema: dict[str, Any]) -> None:
    # The tool takes any keys (reject_unknown_args is off), so a closed {} would not be exact.
    session = session_with(schema)
    (auto,) = adapter.responses_tools(session)
    assert (auto["strict"], auto["parameters"]) == (False, schema)
    assert adapter.strict_problems(session) == {"notes.search": Blocker("", NO_ARGS_REASON)}
    (tool,) = anthropic_adapter.tools(session)
    assert (tool["strict"], tool["input_schema"]) == (False, schema)
    with pytest.raises(PedelecError) as info:
        adapter.chat_tools(session, strict=True)
    assert (info.value.code, info.value.message, info.value.details) == (
        INVALID_INPUT,
        'Tool "notes.search" cannot be exported in OpenAI strict mode: the tool\'s arguments '
        "object declares no properties, so it accepts any arguments, and strict mode closes "
        'every object; pass strict="auto" to export it non-strict.',
        {"tool": "notes.search", "pointer": ""},
    )
    assert session.dispatch_sync("notes.search", {"any": 1}).value == {"ok": True}


def test_strict_false_exports_the_schema_as_declared() -> None:
    (tool,) = adapter.responses_tools(session_with(SEARCH), strict=False)
    assert (tool["strict"], tool["parameters"]) == (False, SEARCH)


@pytest.mark.parametrize("strict", ["yes", 1, None])
def test_strict_takes_true_false_or_auto(strict: Any) -> None:
    with pytest.raises(PedelecError) as info:
        adapter.chat_tools(session_with(SEARCH), strict=strict)
    assert info.value.code == INVALID_INPUT
    shown = {"yes": '"yes"', 1: "1", None: "a NoneType"}[strict]
    assert info.value.message == f'strict must be True, False or "auto", not {shown}.'


def test_an_over_deep_schema_is_not_strict() -> None:
    node: dict[str, Any] = {"type": "object", "properties": {"x": {"type": "integer"}}}
    for _ in range(10):
        node = {"type": "object", "properties": {"n": node}, "required": ["n"]}
    assert strict_schema(node) == Blocker(
        "/properties/n" * 10, "OpenAI strict mode allows 10 levels of nesting"
    )


# --- the way back: null is absent, everything else is validated -------------------------------

CALLS = [
    ('{"query": "a", "limit": null}', {"query": "a"}),
    (
        '{"query": "a", "limit": null, "tags": null, "target": null}',
        {"query": "a"},
    ),
    (
        {"query": "a", "target": {"kind": "room", "name": None}},
        {"query": "a", "target": {"kind": "room"}},
    ),
    (
        {"query": "a", "target": {"kind": "user", "id": 3}, "limit": 4},
        {"query": "a", "target": {"kind": "user", "id": 3}, "limit": 4},
    ),
]


@pytest.mark.parametrize(("arguments", "handler_args"), CALLS)
def test_null_for_an_optional_property_reaches_the_handler_as_absent(
    arguments: Any, handler_args: dict[str, Any]
) -> None:
    seen: list[dict[str, Any]] = []
    session = session_with(SEARCH, seen)
    calls = [
        {
            "id": "c1",
            "type": "function",
            "function": {"name": "notes__search", "arguments": arguments},
        }
    ]
    (message,) = adapter.dispatch_tool_calls_sync(session, calls)
    assert json.loads(message["content"]) == {"ok": True}
    items = [
        {"type": "function_call", "call_id": "c2", "name": "notes__search", "arguments": arguments}
    ]
    (output,) = adapter.dispatch_responses_calls_sync(session, items)
    assert json.loads(output["output"]) == {"ok": True}
    assert seen == [handler_args, handler_args]


REJECTED = [
    ('{"query": null}', "/query", "type", "expected string, got null"),
    ('{"query": "a", "limit": 0}', "/limit", "minimum", "must be >= 1, got 0"),
    (
        '{"query": "", "limit": null}',
        "/query",
        "minLength",
        "must be at least 1 character long, got 0",
    ),
    (
        '{"query": "a", "tags": ["x", "x"], "limit": null}',
        "/tags/1",
        "uniqueItems",
        "duplicate of item 0",
    ),
    (
        '{"query": "a", "target": {"kind": "user", "id": null}}',
        "/target",
        "oneOf",
        "matches none of the 2 alternatives: [1] /target/id: expected integer, got null; "
        '[2] /target/kind: must be one of "room"; got "user"',
    ),
]


@pytest.mark.parametrize(("arguments", "where", "keyword", "message"), REJECTED)
def test_a_bad_value_is_still_rejected_at_its_path(
    arguments: str, where: str, keyword: str, message: str
) -> None:
    seen: list[dict[str, Any]] = []
    session = session_with(SEARCH, seen)
    (reply,) = adapter.dispatch_tool_calls_sync(session, [chat_call(arguments)])
    assert json.loads(reply["content"])["error"] == {
        "code": "TOOL_ARGS_INVALID",
        "message": f'Invalid arguments for tool "notes__search": {where}: {message} ({keyword}). '
        "Correct the arguments and call the tool again.",
        "details": {
            "tool": "notes__search",
            "errors": [{"path": where, "keyword": keyword, "message": message}],
        },
    }
    assert seen == []


def test_json_text_the_adapter_cannot_read_goes_to_the_session_unchanged() -> None:
    session = session_with(SEARCH)
    (reply,) = adapter.dispatch_tool_calls_sync(session, [chat_call('{"limit": null, "limit": 1}')])
    assert json.loads(reply["content"])["error"]["message"] == (
        'Invalid arguments for tool "notes__search": args are not valid JSON: duplicate key '
        '"limit" in the object at the root (line 1, column 17); send each key once. Correct the '
        "arguments and call the tool again."
    )


# --- Anthropic: closed objects, optional stays optional, caps per request ---------------------

SEARCH_ANTHROPIC = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "Words. (minLength: 1, maxLength: 80)"},
        "limit": {"type": "integer", "description": "(minimum: 1, maximum: 50, default: 10)"},
        "tags": {
            "type": "array",
            "description": "(uniqueItems: true, maxItems: 5)",
            "items": {"type": "string"},
        },
        "target": {
            "anyOf": [
                {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "enum": ["user"]},
                        "id": {"type": "integer"},
                    },
                    "required": ["kind", "id"],
                    "additionalProperties": False,
                },
                {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "enum": ["room"]},
                        "name": {"type": "string"},
                    },
                    "required": ["kind"],
                    "additionalProperties": False,
                },
            ]
        },
    },
    "required": ["query"],
    "additionalProperties": False,
}


def test_the_anthropic_strict_form_and_the_sdk_type() -> None:
    assert strict_schema(SEARCH, ANTHROPIC) == SEARCH_ANTHROPIC
    (tool,) = anthropic_adapter.tools(session_with(SEARCH))
    assert tool == {
        "name": "notes__search",
        "description": "Search notes.",
        "input_schema": SEARCH_ANTHROPIC,
        "strict": True,
    }
    assert TypeAdapter(ToolParam).validate_python(tool) == tool


def test_anthropic_keeps_only_plain_patterns() -> None:
    schema = {
        "type": "object",
        "properties": {
            "plain": {"type": "string", "pattern": "^[a-z]+(-[a-z]+)*$"},
            "word": {"type": "string", "pattern": "\\bbike"},
            "again": {"type": "string", "pattern": "(a)\\1"},
            "ahead": {"type": "string", "pattern": "^(?!x)"},
        },
    }
    assert strict_schema(schema, ANTHROPIC) == {
        "type": "object",
        "properties": {
            "plain": {"type": "string", "pattern": "^[a-z]+(-[a-z]+)*$"},
            "word": {"type": "string", "description": '(pattern: "\\\\bbike")'},
            "again": {"type": "string", "description": '(pattern: "(a)\\\\1")'},
            "ahead": {"type": "string", "description": '(pattern: "^(?!x)")'},
        },
        "required": [],
        "additionalProperties": False,
    }
    # OpenAI documents no such restriction: every pattern is kept.
    exported = strict_schema(schema)
    assert not isinstance(exported, Blocker)
    assert [node["anyOf"][0]["pattern"] for node in exported["properties"].values()] == [
        "^[a-z]+(-[a-z]+)*$",
        "\\bbike",
        "(a)\\1",
        "^(?!x)",
    ]
    # The moved pattern is still enforced on every call.
    session = session_with(schema)
    (result,) = anthropic_adapter.dispatch_tool_uses_sync(
        session, [{"type": "tool_use", "id": "t1", "name": "notes__search", "input": {"word": "e"}}]
    )
    assert result["is_error"] is True
    assert '"keyword":"pattern"' in result["content"]


def _many(count: int, optional: int) -> Session:
    session = Session()
    # One required property: a tool declaring none is never strict, whatever the caps.
    schema = {
        "type": "object",
        "properties": {"id": {"type": "integer"}}
        | {f"p{i}": {"type": "integer"} for i in range(optional)},
        "required": ["id"],
    }
    for n in range(count):
        session.on_tool(f"t{n}", description="T.", schema=schema)(lambda a: a)
    return session


def _unions(count: int, unions: int) -> Session:
    session = Session()
    union = {"oneOf": [{"type": "string"}, {"type": "integer"}]}
    schema = {
        "type": "object",
        "properties": {f"p{i}": union for i in range(unions)},
        "required": [f"p{i}" for i in range(unions)],
    }
    for n in range(count):
        session.on_tool(f"t{n}", description="T.", schema=schema)(lambda a: a)
    return session


CAPS = [
    (
        _unions(2, 9),
        "t1",
        "Anthropic allows 16 union parameters (anyOf) across the strict tools of one request; "
        "this tool has 9 and the strict tools before it 9",
    ),
    (
        _many(3, 10),
        "t2",
        "Anthropic allows 24 optional parameters (not in required) across the strict tools of "
        "one request; this tool has 10 and the strict tools before it 20",
    ),
    (
        _many(21, 0),
        "t20",
        "Anthropic allows 20 strict tools across the strict tools of one request; this tool has "
        "1 and the strict tools before it 20",
    ),
]


@pytest.mark.parametrize(("session", "last", "reason"), CAPS)
def test_past_anthropics_caps_a_tool_is_not_strict(
    session: Session, last: str, reason: str
) -> None:
    exported = anthropic_adapter.tools(session)
    assert [t["strict"] for t in exported] == [True] * (len(exported) - 1) + [False]
    assert anthropic_adapter.strict_problems(session) == {last: Blocker("", reason)}
    with pytest.raises(PedelecError) as info:
        anthropic_adapter.tools(session, strict=True)
    assert info.value.message == (
        f'Tool "{last}" cannot be exported in Anthropic strict mode: {reason}; pass '
        'strict="auto" to export it non-strict.'
    )


def test_a_tool_declaring_no_properties_does_not_count_against_anthropics_caps() -> None:
    session = Session()
    session.on_tool("ping", description="P.", schema=NO_ARGS)(lambda a: a)
    one = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
    for n in range(20):
        session.on_tool(f"t{n}", description="T.", schema=one)(lambda a: a)
    assert [t["strict"] for t in anthropic_adapter.tools(session)] == [False] + [True] * 20
    assert anthropic_adapter.strict_problems(session) == {"ping": Blocker("", NO_ARGS_REASON)}


def test_anthropic_null_for_an_optional_property_is_absent() -> None:
    seen: list[dict[str, Any]] = []
    session = session_with(SEARCH, seen)
    blocks = [
        {
            "type": "tool_use",
            "id": "u1",
            "name": "notes__search",
            "input": {"query": "a", "limit": None},
        },
        {"type": "tool_use", "id": "u2", "name": "notes__search", "input": {"query": None}},
    ]
    ok, bad = anthropic_adapter.dispatch_tool_uses_sync(session, blocks)
    assert (json.loads(ok["content"]), "is_error" in ok) == ({"ok": True}, False)
    assert json.loads(bad["content"])["error"]["details"]["errors"] == [
        {"path": "/query", "keyword": "type", "message": "expected string, got null"}
    ]
    assert seen == [{"query": "a"}]


# --- messages name tools as the provider's model saw them -------------------------------------


def test_did_you_mean_uses_the_exported_name() -> None:
    session = session_with(SEARCH)
    (reply,) = adapter.dispatch_tool_calls_sync(
        session,
        [{"id": "c1", "type": "function", "function": {"name": "notes__serch", "arguments": "{}"}}],
    )
    assert json.loads(reply["content"])["error"] == {
        "code": "TOOL_NOT_FOUND",
        "message": 'Unknown tool "notes__serch". Did you mean "notes__search"?',
        "details": {"tool": "notes__serch"},
    }
    blocks = [{"type": "tool_use", "id": "u1", "name": "notes_search", "input": {}}]
    (block,) = anthropic_adapter.dispatch_tool_uses_sync(session, blocks)
    assert json.loads(block["content"])["error"]["message"] == (
        'Unknown tool "notes_search". Did you mean "notes__search"?'
    )


def test_a_handler_error_names_the_exported_tool() -> None:
    session = Session()

    @session.on_tool("notes.fail", description="Fails.", schema=NO_ARGS)
    def fail(args: dict[str, Any]) -> None:
        raise ValueError("boom")

    items = [{"type": "function_call", "call_id": "c1", "name": "notes__fail", "arguments": "{}"}]
    (output,) = adapter.dispatch_responses_calls_sync(session, items)
    assert json.loads(output["output"])["error"] == {
        "code": "TOOL_HANDLER_ERROR",
        "message": 'Tool "notes__fail" failed: ValueError: boom',
        "details": {"tool": "notes__fail", "exception": "ValueError"},
    }
