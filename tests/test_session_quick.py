"""The quick path of ``dispatch_sync``: a tool of the registry's quick table whose call passes
the validating copy skips the rest of admission. Every setting and every registration that
changes what a call needs must take it off that path at once.

Each test first makes the path live (the validator's code generated, calls answered), then
changes one thing and checks the next call's whole result. The table itself is checked too:
which tools are in it, and whether the session uses it.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from typing import Any

import pytest
from hypothesis import given, strategies as st
from test_hardening_properties import agent_args, check_result, examples, root_schemas, values_for

from pedelec import Session, compile_schema
from pedelec._context import ToolCallContext
from pedelec.session import ToolCall, ToolResult

LEVEL: Any = {
    "type": "object",
    "properties": {"level": {"type": "integer", "minimum": 0, "maximum": 100}},
    "required": ["level"],
}
OUT: Any = {"type": "integer"}


def code(result: ToolResult) -> str | None:
    return None if result.error is None else result.error.code


def quick_session(**options: Any) -> tuple[Session, list[Any]]:
    """A session with ``set`` (an args-only handler) and ``bare`` (no handler), warmed."""
    bare = {"name": "bare", "description": "No handler yet.", "argsSchema": LEVEL}
    session = Session([bare], **options)
    seen: list[Any] = []

    @session.on_tool("set", description="Set the level.", schema=LEVEL)
    def set_level(args: dict[str, Any]) -> int:
        seen.append(args)
        return int(args["level"])

    compile_schema(LEVEL)._generate()  # the generated copier: the quick path is live
    assert session.dispatch_sync("set", {"level": 1}).value == 1
    seen.clear()
    return session, seen


def test_the_table_holds_the_tools_whose_usual_call_needs_only_the_copy() -> None:
    session, _ = quick_session()

    @session.on_tool("out", description="Has an output schema.", schema=LEVEL, output_schema=OUT)
    def out(args: dict[str, Any]) -> int:
        return 1

    @session.on_tool("ask", description="Needs approval.", schema=LEVEL, requires_approval=True)
    def ask(args: dict[str, Any]) -> int:
        return 1

    @session.on_tool("later", description="Async.", schema=LEVEL)
    async def later(args: dict[str, Any]) -> int:
        return 1

    @session.tool
    def typed(level: int) -> int:
        """A typed tool: its args are prepared for the call."""
        return level

    @session.on_tool("with_ctx", description="Takes ctx.", schema=LEVEL)
    def with_ctx(args: dict[str, Any], ctx: ToolCallContext) -> str:
        return ctx.tool_request_id

    registry = session._registry
    assert sorted(registry.quick) == ["set"]
    entry = registry.get("set")
    assert entry is not None
    assert entry.inline is not None
    assert registry.quick["set"] == (
        entry.validator,
        entry.inline.args_only,
        60.0,
        60_000,
        entry,
        entry.inline,
    )
    assert session.dispatch_sync("with_ctx", {"level": 1}, tool_request_id="r1").value == "r1"
    assert session._quick is registry.quick


@pytest.mark.parametrize(
    ("options", "uses_table"),
    [
        ({}, True),
        ({"max_concurrency": 2}, False),
        ({"sync_dispatch": "worker"}, False),
        ({"reject_unknown_args": True}, False),
        ({"lenient_json_args": True}, True),
    ],
)
def test_the_session_uses_the_table_only_when_its_settings_add_nothing(
    options: dict[str, Any], uses_table: bool
) -> None:
    session, seen = quick_session(**options)
    assert (session._quick is session._registry.quick) is uses_table
    assert session.dispatch_sync("set", {"level": 7, "extra": 1}).to_json() == (
        7
        if not options.get("reject_unknown_args")
        else {
            "error": {
                "code": "TOOL_ARGS_INVALID",
                "message": 'Invalid arguments for tool "set": (root): unknown property "extra"; '
                'declared properties are "level" (additionalProperties). Correct the arguments '
                "and call the tool again.",
                "details": {
                    "tool": "set",
                    "errors": [
                        {
                            "path": "",
                            "keyword": "additionalProperties",
                            "message": 'unknown property "extra"; declared properties are "level"',
                        }
                    ],
                },
            }
        }
    )
    assert seen == ([] if options.get("reject_unknown_args") else [{"level": 7, "extra": 1}])
    session.end()


def test_middleware_added_after_quick_calls_runs_and_stops_when_removed() -> None:
    session, seen = quick_session()
    calls: list[str] = []

    def note(call: ToolCall, call_next: Any) -> Any:
        calls.append(call.tool)
        return call_next(call)

    remove = session.use(note)
    assert session._quick is None
    assert session.dispatch_sync("set", {"level": 2}).value == 2
    assert calls == ["set"]
    remove()
    assert session._quick is session._registry.quick
    assert session.dispatch_sync("set", {"level": 3}).value == 3
    assert calls == ["set"]
    assert seen == [{"level": 2}, {"level": 3}]


def test_reject_unknown_args_set_later_applies_to_the_next_call() -> None:
    session, seen = quick_session()
    assert session.dispatch_sync("set", {"level": 4, "levle": 5}).value == 4
    session.reject_unknown_args = True
    refused = session.dispatch_sync("set", {"level": 4, "levle": 5})
    assert refused.error is not None
    assert refused.error.message == (
        'Invalid arguments for tool "set": (root): unknown property "levle"; did you mean '
        '"level"? (additionalProperties). Correct the arguments and call the tool again.'
    )
    session.reject_unknown_args = False
    assert session.dispatch_sync("set", {"level": 4, "levle": 5}).value == 4
    assert seen == [{"level": 4, "levle": 5}, {"level": 4, "levle": 5}]


def test_a_named_handler_attached_later_wins_and_detaching_it_restores_the_inline_one() -> None:
    session, _ = quick_session()

    def named(args: dict[str, Any]) -> str:
        return "named"

    session.on_tool("set")(named)
    assert session.dispatch_sync("set", {"level": 5}).value == "named"
    assert session._registry.quick["set"][5].source is named
    assert session.off_tool("set", named) is True
    assert session.dispatch_sync("set", {"level": 5}).value == 5


def test_removing_the_inline_handler_takes_the_tool_off_the_table() -> None:
    session, seen = quick_session()
    handler = session._registry.quick["set"][5].source
    assert session.off_tool("set", handler) is True
    assert "set" not in session._registry.quick
    assert session.dispatch_sync("set", {"level": 5}).to_json() == {
        "error": {
            "code": "TOOL_HANDLER_NOT_FOUND",
            "message": 'Tool "set" has no handler registered, so it cannot be run.',
            "details": {"tool": "set"},
        }
    }
    assert seen == []


def test_an_async_named_handler_takes_the_tool_off_the_table() -> None:
    session, _ = quick_session()

    async def later(args: dict[str, Any]) -> str:
        await asyncio.sleep(0)
        return "async"

    session.on_tool("set")(later)
    assert "set" not in session._registry.quick
    assert session.dispatch_sync("set", {"level": 5}).value == "async"
    assert session.off_tool("set", later) is True
    assert "set" in session._registry.quick
    assert session.dispatch_sync("set", {"level": 5}).value == 5


def test_the_fallback_reaches_tools_without_a_handler_and_leaves_with_its_removal() -> None:
    # The fallback takes (tool, args, ctx), so its tools stay off the table: their calls go
    # through admission, which finds it, and stop finding it once it is removed.
    session, _ = quick_session()
    assert code(session.dispatch_sync("bare", {"level": 1})) == "TOOL_HANDLER_NOT_FOUND"
    assert "bare" not in session._registry.quick

    def anything(tool: str, args: dict[str, Any], ctx: ToolCallContext) -> list[Any]:
        return [tool, args["level"]]

    session.on_any_tool(anything)
    assert sorted(session._registry.quick) == ["set"]
    assert session.dispatch_sync("bare", {"level": 1}).value == ["bare", 1]
    assert session.off_any_tool(anything) is True
    assert "bare" not in session._registry.quick
    assert code(session.dispatch_sync("bare", {"level": 1})) == "TOOL_HANDLER_NOT_FOUND"


def test_a_status_watcher_added_later_sees_the_quick_tools_calls() -> None:
    session, _ = quick_session()
    statuses: list[str] = []
    unsubscribe = session.on_status(statuses.append)
    assert session._quick is None
    assert session.dispatch_sync("set", {"level": 6}).value == 6
    assert statuses == ["waiting_tool_result", "idle"]
    unsubscribe()
    assert session._quick is session._registry.quick
    assert session.dispatch_sync("set", {"level": 7}).value == 7
    assert statuses == ["waiting_tool_result", "idle"]


def test_other_callbacks_leave_the_table_in_use() -> None:
    session, _ = quick_session()
    session.on_error(lambda result: None)
    session.on_ended(lambda: None)
    assert session._quick is session._registry.quick


def test_a_status_watcher_removed_while_another_remains_keeps_the_table_off() -> None:
    session, _ = quick_session()
    statuses: list[str] = []
    first = session.on_status(statuses.append)
    session.on_status(statuses.append)
    first()
    assert session._quick is None
    assert session.dispatch_sync("set", {"level": 6}).value == 6
    assert statuses == ["waiting_tool_result", "idle"]


def test_end_stops_the_quick_path() -> None:
    session, seen = quick_session()
    session.end()
    assert session._quick is None
    session.reject_unknown_args = False  # a setting changed after end() does not restore it
    assert session._quick is None
    assert session.dispatch_sync("set", {"level": 6}).to_json() == {
        "error": {
            "code": "SESSION_ENDED",
            "message": 'The session has ended; tool "set" was not run.',
            "details": {"tool": "set"},
        }
    }
    assert seen == []


def test_a_timeout_ms_argument_still_sets_the_calls_timeout() -> None:
    session = Session()

    @session.on_tool("slow", description="Sleeps.", schema=LEVEL)
    def slow(args: dict[str, Any]) -> Any:
        time.sleep(0.02)
        return sorted(args)

    compile_schema(LEVEL)._generate()
    assert session.dispatch_sync("slow", {"level": 1}).value == ["level"]
    late = session.dispatch_sync("slow", {"level": 1, "timeoutMs": 1})
    assert late.error is not None
    assert late.error.code == "TOOL_TIMEOUT"
    assert session.dispatch_sync("slow", {"level": 1, "timeoutMs": 5000}).value == ["level"]


def test_a_quick_tools_own_timeout_ms_bounds_its_inline_call() -> None:
    session = Session()

    @session.on_tool("slow", description="Sleeps.", schema=LEVEL, timeout_ms=5)
    def slow(args: dict[str, Any]) -> Any:
        time.sleep(0.03)
        return 1

    compile_schema(LEVEL)._generate()
    assert session._registry.quick["slow"][2:4] == (0.005, 5)
    assert session.dispatch_sync("slow", {"level": 1}).to_json() == {
        "error": {
            "code": "TOOL_TIMEOUT",
            "message": 'Tool "slow" did not finish within 5 ms.',
            "details": {"tool": "slow", "timeoutMs": 5},
        }
    }
    assert session._runner.running == []


def test_invalid_args_of_a_quick_tool_get_the_whole_error() -> None:
    session, seen = quick_session()
    assert session.dispatch_sync("set", {"level": 101}).to_json() == {
        "error": {
            "code": "TOOL_ARGS_INVALID",
            "message": 'Invalid arguments for tool "set": /level: must be <= 100, got 101 '
            "(maximum). Correct the arguments and call the tool again.",
            "details": {
                "tool": "set",
                "errors": [
                    {"path": "/level", "keyword": "maximum", "message": "must be <= 100, got 101"}
                ],
            },
        }
    }
    assert code(session.dispatch_sync([], {"level": 1})) == "TOOL_NOT_FOUND"  # type: ignore[arg-type]
    assert seen == []


def test_quick_args_are_the_calls_own_and_results_carry_fresh_ids() -> None:
    session, seen = quick_session()
    args = {"level": 9}
    first = session.dispatch_sync("set", args)
    second = session.dispatch_sync("set", args, tool_request_id="given")
    assert seen[0] == args and seen[0] is not args
    assert first.tool_request_id.startswith("call_")
    assert second.tool_request_id == "given"
    assert first.tool_request_id != session.dispatch_sync("set", args).tool_request_id


def test_a_raising_or_oddly_returning_quick_handler_is_settled() -> None:
    session = Session()

    @session.on_tool("boom", description="Raises.", schema=LEVEL)
    def boom(args: dict[str, Any]) -> Any:
        if args["level"] == 0:
            raise ValueError("no zero")
        return {"level": args["level"], "big": 2**60}

    compile_schema(LEVEL)._generate()
    failed = session.dispatch_sync("boom", {"level": 0})
    assert failed.error is not None
    assert (failed.error.code, failed.error.message) == (
        "TOOL_HANDLER_ERROR",
        'Tool "boom" failed: ValueError: no zero',
    )
    assert session.dispatch_sync("boom", {"level": 3}).value == {"level": 3, "big": 2**60}
    assert session._runner.running == []


def recorder(seen: list[Any]) -> Any:
    """An args-only handler that keeps what it was given."""

    def t(args: dict[str, Any]) -> Any:
        seen.append(args)
        return {"got": sorted(args)}

    return t


def paired_sessions(schema: Any) -> tuple[Session, Session, dict[str, list[Any]]]:
    """The tool ``t`` of ``schema`` in a session that uses the quick table and in one that cannot
    (a cap makes every call go through admission and the flow), with the args each handler got."""
    compile_schema(schema)._generate()
    quick, full = Session(), Session(max_concurrency=10**6)
    seen: dict[str, list[Any]] = {"quick": [], "full": []}
    for label, session in (("quick", quick), ("full", full)):
        session.on_tool("t", description="T.", schema=schema)(recorder(seen[label]))
    assert quick._quick is quick._registry.quick and full._quick is None
    return quick, full, seen


def answer_alike(quick: Session, full: Session, args: Any) -> None:
    """One call of ``t`` in both sessions: a well-formed result, the same in both."""
    first = quick.dispatch_sync("t", args, tool_request_id="same")
    second = full.dispatch_sync("t", args, tool_request_id="same")
    check_result(first)
    assert first.to_json() == second.to_json()


@examples(150)
@given(schema=root_schemas, data=st.data())
def test_the_quick_path_answers_every_call_as_full_admission_does(schema: Any, data: Any) -> None:
    # The same tool in a session that uses the table and in one that cannot (a cap makes every
    # call go through admission and the flow): the same result for each call, and the same
    # args reach each handler, never the caller's own objects.
    values = [data.draw(values_for(schema) | agent_args, label="args") for _ in range(4)]
    quick, full, seen = paired_sessions(schema)
    for value in values:
        answer_alike(quick, full, value)
    assert seen["quick"] == seen["full"]
    assert all(args is not value for args, value in itertools.product(seen["quick"], values))


def as_text(value: Any) -> str | None:
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None


#: Ways to spoil a JSON text of args: each takes the call off the quick path, to a refusal by
#: the strict parse or by validation, or to admission's handling of a ``timeoutMs``.
SPOILERS = [
    lambda text: text[:-1],  # cut short
    lambda text: text.replace("{", '{"k": 1, "k": 2, ', 1) if text.startswith("{") else text,
    lambda text: text.replace("{", '{"timeoutMs": 1, ', 1) if text.startswith("{") else text,
    lambda text: text.replace("{", '{"s": "\\ud800", ', 1) if text.startswith("{") else text,
    lambda text: "NaN",
    lambda text: "[" + text + "]",
    lambda text: text + " x",
]


@examples(100)
@given(schema=root_schemas, data=st.data())
def test_the_quick_path_answers_text_as_full_admission_does(schema: Any, data: Any) -> None:
    # As above, with the args sent as JSON text (str or UTF-8 bytes), whole or spoiled: the
    # quick path parses and validates text itself, and must answer as admission does.
    values = [data.draw(values_for(schema), label="args") for _ in range(3)]
    texts = [text for text in map(as_text, values) if text is not None]
    texts += [data.draw(st.sampled_from(SPOILERS), label="spoil")(text) for text in texts]
    quick, full, seen = paired_sessions(schema)
    for text in texts:
        for sent in (text, text.encode("utf-8", "surrogatepass")):
            answer_alike(quick, full, sent)
    assert seen["quick"] == seen["full"]


def test_a_quick_tool_called_with_text_gets_the_parsed_args_or_the_whole_error() -> None:
    session, seen = quick_session()
    assert session.dispatch_sync("set", '{"level": 7}').value == 7
    assert session.dispatch_sync("set", b'{"level": 8}').value == 8
    assert seen == [{"level": 7}, {"level": 8}]
    assert session.dispatch_sync("set", '{"level": 1, "level": 2}').to_json() == {
        "error": {
            "code": "TOOL_ARGS_INVALID",
            "message": 'Invalid arguments for tool "set": args are not valid JSON: duplicate '
            'key "level" in the object at the root (line 1, column 14); send each key once. '
            "Correct the arguments and call the tool again.",
            "details": {"tool": "set", "pointer": "", "line": 1, "column": 14},
        }
    }
    assert session.dispatch_sync("set", '{"level": 101}').error.details["errors"] == [  # type: ignore[union-attr]
        {"path": "/level", "keyword": "maximum", "message": "must be <= 100, got 101"}
    ]
    timed = session.dispatch_sync("set", '{"level": 3, "timeoutMs": 5000}')
    assert timed.value == 3
    assert seen[-1] == {"level": 3}
    assert session._runner.running == []


def test_settings_changed_from_two_threads_leave_the_table_as_the_last_state_says() -> None:
    # reject_unknown_args and middleware both decide whether the table is used; each change
    # recomputes that under the session's lock, so no interleaving can leave the table on
    # while a middleware is in place (or off with nothing in place).
    import threading

    session, _ = quick_session()

    def noop(call: ToolCall, call_next: Any) -> Any:
        return call_next(call)

    def toggle_reject() -> None:
        for index in range(2000):
            session.reject_unknown_args = index % 2 == 0
        session.reject_unknown_args = False

    def toggle_middleware() -> None:
        for _ in range(2000):
            session.use(noop)()

    threads = [threading.Thread(target=toggle_reject), threading.Thread(target=toggle_middleware)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert session._quick is session._registry.quick
    remove = session.use(noop)
    session.reject_unknown_args = True
    session.reject_unknown_args = False
    assert session._quick is None
    remove()
    assert session._quick is session._registry.quick
