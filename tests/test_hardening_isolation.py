"""Isolation: nothing a handler or a caller does to one object reaches another call or the schema,
and error results tell the agent what failed without the server's internals.

* Each call gets its own args: a handler that mutates them changes neither the caller's object,
  nor a concurrent call (threads and asyncio tasks), nor a later call, nor the stored schema.
* The stored schema is a private copy: mutating the dict given at registration, or the dicts
  ``manifest()``/``tool_spec()``/``validator.schema`` hand out, changes nothing.
* A result is a private copy of what the handler returned.
* ``TOOL_HANDLER_ERROR`` results carry the exception's type and message only: no traceback, no
  file path, no local variable; the ``pedelec`` logger gets the full traceback.
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import threading
from typing import Any

import pytest

from pedelec import Session, ToolCallContext, compile_schema, define_tool

NESTED: Any = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "enum": ["a", "b"], "default": "a"},
        "tags": {
            "type": "array",
            "items": {"type": "string", "pattern": "^[a-z]+$"},
            "default": ["x"],
            "examples": [["y", "z"]],
        },
        "card": {
            "type": "object",
            "properties": {"labels": {"type": "array", "items": {"type": "integer"}}},
            "required": ["labels"],
        },
    },
    "required": ["name"],
}
ARGS: Any = {"name": "a", "tags": ["p", "q"], "card": {"labels": [1, 2]}}


def vandal(args: dict[str, Any]) -> dict[str, Any]:
    """Mutate every part of the args, and return what arrived (a copy taken first)."""
    seen = copy.deepcopy(args)
    args["name"] = "changed"
    args["injected"] = True
    if isinstance(args.get("tags"), list):
        args["tags"].append("more")
        args["tags"][0] = "CHANGED"
    if isinstance(args.get("card"), dict):
        args["card"]["labels"].clear()
        args["card"]["new"] = {"x": 1}
    return seen


# --- args ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [ARGS, {"name": "b"}], ids=["nested", "flat"])
def test_a_handler_mutating_its_args_changes_neither_the_caller_nor_a_later_call(
    args: dict[str, Any],
) -> None:
    session = Session()
    session.on_tool("t", description="T.", schema=NESTED)(vandal)
    original = copy.deepcopy(args)
    spec = session.tool_spec("t")
    for _ in range(3):  # the same dict object, three calls
        result = session.dispatch_sync("t", args)
        assert result.error is None and result.value == original
        assert args == original
    assert asyncio.run(session.dispatch("t", args)).value == original
    assert args == original
    assert (
        session.tool_spec("t") == spec == {"name": "t", "description": "T.", "argsSchema": NESTED}
    )


def test_a_handler_mutating_its_args_does_not_change_a_concurrent_threaded_call() -> None:
    # Both calls get the same dict object; the first one mutates its args while the second is
    # already running and has not looked at its own yet.
    session = Session()
    second_started = threading.Event()
    first_done = threading.Event()
    seen: dict[str, Any] = {}

    @session.on_tool("t", description="T.", schema=NESTED)
    def handler(args: dict[str, Any], ctx: ToolCallContext) -> str:
        if ctx.turn_id == "first":
            assert second_started.wait(5)
            vandal(args)
            first_done.set()
        else:
            second_started.set()
            assert first_done.wait(5)
            seen["second"] = copy.deepcopy(args)
        return "ok"

    results: dict[str, Any] = {}

    def call(turn: str) -> None:
        results[turn] = session.dispatch_sync("t", ARGS, turn_id=turn)

    threads = [threading.Thread(target=call, args=(turn,)) for turn in ("first", "second")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert [results[t].value for t in ("first", "second")] == ["ok", "ok"]
    assert seen["second"] == ARGS
    assert session.status == "idle"


@pytest.mark.asyncio
async def test_a_handler_mutating_its_args_does_not_change_a_concurrent_async_call() -> None:
    session = Session()
    second_started = asyncio.Event()
    first_done = asyncio.Event()
    seen: dict[str, Any] = {}

    @session.on_tool("t", description="T.", schema=NESTED)
    async def handler(args: dict[str, Any], ctx: ToolCallContext) -> str:
        if ctx.turn_id == "first":
            await second_started.wait()
            vandal(args)
            first_done.set()
        else:
            second_started.set()
            await first_done.wait()
            seen["second"] = copy.deepcopy(args)
        return "ok"

    first, second = await asyncio.gather(
        session.dispatch("t", ARGS, turn_id="first"), session.dispatch("t", ARGS, turn_id="second")
    )
    assert (first.value, second.value) == ("ok", "ok")
    assert seen["second"] == ARGS
    assert session.status == "idle"


@pytest.mark.asyncio
async def test_threaded_handlers_under_dispatch_get_their_own_args() -> None:
    session = Session()
    both = threading.Barrier(2, timeout=5)

    @session.on_tool("t", description="T.", schema=NESTED)
    def handler(args: dict[str, Any]) -> Any:
        both.wait()  # both calls hold their args at once
        seen = vandal(args)
        both.wait()
        return {"seen": seen, "after": args}

    first, second = await asyncio.gather(session.dispatch("t", ARGS), session.dispatch("t", ARGS))
    for result in (first, second):
        assert result.error is None
        assert result.value["seen"] == ARGS
        assert result.value["after"]["tags"] == ["CHANGED", "q", "more"]  # only its own edits
    assert ARGS == {"name": "a", "tags": ["p", "q"], "card": {"labels": [1, 2]}}


def test_a_fallback_handler_gets_its_own_args_too() -> None:
    session = Session.from_manifest(
        {"tools": [{"name": "t", "description": "T.", "argsSchema": NESTED}]}
    )
    session.on_any_tool(lambda tool, args, ctx: vandal(args))
    args = copy.deepcopy(ARGS)
    assert session.dispatch_sync("t", args).value == ARGS
    assert session.dispatch_sync("t", args).value == ARGS
    assert args == ARGS


# --- results -------------------------------------------------------------------------------------


def test_a_result_is_a_copy_of_what_the_handler_returned() -> None:
    kept: dict[str, Any] = {"items": [1, 2], "flat": 1}
    flat: dict[str, Any] = {"a": 1}
    session = Session()
    session.on_tool("nested", description="N.", schema={"type": "object"})(lambda args: kept)
    session.on_tool("flat", description="F.", schema={"type": "object"})(lambda args: flat)
    nested_result = session.dispatch_sync("nested", {})
    flat_result = session.dispatch_sync("flat", {})
    kept["items"].append(3)
    kept["flat"] = 2
    flat["a"] = 2
    assert nested_result.value == {"items": [1, 2], "flat": 1}
    assert flat_result.value == {"a": 1}
    assert nested_result.to_text() == '{"items":[1,2],"flat":1}'
    # A second call copies afresh: one result's value is not another's.
    again = session.dispatch_sync("nested", {})
    assert again.value == kept and again.value is not kept
    again.value["items"].clear()
    assert kept["items"] == [1, 2, 3]


# --- the stored schema ------------------------------------------------------------------------


def registrations(schema: Any) -> dict[str, Session]:
    """One session per way a schema can come in, each with the tool "t"."""
    by_decorator = Session()
    by_decorator.on_tool("t", description="T.", schema=schema)(lambda args: args)
    definition = define_tool(name="t", description="T.", schema=schema, handler=lambda a: a)
    by_entry = Session(tools=[{"name": "t", "description": "T.", "argsSchema": schema}])
    by_entry.on_tool("t")(lambda args: args)
    by_manifest = Session.from_manifest(
        {"tools": [{"name": "t", "description": "T.", "argsSchema": schema}]}
    )
    by_manifest.on_tool("t")(lambda args: args)
    return {
        "on_tool": by_decorator,
        "define_tool": Session(tools=[definition]),
        "tools=": by_entry,
        "from_manifest": by_manifest,
    }


def vandalise_schema(schema: dict[str, Any]) -> None:
    properties = schema["properties"]
    properties["name"]["enum"].append("c")
    properties["name"]["type"] = "integer"
    properties["tags"]["items"]["pattern"] = "^[0-9]+$"
    properties["tags"]["default"].append("y")
    properties["card"]["required"].clear()
    properties["card"]["properties"]["labels"]["items"] = {"type": "string"}
    properties["new"] = {"type": "boolean"}
    schema["required"].append("new")
    schema["type"] = "array"


def test_mutating_the_schema_after_registration_changes_nothing() -> None:
    schema = copy.deepcopy(NESTED)
    sessions = registrations(schema)
    validator = compile_schema(schema)
    vandalise_schema(schema)
    bad = {"name": "c", "tags": ["1"], "card": {}}
    for way, session in sessions.items():
        assert session.tool_spec("t")["argsSchema"] == NESTED, way
        assert session.dispatch_sync("t", ARGS).value == ARGS, way
        result = session.dispatch_sync("t", bad)
        assert result.error is not None, way
        assert [e["keyword"] for e in result.error.details["errors"]] == [
            "enum",
            "pattern",
            "required",
        ], way
    assert validator.schema == NESTED
    assert validator.is_valid(ARGS) and not validator.is_valid(bad)


def test_mutating_what_the_session_hands_out_changes_nothing() -> None:
    session = registrations(copy.deepcopy(NESTED))["on_tool"]
    vandalise_schema(session.tool_spec("t")["argsSchema"])
    vandalise_schema(session.manifest()["tools"][0]["argsSchema"])
    assert session.tool_spec("t")["argsSchema"] == NESTED
    assert session.dispatch_sync("t", ARGS).value == ARGS


def test_a_handler_cannot_reach_the_stored_schema_through_its_args() -> None:
    # Defaults are never inserted into args; a handler that fills in its own (and mutates
    # them) leaves the schema's default alone.
    session = Session()

    @session.on_tool("t", description="T.", schema=NESTED)
    def handler(args: dict[str, Any]) -> Any:
        tags = args.setdefault(
            "tags", session.tool_spec("t")["argsSchema"]["properties"]["tags"]["default"]
        )
        tags.append("mutated")
        return sorted(args)

    assert session.dispatch_sync("t", {"name": "a"}).value == ["name", "tags"]
    assert session.dispatch_sync("t", {"name": "a"}).value == ["name", "tags"]
    assert session.tool_spec("t")["argsSchema"]["properties"]["tags"]["default"] == ["x"]


# --- what an error result tells the agent ------------------------------------------------------

SECRET = "sk-live-0123456789abcdef"


def leaky_session() -> Session:
    session = Session()
    schema: Any = {"type": "object"}

    @session.on_tool("sync", description="S.", schema=schema)
    def sync_handler(args: dict[str, Any]) -> Any:
        api_key = SECRET  # a local variable in the failing frame
        return {"n": int(args.get("n", "x")), "key": api_key}

    @session.on_tool("async", description="A.", schema=schema)
    async def async_handler(args: dict[str, Any]) -> Any:
        api_key = SECRET
        await asyncio.sleep(0)
        return {"n": int(args.get("n", "x")), "key": api_key}

    @session.on_tool("chained", description="C.", schema=schema)
    def chained(args: dict[str, Any]) -> Any:
        password = SECRET
        try:
            return {password: args["missing"]}
        except KeyError as exc:
            raise RuntimeError("could not read the order") from exc

    @session.on_tool("file", description="F.", schema=schema)
    def read_file(args: dict[str, Any]) -> Any:
        with open(f"/nonexistent/{SECRET}/config.yaml") as handle:
            return handle.read()

    @session.on_tool("syntax", description="S.", schema=schema)
    def compile_rule(args: dict[str, Any]) -> Any:
        return compile("def (", f"/srv/rules/{SECRET}.py", "exec")

    return session


LEAKS = [
    (
        "sync",
        '{"error":{"code":"TOOL_HANDLER_ERROR","message":"Tool \\"sync\\" failed: ValueError: '
        'invalid literal for int() with base 10: \'x\'","details":{"tool":"sync",'
        '"exception":"ValueError"}}}',
    ),
    (
        "async",
        '{"error":{"code":"TOOL_HANDLER_ERROR","message":"Tool \\"async\\" failed: ValueError: '
        'invalid literal for int() with base 10: \'x\'","details":{"tool":"async",'
        '"exception":"ValueError"}}}',
    ),
    (
        "chained",
        '{"error":{"code":"TOOL_HANDLER_ERROR","message":"Tool \\"chained\\" failed: '
        'RuntimeError: could not read the order","details":{"tool":"chained",'
        '"exception":"RuntimeError"}}}',
    ),
    (
        "file",
        '{"error":{"code":"TOOL_HANDLER_ERROR","message":"Tool \\"file\\" failed: '
        'FileNotFoundError: No such file or directory","details":{"tool":"file",'
        '"exception":"FileNotFoundError"}}}',
    ),
    (
        "syntax",
        '{"error":{"code":"TOOL_HANDLER_ERROR","message":"Tool \\"syntax\\" failed: '
        'SyntaxError: invalid syntax","details":{"tool":"syntax","exception":"SyntaxError"}}}',
    ),
]


@pytest.mark.parametrize("awaited", [False, True], ids=["dispatch_sync", "dispatch"])
@pytest.mark.parametrize(("tool", "text"), LEAKS, ids=[tool for tool, _ in LEAKS])
def test_an_error_result_carries_no_traceback_path_or_local(
    tool: str, text: str, awaited: bool, caplog: pytest.LogCaptureFixture
) -> None:
    session = leaky_session()
    with caplog.at_level(logging.ERROR, logger="pedelec"):
        if awaited:
            result = asyncio.run(session.dispatch(tool, {}))
        else:
            result = session.dispatch_sync(tool, {})
    assert result.to_text() == text
    for leak in (SECRET, "Traceback", __file__, "line ", "/nonexistent", "/srv/"):
        assert leak not in result.to_text()
        assert leak not in repr(result)
    # The developer's log has it all: the whole traceback, through the handler's own frame.
    [record] = [r for r in caplog.records if r.name == "pedelec"]
    assert record.getMessage() == f'pedelec: the handler of tool "{tool}" raised'
    assert record.exc_info is not None
    logged = caplog.text
    assert "Traceback (most recent call last):" in logged
    assert __file__ in logged
    if tool == "chained":
        assert "The above exception was the direct cause of the following exception:" in logged
        assert "KeyError: 'missing'" in logged
    if tool == "file":
        assert f"/nonexistent/{SECRET}/config.yaml" in logged


def test_an_error_result_is_plain_json_without_the_exception_object() -> None:
    result = leaky_session().dispatch_sync("sync", {})
    assert result.error is not None
    assert result.error.__cause__ is None and result.error.__context__ is None
    assert result.error.__traceback__ is None
    assert json.loads(result.to_text()) == result.to_json()


def test_a_late_failure_is_logged_with_its_traceback(caplog: pytest.LogCaptureFixture) -> None:
    # A threaded handler that raises after its call timed out: the agent has its TOOL_TIMEOUT,
    # the developer still gets the traceback.
    session = Session()
    release = threading.Event()
    finished = threading.Event()

    @session.on_tool("late", description="L.", schema={"type": "object"}, timeout_ms=10)
    def late(args: dict[str, Any]) -> Any:
        token = SECRET
        release.wait(5)
        try:
            raise ValueError(f"failed late with {len(token)} characters")
        finally:
            finished.set()

    with caplog.at_level(logging.ERROR, logger="pedelec"):
        result = asyncio.run(session.dispatch("late", {}))
        assert result.error is not None and result.error.code == "TOOL_TIMEOUT"
        assert SECRET not in result.to_text()
        release.set()
        assert finished.wait(5)
        session.end()  # shuts the worker pool down once the late handler is done
        # The record is written by the worker after `finished` is set; give a loaded machine
        # up to 10 s for it (the loop ends as soon as it is there).
        for _ in range(1000):
            # The record is listed a moment before its text is written: wait for both.
            if "failed late with 24 characters" in caplog.text:
                break
            threading.Event().wait(0.01)
    [record] = [r for r in caplog.records if "after its call was over" in r.getMessage()]
    assert (
        record.getMessage() == 'pedelec: the handler of tool "late" raised after its call was over'
    )
    assert record.exc_info is not None and "failed late with 24 characters" in caplog.text
