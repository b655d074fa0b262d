"""Tool definitions: every definition rule of DESIGN §3, the decorator, and handler styles."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from pedelec._context import ToolCallContext
from pedelec._handlers import HandlerSpec, handler_spec, is_async_callable
from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.limits import DEFAULT_TIMEOUT_MS
from pedelec.session import Session
from pedelec.tools import ToolDefinition, define_tool, tool

OBJ: Any = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def handler(args: dict[str, Any]) -> Any:
    return args


def raises(fn: Any, *args: Any, **kwargs: Any) -> PedelecError:
    with pytest.raises(PedelecError) as info:
        fn(*args, **kwargs)
    assert info.value.code == INVALID_INPUT
    return info.value


# --- the rules, as a table ----------------------------------------------------------------------

NAME_RULE = (
    "a name starts with a letter and continues with letters, digits, '_', '.' or '-' "
    '(e.g. "update_counter" or "editor.replace").'
)

RULES = [
    pytest.param(
        {"name": "1x"},
        f'Tool name "1x" is invalid; {NAME_RULE}',
        {"tool": "1x", "field": "name"},
        id="name-starts-with-digit",
    ),
    pytest.param(
        {"name": ""},
        f'Tool name "" is invalid; {NAME_RULE}',
        {"tool": "", "field": "name"},
        id="name-empty",
    ),
    pytest.param(
        {"name": "a b"},
        f'Tool name "a b" is invalid; {NAME_RULE}',
        {"tool": "a b", "field": "name"},
        id="name-space",
    ),
    pytest.param(
        {"name": "x\n"},
        f'Tool name "x\\n" is invalid; {NAME_RULE}',
        {"tool": "x\n", "field": "name"},
        id="name-trailing-newline",
    ),
    pytest.param(
        {"name": 3},
        f"Tool name 3 is invalid; {NAME_RULE}",
        {"tool": "3", "field": "name"},
        id="name-not-a-string",
    ),
    pytest.param(
        {"description": ""},
        'Tool "t" needs a description (a non-empty string) that tells the agent when to use '
        "it; got an empty string.",
        {"tool": "t", "field": "description"},
        id="description-empty",
    ),
    pytest.param(
        {"description": " \t\n"},
        'Tool "t" needs a description (a non-empty string) that tells the agent when to use '
        "it; got an empty string.",
        {"tool": "t", "field": "description"},
        id="description-blank",
    ),
    pytest.param(
        {"description": None},
        'Tool "t" needs a description (a non-empty string) that tells the agent when to use '
        "it; got NoneType.",
        {"tool": "t", "field": "description"},
        id="description-none",
    ),
    pytest.param(
        {"timeout_ms": 0},
        'Tool "t": timeout_ms must be a positive integer of milliseconds, got 0.',
        {"tool": "t", "field": "timeout_ms"},
        id="timeout-zero",
    ),
    pytest.param(
        {"timeout_ms": -5},
        'Tool "t": timeout_ms must be a positive integer of milliseconds, got -5.',
        {"tool": "t", "field": "timeout_ms"},
        id="timeout-negative",
    ),
    pytest.param(
        {"timeout_ms": True},
        'Tool "t": timeout_ms must be a positive integer of milliseconds, got True.',
        {"tool": "t", "field": "timeout_ms"},
        id="timeout-bool",
    ),
    pytest.param(
        {"timeout_ms": 1.5},
        'Tool "t": timeout_ms must be a positive integer of milliseconds, got 1.5.',
        {"tool": "t", "field": "timeout_ms"},
        id="timeout-float",
    ),
    pytest.param(
        {"handler": 3},
        'The handler of tool "t" must be callable, got int.',
        {"tool": "t", "field": "handler"},
        id="handler-not-callable",
    ),
    pytest.param(
        {"handler": lambda: 1},
        'The handler of tool "t" must take (args) or (args, ctx); <lambda>() cannot.',
        {"tool": "t", "field": "handler"},
        id="handler-no-parameters",
    ),
    pytest.param(
        {"handler": lambda a, b, c: 1},
        'The handler of tool "t" must take (args) or (args, ctx); <lambda>(a, b, c) cannot.',
        {"tool": "t", "field": "handler"},
        id="handler-three-parameters",
    ),
    pytest.param(
        {"handler": lambda args, *, flag: 1},
        'The handler of tool "t" must take (args) or (args, ctx); <lambda>(args, *, flag) cannot.',
        {"tool": "t", "field": "handler"},
        id="handler-required-keyword-only",
    ),
    pytest.param(
        {"schema": {"type": "string"}},
        'Invalid schema for tool "t" at /type: the root must be {"type": "object", ...}, got '
        '"type": "string"; a tool\'s arguments are always an object (a tool without arguments '
        'uses {"type": "object", "properties": {}}).',
        {"pointer": "/type", "keyword": "type", "tool": "t"},
        id="schema-root-not-object",
    ),
    pytest.param(
        {"schema": {"type": "object", "additionalProperties": False}},
        'Invalid schema for tool "t" at /additionalProperties: "additionalProperties" is not '
        "supported in a Tool Args Schema object node (allowed: description, default, examples, "
        "properties, required); remove it (to reject undeclared arguments, use "
        "Session(reject_unknown_args=True)).",
        {"pointer": "/additionalProperties", "keyword": "additionalProperties", "tool": "t"},
        id="schema-forbidden-keyword",
    ),
    pytest.param(
        {"input": OBJ},
        'Tool "t": the "input" field is no longer supported; pass the argument schema as '
        "schema= instead.",
        {"tool": "t", "field": "input"},
        id="legacy-input",
    ),
]


@pytest.mark.parametrize(("change", "message", "details"), RULES)
def test_define_tool_rules(change: dict[str, Any], message: str, details: Any) -> None:
    kwargs: dict[str, Any] = {"name": "t", "description": "T.", "schema": OBJ, **change}
    err = raises(define_tool, **kwargs)
    assert err.message == message
    assert err.details == details


@pytest.mark.parametrize(("change", "message", "details"), RULES)
def test_session_registration_applies_the_same_rules(
    change: dict[str, Any], message: str, details: Any
) -> None:
    """A manifest-style dict in ``tools=`` is checked exactly like ``define_tool``."""
    keys = {"schema": "argsSchema", "timeout_ms": "timeoutMs"}
    entry: dict[str, Any] = {"name": "t", "description": "T.", "argsSchema": OBJ}
    entry.update({keys.get(k, k): v for k, v in change.items()})
    if "input" in change:
        message = message.replace("schema= instead", '"argsSchema" instead')
    err = raises(Session, tools=[entry])
    assert err.message == message
    assert err.details == details


def test_legacy_input_in_place_of_schema_is_explained() -> None:
    err = raises(define_tool, name="t", description="T.", input=OBJ)
    assert err.message == (
        'Tool "t": the "input" field is no longer supported; pass the argument schema as '
        "schema= instead."
    )
    with pytest.raises(TypeError) as info:
        define_tool(name="t", description="T.")  # type: ignore[call-overload]
    assert str(info.value) == "define_tool() missing 1 required keyword-only argument: 'schema'"


def test_define_tool_rejects_other_unknown_keywords_like_python() -> None:
    with pytest.raises(TypeError) as info:
        define_tool(name="t", description="T.", schema=OBJ, descripton="typo")  # type: ignore[call-overload]
    assert str(info.value) == "define_tool() got an unexpected keyword argument 'descripton'"


@pytest.mark.parametrize(
    "name", ["a", "Z", "update_counter", "editor.replace_selection", "a-b", "a1_.-"]
)
def test_valid_names(name: str) -> None:
    assert define_tool(name=name, description="T.", schema=OBJ).name == name


def test_definition_keeps_a_private_copy_of_the_schema() -> None:
    schema: Any = {"type": "object", "properties": {"n": {"type": "integer"}}}
    definition = define_tool(name="t", description="T.", schema=schema)
    schema["properties"]["n"]["type"] = "string"
    copy = definition.schema
    assert copy == {"type": "object", "properties": {"n": {"type": "integer"}}}
    copy["properties"].clear()
    assert definition.schema == {"type": "object", "properties": {"n": {"type": "integer"}}}


def test_definition_spec_and_defaults() -> None:
    plain = define_tool(name="t", description="T.", schema=OBJ)
    timed = define_tool(name="u", description="U.", schema=OBJ, timeout_ms=250)
    assert plain.spec() == {"name": "t", "description": "T.", "argsSchema": OBJ}
    assert timed.spec() == {"name": "u", "description": "U.", "argsSchema": OBJ, "timeoutMs": 250}
    assert (plain.timeout_ms, plain.handler, timed.timeout_ms) == (None, None, 250)
    assert DEFAULT_TIMEOUT_MS == 60_000
    assert repr(plain) == "<ToolDefinition 't'>"


def test_manifest_keeps_each_tools_key_order() -> None:
    """Equal schemas share one cached validator; each definition still shows its own order."""
    first = define_tool(
        name="a",
        description="A.",
        schema={"type": "object", "properties": {"x": {"type": "string"}}},
    )
    second = define_tool(
        name="b",
        description="B.",
        schema={"properties": {"x": {"type": "string"}}, "type": "object"},
    )
    assert list(first.schema) == ["type", "properties"]
    assert list(second.schema) == ["properties", "type"]


def test_definitions_cannot_be_built_directly() -> None:
    with pytest.raises(TypeError) as info:
        ToolDefinition()
    assert (
        str(info.value) == "build a ToolDefinition with pedelec.define_tool(...) or @pedelec.tool"
    )


def test_definition_without_handler_is_not_callable() -> None:
    definition = define_tool(name="t", description="T.", schema=OBJ)
    with pytest.raises(TypeError) as info:
        definition({"n": 1})
    assert str(info.value) == 'tool "t" has no inline handler to call'


# --- @tool -----------------------------------------------------------------------------------


def test_tool_decorator_with_schema() -> None:
    @tool("add_one", schema=OBJ, timeout_ms=100)
    def add_one(args: dict[str, Any]) -> int:
        """Add one to n.

        More text that is not part of the description.
        """
        return int(args["n"]) + 1

    assert isinstance(add_one, ToolDefinition)
    assert add_one({"n": 1}) == 2  # still callable like the function
    assert add_one.spec() == {
        "name": "add_one",
        "description": "Add one to n.",
        "argsSchema": OBJ,
        "timeoutMs": 100,
    }
    assert Session(tools=[add_one]).dispatch_sync("add_one", {"n": 41}).value == 42


def test_tool_decorator_name_defaults_to_function_name() -> None:
    @tool(description="Echo.", schema=OBJ)
    def echo(args: dict[str, Any]) -> Any:
        return args

    assert echo.name == "echo"
    assert echo.description == "Echo."


def test_tool_decorator_without_description_or_docstring() -> None:
    def nodoc(args: dict[str, Any]) -> Any:
        return args

    err = raises(tool("nodoc", schema=OBJ), nodoc)
    assert err.message == (
        'Tool "nodoc" needs a description (a non-empty string) that tells the agent when to use '
        "it; got NoneType."
    )


def test_tool_decorator_bad_name_fails_at_once() -> None:
    err = raises(tool, 5)
    assert err.message == f"Tool name 5 is invalid; {NAME_RULE}"


def test_tool_decorator_infers_schema_without_schema() -> None:
    @tool
    def scale(value: int, factor: int = 2) -> int:
        """Multiply a value."""
        return value * factor

    assert scale.spec() == {
        "name": "scale",
        "description": "Multiply a value.",
        "argsSchema": {
            "type": "object",
            "properties": {
                "value": {"type": "integer"},
                "factor": {"type": "integer", "default": 2},
            },
            "required": ["value"],
        },
        "outputSchema": {"type": "integer"},  # from -> int
    }
    assert scale(3) == 6
    session = Session(tools=[scale])
    assert session.dispatch_sync("scale", {"value": 3, "factor": 5}).value == 15


def test_tool_decorator_inference_with_options() -> None:
    @tool("times", description="Times.", timeout_ms=5)
    def times(value: int) -> int:
        return value

    assert (times.name, times.description, times.timeout_ms) == ("times", "Times.", 5)


# --- handler styles ---------------------------------------------------------------------------


def one(args: Any) -> Any:
    return "one"


def two(args: Any, ctx: Any) -> Any:
    return "two"


def two_default(args: Any, ctx: Any = None) -> Any:
    return "two"


def star(*parts: Any) -> Any:
    return "star"


async def async_one(args: Any) -> Any:
    return "one"


async def async_two(args: Any, ctx: Any) -> Any:
    return "two"


class SyncCallable:
    def __call__(self, args: Any) -> Any:
        return "one"


class AsyncCallable:
    async def __call__(self, args: Any, ctx: Any) -> Any:
        return "two"


class Methods:
    def method(self, args: Any) -> Any:
        return "one"

    async def amethod(self, args: Any, ctx: Any) -> Any:
        return "two"


STYLES = [
    pytest.param(one, False, "one", id="function-args"),
    pytest.param(two, False, "two", id="function-args-ctx"),
    pytest.param(two_default, False, "two", id="function-ctx-defaulted"),
    pytest.param(star, False, "two", id="var-positional"),
    pytest.param(async_one, True, "one", id="async-args"),
    pytest.param(async_two, True, "two", id="async-args-ctx"),
    pytest.param(SyncCallable(), False, "one", id="callable-object"),
    pytest.param(AsyncCallable(), True, "two", id="async-callable-object"),
    pytest.param(Methods().method, False, "one", id="bound-method"),
    pytest.param(Methods().amethod, True, "two", id="async-bound-method"),
    pytest.param(functools.partial(async_two), True, "two", id="partial-of-async"),
    pytest.param(functools.partial(lambda x, args: args, 1), False, "one", id="partial-bound"),
    pytest.param(print, False, "two", id="builtin-var-positional"),
]


@pytest.mark.parametrize(("fn", "is_async", "style"), STYLES)
def test_handler_style_is_decided_once(fn: Any, is_async: bool, style: str) -> None:
    spec = handler_spec(fn, tool="t")
    assert isinstance(spec, HandlerSpec)
    assert spec.is_async is is_async
    assert spec.source is fn
    assert (spec.args_only is not None) is (style == "one")
    assert is_async_callable(fn) is is_async


def test_args_only_spec_still_offers_call_with_context() -> None:
    spec = handler_spec(one, tool="t")
    ctx = ToolCallContext("s", "r", "t")
    assert spec.args_only is one
    assert spec.call({}, ctx) == "one"


def test_fallback_spec_passes_the_tool_name() -> None:
    seen: list[Any] = []
    spec = handler_spec(lambda tool, args, ctx: seen.append((tool, args)), fallback=True)
    spec.call({"a": 1}, ToolCallContext("s", "r", "weather"))
    assert seen == [("weather", {"a": 1})]
    assert spec.args_only is None


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (
            lambda args, ctx: 1,
            "The fallback handler must take (tool, args, ctx); <lambda>(args, ctx) cannot.",
        ),
        (1, "The fallback handler must be callable, got int."),
    ],
)
def test_fallback_spec_rules(fn: Any, message: str) -> None:
    err = raises(handler_spec, fn, fallback=True)
    assert err.message == message
    assert err.details == {"field": "handler"}


def test_handler_spec_without_tool_name() -> None:
    err = raises(handler_spec, 1)
    assert err.message == "The handler must be callable, got int."


def test_handler_spec_repr() -> None:
    assert repr(handler_spec(one)) == f"HandlerSpec(source={one!r}, is_async=False)"
