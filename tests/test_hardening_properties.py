"""Property tests (hypothesis): validation against an independent oracle, and dispatch that never
raises for anything an agent or a handler does.

* Generated subset schemas and values: ``compile_schema`` agrees with
  ``jsonschema.Draft202012Validator``; ``errors()`` is non-empty exactly when the value is
  invalid and every reported path exists in the value; ``accepts`` (the walk used for
  ``default``/``examples``) agrees with the compiled validator; a ``default`` is accepted at
  registration exactly when the oracle says it is valid for its node.
* Dispatch on generated schemas agrees with the oracle; dispatch never raises for generated args
  (dicts, non-JSON objects, JSON text, garbage text and invalid UTF-8 bytes), tool names, and
  handler behaviours (return, raise, hang past a short timeout, return non-JSON), sync and async,
  through ``dispatch_sync`` and ``await dispatch``.
* The registration check raises nothing but ``PedelecError(INVALID_INPUT)`` for generated bad
  schemas and arbitrary Python objects.

Example counts are modest so the file runs in about 20 s; ``PEDELEC_SLOW=1`` (see conftest.py)
multiplies them by 25.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import event, given, settings, strategies as st
from jsonschema import Draft202012Validator

from pedelec import PedelecError, Session, ToolResult, compile_schema, define_tool
from pedelec._json import json_key
from pedelec.errors import ERROR_CODES
from pedelec.schema.interpret import accepts

SLOW = os.environ.get("PEDELEC_SLOW") == "1"


def examples(n: int) -> Any:
    """``settings`` with ``n`` examples (25 times more under ``PEDELEC_SLOW=1``)."""
    return settings(max_examples=n * 25 if SLOW else n)


# --- strategies: subset schemas --------------------------------------------------------------

# Strings never hold "\n" or "\r", so the few places where Python's re (the oracle's) and
# ECMA-262 (pedelec's) differ on these patterns cannot show; an astral character checks that
# lengths count code points.
ALPHABET = "abcxy0é😀 "
#: Patterns registration accepts, with the same meaning in both dialects on ALPHABET.
PATTERNS = ["^a", "b$", "^[a-c]*$", "[0-9]", "^(ab|c)", "x+y", "^[^x]*$", "é", "a{2}", "^$", "y?$"]
#: Property names, including the two characters a JSON pointer escapes.
NAMES = ["a", "b", "c", "x/y", "t~0"]

texts = st.text(ALPHABET, max_size=5)
small_numbers = st.integers(-4, 4) | st.sampled_from([-1.5, -0.0, 0.5, 1.0, 2.0, 2.5, 10**20])
descriptions = st.none() | st.just("Some text.")


def _maybe_describe(draw: Any, node: dict[str, Any]) -> dict[str, Any]:
    text = draw(descriptions)
    if text is not None:
        node["description"] = text
    return node


def _bounds(draw: Any, node: dict[str, Any], low: str, high: str, values: Any) -> None:
    lo, hi = draw(st.none() | values), draw(st.none() | values)
    if lo is not None and hi is not None and lo > hi:
        lo, hi = hi, lo
    if lo is not None:
        node[low] = lo
    if hi is not None:
        node[high] = hi


@st.composite
def string_nodes(draw: Any) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string"}
    _bounds(draw, node, "minLength", "maxLength", st.integers(0, 4))
    if draw(st.booleans()):
        node["pattern"] = draw(st.sampled_from(PATTERNS))
    if draw(st.integers(0, 3)) == 0:
        node["enum"] = draw(st.lists(texts, min_size=1, max_size=3, unique=True))
    return _maybe_describe(draw, node)


@st.composite
def number_nodes(draw: Any) -> dict[str, Any]:
    kind = draw(st.sampled_from(["number", "integer"]))
    node: dict[str, Any] = {"type": kind}
    _bounds(draw, node, "minimum", "maximum", small_numbers)
    if draw(st.integers(0, 3)) == 0:
        members = small_numbers.filter(lambda n: kind == "number" or float(n).is_integer())
        node["enum"] = draw(st.lists(members, min_size=1, max_size=3, unique_by=json_key))
    return _maybe_describe(draw, node)


@st.composite
def boolean_nodes(draw: Any) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "boolean"}
    if draw(st.booleans()):
        node["enum"] = draw(st.lists(st.booleans(), min_size=1, max_size=2, unique=True))
    return _maybe_describe(draw, node)


@st.composite
def array_nodes(draw: Any, children: Any) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "array", "items": draw(children)}
    _bounds(draw, node, "minItems", "maxItems", st.integers(0, 3))
    if draw(st.booleans()):
        node["uniqueItems"] = draw(st.booleans())
    return _maybe_describe(draw, node)


@st.composite
def object_nodes(draw: Any, children: Any) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "object"}
    properties = draw(st.dictionaries(st.sampled_from(NAMES), children, max_size=3))
    if properties or draw(st.booleans()):
        node["properties"] = properties
    if properties and draw(st.booleans()):
        node["required"] = draw(st.lists(st.sampled_from(sorted(properties)), unique=True))
    return _maybe_describe(draw, node)


@st.composite
def one_of_nodes(draw: Any, children: Any) -> dict[str, Any]:
    return _maybe_describe(draw, {"oneOf": draw(st.lists(children, min_size=1, max_size=3))})


scalar_nodes = string_nodes() | number_nodes() | boolean_nodes()
nodes = st.recursive(
    scalar_nodes,
    lambda children: array_nodes(children) | object_nodes(children) | one_of_nodes(children),
    max_leaves=6,
)
root_schemas = object_nodes(nodes)


# --- strategies: values ------------------------------------------------------------------------

json_scalars = st.none() | st.booleans() | small_numbers | texts
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(NAMES), children, max_size=3)
    ),
    max_leaves=8,
)


def values_for(node: dict[str, Any]) -> Any:
    """Values near ``node``: mostly built to its shape (so many are valid), some arbitrary."""
    if "oneOf" in node:
        guided = st.one_of([values_for(branch) for branch in node["oneOf"]])
    elif node["type"] == "string":
        low = max(0, node.get("minLength", 0) - 1)
        guided = st.text(ALPHABET, min_size=low, max_size=node.get("maxLength", 4) + 1)
        if "enum" in node:
            guided = guided | st.sampled_from(node["enum"])
    elif node["type"] in ("number", "integer"):
        guided = small_numbers | st.floats(-5, 5) | st.booleans()
        if "enum" in node:
            guided = guided | st.sampled_from(node["enum"])
    elif node["type"] == "boolean":
        guided = st.booleans() | st.sampled_from([0, 1, 1.0])
    elif node["type"] == "array":
        low = max(0, node.get("minItems", 0) - 1)
        high = min(node.get("maxItems", 3) + 1, 4)
        guided = st.lists(values_for(node["items"]), min_size=low, max_size=max(low, high))
    else:
        properties = node.get("properties", {})
        required = set(node.get("required", ()))
        guided = st.fixed_dictionaries(
            {name: values_for(sub) for name, sub in properties.items() if name in required},
            optional={
                **{
                    name: values_for(sub)
                    for name, sub in properties.items()
                    if name not in required
                },
                "extra": json_values,
            },
        )
    return st.one_of(guided, guided, guided, json_values)


def oracle(schema: dict[str, Any]) -> Draft202012Validator:
    return Draft202012Validator(schema)


def resolve(value: Any, pointer: str) -> Any:
    """The part of ``value`` at a JSON pointer; fails the test when there is none."""
    if pointer == "":
        return value
    assert pointer.startswith("/"), pointer
    for token in pointer[1:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if type(value) is dict:
            assert token in value, (pointer, token)
            value = value[token]
        else:
            assert type(value) is list, (pointer, token)
            assert token == "0" or (token.isdigit() and not token.startswith("0")), pointer
            assert int(token) < len(value), pointer
            value = value[int(token)]
    return value


KEYWORDS = {
    "type",
    "enum",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "uniqueItems",
    "required",
    "oneOf",
}


# --- the validator agrees with jsonschema -------------------------------------------------------


@examples(300)
@given(schema=root_schemas, data=st.data())
def test_compile_schema_agrees_with_jsonschema(schema: dict[str, Any], data: Any) -> None:
    validator = compile_schema(schema)
    reference = oracle(schema)
    for _ in range(4):
        value = data.draw(values_for(schema), label="value")
        valid = reference.is_valid(value)
        # Both stages of is_valid: the interpreter a new validator starts with, and its code.
        assert validator._interpreted(value) is valid
        assert validator._bool_function()(value) is valid
        errors = validator.errors(value)
        assert bool(errors) is not valid
        for error in errors:
            resolve(value, error.path)
            assert error.keyword in KEYWORDS
            assert error.message


@examples(300)
@given(node=nodes, data=st.data())
def test_accepts_agrees_with_the_compiled_validator(node: dict[str, Any], data: Any) -> None:
    wrapped = {"type": "object", "properties": {"v": node}, "required": ["v"]}
    validator = compile_schema(wrapped)
    checked = validator.schema["properties"]["v"]
    for _ in range(4):
        value = data.draw(values_for(node), label="value")
        assert accepts(checked, value) is validator._bool_function()({"v": value})
        assert accepts(checked, value) is oracle(node).is_valid(value)


@examples(200)
@given(node=nodes, data=st.data())
def test_a_default_is_accepted_exactly_when_it_is_valid(node: dict[str, Any], data: Any) -> None:
    value = data.draw(values_for(node), label="default")
    schema = {"type": "object", "properties": {"v": {**node, "default": value}}}
    if oracle(node).is_valid(value):
        assert compile_schema(schema).schema["properties"]["v"]["default"] == value
    else:
        with pytest.raises(PedelecError) as caught:
            compile_schema(schema)
        assert caught.value.code == "INVALID_INPUT"
        assert caught.value.details["keyword"] == "default"
        assert caught.value.details["pointer"] == "/properties/v/default"


def test_a_list_that_appears_twice_is_json_not_a_cycle() -> None:
    # Regression: the walk over undeclared values took any container seen before for a cycle.
    shared = [1]
    validator = compile_schema({"type": "object"})
    assert validator.is_valid({"a": [shared, shared], "b": {"c": shared, "d": shared}})
    cycle: list[Any] = [1]
    cycle.append(cycle)
    assert validator.errors({"a": [0, cycle]}) == [
        ("/a/1/1", "type", "expected a JSON value, got a cycle (a container inside itself)")
    ]


# --- dispatch agrees with jsonschema ------------------------------------------------------------


@examples(150)
@given(schema=root_schemas, data=st.data())
def test_dispatch_runs_the_handler_exactly_for_valid_args(
    schema: dict[str, Any], data: Any
) -> None:
    session = Session()
    seen: list[Any] = []
    session.on_tool("t", description="T.", schema=schema)(lambda args: seen.append(args) or "ran")
    reference = oracle(schema)
    for _ in range(3):
        value = data.draw(values_for(schema), label="args")
        # A str is always taken as JSON text, so a string value has to be sent as text.
        as_text = type(value) is str or data.draw(st.booleans(), label="as text")
        result = session.dispatch_sync("t", json.dumps(value) if as_text else value)
        if reference.is_valid(value):
            assert result.error is None and result.value == "ran"
            assert seen.pop() == value
        else:
            assert result.error is not None and result.error.code == "TOOL_ARGS_INVALID"
            assert result.error.message.startswith('Invalid arguments for tool "t": ')
            for error in result.error.details["errors"]:
                resolve(value, error["path"])
        assert seen == []
    assert session.status == "idle"


# --- dispatch never raises ---------------------------------------------------------------------


class Strange:
    """Not JSON, and hostile to whoever looks at it."""

    def __repr__(self) -> str:
        raise RuntimeError("no repr")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no eq")

    __hash__ = object.__hash__


def _cycle() -> list[Any]:
    value: list[Any] = []
    value.append(value)
    return value


non_json = (
    st.sampled_from(
        [math.nan, math.inf, -math.inf, (1, 2), {1, 2}, frozenset(), b"bytes", bytearray(b"x")]
    )
    | st.builds(Strange)
    | st.builds(_cycle)
    | st.builds(object)
)
python_values = st.recursive(
    json_scalars | non_json | st.integers(),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(NAMES) | st.integers() | st.none(), children, max_size=3)
        | st.tuples(children)
    ),
    max_leaves=6,
)


@st.composite
def broken_json_texts(draw: Any) -> str:
    """JSON text with one edit: a character cut, added or replaced."""
    text = json.dumps(draw(json_values | st.dictionaries(st.sampled_from(NAMES), json_values)))
    at = draw(st.integers(0, len(text)))
    edit = draw(st.sampled_from(["cut", "insert", "replace"]))
    char = draw(st.sampled_from([*'{}[]",:\\ntfNI1.e-', "NaN", "Infinity", '"a":1,"a":2']))
    if edit == "cut":
        return text[:at] + text[at + 1 :]
    if edit == "insert":
        return text[:at] + char + text[at:]
    return text[:at] + char + text[at + 1 :]


agent_args = (
    values_for({"type": "object", "properties": {"a": {"type": "integer"}}})
    | python_values
    | st.text()
    | st.text(ALPHABET + '{}[]":,')
    | st.binary()
    | st.binary().map(lambda b: b'{"a": "' + b + b'"}')
    | broken_json_texts()
    | json_values.map(json.dumps)
    | json_values.map(lambda v: json.dumps(v).encode("utf-16"))
)
tool_names = (
    st.sampled_from(["strict", "open", "none", "raiser", "STRICT", "nope"])
    | st.text(max_size=10)
    | st.none()
    | st.integers()
    | st.builds(list)
    | st.binary(max_size=5)
)

FUZZ_SESSION = Session.from_manifest(
    {
        "tools": [
            {
                "name": "strict",
                "description": "Strict.",
                "argsSchema": {
                    "type": "object",
                    "properties": {"a": {"type": "integer"}},
                    "required": ["a"],
                },
            },
            {"name": "open", "description": "Open.", "argsSchema": {"type": "object"}},
            {"name": "raiser", "description": "Raise.", "argsSchema": {"type": "object"}},
            {"name": "none", "description": "No handler.", "argsSchema": {"type": "object"}},
        ]
    }
)
FUZZ_SESSION.on_tool("strict")(lambda args: args)
FUZZ_SESSION.on_tool("open")(lambda args: args)
FUZZ_SESSION.on_tool("raiser")(lambda args: 1 / 0)


def check_result(result: ToolResult, domain: tuple[str, ...] = ()) -> None:
    assert isinstance(result, ToolResult)
    assert result.is_error is (result.error is not None)
    text = result.to_text()
    assert json.loads(text) == result.to_json()
    if result.error is not None and result.value is None:  # made by pedelec, not a handler
        assert result.error.code in ERROR_CODES or result.error.code in domain
        assert isinstance(result.error.message, str) and result.error.message
        assert result.to_json() == {"error": result.error.to_dict()}


@examples(400)
@given(name=tool_names, args=agent_args)
def test_dispatch_sync_never_raises_for_agent_input(name: Any, args: Any) -> None:
    result = FUZZ_SESSION.dispatch_sync(name, args)
    check_result(result)
    if name not in ("strict", "open", "raiser", "none"):
        assert result.error is not None and result.error.code == "TOOL_NOT_FOUND"
    assert FUZZ_SESSION.status == "idle"


@examples(150)
@given(name=tool_names, args=agent_args)
def test_await_dispatch_never_raises_for_agent_input(name: Any, args: Any) -> None:
    check_result(asyncio.run(FUZZ_SESSION.dispatch(name, args)))
    assert FUZZ_SESSION.status == "idle"


# Handler behaviours: (what the handler does, the code the result must carry or "ok").


class BadStr(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no str")


def _coroutine_value() -> Any:
    async def inner() -> int:
        return 1

    return inner()


RAISED: list[tuple[Callable[[], BaseException], str]] = [
    (lambda: ValueError("bad value"), "TOOL_HANDLER_ERROR"),
    (lambda: KeyError("k"), "TOOL_HANDLER_ERROR"),
    (lambda: BadStr(), "TOOL_HANDLER_ERROR"),
    (lambda: RecursionError("deep"), "TOOL_HANDLER_ERROR"),
    (lambda: MemoryError(), "TOOL_HANDLER_ERROR"),
    (lambda: PedelecError("TOOL_HANDLER_ERROR", "domain", {"x": 1}), "TOOL_HANDLER_ERROR"),
    (lambda: PedelecError("INVALID_INPUT", "no", None), "INVALID_INPUT"),
    (lambda: PedelecError("OUT_OF_STOCK", "none left", {"sku": "a"}), "OUT_OF_STOCK"),
    (lambda: PedelecError("TOOL_TIMEOUT", "t", {"bad": {1, 2}}), "SUBMIT_TOOL_RESULT_FAILED"),
    (lambda: PedelecError("SESSION_ENDED", "nan", {"n": math.nan}), "SUBMIT_TOOL_RESULT_FAILED"),
]
NOT_JSON_RESULTS: list[Callable[[], Any]] = [
    lambda: {1, 2},
    lambda: (1, 2),
    lambda: math.nan,
    lambda: {"a": math.inf},
    lambda: b"bytes",
    lambda: object(),
    lambda: Strange(),
    _cycle,
    lambda: {1: "int key"},
    lambda: [1, {"a": {2}}],
    lambda: iter([1]),
]


@st.composite
def behaviours(draw: Any) -> tuple[str, Any, str]:
    """(kind, argument, expected code or "ok")."""
    kind = draw(st.sampled_from(["return", "raise", "hang", "not_json"]))
    if kind == "return":
        return kind, draw(json_values), "ok"
    if kind == "raise":
        make, code = draw(st.sampled_from(RAISED))
        return kind, make, code
    if kind == "hang":
        return kind, None, "TOOL_TIMEOUT"
    return kind, draw(st.sampled_from(NOT_JSON_RESULTS)), "SUBMIT_TOOL_RESULT_FAILED"


def act(kind: str, argument: Any) -> Any:
    if kind == "return":
        return argument
    if kind == "raise":
        raise argument()
    if kind == "hang":
        time.sleep(0.03)  # far past the call's 1 ms timeout
        return "too late"
    return argument()


async def act_async(kind: str, argument: Any) -> Any:
    if kind == "hang":
        await asyncio.sleep(10)  # cancelled at the call's 1 ms timeout
    return act(kind, argument)


def behaving_session() -> Session:
    session = Session()
    open_schema: Any = {"type": "object"}
    session.on_tool("sync", description="Sync.", schema=open_schema)(
        lambda args: act(args["kind"], BEHAVIOUR[0])
    )

    @session.on_tool("async", description="Async.", schema=open_schema)
    async def run_async(args: dict[str, Any]) -> Any:
        return await act_async(args["kind"], BEHAVIOUR[0])

    session.on_tool("coro", description="Sync returning a coroutine.", schema=open_schema)(
        lambda args: _coroutine_value()
    )
    return session


BEHAVIOUR: list[Any] = [None]  # the current example's argument (a Python object, not JSON)
BEHAVING = behaving_session()


def expect(result: ToolResult, code: str, kind: str, argument: Any) -> None:
    check_result(result, domain=("OUT_OF_STOCK",))
    if code == "ok":
        assert result.value == argument
        envelope = (
            type(argument) is dict
            and len(argument) == 1
            and type(argument.get("error")) is dict
            and type(argument["error"].get("code")) is str
            and type(argument["error"].get("message")) is str
        )
        assert (result.error is not None) is envelope
    else:
        assert result.error is not None
        assert result.error.code == code, (kind, result.error)
    if result.error is not None and result.error.code == "TOOL_HANDLER_ERROR" and kind == "raise":
        assert "Traceback" not in result.error.message


def run_behaviour(kind: str, argument: Any, code: str, tool: str, awaited: bool) -> None:
    BEHAVIOUR[0] = argument
    args = {"kind": kind, **({"timeoutMs": 1} if kind == "hang" else {})}
    if awaited:
        result = asyncio.run(BEHAVING.dispatch(tool, args))
    else:
        result = BEHAVING.dispatch_sync(tool, args)
    expect(result, code, kind, argument)
    assert BEHAVING.status == "idle"


@examples(120)
@given(behaviour=behaviours(), tool=st.sampled_from(["sync", "async"]), awaited=st.booleans())
def test_dispatch_never_raises_for_handler_behaviour(
    behaviour: tuple[str, Any, str], tool: str, awaited: bool
) -> None:
    kind, argument, code = behaviour
    event(f"{kind} -> {code}")
    run_behaviour(kind, argument, code, tool, awaited)


EVERY_BEHAVIOUR = [
    *(
        pytest.param("raise", make, code, id=f"raise-{i}-{code}")
        for i, (make, code) in enumerate(RAISED)
    ),
    *(
        pytest.param("not_json", make, "SUBMIT_TOOL_RESULT_FAILED", id=f"not-json-{i}")
        for i, make in enumerate(NOT_JSON_RESULTS)
    ),
    pytest.param("hang", None, "TOOL_TIMEOUT", id="hang"),
    pytest.param("return", {"error": {"code": "MINE", "message": "m"}}, "ok", id="envelope"),
]


@pytest.mark.parametrize("awaited", [False, True], ids=["dispatch_sync", "dispatch"])
@pytest.mark.parametrize("tool", ["sync", "async"])
@pytest.mark.parametrize(("kind", "argument", "code"), EVERY_BEHAVIOUR)
def test_every_handler_behaviour_gives_its_code(
    kind: str, argument: Any, code: str, tool: str, awaited: bool
) -> None:
    # The property test's table, every row in every runner for certain.
    run_behaviour(kind, argument, code, tool, awaited)


def test_a_sync_handler_returning_a_coroutine_is_not_json() -> None:
    for result in (
        BEHAVING.dispatch_sync("coro", {}),
        asyncio.run(BEHAVING.dispatch("coro", {})),
    ):
        assert result.error is not None
        assert result.error.message == (
            'Tool "coro" returned a result that is not JSON: it returned an awaitable; declare '
            "the handler with async def so pedelec awaits it."
        )


# --- registration raises nothing but INVALID_INPUT -----------------------------------------------

UNKNOWN_KEYWORDS = ["$ref", "additionalProperties", "format", "const", "anyOf", "x-custom", ""]
BAD_VALUES = [
    True,
    None,
    -1,
    1.5,
    "3",
    [],
    {},
    [1, 1],
    math.nan,
    math.inf,
    {1, 2},
    (1,),
    b"x",
    object(),
    "(",
    "[a-",
    "(?P<n>a)",
    "^(a+)+$",
    "\\A",
    10**400,
]


def _nodes_in(
    schema: Any, path: tuple[Any, ...] = ()
) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Every node of a valid generated schema with its path of keys (small schemas: recursion ok)."""
    found = [(path, schema)]
    for name, sub in schema.get("properties", {}).items():
        found += _nodes_in(sub, (*path, "properties", name))
    if "items" in schema:
        found += _nodes_in(schema["items"], (*path, "items"))
    for i, branch in enumerate(schema.get("oneOf", ())):
        found += _nodes_in(branch, (*path, "oneOf", i))
    return found


@st.composite
def bad_schemas(draw: Any) -> tuple[Any, bool]:
    """(schema, certainly_invalid): a valid schema with one node broken, or arbitrary junk."""
    if draw(st.integers(0, 4)) == 0:
        return draw(python_values | st.builds(dict)), False
    schema = draw(root_schemas)
    _, node = draw(st.sampled_from(_nodes_in(schema)))
    mutation = draw(st.sampled_from(["unknown", "value", "drop", "swap", "cycle", "key"]))
    if mutation == "unknown":
        node[draw(st.sampled_from(UNKNOWN_KEYWORDS))] = draw(st.sampled_from(BAD_VALUES))
        return schema, True
    if mutation == "value":
        keyword = draw(st.sampled_from(sorted(node)))
        node[keyword] = draw(st.sampled_from(BAD_VALUES))
        return schema, False
    if mutation == "drop":
        node.pop(draw(st.sampled_from(sorted(node))))
        return schema, False
    if mutation == "swap":
        node["type"] = draw(st.sampled_from(["null", "any", ["string", "integer"], 3]))
        return schema, True
    if mutation == "cycle":
        node["items" if "items" in node else "extra"] = schema
        return schema, True
    node[draw(st.sampled_from([1, None, ("a",), True]))] = {"type": "string"}
    return schema, True


def _check_failure(exc: PedelecError) -> None:
    assert exc.code == "INVALID_INPUT"
    assert isinstance(exc.message, str) and exc.message.endswith(".")
    assert isinstance(exc.details, dict)
    assert isinstance(exc.details.get("pointer", ""), str)


@examples(400)
@given(case=bad_schemas(), way=st.sampled_from(["compile_schema", "define_tool", "on_tool"]))
def test_registration_raises_only_invalid_input(case: tuple[Any, bool], way: str) -> None:
    schema, certainly_invalid = case
    try:
        if way == "compile_schema":
            stored = compile_schema(schema).schema
        elif way == "define_tool":
            tool = define_tool(name="t", description="T.", schema=schema, handler=lambda a: a)
            stored = tool.spec()["argsSchema"]
        else:
            session = Session()
            session.on_tool("t", description="T.", schema=schema)(lambda args: args)
            stored = session.tool_spec("t")["argsSchema"]
    except PedelecError as exc:
        _check_failure(exc)
    else:
        # Accepted: the mutation happened to leave a valid schema, stored as a plain copy.
        assert not certainly_invalid
        assert stored == schema and stored is not schema
