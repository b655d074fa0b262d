"""The Gemini adapter against the real ``google-genai`` package's types.

Every exported declaration is validated by ``google.genai.types`` (whose models forbid unknown
fields), and function calls are genuine SDK objects (``GenerateContentResponse``, ``Part``,
``FunctionCall``) or plain dicts of the same shape.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _adapter_sessions import DELTA, TEXT, make_session as editing_session
from google.genai import types

from pedelec.adapters import gemini as adapter
from pedelec.adapters._names import GEMINI_NAMES, name_map
from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.session import Session

ROOT = Path(__file__).resolve().parent.parent


def make_session() -> Session:
    """The shared editing session and a tool whose result is a bare number."""
    session = editing_session()

    @session.on_tool("word_count", description="Count words.", schema=TEXT)
    def word_count(args: dict[str, Any]) -> int:
        return len(args["text"].split())

    return session


def one_tool(schema: dict[str, Any]) -> Session:
    session = Session()
    session.on_tool("t", description="A tool.", schema=schema)(lambda args: args)
    return session


def response(parts: list[dict[str, Any]]) -> types.GenerateContentResponse:
    return types.GenerateContentResponse.model_validate(
        {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]}
    )


def call(name: str, args: Any, call_id: str | None = None) -> dict[str, Any]:
    function_call: dict[str, Any] = {"name": name, "args": args}
    if call_id is not None:
        function_call["id"] = call_id
    return {"functionCall": function_call}


def answer(name: str, response: dict[str, Any], call_id: str | None = None) -> dict[str, Any]:
    function_response: dict[str, Any] = {"name": name, "response": response}
    if call_id is not None:
        function_response = {"id": call_id, **function_response}
    return {"functionResponse": function_response}


# --- the schemas every export is validated with -------------------------------------------------


def _workload_schemas() -> dict[str, dict[str, Any]]:
    path = ROOT / "benchmarks" / "workload.py"
    spec = importlib.util.spec_from_file_location("_gemini_workload", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return {f"workload {tool.name}": tool.schema for tool in module.TOOLS}


def _upstream_schemas() -> dict[str, dict[str, Any]]:
    text = (ROOT / "tests" / "upstream" / "shape-rain-schemas.json").read_text(encoding="utf-8")
    return {f"shape-rain {name}": schema for name, schema in json.loads(text).items()}


EVERY_KEYWORD = {
    "type": "object",
    "description": "Every keyword of the subset.",
    "properties": {
        "s": {
            "type": "string",
            "enum": ["a", "bb"],
            "minLength": 1,
            "maxLength": 2,
            "pattern": "^[ab]+$",
            "default": "a",
            "examples": ["bb"],
            "description": "A string.",
        },
        "n": {"type": "number", "minimum": 0.5, "maximum": 9.5, "enum": [1, 2.5]},
        "i": {"type": "integer", "minimum": 0, "maximum": 3, "default": 1, "examples": [2]},
        "b": {"type": "boolean", "enum": [True]},
        "a": {
            "type": "array",
            "items": {"type": "array", "items": {"type": "integer", "enum": [0, 1]}},
            "minItems": 1,
            "maxItems": 4,
            "uniqueItems": True,
        },
        "o": {
            "type": "object",
            "properties": {"x": {"type": "string"}},
            "required": ["x"],
            "default": {"x": "y"},
        },
        "u": {"oneOf": [{"type": "string"}, {"type": "integer"}], "description": "Either."},
        "open": {"type": "object"},
    },
    "required": ["s"],
}

SCHEMAS: dict[str, dict[str, Any]] = {
    **_workload_schemas(),
    **_upstream_schemas(),
    "every keyword": EVERY_KEYWORD,
    "no properties": {"type": "object"},
    "oneOf of objects": {
        "type": "object",
        "properties": {
            "shape": {
                "oneOf": [
                    {"type": "object", "properties": {"r": {"type": "number"}}, "required": ["r"]},
                    {"type": "object", "properties": {"w": {"type": "number"}}, "required": ["w"]},
                ]
            }
        },
    },
    "numeric and boolean enums": {
        "type": "object",
        "properties": {
            "level": {"type": "integer", "enum": [1, 2, 3]},
            "ratio": {"type": "number", "enum": [0.5, 1]},
            "flag": {"type": "boolean", "enum": [False]},
        },
    },
    "nested arrays": {
        "type": "object",
        "properties": {
            "grid": {
                "type": "array",
                "items": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
            }
        },
    },
}


def _sdk_dump(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


@pytest.mark.parametrize("form", ["json_schema", "openapi"])
@pytest.mark.parametrize("label", list(SCHEMAS))
def test_every_export_is_a_valid_sdk_function_declaration(label: str, form: Any) -> None:
    (declaration,) = adapter.function_declarations(one_tool(SCHEMAS[label]), form=form)
    model = types.FunctionDeclaration.model_validate(declaration)
    # The SDK kept every field (its models forbid unknown ones, and nothing was dropped).
    assert _sdk_dump(model) == declaration
    tool = types.Tool(function_declarations=[declaration])
    assert tool.function_declarations == [model]


@pytest.mark.parametrize("label", list(SCHEMAS))
def test_json_schema_form_is_the_schema_as_it_is(label: str) -> None:
    assert adapter.function_declarations(one_tool(SCHEMAS[label])) == [
        {"name": "t", "description": "A tool.", "parametersJsonSchema": SCHEMAS[label]}
    ]


def test_openapi_form_of_every_keyword() -> None:
    (declaration,) = adapter.function_declarations(one_tool(EVERY_KEYWORD), form="openapi")
    assert declaration == {
        "name": "t",
        "description": "A tool.",
        "parameters": {
            "type": "OBJECT",
            "description": "Every keyword of the subset.",
            "properties": {
                "s": {
                    "type": "STRING",
                    "enum": ["a", "bb"],
                    "minLength": 1,
                    "maxLength": 2,
                    "pattern": "^[ab]+$",
                    "default": "a",
                    "description": 'A string. Examples: "bb".',
                },
                "n": {
                    "type": "NUMBER",
                    "minimum": 0.5,
                    "maximum": 9.5,
                    "description": "One of: 1, 2.5.",
                },
                "i": {
                    "type": "INTEGER",
                    "minimum": 0,
                    "maximum": 3,
                    "default": 1,
                    "description": "Examples: 2.",
                },
                "b": {"type": "BOOLEAN", "description": "One of: true."},
                "a": {
                    "type": "ARRAY",
                    "items": {
                        "type": "ARRAY",
                        "items": {"type": "INTEGER", "description": "One of: 0, 1."},
                    },
                    "minItems": 1,
                    "maxItems": 4,
                    "description": "Items must be unique.",
                },
                "o": {
                    "type": "OBJECT",
                    "properties": {"x": {"type": "STRING"}},
                    "required": ["x"],
                    "default": {"x": "y"},
                },
                "u": {"anyOf": [{"type": "STRING"}, {"type": "INTEGER"}], "description": "Either."},
                "open": {"type": "OBJECT"},
            },
            "required": ["s"],
        },
    }


OPENAPI_ROWS: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = [
    # (what, Tool Args Schema, the "parameters" exported; None: no "parameters" at all)
    ("no properties: no parameters", {"type": "object"}, None),
    ("empty properties: no parameters", {"type": "object", "properties": {}}, None),
    (
        "uniqueItems false says nothing",
        {
            "type": "object",
            "properties": {
                "a": {"type": "array", "items": {"type": "string"}, "uniqueItems": False}
            },
        },
        {"type": "OBJECT", "properties": {"a": {"type": "ARRAY", "items": {"type": "STRING"}}}},
    ),
    (
        "oneOf with a numeric enum branch",
        {
            "type": "object",
            "properties": {
                "size": {
                    "oneOf": [
                        {"type": "string", "enum": ["small", "large"]},
                        {"type": "integer", "enum": [8, 16], "description": "Pixels."},
                    ]
                }
            },
        },
        {
            "type": "OBJECT",
            "properties": {
                "size": {
                    "anyOf": [
                        {"type": "STRING", "enum": ["small", "large"]},
                        {"type": "INTEGER", "description": "Pixels. One of: 8, 16."},
                    ]
                }
            },
        },
    ),
    (
        "examples are rendered as JSON",
        {"type": "object", "properties": {"q": {"type": "string", "examples": ['say "hi"', "é"]}}},
        {
            "type": "OBJECT",
            "properties": {
                "q": {"type": "STRING", "description": 'Examples: "say \\"hi\\"", "é".'}
            },
        },
    ),
]


@pytest.mark.parametrize(
    ("schema", "parameters"),
    [pytest.param(schema, parameters, id=what) for what, schema, parameters in OPENAPI_ROWS],
)
def test_openapi_form(schema: dict[str, Any], parameters: dict[str, Any] | None) -> None:
    expected: dict[str, Any] = {"name": "t", "description": "A tool."}
    if parameters is not None:
        expected["parameters"] = parameters
    assert adapter.function_declarations(one_tool(schema), form="openapi") == [expected]


def test_declarations_of_a_session_keep_dotted_names() -> None:
    assert adapter.function_declarations(make_session()) == [
        {
            "name": "update_counter",
            "description": "Change the counter.",
            "parametersJsonSchema": DELTA,
        },
        {
            "name": "editor.replace_selection",
            "description": "Replace the selection.",
            "parametersJsonSchema": TEXT,
        },
        {
            "name": "explode",
            "description": "Always fails.",
            "parametersJsonSchema": {"type": "object"},
        },
        {"name": "word_count", "description": "Count words.", "parametersJsonSchema": TEXT},
    ]


def test_exported_schemas_are_fresh_copies() -> None:
    session = make_session()
    for form in ("json_schema", "openapi"):
        declaration = adapter.function_declarations(session, form=form)[0]
        parameters = declaration.get("parametersJsonSchema") or declaration.get("parameters")
        assert parameters is not None
        parameters["properties"]["delta"]["maximum"] = 5
        parameters["required"].append("x")
    assert session.tool_spec("update_counter")["argsSchema"] == DELTA


def test_an_over_long_name_is_invalid_input_at_export() -> None:
    session = make_session()
    name = "a" * 40 + "." + "b" * 24  # 65 characters
    session.on_tool(name, description="Long.", schema={"type": "object"})(lambda a: a)
    with pytest.raises(PedelecError) as info:
        adapter.function_declarations(session)
    assert info.value.code == INVALID_INPUT
    assert info.value.message == (
        f'Tool "{name}" would be sent to Gemini as a name of 65 characters; '
        "Gemini allows at most 64."
    )


def test_a_name_of_64_characters_is_sent() -> None:
    name = "a" * 31 + "." + "b" * 32
    session = Session()
    session.on_tool(name, description="Long.", schema={"type": "object"})(lambda a: a)
    assert [d["name"] for d in adapter.function_declarations(session)] == [name]
    types.FunctionDeclaration.model_validate(adapter.function_declarations(session)[0])


def test_an_unknown_form_is_a_value_error() -> None:
    with pytest.raises(ValueError) as info:
        adapter.function_declarations(make_session(), form="yaml")  # type: ignore[arg-type]
    assert str(info.value) == 'form must be "json_schema" or "openapi", got \'yaml\''


# --- dispatch -----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_dispatch_an_sdk_response_skipping_text() -> None:
    reply = response(
        [
            {"text": "Let me do both."},
            call("editor.replace_selection", {"text": "hi"}, "c1"),
            call("update_counter", {"delta": 3}, "c2"),
        ]
    )
    assert reply.function_calls is not None
    assert [type(fc) for fc in reply.function_calls] == [types.FunctionCall] * 2
    expected = [
        answer(
            "editor.replace_selection",
            {"output": {"replaced": "hi", "request": "c1", "turn": "turn-1"}},
            "c1",
        ),
        answer("update_counter", {"output": {"value": 3}}, "c2"),
    ]
    session = make_session()
    assert (
        await adapter.dispatch_function_calls(session, reply.function_calls, turn_id="turn-1")
        == expected
    )
    parts = reply.candidates[0].content.parts  # type: ignore[index, union-attr]
    assert [type(part) for part in parts or []] == [types.Part] * 3
    assert await adapter.dispatch_function_calls(session, parts, turn_id="turn-1") == expected


@pytest.mark.asyncio
async def test_a_call_without_an_id_is_run_and_answered_without_one() -> None:
    session = make_session()
    parts = await adapter.dispatch_function_calls(
        session, [{"name": "editor.replace_selection", "args": {"text": "x"}}]
    )
    (part,) = parts
    output = part["functionResponse"]["response"]["output"]
    # The handler still gets an id of its own: the session's fresh one.
    assert output["request"].startswith("call_")
    assert part == answer(
        "editor.replace_selection",
        {"output": {"replaced": "x", "request": output["request"], "turn": None}},
    )


@pytest.mark.asyncio
async def test_results_that_are_not_objects_are_wrapped_in_output() -> None:
    parts = await adapter.dispatch_function_calls(
        make_session(), [call("word_count", {"text": "a b c"}, "w")]
    )
    assert parts == [answer("word_count", {"output": 3}, "w")]


MALFORMED: list[tuple[str, Any, dict[str, Any]]] = [
    # (what, the call as the model sent it, the functionResponse that answers it)
    (
        "invalid args",
        call("update_counter", {"delta": "3"}, "1"),
        {
            "id": "1",
            "name": "update_counter",
            "response": {
                "error": {
                    "code": "TOOL_ARGS_INVALID",
                    "message": 'Invalid arguments for tool "update_counter": /delta: expected '
                    'integer, got string "3" (type). Correct the arguments and call the tool '
                    "again.",
                    "details": {
                        "tool": "update_counter",
                        "errors": [
                            {
                                "path": "/delta",
                                "keyword": "type",
                                "message": 'expected integer, got string "3"',
                            }
                        ],
                    },
                }
            },
        },
    ),
    (
        "args that are not an object",
        call("update_counter", [3], "2"),
        {
            "id": "2",
            "name": "update_counter",
            "response": {
                "error": {
                    "code": "TOOL_ARGS_INVALID",
                    "message": 'Invalid arguments for tool "update_counter": (root): expected '
                    "object, got array of 1 item (type). Correct the arguments and call the tool "
                    "again.",
                    "details": {
                        "tool": "update_counter",
                        "errors": [
                            {
                                "path": "",
                                "keyword": "type",
                                "message": "expected object, got array of 1 item",
                            }
                        ],
                    },
                }
            },
        },
    ),
    (
        "unknown tool",
        call("nope", {}, "3"),
        {
            "id": "3",
            "name": "nope",
            "response": {
                "error": {
                    "code": "TOOL_NOT_FOUND",
                    "message": 'Unknown tool "nope". Available tools: "update_counter", '
                    '"editor.replace_selection", "explode", "word_count".',
                    "details": {"tool": "nope"},
                }
            },
        },
    ),
    (
        "handler raised",
        call("explode", None, "4"),
        {
            "id": "4",
            "name": "explode",
            "response": {
                "error": {
                    "code": "TOOL_HANDLER_ERROR",
                    "message": 'Tool "explode" failed: ValueError: boom',
                    "details": {"tool": "explode", "exception": "ValueError"},
                }
            },
        },
    ),
    (
        "no name",
        {"functionCall": {"id": "5", "args": {}}},
        {
            "id": "5",
            "name": "",
            "response": {
                "error": {
                    "code": "TOOL_NOT_FOUND",
                    "message": "A functionCall arrived without a tool name; call one of the "
                    "session's tools by name.",
                }
            },
        },
    ),
    (
        "a name that is not a string",
        {"name": 7, "args": {}, "id": "6"},
        {
            "id": "6",
            "name": "",
            "response": {
                "error": {
                    "code": "TOOL_NOT_FOUND",
                    "message": "A functionCall arrived without a tool name; call one of the "
                    "session's tools by name.",
                }
            },
        },
    ),
    (
        "a functionCall that is not an object",
        {"functionCall": "update_counter"},
        {
            "name": "",
            "response": {
                "error": {
                    "code": "TOOL_NOT_FOUND",
                    "message": "A functionCall arrived without a tool name; call one of the "
                    "session's tools by name.",
                }
            },
        },
    ),
]


@pytest.mark.parametrize(
    ("part", "expected"),
    [pytest.param(part, expected, id=what) for what, part, expected in MALFORMED],
)
@pytest.mark.asyncio
async def test_malformed_calls_are_answered_not_raised(part: Any, expected: Any) -> None:
    assert await adapter.dispatch_function_calls(make_session(), [part]) == [
        {"functionResponse": expected}
    ]


@pytest.mark.asyncio
async def test_every_part_comes_back_in_call_order_and_builds_sdk_content() -> None:
    parts = [part for _, part, _ in MALFORMED]
    answers = await adapter.dispatch_function_calls(make_session(), parts)
    assert answers == [{"functionResponse": expected} for _, _, expected in MALFORMED]
    content = types.Content.model_validate({"role": "user", "parts": answers})
    assert [_sdk_dump(part) for part in content.parts or []] == answers


@pytest.mark.asyncio
async def test_sdk_parts_when_asked() -> None:
    parts = await adapter.dispatch_function_calls(
        make_session(), [call("update_counter", {"delta": 1}, "a"), call("nope", {})], sdk=True
    )
    assert parts == [
        types.Part(
            function_response=types.FunctionResponse(
                id="a", name="update_counter", response={"output": {"value": 1}}
            )
        ),
        types.Part(
            function_response=types.FunctionResponse(
                name="nope",
                response={
                    "error": {
                        "code": "TOOL_NOT_FOUND",
                        "message": 'Unknown tool "nope". Available tools: "update_counter", '
                        '"editor.replace_selection", "explode", "word_count".',
                        "details": {"tool": "nope"},
                    }
                },
            )
        ),
    ]
    assert types.Content(role="user", parts=parts).parts == parts


SKIPPED: list[tuple[str, Any]] = [
    ("None", None),
    ("no parts", []),
    ("a text part", [{"text": "Done."}]),
    ("an SDK text part", [types.Part(text="Done.")]),
    ("a part whose functionCall is null", [{"functionCall": None}]),
    ("a string", ["update_counter"]),
]


@pytest.mark.parametrize("parts", [pytest.param(parts, id=what) for what, parts in SKIPPED])
@pytest.mark.asyncio
async def test_parts_that_are_no_calls_are_skipped(parts: Any) -> None:
    assert await adapter.dispatch_function_calls(make_session(), parts) == []


@pytest.mark.asyncio
async def test_the_whole_response_is_a_type_error() -> None:
    reply = response([call("update_counter", {"delta": 1})])
    with pytest.raises(TypeError) as info:
        await adapter.dispatch_function_calls(make_session(), reply)
    assert str(info.value) == (
        "expected response.function_calls (a list), got a GenerateContentResponse"
    )


@pytest.mark.asyncio
async def test_calls_run_concurrently() -> None:
    # Each handler waits for the other to start: run one after the other, both would time out.
    session = Session()
    started = {"a": asyncio.Event(), "b": asyncio.Event()}

    @session.on_tool("meet", description="Meet the other call.", schema=TEXT, timeout_ms=5_000)
    async def meet(args: dict[str, Any]) -> str:
        me, other = args["text"], "b" if args["text"] == "a" else "a"
        started[me].set()
        await started[other].wait()
        return me

    calls = [call("meet", {"text": "a"}, "1"), call("meet", {"text": "b"}, "2")]
    assert await adapter.dispatch_function_calls(session, calls) == [
        answer("meet", {"output": "a"}, "1"),
        answer("meet", {"output": "b"}, "2"),
    ]


def test_dispatch_sync() -> None:
    calls = [types.FunctionCall(id="c", name="editor.replace_selection", args={"text": "x"})]
    assert adapter.dispatch_function_calls_sync(make_session(), calls) == [
        answer(
            "editor.replace_selection",
            {"output": {"replaced": "x", "request": "c", "turn": None}},
            "c",
        )
    ]
    assert adapter.dispatch_function_calls_sync(make_session(), calls, sdk=True) == [
        types.Part(
            function_response=types.FunctionResponse(
                id="c",
                name="editor.replace_selection",
                response={"output": {"replaced": "x", "request": "c", "turn": None}},
            )
        )
    ]


@pytest.mark.asyncio
async def test_sync_dispatch_from_a_running_loop_is_refused() -> None:
    with pytest.raises(RuntimeError) as info:
        adapter.dispatch_function_calls_sync(make_session(), [])
    assert str(info.value) == (
        "dispatch_function_calls_sync() was called from a running event loop; use await "
        "dispatch_function_calls(...) there instead."
    )


def test_no_vendor_package_is_imported() -> None:
    script = (
        "import sys\n"
        "import pedelec, pedelec.adapters.gemini\n"
        "print(','.join(m for m in ('google', 'pydantic') if m in sys.modules))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert completed.stdout == "\n"
    assert completed.stderr == ""


NAMES: list[tuple[str, bool]] = [
    # (name, whether Gemini's rule takes it as it is)
    ("editor.replace_selection", True),
    ("_private", True),
    ("ns:tool-v2", True),
    ("a" * 64, True),
    ("a" * 65, False),
    ("9lives", False),
    ("-dash", False),
    ("has space", False),
    ("café", False),
    ("", False),
]


@pytest.mark.parametrize(("name", "accepted"), NAMES)
def test_gemini_name_rule(name: str, accepted: bool) -> None:
    assert (GEMINI_NAMES.pattern.fullmatch(name) is not None) is accepted


def test_a_name_outside_the_rule_is_invalid_input_naming_it() -> None:
    with pytest.raises(PedelecError) as info:
        name_map(["9lives"], "Gemini", GEMINI_NAMES)
    assert info.value.code == INVALID_INPUT
    assert info.value.message == (
        'Tool "9lives" would be sent to Gemini as "9lives", which does not match Gemini\'s tool '
        "name rule ^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$."
    )
    assert info.value.details == {"tool": "9lives", "providerName": "9lives"}


NUMBERS: list[tuple[Any, dict[str, Any]]] = [
    # (delta as the model sent it, the response)
    (1, {"output": {"value": 1}}),
    (1.0, {"output": {"value": 1.0}}),
    (
        True,
        {
            "error": {
                "code": "TOOL_ARGS_INVALID",
                "message": 'Invalid arguments for tool "update_counter": /delta: expected '
                "integer, got boolean true (type). Correct the arguments and call the tool again.",
                "details": {
                    "tool": "update_counter",
                    "errors": [
                        {
                            "path": "/delta",
                            "keyword": "type",
                            "message": "expected integer, got boolean true",
                        }
                    ],
                },
            }
        },
    ),
]


@pytest.mark.parametrize(("delta", "expected"), NUMBERS)
def test_args_are_validated_as_json_values(delta: Any, expected: dict[str, Any]) -> None:
    calls = [types.FunctionCall(name="update_counter", args={"delta": delta})]
    parts = adapter.dispatch_function_calls_sync(make_session(), calls)
    # Compared as JSON text: 1 == 1.0 == True in Python, but not for the model.
    assert json.dumps(parts) == json.dumps([answer("update_counter", expected)])
