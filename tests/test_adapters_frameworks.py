"""The OpenAI Agents SDK and Pydantic AI adapters, driven by real agent runs.

Each framework runs a real agent against its own kind of test model, which plays a script of
tool calls and records every request, so the tests read exactly what the model was told after
each call:

- Agents SDK: an ``agents.models.interface.Model`` whose responses are the next list of
  ``ResponseFunctionToolCall`` items, then a final text, run by ``Runner.run``.
- Pydantic AI: ``FunctionModel`` (arguments as JSON text or as a dict, as providers send them)
  and ``TestModel`` (which calls every tool with arguments generated from its schema).

Both export strict tools by default; each framework's own normaliser to strict form
(``agents.strict_schema.ensure_strict_json_schema``, Pydantic AI's
``OpenAIJsonSchemaTransformer``) leaves the exports unchanged, and a table of calls shows a
``null`` for an optional property reaching the handler as absent while every bad value still
comes back to the model as pedelec's error, naming the tool as the model saw it.
"""

from __future__ import annotations

import asyncio
import copy
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest
from agents import Agent as AgentsAgent, FunctionTool, RunConfig, Runner, Usage
from agents.items import ModelResponse as AgentsResponse
from agents.models.interface import Model
from agents.strict_schema import ensure_strict_json_schema
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer
from pydantic_ai.tools import ToolDefinition
from test_adapters_strict import SEARCH

from pedelec.adapters._strict import ANTHROPIC, strict_schema
from pedelec.adapters.agents import function_tools
from pedelec.adapters.pydantic_ai import toolset
from pedelec.errors import INVALID_INPUT, TOOL_NOT_FOUND, PedelecError
from pedelec.session import Session

QUERY = {
    "type": "object",
    "properties": {"q": {"type": "string", "minLength": 1}, "limit": {"type": "integer"}},
    "required": ["q"],
}
#: QUERY as OpenAI's strict mode takes it: closed, fully required, ``limit`` nullable.
QUERY_STRICT = {
    "type": "object",
    "properties": {
        "q": {"type": "string", "description": "(minLength: 1)"},
        "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
    },
    "required": ["q", "limit"],
    "additionalProperties": False,
}
#: A tool declaring no arguments accepts any keys: strict mode would close it, so it is never strict.
NO_ARGS = {"type": "object"}
#: A free-form map below the root: strict mode would close it, so it is never strict.
FREE_MAP = {"type": "object", "properties": {"meta": {"type": "object"}}}


def make_session() -> Session:
    session = Session(guidance="Search the notes.")

    @session.on_tool("notes.search", description="Search the notes.", schema=QUERY)
    def search(args: dict[str, Any], ctx: Any) -> dict[str, Any]:
        return {"hits": [args["q"]], "request": ctx.tool_request_id}

    @session.on_tool("explode", description="Always fails.", schema={"type": "object"})
    def explode(args: dict[str, Any]) -> None:
        raise ValueError("boom")

    @session.on_tool("slow", description="Too slow.", schema={"type": "object"}, timeout_ms=10)
    async def slow(args: dict[str, Any]) -> None:
        await asyncio.sleep(5)

    return session


def text(value: Any) -> str:
    """JSON text as ``ToolResult.to_text()`` writes it (compact, key order and non-ASCII kept)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def args_error(path: str, keyword: str, message: str) -> str:
    """pedelec's error for one bad argument, naming the tool as the model saw it."""
    return text(
        {
            "error": {
                "code": "TOOL_ARGS_INVALID",
                "message": f'Invalid arguments for tool "notes__search": {path}: {message} '
                f"({keyword}). Correct the arguments and call the tool again.",
                "details": {
                    "tool": "notes__search",
                    "errors": [{"path": path, "keyword": keyword, "message": message}],
                },
            }
        }
    )


#: What the model reads back for the same calls under both frameworks.
BAD = args_error("/q", "type", "expected string, got integer 3")
NOT_JSON = text(
    {
        "error": {
            "code": "TOOL_ARGS_INVALID",
            "message": 'Invalid arguments for tool "notes__search": args are not valid JSON: '
            'expected "," or "}" after the value at /q (line 1, column 14), found the end of the '
            "text; fix the JSON syntax. Correct the arguments and call the tool again.",
            "details": {"tool": "notes__search", "pointer": "/q", "line": 1, "column": 14},
        }
    }
)
BOOM = text(
    {
        "error": {
            "code": "TOOL_HANDLER_ERROR",
            "message": 'Tool "explode" failed: ValueError: boom',
            "details": {"tool": "explode", "exception": "ValueError"},
        }
    }
)
TIMED_OUT = text(
    {
        "error": {
            "code": "TOOL_TIMEOUT",
            "message": 'Tool "slow" did not finish within 10 ms.',
            "details": {"tool": "slow", "timeoutMs": 10},
        }
    }
)
UNKNOWN = 'Unknown tool "nope". Available tools: "notes.search", "explode", "slow".'


# --- OpenAI Agents SDK ------------------------------------------------------------------------


class Scripted(Model):
    """A model that answers with scripted tool calls, then with the text ``"done"``."""

    def __init__(self, *turns: list[tuple[str, str, str]]) -> None:
        self.turns = list(turns)
        self.inputs: list[Any] = []
        self.tools: list[Any] = []

    async def get_response(
        self,
        system_instructions: str | None,
        input: Any,
        model_settings: Any,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: Any,
        *,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        prompt: Any = None,
    ) -> AgentsResponse:
        self.inputs.append(input)
        self.tools.append(tools)
        output: list[Any]
        if self.turns:
            output = [
                ResponseFunctionToolCall(
                    type="function_call", call_id=call_id, name=name, arguments=arguments
                )
                for call_id, name, arguments in self.turns.pop(0)
            ]
        else:
            text = ResponseOutputText(type="output_text", text="done", annotations=[])
            output = [
                ResponseOutputMessage(
                    id="msg_1", type="message", role="assistant", status="completed", content=[text]
                )
            ]
        return AgentsResponse(output=output, usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError


def run(session: Session, model: Scripted) -> str:
    agent = AgentsAgent(
        name="assistant", instructions=session.guidance, tools=function_tools(session)
    )
    config = RunConfig(model=model, tracing_disabled=True)
    result = asyncio.run(Runner.run(agent, "Find the notes about bikes.", run_config=config))
    return str(result.final_output)


def outputs(model: Scripted) -> dict[str, str]:
    """The tool outputs the model received in its last request, by call id."""
    return {
        item["call_id"]: item["output"]
        for item in model.inputs[-1]
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    }


def test_export() -> None:
    tools = function_tools(make_session())
    assert [type(t) for t in tools] == [FunctionTool] * 3
    assert [(t.name, t.description, t.strict_json_schema) for t in tools] == [
        ("notes__search", "Search the notes.", True),
        ("explode", "Always fails.", False),
        ("slow", "Too slow.", False),
    ]
    assert [t.params_json_schema for t in tools] == [QUERY_STRICT, NO_ARGS, NO_ARGS]


#: A schema whose strict form exercises every rule: nullable optionals at depth, a disjoint
#: ``oneOf`` as ``anyOf``, moved keywords.
RICH = SEARCH


def test_the_sdk_leaves_every_strict_export_unchanged() -> None:
    session = make_session()
    session.on_tool("rich", description="Rich.", schema=RICH)(lambda args: 1)
    tools = function_tools(session)
    # FunctionTool runs ensure_strict_json_schema on a strict tool's schema when it is built,
    # so the schema it holds is the SDK's rewrite of the export: equal to pedelec's strict form.
    assert [(t.name, t.strict_json_schema) for t in tools] == [
        ("notes__search", True),
        ("explode", False),
        ("slow", False),
        ("rich", True),
    ]
    assert [t.params_json_schema for t in tools if t.strict_json_schema] == [
        strict_schema(session.tool_spec(name)["argsSchema"]) for name in ("notes.search", "rich")
    ]
    for tool in tools:
        if tool.strict_json_schema:
            exported = tool.params_json_schema
            assert ensure_strict_json_schema(copy.deepcopy(exported)) == exported


def test_strict_false_exports_the_schemas_as_declared() -> None:
    tools = function_tools(make_session(), strict=False)
    assert [(t.params_json_schema, t.strict_json_schema) for t in tools] == [
        (QUERY, False),
        ({"type": "object"}, False),
        ({"type": "object"}, False),
    ]


def free_map_session() -> Session:
    session = Session()
    session.on_tool("notes.search", description="Search the notes.", schema=QUERY)(lambda args: 1)
    session.on_tool("notes.tag", description="Tag a note.", schema=FREE_MAP)(lambda args: 1)
    return session


#: What ``strict=True`` says about a tool that cannot be strict.
NOT_STRICT = (
    'Tool "notes.tag" cannot be exported in OpenAI strict mode: at "/properties/meta", an '
    "object that declares no properties accepts any keys, and strict mode closes every object; "
    'pass strict="auto" to export it non-strict.'
)


def test_a_tool_that_cannot_be_strict() -> None:
    session = free_map_session()
    tools = function_tools(session)
    assert [(t.name, t.params_json_schema, t.strict_json_schema) for t in tools] == [
        ("notes__search", QUERY_STRICT, True),
        ("notes__tag", FREE_MAP, False),
    ]
    with pytest.raises(PedelecError) as caught:
        function_tools(session, strict=True)
    assert (caught.value.code, caught.value.message) == (INVALID_INPUT, NOT_STRICT)
    assert caught.value.details == {"tool": "notes.tag", "pointer": "/properties/meta"}
    # Only the tools asked for are checked.
    assert [t.name for t in function_tools(session, names=["notes.search"], strict=True)] == [
        "notes__search"
    ]


@pytest.mark.parametrize("strict", [1, "yes", None])
def test_strict_takes_true_false_or_auto(strict: Any) -> None:
    with pytest.raises(PedelecError) as caught:
        function_tools(make_session(), strict=strict)
    assert caught.value.code == INVALID_INPUT
    with pytest.raises(PedelecError) as caught_too:
        toolset(make_session(), strict=strict)
    assert caught_too.value.message == caught.value.message


def recording_session(seen: list[dict[str, Any]]) -> Session:
    session = Session()

    @session.on_tool("notes.search", description="Search the notes.", schema=QUERY)
    def search(args: dict[str, Any]) -> str:
        seen.append(args)
        return "ok"

    return session


#: Calls a model writing under the strict grammar may send (and some it may not), with what
#: the handler receives, or ``None`` where the model reads pedelec's error instead.
NULL_TABLE: list[tuple[str, dict[str, Any] | None, str]] = [
    ('{"q": "bikes", "limit": null}', {"q": "bikes"}, '"ok"'),
    ('{"q": "bikes", "limit": 5}', {"q": "bikes", "limit": 5}, '"ok"'),
    ('{"q": "bikes"}', {"q": "bikes"}, '"ok"'),
    (
        '{"q": "bikes", "limit": "ten"}',
        None,
        args_error("/limit", "type", 'expected integer, got string "ten"'),
    ),
    ('{"q": null, "limit": null}', None, args_error("/q", "type", "expected string, got null")),
    (
        '{"q": "", "limit": null}',
        None,
        args_error("/q", "minLength", "must be at least 1 character long, got 0"),
    ),
]


def test_a_null_for_an_optional_property_reaches_the_handler_as_absent() -> None:
    seen: list[dict[str, Any]] = []
    turn = [(f"call_{i}", "notes__search", args) for i, (args, _, _) in enumerate(NULL_TABLE)]
    model = Scripted(turn)
    assert run(recording_session(seen), model) == "done"
    assert model.tools[0][0].strict_json_schema is True
    assert outputs(model) == {f"call_{i}": out for i, (_, _, out) in enumerate(NULL_TABLE)}
    # The calls of one turn run concurrently: the handler sees them in any order.
    assert sorted(seen, key=text) == sorted(
        (handled for _, handled, _ in NULL_TABLE if handled is not None), key=text
    )


def test_names_picks_and_orders_the_tools() -> None:
    tools = function_tools(make_session(), names=["slow", "notes.search"])
    assert [t.name for t in tools] == ["slow", "notes__search"]


def test_an_unknown_name_is_tool_not_found() -> None:
    with pytest.raises(PedelecError) as caught:
        function_tools(make_session(), names=["nope"])
    assert caught.value.code == TOOL_NOT_FOUND
    assert caught.value.message == UNKNOWN


def test_names_that_collide_once_mapped_are_rejected() -> None:
    session = Session()
    for name in ("a.b", "a__b"):
        session.on_tool(name, description="T.", schema={"type": "object"})(lambda args: 1)
    with pytest.raises(PedelecError) as caught:
        function_tools(session)
    assert caught.value.code == INVALID_INPUT
    assert caught.value.message == (
        'Tools "a.b" and "a__b" would both be sent to the OpenAI Agents SDK as "a__b" '
        '(each "." is sent as "__"); rename one of them.'
    )


def test_a_run_with_a_good_call_a_bad_call_and_a_failing_handler() -> None:
    model = Scripted(
        [
            ("call_ok", "notes__search", '{"q": "bikes"}'),
            ("call_bad", "notes__search", '{"q": 3}'),
            ("call_boom", "explode", "{}"),
            ("call_json", "notes__search", '{"q": "bikes"'),
            ("call_empty", "explode", ""),
        ]
    )
    assert run(make_session(), model) == "done"
    assert [tool.name for tool in model.tools[0]] == ["notes__search", "explode", "slow"]
    assert outputs(model) == {
        "call_ok": '{"hits":["bikes"],"request":"call_ok"}',
        "call_bad": BAD,
        "call_boom": BOOM,
        "call_json": NOT_JSON,
        # No arguments at all ("") is an empty object, so the handler runs.
        "call_empty": BOOM,
    }


def test_the_model_corrects_its_arguments_after_the_error() -> None:
    model = Scripted(
        [("call_1", "notes__search", '{"q": ""}')],
        [("call_2", "notes__search", '{"q": "bikes"}')],
    )
    assert run(make_session(), model) == "done"
    assert len(model.inputs) == 3
    assert outputs(model) == {
        "call_1": args_error("/q", "minLength", "must be at least 1 character long, got 0"),
        "call_2": '{"hits":["bikes"],"request":"call_2"}',
    }


def test_pedelec_timeout_applies() -> None:
    model = Scripted([("call_slow", "slow", "{}")])
    assert run(make_session(), model) == "done"
    assert outputs(model) == {"call_slow": TIMED_OUT}


# --- Pydantic AI --------------------------------------------------------------------------------


class Script:
    """A ``FunctionModel`` function: the scripted tool calls, then the text ``"done"``."""

    def __init__(self, *turns: list[ToolCallPart]) -> None:
        self.turns = list(turns)
        self.requests: list[list[ModelMessage]] = []
        self.tools: list[list[ToolDefinition]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.requests.append(list(messages))
        self.tools.append(list(info.function_tools))
        if self.turns:
            return ModelResponse(parts=list(self.turns.pop(0)))
        return ModelResponse(parts=[TextPart("done")])

    def returns(self) -> dict[str, Any]:
        """The tool results the model read in its last request, by call id."""
        last = self.requests[-1][-1]
        assert isinstance(last, ModelRequest)
        return {
            part.tool_call_id: part.model_response_str()
            for part in last.parts
            if isinstance(part, ToolReturnPart)
        }


def run_pydantic_ai(session: Session, script: Script, **options: Any) -> str:
    agent = Agent(FunctionModel(script), toolsets=[toolset(session, **options)])
    return str(asyncio.run(agent.run("Find the notes about bikes.")).output)


def test_the_model_is_given_the_session_schemas_under_provider_names() -> None:
    script = Script()
    assert run_pydantic_ai(make_session(), script) == "done"
    assert [
        (t.name, t.description, t.parameters_json_schema, t.strict) for t in script.tools[0]
    ] == [
        ("notes__search", "Search the notes.", QUERY_STRICT, True),
        ("explode", "Always fails.", NO_ARGS, False),
        ("slow", "Too slow.", NO_ARGS, False),
    ]


def test_pydantic_ais_openai_transformer_leaves_the_strict_exports_unchanged() -> None:
    session = make_session()
    session.on_tool("rich", description="Rich.", schema=RICH)(lambda args: 1)
    script = Script()
    run_pydantic_ai(session, script)
    strict = [tool for tool in script.tools[0] if tool.strict]
    assert [tool.name for tool in strict] == ["notes__search", "rich"]
    for tool in strict:
        exported = tool.parameters_json_schema
        transformer = OpenAIJsonSchemaTransformer(copy.deepcopy(exported), strict=True)
        assert transformer.walk() == exported
        assert transformer.is_strict_compatible is True


class ClaudeLike(FunctionModel):
    """A ``FunctionModel`` that says it is an Anthropic model, as ``AnthropicModel`` does."""

    @property
    def system(self) -> str:
        return "anthropic"


def test_an_anthropic_model_is_given_anthropics_strict_form() -> None:
    session = make_session()
    session.on_tool("rich", description="Rich.", schema=RICH)(lambda args: 1)
    script = Script()
    agent = Agent(ClaudeLike(script), toolsets=[toolset(session)])
    assert asyncio.run(agent.run("Go.")).output == "done"
    assert [(t.name, t.parameters_json_schema, t.strict) for t in script.tools[0]] == [
        ("notes__search", strict_schema(QUERY, ANTHROPIC), True),
        ("explode", NO_ARGS, False),
        ("slow", NO_ARGS, False),
        ("rich", strict_schema(RICH, ANTHROPIC), True),
    ]
    # Optional properties stay optional: Anthropic's strict mode allows them.
    assert script.tools[0][0].parameters_json_schema["required"] == ["q"]


def test_strict_false_and_a_tool_that_cannot_be_strict_pydantic_ai() -> None:
    script = Script()
    run_pydantic_ai(free_map_session(), script)
    assert [(t.name, t.parameters_json_schema, t.strict) for t in script.tools[0]] == [
        ("notes__search", QUERY_STRICT, True),
        ("notes__tag", FREE_MAP, False),
    ]
    script = Script()
    run_pydantic_ai(free_map_session(), script, strict=False)
    assert [(t.parameters_json_schema, t.strict) for t in script.tools[0]] == [
        (QUERY, False),
        (FREE_MAP, False),
    ]
    with pytest.raises(PedelecError) as caught:
        toolset(free_map_session(), strict=True)
    assert (caught.value.code, caught.value.message) == (INVALID_INPUT, NOT_STRICT)


def test_a_null_for_an_optional_property_reaches_the_handler_as_absent_pydantic_ai() -> None:
    seen: list[dict[str, Any]] = []
    turn = [
        ToolCallPart("notes__search", args, tool_call_id=f"call_{i}")
        for i, (args, _, _) in enumerate(NULL_TABLE)
    ]
    # Providers whose SDK parses the arguments hand over a dict, with the null as None.
    turn.append(ToolCallPart("notes__search", {"q": "cars", "limit": None}, tool_call_id="dict"))
    script = Script(turn)
    assert run_pydantic_ai(recording_session(seen), script) == "done"
    assert script.returns() == {
        **{f"call_{i}": out for i, (_, _, out) in enumerate(NULL_TABLE)},
        "dict": '"ok"',
    }
    expected = [handled for _, handled, _ in NULL_TABLE if handled is not None]
    assert sorted(seen, key=text) == sorted([*expected, {"q": "cars"}], key=text)


def test_names_picks_and_orders_the_tools_pydantic_ai() -> None:
    script = Script()
    run_pydantic_ai(make_session(), script, names=["explode", "notes.search"])
    assert [t.name for t in script.tools[0]] == ["explode", "notes__search"]


def test_an_unknown_name_is_tool_not_found_at_once_pydantic_ai() -> None:
    with pytest.raises(PedelecError) as caught:
        toolset(make_session(), names=["nope"])
    assert caught.value.code == TOOL_NOT_FOUND
    assert caught.value.message == UNKNOWN


def test_names_that_collide_once_mapped_are_rejected_pydantic_ai() -> None:
    session = Session()
    session.on_tool("a.b", description="T.", schema={"type": "object"})(lambda args: 1)
    tools = toolset(session)
    session.on_tool("a__b", description="T.", schema={"type": "object"})(lambda args: 1)
    message = (
        'Tools "a.b" and "a__b" would both be sent to Pydantic AI as "a__b" '
        '(each "." is sent as "__"); rename one of them.'
    )
    with pytest.raises(PedelecError) as caught:
        toolset(session)
    assert (caught.value.code, caught.value.message) == (INVALID_INPUT, message)
    with pytest.raises(PedelecError) as caught:
        asyncio.run(Agent(FunctionModel(Script()), toolsets=[tools]).run("Go."))
    assert (caught.value.code, caught.value.message) == (INVALID_INPUT, message)


def test_id_is_the_toolsets() -> None:
    assert toolset(make_session(), id="notes").id == "notes"
    assert toolset(make_session()).id is None


def test_a_run_with_a_good_call_a_bad_call_and_a_failing_handler_pydantic_ai() -> None:
    script = Script(
        [
            ToolCallPart("notes__search", '{"q": "bikes"}', tool_call_id="call_ok"),
            ToolCallPart("notes__search", {"q": "cars"}, tool_call_id="call_dict"),
            ToolCallPart("notes__search", '{"q": 3}', tool_call_id="call_bad"),
            ToolCallPart("notes__search", '{"q": "bikes"', tool_call_id="call_json"),
            ToolCallPart("explode", "{}", tool_call_id="call_boom"),
            ToolCallPart("slow", "", tool_call_id="call_slow"),
        ]
    )
    assert run_pydantic_ai(make_session(), script) == "done"
    assert script.returns() == {
        "call_ok": '{"hits":["bikes"],"request":"call_ok"}',
        "call_dict": '{"hits":["cars"],"request":"call_dict"}',
        "call_bad": BAD,
        "call_json": NOT_JSON,
        "call_boom": BOOM,
        "call_slow": TIMED_OUT,
    }


def test_tools_declared_after_the_toolset_are_listed() -> None:
    session = make_session()
    tools = toolset(session)
    session.on_tool("later", description="Declared later.", schema={"type": "object"})(
        lambda args: "ok"
    )
    script = Script([ToolCallPart("later", "{}", tool_call_id="call_later")])
    agent = Agent(FunctionModel(script), toolsets=[tools])
    assert asyncio.run(agent.run("Go.")).output == "done"
    assert [t.name for t in script.tools[0]] == ["notes__search", "explode", "slow", "later"]
    assert script.returns() == {"call_later": '"ok"'}


def test_test_model_calls_every_tool_through_the_session() -> None:
    session = make_session()
    seen: list[str] = []
    session.on_any_tool(lambda tool, args, ctx: seen.append(tool))
    result = asyncio.run(Agent(TestModel(), toolsets=[toolset(session)]).run("Go."))
    assert json.loads(result.output) == {
        "notes__search": '{"hits":["a"],"request":"pyd_ai_tool_call_id__notes__search"}',
        "explode": BOOM,
        "slow": TIMED_OUT,
    }
    assert seen == []  # every tool has its own handler; the fallback never ran


def test_importing_the_adapter_imports_no_framework() -> None:
    script = (
        "import sys\n"
        "import pedelec.adapters, pedelec.adapters.agents, pedelec.adapters.pydantic_ai\n"
        "vendors = ('agents', 'pydantic_ai', 'pydantic', 'openai')\n"
        "print(','.join(m for m in vendors if m in sys.modules))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert completed.stdout == "\n"
    assert completed.stderr == ""


def test_a_call_of_a_tool_the_toolset_does_not_offer_is_answered_not_raised() -> None:
    tools: Any = toolset(make_session(), names=["explode", "notes.search"])

    class Ctx:
        tool_call_id = "call_x"

    answer = asyncio.run(tools.call_tool("slow", {}, Ctx(), None))
    assert answer == text(
        {
            "error": {
                "code": "TOOL_NOT_FOUND",
                "message": 'Unknown tool "slow". Available tools: "explode", "notes__search".',
                "details": {"tool": "slow"},
            }
        }
    )


def test_a_call_after_a_colliding_tool_was_declared_is_answered_not_raised() -> None:
    session = Session()
    session.on_tool("a.b", description="T.", schema={"type": "object"})(lambda args: 1)
    tools: Any = toolset(session)
    session.on_tool("a__b", description="T.", schema={"type": "object"})(lambda args: 1)

    class Ctx:
        tool_call_id = "call_x"

    assert json.loads(asyncio.run(tools.call_tool("a__b", "{}", Ctx(), None))) == {
        "error": {
            "code": "INVALID_INPUT",
            "message": 'Tools "a.b" and "a__b" would both be sent to Pydantic AI as "a__b" '
            '(each "." is sent as "__"); rename one of them.',
            "details": {"tools": ["a.b", "a__b"], "providerName": "a__b"},
        }
    }


def test_anthropics_caps_count_over_the_toolsets_tools() -> None:
    session = Session()
    # One required property each: a tool declaring none would not be strict under any cap.
    schema = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
    for n in range(21):
        session.on_tool(f"t{n}", description="T.", schema=schema)(lambda args: 1)
    script = Script()
    assert asyncio.run(Agent(ClaudeLike(script), toolsets=[toolset(session)]).run("Go.")).output
    assert [t.strict for t in script.tools[0]] == [True] * 20 + [False]
    # Other models have no such cap.
    script = Script()
    run_pydantic_ai(session, script)
    assert [t.strict for t in script.tools[0]] == [True] * 21
