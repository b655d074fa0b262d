"""``pedelec.otel``: one GenAI ``execute_tool`` span per tool call, seen by the SDK's exporter.

Spans go to a private ``TracerProvider`` with the SDK's ``InMemorySpanExporter`` (the global
provider is never set in this process), except under ``pedelec serve``, where the served
target sets the global provider of its own process and writes its spans to a file.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from opentelemetry import context, trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, StatusCode, TraceFlags

from pedelec import PedelecError, Session
from pedelec.adapters import mcp as pedelec_mcp
from pedelec.otel import CAPTURE_CONTENT_ENV, instrument

ROOT = Path(__file__).resolve().parent.parent

ADD = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
}
ANY: dict[str, Any] = {"type": "object"}


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
def provider(exporter: InMemorySpanExporter) -> Iterator[TracerProvider]:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider
    provider.shutdown()


@pytest.fixture
def session(provider: TracerProvider) -> Iterator[Session]:
    session = Session()

    @session.on_tool("add", description="Add two integers.", schema=ADD)
    def add(args: dict[str, int]) -> int:
        return args["a"] + args["b"]

    @session.on_tool("explode", description="Always fails.", schema=ANY)
    def explode(args: Any) -> None:
        raise ValueError("boom")

    @session.on_tool("slow", description="Sleeps past its timeout.", schema=ANY, timeout_ms=20)
    async def slow(args: Any) -> None:
        await asyncio.sleep(30)

    declare_inner(session, provider)
    yield session
    session.end()


def declare_inner(session: Session, provider: TracerProvider) -> None:
    """Two tools whose handlers make a span of their own and return their thread's id."""
    tracer = provider.get_tracer("handlers")

    @session.on_tool("inner_sync", description="Makes its own span.", schema=ANY)
    def inner_sync(args: Any) -> int:
        with tracer.start_as_current_span("inside"):
            return threading.get_ident()

    @session.on_tool("inner_async", description="Makes its own span.", schema=ANY)
    async def inner_async(args: Any) -> int:
        await asyncio.sleep(0)
        with tracer.start_as_current_span("inside"):
            return threading.get_ident()


def attributes_of(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


def call(session: Session, how: str, name: Any, args: Any, **kw: Any) -> Any:
    if how == "sync":
        return session.dispatch_sync(name, args, **kw)
    return asyncio.run(session.dispatch(name, args, **kw))


def base(tool: str, rid: str, description: str | None) -> dict[str, Any]:
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": tool,
        "gen_ai.tool.call.id": rid,
        "gen_ai.tool.type": "function",
    }
    if description is not None:
        attributes["gen_ai.tool.description"] = description
    return attributes


# (tool, args, span name, description attribute, error.type or None)
OUTCOMES = [
    ("add", {"a": 1, "b": 2}, "execute_tool add", "Add two integers.", None),
    ("add", {"a": "1", "b": 2}, "execute_tool add", "Add two integers.", "TOOL_ARGS_INVALID"),
    ("nope", {}, "execute_tool", None, "TOOL_NOT_FOUND"),
    ("explode", {}, "execute_tool explode", "Always fails.", "TOOL_HANDLER_ERROR"),
    ("slow", {}, "execute_tool slow", "Sleeps past its timeout.", "TOOL_TIMEOUT"),
]


@pytest.mark.parametrize("capture", [False, True])
@pytest.mark.parametrize("how", ["sync", "async"])
@pytest.mark.parametrize(("tool", "args", "name", "description", "code"), OUTCOMES)
def test_each_outcome_is_one_span_named_and_attributed_by_the_conventions(
    session: Session,
    provider: TracerProvider,
    exporter: InMemorySpanExporter,
    how: str,
    capture: bool,
    tool: str,
    args: Any,
    name: str,
    description: str | None,
    code: str | None,
) -> None:
    instrument(session, tracer_provider=provider, capture_content=capture)
    result = call(session, how, tool, args, tool_request_id="call_7")
    assert (result.error.code if result.error else None) == code
    (span,) = exporter.get_finished_spans()
    assert span.name == name
    assert span.kind is SpanKind.INTERNAL
    assert span.parent is None
    expected = base(tool, "call_7", description)
    if capture:
        expected["gen_ai.tool.call.arguments"] = json.dumps(args, separators=(",", ":"))
    if code is None:
        if capture:
            expected["gen_ai.tool.call.result"] = "3"
        assert span.status.status_code is StatusCode.UNSET
        assert span.status.description is None
    else:
        expected["error.type"] = code
        assert span.status.status_code is StatusCode.ERROR
        # With capture on, the status description is exactly the message the agent got.
        assert span.status.description == (result.error.message if capture else None)
    assert attributes_of(span) == expected
    assert span.events == ()
    assert span.instrumentation_scope is not None
    assert span.instrumentation_scope.name == "pedelec"


def test_captured_args_are_the_text_as_sent(
    session: Session, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    instrument(session, tracer_provider=provider, capture_content=True)
    session.dispatch_sync("add", '{"a": 1,  "b": 2}', tool_request_id="t")
    session.dispatch_sync("add", b'{"a": 3, "b": 4}', tool_request_id="b")
    # Not JSON at all: the call is TOOL_ARGS_INVALID, and there is no text to record.
    assert session.dispatch_sync("add", {"a": {1, 2}}, tool_request_id="s").is_error
    text, raw, not_json = exporter.get_finished_spans()
    assert text.attributes is not None and raw.attributes is not None
    assert text.attributes["gen_ai.tool.call.arguments"] == '{"a": 1,  "b": 2}'
    assert text.attributes["gen_ai.tool.call.result"] == "3"
    assert raw.attributes["gen_ai.tool.call.arguments"] == '{"a": 3, "b": 4}'
    assert "gen_ai.tool.call.arguments" not in attributes_of(not_json)
    assert attributes_of(not_json)["error.type"] == "TOOL_ARGS_INVALID"


def test_captured_args_are_cut_at_the_args_bound(
    provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    from pedelec import Limits

    session = Session(limits=Limits(max_args_bytes=1024))
    session.on_tool("echo", description="Echo.", schema=ANY)(lambda args: None)
    instrument(session, tracer_provider=provider, capture_content=True)
    sent = json.dumps({"text": "x" * 5000})
    assert session.dispatch_sync("echo", sent).error.code == "TOOL_ARGS_INVALID"
    (span,) = exporter.get_finished_spans()
    assert attributes_of(span)["gen_ai.tool.call.arguments"] == sent[:1024] + "…"


@pytest.mark.parametrize(
    ("value", "captured"),
    [
        ("true", True),
        ("TRUE", True),
        (" span_only ", True),
        ("SPAN_AND_EVENT", True),
        ("event_only", False),
        ("no_content", False),
        ("false", False),
        ("1", False),
        ("", False),
        (None, False),
    ],
)
def test_the_environment_variable_switches_content_capture(
    session: Session,
    provider: TracerProvider,
    exporter: InMemorySpanExporter,
    monkeypatch: pytest.MonkeyPatch,
    value: str | None,
    captured: bool,
) -> None:
    assert CAPTURE_CONTENT_ENV == "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
    if value is None:
        monkeypatch.delenv(CAPTURE_CONTENT_ENV, raising=False)
    else:
        monkeypatch.setenv(CAPTURE_CONTENT_ENV, value)
    instrument(session, tracer_provider=provider)
    session.dispatch_sync("add", {"a": 1, "b": 2})
    (span,) = exporter.get_finished_spans()
    assert ("gen_ai.tool.call.result" in attributes_of(span)) is captured
    assert ("gen_ai.tool.call.arguments" in attributes_of(span)) is captured


def test_an_explicit_capture_content_wins_over_the_environment(
    session: Session,
    provider: TracerProvider,
    exporter: InMemorySpanExporter,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(CAPTURE_CONTENT_ENV, "true")
    instrument(session, tracer_provider=provider, capture_content=False)
    session.dispatch_sync("add", {"a": 1, "b": 2})
    (span,) = exporter.get_finished_spans()
    assert "gen_ai.tool.call.result" not in attributes_of(span)


def test_the_call_id_is_the_one_the_handler_sees(
    provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    session = Session()
    seen: list[str] = []
    session.on_tool("who", description="Who am I.", schema=ANY)(
        lambda args, ctx: seen.append(ctx.tool_request_id)
    )
    instrument(session, tracer_provider=provider)
    first = session.dispatch_sync("who", {})  # no id given: the session's own kind of id
    second = asyncio.run(session.dispatch("who", {}))
    ids = [attributes_of(span)["gen_ai.tool.call.id"] for span in exporter.get_finished_spans()]
    assert ids == seen == [first.tool_request_id, second.tool_request_id]
    assert ids[0].startswith("call_") and ids[0] != ids[1]


def test_stop_restores_the_session_and_a_held_wrapper_passes_through(
    session: Session, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    stop = instrument(session, tracer_provider=provider)
    held = session.dispatch_sync  # an adapter built before stop() keeps this
    assert "dispatch" in vars(session) and "dispatch_sync" in vars(session)
    stop()
    assert "dispatch" not in vars(session) and "dispatch_sync" not in vars(session)
    assert session.dispatch_sync("add", {"a": 1, "b": 2}).value == 3
    assert held("add", {"a": 2, "b": 2}).value == 4
    assert exporter.get_finished_spans() == ()
    stop()  # a second call does nothing
    instrument(session, tracer_provider=provider)  # and tracing can start again
    session.dispatch_sync("add", {"a": 1, "b": 2})
    assert [span.name for span in exporter.get_finished_spans()] == ["execute_tool add"]


def test_stop_leaves_a_later_wrapper_in_place(
    session: Session, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    stop = instrument(session, tracer_provider=provider)
    inner = session.dispatch_sync
    calls: list[str] = []

    def audited(name: Any, args: Any, **kw: Any) -> Any:
        calls.append(name)
        return inner(name, args, **kw)

    vars(session)["dispatch_sync"] = audited
    stop()
    assert session.dispatch_sync is audited
    assert session.dispatch_sync("add", {"a": 1, "b": 2}).value == 3
    assert calls == ["add"]
    assert exporter.get_finished_spans() == ()


def test_instrument_refuses_what_it_cannot_trace(
    session: Session, provider: TracerProvider
) -> None:
    with pytest.raises(PedelecError) as caught:
        instrument(object(), tracer_provider=provider)  # type: ignore[arg-type]
    assert caught.value.to_dict() == {
        "code": "INVALID_INPUT",
        "message": "instrument() needs a pedelec Session, got object.",
        "details": {"field": "session"},
    }
    with pytest.raises(PedelecError) as caught:
        instrument(session, capture_content="yes")  # type: ignore[arg-type]
    assert caught.value.to_dict() == {
        "code": "INVALID_INPUT",
        "message": "capture_content must be True, False or None, got 'yes'.",
        "details": {"field": "capture_content"},
    }
    instrument(session, tracer_provider=provider)
    with pytest.raises(PedelecError) as caught:
        instrument(session, tracer_provider=provider)
    assert caught.value.to_dict() == {
        "code": "INVALID_INPUT",
        "message": "This session is already instrumented; call the function instrument() "
        "returned to stop tracing it first.",
        "details": {"field": "session"},
    }


# --- parent and child -----------------------------------------------------------------------


def family(exporter: InMemorySpanExporter) -> tuple[ReadableSpan, ReadableSpan, ReadableSpan]:
    spans = {span.name: span for span in exporter.get_finished_spans()}
    assert len(spans) == 3, spans
    inside = spans.pop("inside")
    outer = spans.pop("agent turn")
    (tool,) = spans.values()
    return outer, tool, inside


def assert_family(exporter: InMemorySpanExporter) -> None:
    outer, tool, inside = family(exporter)
    assert tool.parent is not None and inside.parent is not None and outer.parent is None
    assert tool.parent.span_id == outer.context.span_id
    assert inside.parent.span_id == tool.context.span_id
    assert outer.context.trace_id == tool.context.trace_id == inside.context.trace_id


@pytest.mark.parametrize(
    ("tool", "how", "sync_dispatch", "other_thread"),
    [
        ("inner_sync", "sync", "inline", False),  # inline, in the caller's thread
        ("inner_sync", "sync", "worker", True),  # a worker thread, under dispatch_sync
        ("inner_sync", "async", "inline", True),  # a worker thread, under await dispatch
        ("inner_async", "async", "inline", False),  # the awaiting task
        ("inner_async", "sync", "inline", False),  # the private loop of dispatch_sync
    ],
)
def test_the_tool_span_is_the_parent_of_the_handlers_spans(
    provider: TracerProvider,
    exporter: InMemorySpanExporter,
    tool: str,
    how: str,
    sync_dispatch: Any,
    other_thread: bool,
) -> None:
    session = Session(sync_dispatch=sync_dispatch)
    tracer = provider.get_tracer("app")
    declare_inner(session, provider)
    instrument(session, tracer_provider=provider)
    if how == "sync":
        with tracer.start_as_current_span("agent turn"):
            result = session.dispatch_sync(tool, {})
    else:

        async def main() -> Any:
            with tracer.start_as_current_span("agent turn"):
                return await session.dispatch(tool, {})

        result = asyncio.run(main())
    assert (result.value != threading.get_ident()) is other_thread
    assert_family(exporter)
    # Once the call is over its span is no longer current.
    assert trace.get_current_span() is trace.INVALID_SPAN
    session.end()


def test_concurrent_calls_each_get_their_own_span_and_parent(
    session: Session, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    instrument(session, tracer_provider=provider)
    tracer = provider.get_tracer("app")

    async def turn(n: int) -> None:
        with tracer.start_as_current_span(f"turn {n}"):
            await session.dispatch("inner_async", {}, tool_request_id=f"c{n}")
            await session.dispatch("inner_sync", {}, tool_request_id=f"t{n}")

    async def main() -> None:
        await asyncio.gather(*(turn(n) for n in range(5)))

    asyncio.run(main())
    spans = exporter.get_finished_spans()
    by_id = {span.context.span_id: span for span in spans}
    for span in spans:
        if span.name.startswith("execute_tool"):
            assert span.parent is not None
            rid = attributes_of(span)["gen_ai.tool.call.id"]
            assert by_id[span.parent.span_id].name == f"turn {rid[1:]}"
        elif span.name == "inside":
            assert span.parent is not None
            assert by_id[span.parent.span_id].name.startswith("execute_tool")
    assert len(spans) == 5 * 5


def test_a_cancelled_caller_ends_the_span_with_the_cancellation(
    session: Session, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    session.on_tool("wait", description="Waits.", schema=ANY)(_wait_forever)
    instrument(session, tracer_provider=provider)

    async def main() -> None:
        task = asyncio.create_task(session.dispatch("wait", {}, tool_request_id="w"))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    (span,) = exporter.get_finished_spans()
    assert attributes_of(span) == {
        **base("wait", "w", "Waits."),
        "error.type": "asyncio.exceptions.CancelledError",
    }
    assert span.status.status_code is StatusCode.ERROR


async def _wait_forever(args: Any) -> None:
    await asyncio.Event().wait()


# --- what an agent sends ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        (["a", "list"], "<list>"),
        (None, "<NoneType>"),
        ("n" * 5000, "n" * 200 + "…"),
        ("bad\ud800name", "bad\\ud800name"),
    ],
)
def test_an_unknown_name_is_bounded_and_encodable(
    session: Session,
    provider: TracerProvider,
    exporter: InMemorySpanExporter,
    name: Any,
    shown: str,
) -> None:
    instrument(session, tracer_provider=provider, capture_content=True)
    assert session.dispatch_sync(name, {}, tool_request_id="x").error.code == "TOOL_NOT_FOUND"
    (span,) = exporter.get_finished_spans()
    assert span.name == "execute_tool"
    assert attributes_of(span)["gen_ai.tool.name"] == shown
    assert span.status.description is not None
    span.status.description.encode("utf-8")
    json.dumps(attributes_of(span), ensure_ascii=False).encode("utf-8")


def test_args_with_a_lone_surrogate_are_recorded_escaped(
    session: Session, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    instrument(session, tracer_provider=provider, capture_content=True)
    session.dispatch_sync("add", {"a": 1, "b": 2, "note": "x\udc00"})
    (span,) = exporter.get_finished_spans()
    assert attributes_of(span)["gen_ai.tool.call.arguments"] == '{"a":1,"b":2,"note":"x\\udc00"}'


class _BrokenTracer(trace.NoOpTracer):
    def start_span(self, *args: Any, **kwargs: Any) -> trace.Span:
        raise RuntimeError("exporter down")


class _BrokenProvider(trace.NoOpTracerProvider):
    def get_tracer(self, *args: Any, **kwargs: Any) -> trace.Tracer:
        return _BrokenTracer()


def test_telemetry_that_fails_never_fails_the_call(
    session: Session, caplog: pytest.LogCaptureFixture
) -> None:
    instrument(session, tracer_provider=_BrokenProvider())
    assert session.dispatch_sync("add", {"a": 1, "b": 2}).value == 3
    assert asyncio.run(session.dispatch("add", {"a": 2, "b": 2})).value == 4
    messages = [r.getMessage() for r in caplog.records if r.name == "pedelec"]
    assert messages == ["pedelec.otel: recording a tool call's span failed"] * 2


def test_dispatch_sync_from_a_running_loop_still_raises_and_makes_no_span(
    session: Session, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    instrument(session, tracer_provider=provider)

    async def main() -> None:
        with pytest.raises(RuntimeError):
            session.dispatch_sync("add", {"a": 1, "b": 2})

    asyncio.run(main())
    assert exporter.get_finished_spans() == ()


def test_an_adapter_call_is_traced(
    session: Session, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    instrument(session, tracer_provider=provider)
    reply = pedelec_mcp.dispatch_tool_call_sync(session, "add", {"a": 1, "b": 2})
    assert reply["isError"] is False
    (span,) = exporter.get_finished_spans()
    assert span.name == "execute_tool add"


def test_importing_pedelec_otel_imports_no_opentelemetry() -> None:
    script = (
        "import sys, pedelec, pedelec.otel\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'opentelemetry'))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert completed.stdout == "[]\n"


# --- under pedelec serve ----------------------------------------------------------------------

COUNTER = "Increase or decrease the visible counter by a signed delta."
TRACE_ID = 0x0AF7651916CD43DD8448EB211C80319C
PARENT_ID = 0xB7AD6B7169203331


def console_spans(text: str) -> list[dict[str, Any]]:
    """The spans ``ConsoleSpanExporter`` wrote into ``text``: JSON objects starting a line."""
    decoder = json.JSONDecoder()
    spans, offset = [], 0
    for line in text.splitlines(keepends=True):
        if line == "{\n":
            spans.append(decoder.raw_decode(text, offset)[0])
        offset += len(line)
    return spans


def test_under_serve_the_tool_span_is_a_child_of_the_requests_span(tmp_path: Path) -> None:
    """``examples/otel_server.py`` served over stdio, called by the official client."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.shared.exceptions import MCPError

    # No global provider in this process: the client records nothing and sends, as its
    # context, exactly the span context made current below.
    assert isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pedelec", "serve", "examples/otel_server.py:session"],
        cwd=str(ROOT),
    )
    caller = SpanContext(
        TRACE_ID, PARENT_ID, is_remote=False, trace_flags=TraceFlags(TraceFlags.SAMPLED)
    )
    errors = tmp_path / "stderr.txt"

    async def main() -> None:
        token = context.attach(trace.set_span_in_context(NonRecordingSpan(caller)))
        try:
            with errors.open("w", encoding="utf-8") as errlog:
                async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
                    assert (
                        await client.call_tool("update_counter", {"delta": 3})
                    ).is_error is False
                    assert (
                        await client.call_tool("update_counter", {"delta": "3"})
                    ).is_error is True
                    with pytest.raises(MCPError):
                        await client.call_tool("nope", {})
        finally:
            context.detach(token)

    anyio.run(main)
    spans = console_spans(errors.read_text(encoding="utf-8"))
    requests = [span for span in spans if span["name"].startswith("tools/call")]
    tools = [span for span in spans if span["name"].startswith("execute_tool")]
    assert [span["name"] for span in requests] == ["tools/call update_counter"] * 2 + [
        "tools/call nope"
    ]
    # An unknown tool is answered -32602 by serve before any dispatch: the SDK's span only.
    assert requests[2]["attributes"]["error.type"] == "-32602"
    assert [span["name"] for span in tools] == ["execute_tool update_counter"] * 2
    trace_id, parent_id = f"0x{TRACE_ID:032x}", f"0x{PARENT_ID:016x}"
    for request, tool, code in zip(requests, tools, [None, "TOOL_ARGS_INVALID"], strict=False):
        assert request["kind"] == "SpanKind.SERVER"
        assert (request["context"]["trace_id"], request["parent_id"]) == (trace_id, parent_id)
        assert tool["kind"] == "SpanKind.INTERNAL"
        assert tool["context"]["trace_id"] == trace_id
        assert tool["parent_id"] == request["context"]["span_id"]
        rid = request["attributes"]["jsonrpc.request.id"]
        expected = base("update_counter", rid, COUNTER)
        if code is not None:
            expected["error.type"] = code
        assert tool["attributes"] == expected
        assert tool["status"] == (
            {"status_code": "UNSET"} if code is None else {"status_code": "ERROR"}
        )


@pytest.mark.parametrize(
    ("outcome", "code", "error_type"),
    [
        (PedelecError("OUT_OF_STOCK", "No more."), "OUT_OF_STOCK", "OUT_OF_STOCK"),
        ({"error": {"code": "MY_CODE", "message": "nope"}}, "MY_CODE", "MY_CODE"),
        (PedelecError("", "No code."), "", "_OTHER"),
    ],
)
def test_a_domain_error_is_its_own_error_type(
    provider: TracerProvider,
    exporter: InMemorySpanExporter,
    outcome: Any,
    code: str,
    error_type: str,
) -> None:
    session = Session()

    @session.on_tool("shop", description="Sells.", schema=ANY)
    def shop(args: Any) -> Any:
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    instrument(session, tracer_provider=provider)
    assert session.dispatch_sync("shop", {}).error.code == code
    (span,) = exporter.get_finished_spans()
    assert attributes_of(span)["error.type"] == error_type
    assert span.status.status_code is StatusCode.ERROR


def test_a_bare_tool_and_an_ended_session_are_failed_executions(
    provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    session = Session(tools=[{"name": "bare", "description": "No handler.", "argsSchema": ANY}])
    instrument(session, tracer_provider=provider)
    session.dispatch_sync("bare", {}, tool_request_id="h")
    session.end()
    session.dispatch_sync("bare", {}, tool_request_id="e")
    handler_missing, ended = exporter.get_finished_spans()
    assert attributes_of(handler_missing) == {
        **base("bare", "h", "No handler."),
        "error.type": "TOOL_HANDLER_NOT_FOUND",
    }
    assert attributes_of(ended) == {
        **base("bare", "e", "No handler."),
        "error.type": "SESSION_ENDED",
    }


@pytest.mark.parametrize("how", ["sync", "async"])
@pytest.mark.parametrize(
    ("approve", "value", "code"), [(True, "wiped d1", None), (False, None, "TOOL_APPROVAL_DENIED")]
)
def test_a_resumed_call_is_a_span_with_the_deferred_calls_id(
    provider: TracerProvider,
    exporter: InMemorySpanExporter,
    how: str,
    approve: bool,
    value: Any,
    code: str | None,
) -> None:
    session = Session()

    @session.on_tool(
        "wipe", description="Wipe a disk.", schema={"type": "object"}, requires_approval=True
    )
    def wipe(args: Any) -> str:
        return "wiped d1"

    instrument(session, tracer_provider=provider)
    deferred = session.dispatch_sync("wipe", {}, tool_request_id="call_9")
    token = deferred.error.details["token"] if deferred.error is not None else ""
    if how == "sync":
        result = session.resume_sync(token, approve=approve)
        again = session.resume_sync(token, approve=True)
    else:
        result = asyncio.run(session.resume(token, approve=approve))
        again = asyncio.run(session.resume(token, approve=True))
    assert result.value == value
    assert (None if result.error is None else result.error.code) == code
    assert again.error is not None and again.error.code == "TOOL_APPROVAL_INVALID"
    spans = exporter.get_finished_spans()
    # The deferral, then the resumed call; a token that names no waiting call makes no span.
    assert [span.name for span in spans] == ["execute_tool wipe", "execute_tool wipe"]
    expected = base("wipe", "call_9", "Wipe a disk.")
    assert attributes_of(spans[0]) == {**expected, "error.type": "TOOL_APPROVAL_REQUIRED"}
    assert attributes_of(spans[1]) == (
        expected if code is None else {**expected, "error.type": code}
    )
    session.end()
