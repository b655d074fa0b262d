"""OpenTelemetry spans for tool calls: the ``pedelec[otel]`` extra.

``instrument(session)`` gives every call of one session, ``dispatch`` and ``dispatch_sync``
alike (and ``resume``/``resume_sync`` of a call deferred for approval), one span shaped by the OpenTelemetry GenAI semantic conventions for tool execution:
named ``execute_tool {gen_ai.tool.name}``, kind ``INTERNAL``, with ``gen_ai.operation.name``,
``gen_ai.tool.name``, ``gen_ai.tool.call.id``, ``gen_ai.tool.description`` and
``gen_ai.tool.type``; an error result sets ``error.type`` to its pedelec code and the span's
status to ``ERROR``. The span is the current span while the handler runs, in the worker thread
too, so the handler's own spans are its children; under ``pedelec serve`` it is a child of the
MCP SDK's ``tools/call`` span.

It wraps those methods on the session *instance*: a session that is not instrumented runs
exactly the code it ran before, and ``import pedelec`` never imports ``opentelemetry`` (this
module does, when ``instrument`` is called).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

from pedelec._json.wire import _escape_surrogates
from pedelec._result import next_request_number, request_id
from pedelec.errors import INVALID_INPUT, PedelecError

if TYPE_CHECKING:
    from opentelemetry.trace import Span, TracerProvider

    from pedelec.session import Session, ToolResult

__all__ = ["CAPTURE_CONTENT_ENV", "instrument"]

#: The environment variable the GenAI instrumentations of OpenTelemetry read to record content;
#: ``instrument`` reads it when ``capture_content`` is not given.
CAPTURE_CONTENT_ENV: Final = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

# The values that record content on spans: ``true`` (the older instrumentations), ``span_only``
# and ``span_and_event`` (the newer ones); ``event_only`` and ``no_content`` record none here,
# since pedelec emits no events.
_CAPTURE_VALUES: Final = frozenset({"true", "span_only", "span_and_event"})

#: How much of an unknown tool's name goes into ``gen_ai.tool.name`` (the agent chose it).
_SHOWN_NAME: Final = 200

_OPERATION: Final = "execute_tool"


def instrument(
    session: Session,
    *,
    tracer_provider: TracerProvider | None = None,
    capture_content: bool | None = None,
) -> Callable[[], None]:
    """Trace every tool call of ``session``: one OpenTelemetry span per call.

    Every call is traced, including one refused before a handler runs (unknown tool, invalid
    args, ended session): it is a tool execution that failed. A known tool's span is named
    ``execute_tool NAME``; an unknown tool's span is named ``execute_tool`` alone, since its
    name is whatever the agent sent (it is still in ``gen_ai.tool.name``, cut at 200
    characters). Attributes: ``gen_ai.operation.name`` (``"execute_tool"``),
    ``gen_ai.tool.name``, ``gen_ai.tool.call.id`` (``ctx.tool_request_id``),
    ``gen_ai.tool.type`` (``"function"``), ``gen_ai.tool.description`` (known tools); on an
    error result ``error.type`` (the pedelec code, e.g. ``TOOL_TIMEOUT``) and status
    ``ERROR``. When the call raises instead of returning (the awaiting task was cancelled,
    ``KeyboardInterrupt``), ``error.type`` is the exception's class and the exception goes on.

    With content capture on, the span also records ``gen_ai.tool.call.arguments`` (the args
    as sent, JSON text cut at ``Limits.max_args_bytes`` characters), on success
    ``gen_ai.tool.call.result`` (``result.to_text()``), and on an error the error's message as
    the status description (off, neither is recorded: messages of invalid args quote them).

    Args:
        session: The session to trace.
        tracer_provider: Where the spans go (default: the global tracer provider, which is
            also the one the MCP SDK under ``pedelec serve`` uses).
        capture_content: Record args, results and error messages. ``None`` (default): on
            when the environment variable ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``
            is ``true``, ``span_only`` or ``span_and_event`` (any case) when ``instrument`` is
            called.

    Returns:
        A function that stops tracing the session (calling it again does nothing).

    Raises:
        PedelecError: ``INVALID_INPUT`` when ``session`` is not a ``Session``, is already
            instrumented, or ``capture_content`` is not a bool or ``None``.
        ModuleNotFoundError: When ``opentelemetry-api`` is not installed (``pip install
            'pedelec[otel]'``).

    Example:
        >>> from opentelemetry.sdk.trace import TracerProvider
        >>> from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        >>> from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
        ...     InMemorySpanExporter)
        >>> from pedelec import Session
        >>> from pedelec.otel import instrument
        >>> exporter = InMemorySpanExporter()
        >>> provider = TracerProvider()
        >>> provider.add_span_processor(SimpleSpanProcessor(exporter))
        >>> session = Session()
        >>> @session.on_tool("add", description="Add two integers.", schema={
        ...     "type": "object",
        ...     "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        ...     "required": ["a", "b"]})
        ... def add(args):
        ...     return args["a"] + args["b"]
        >>> stop = instrument(session, tracer_provider=provider)
        >>> session.dispatch_sync("add", {"a": 1, "b": "2"}, tool_request_id="call_1").is_error
        True
        >>> (span,) = exporter.get_finished_spans()
        >>> span.name, span.attributes["gen_ai.tool.call.id"], span.attributes["error.type"]
        ('execute_tool add', 'call_1', 'TOOL_ARGS_INVALID')
        >>> stop()
    """
    from pedelec.session import Session

    if not isinstance(session, Session):
        raise PedelecError(
            INVALID_INPUT,
            f"instrument() needs a pedelec Session, got {type(session).__name__}.",
            {"field": "session"},
        )
    if capture_content is not None and not isinstance(capture_content, bool):
        raise PedelecError(
            INVALID_INPUT,
            f"capture_content must be True, False or None, got {capture_content!r}.",
            {"field": "capture_content"},
        )
    own = vars(session)
    if any(getattr(own.get(name), "_pedelec_otel", [False])[0] for name in _METHODS):
        raise PedelecError(
            INVALID_INPUT,
            "This session is already instrumented; call the function instrument() returned "
            "to stop tracing it first.",
            {"field": "session"},
        )
    from opentelemetry import trace

    from pedelec import __version__

    if capture_content is None:
        capture_content = os.environ.get(CAPTURE_CONTENT_ENV, "").strip().lower() in _CAPTURE_VALUES
    spans = _Spans(
        session, trace.get_tracer("pedelec", __version__, tracer_provider), capture_content
    )
    begin, traced, traced_async = spans.begin, spans.traced, spans.traced_async
    active = [True]  # a cell the wrappers and ``stop`` share
    original_async = session.dispatch
    original_sync = session.dispatch_sync
    original_resume = session.resume
    original_resume_sync = session.resume_sync

    async def dispatch(
        name: str,
        args: Any,
        *,
        turn_id: str | None = None,
        tool_request_id: str | None = None,
        _owned: bool = False,
    ) -> ToolResult:
        if not active[0]:
            return await original_async(
                name, args, turn_id=turn_id, tool_request_id=tool_request_id, _owned=_owned
            )
        # Drawn here, as the session would, so the span knows the id the handler sees.
        rid = request_id(next_request_number()) if tool_request_id is None else str(tool_request_id)
        span = begin(name, rid, args)
        if span is None:
            return await original_async(
                name, args, turn_id=turn_id, tool_request_id=rid, _owned=_owned
            )
        return await traced_async(
            span,
            lambda: original_async(name, args, turn_id=turn_id, tool_request_id=rid, _owned=_owned),
        )

    def dispatch_sync(
        name: str,
        args: Any,
        *,
        turn_id: str | None = None,
        tool_request_id: str | None = None,
        _owned: bool = False,
    ) -> ToolResult:
        aio = sys.modules.get("asyncio")
        if not active[0] or (aio is not None and aio._get_running_loop() is not None):
            # (Called from a running loop, the session raises: developer misuse, no span.)
            return original_sync(
                name, args, turn_id=turn_id, tool_request_id=tool_request_id, _owned=_owned
            )
        rid = request_id(next_request_number()) if tool_request_id is None else str(tool_request_id)
        span = begin(name, rid, args)
        if span is None:
            return original_sync(name, args, turn_id=turn_id, tool_request_id=rid, _owned=_owned)
        return traced(
            span,
            lambda: original_sync(name, args, turn_id=turn_id, tool_request_id=rid, _owned=_owned),
        )

    async def resume(token: str, *, approve: bool, reason: str | None = None) -> ToolResult:
        span = spans.begin_resumed(token) if active[0] else None
        if span is None:
            return await original_resume(token, approve=approve, reason=reason)
        return await traced_async(
            span, lambda: original_resume(token, approve=approve, reason=reason)
        )

    def resume_sync(token: str, *, approve: bool, reason: str | None = None) -> ToolResult:
        span = spans.begin_resumed(token) if active[0] else None
        if span is None:
            return original_resume_sync(token, approve=approve, reason=reason)
        return traced(span, lambda: original_resume_sync(token, approve=approve, reason=reason))

    wrappers = {
        "dispatch": dispatch,
        "dispatch_sync": dispatch_sync,
        "resume": resume,
        "resume_sync": resume_sync,
    }

    def stop() -> None:
        active[0] = False
        for name, wrapper in wrappers.items():
            # Someone who wrapped the method after us keeps their wrapper; ours passes through.
            if own.get(name) is wrapper:
                del own[name]

    for wrapper in wrappers.values():
        vars(wrapper)["_pedelec_otel"] = active
        wrapper.__doc__ = getattr(Session, wrapper.__name__).__doc__
    # Instance attributes shadow the class's methods for every caller that looks them up on
    # the session (the adapters, ``pedelec serve``, the CLI).
    own.update(wrappers)
    return stop


class _Spans:
    """The spans of one instrumented session: how a call's span starts and ends."""

    def __init__(self, session: Session, tracer: Any, capture: bool) -> None:
        from opentelemetry import context, trace

        self.tracer = tracer
        self.capture = capture
        self.internal = trace.SpanKind.INTERNAL
        self.failed = trace.StatusCode.ERROR
        self.status = trace.Status
        self.in_context = trace.set_span_in_context
        self.attach, self.detach = context.attach, context.detach
        self.lookup = session._registry.get
        self.peek = session._approvals.peek
        self.args_limit = session.limits.max_args_bytes

    def begin(self, name: Any, rid: str, args: Any) -> Span | None:
        """The call's span, started; ``None`` when telemetry itself failed (the call runs)."""
        try:
            try:
                entry = self.lookup(name)
            except TypeError:  # an unhashable name: no such tool
                entry = None
            attributes: dict[str, Any] = {"gen_ai.operation.name": _OPERATION}
            if entry is not None:
                span_name = f"{_OPERATION} {entry.name}"
                attributes["gen_ai.tool.name"] = entry.name
                attributes["gen_ai.tool.description"] = entry.definition.description
            else:
                span_name = _OPERATION
                attributes["gen_ai.tool.name"] = _shown_name(name)
            attributes["gen_ai.tool.call.id"] = _escape_surrogates(rid)
            attributes["gen_ai.tool.type"] = "function"
            if self.capture:
                text = _args_text(args, self.args_limit)
                if text is not None:
                    attributes["gen_ai.tool.call.arguments"] = text
            span: Span = self.tracer.start_span(
                span_name, kind=self.internal, attributes=attributes
            )
            return span
        except Exception as exc:
            _telemetry_failed(exc)
            return None

    def end(self, span: Span, result: ToolResult) -> None:
        try:
            error = result.error
            if error is None:
                if self.capture:
                    span.set_attribute("gen_ai.tool.call.result", result.to_text())
            else:
                code = error.code
                span.set_attribute("error.type", code if type(code) is str and code else "_OTHER")
                message = error.message if self.capture and type(error.message) is str else None
                span.set_status(
                    self.status(
                        self.failed, None if message is None else _escape_surrogates(message)
                    )
                )
            span.end()
        except Exception as exc:
            _telemetry_failed(exc)

    def end_raised(self, span: Span, exc: BaseException) -> None:
        try:
            kind = type(exc)
            module = kind.__module__
            named = kind.__qualname__ if module == "builtins" else f"{module}.{kind.__qualname__}"
            span.set_attribute("error.type", named)
            span.set_status(self.status(self.failed))
            span.end()
        except Exception as problem:
            _telemetry_failed(problem)

    def traced(self, span: Span, call: Callable[[], ToolResult]) -> ToolResult:
        """``call()`` with ``span`` current, ended by the result (or the exception)."""
        token = self.attach(self.in_context(span))
        try:
            result = call()
        except BaseException as exc:
            self.end_raised(span, exc)
            raise
        finally:
            self.detach(token)
        self.end(span, result)
        return result

    async def traced_async(
        self, span: Span, call: Callable[[], Awaitable[ToolResult]]
    ) -> ToolResult:
        """``traced`` for an awaited call: the span stays current across its awaits."""
        token = self.attach(self.in_context(span))
        try:
            result = await call()
        except BaseException as exc:
            self.end_raised(span, exc)
            raise
        finally:
            self.detach(token)
        self.end(span, result)
        return result

    def begin_resumed(self, token: Any) -> Span | None:
        """The span of a resumed call (the deferred call's tool and id), or ``None`` when the
        token names no waiting call: ``resume`` answers that without running anything."""
        pending = self.peek(token) if type(token) is str else None
        if pending is None:
            return None
        return self.begin(pending.tool, str(pending.rid), pending.args)


_METHODS: Final = ("dispatch", "dispatch_sync", "resume", "resume_sync")


def _shown_name(name: Any) -> str:
    """An agent-sent tool name as an attribute value: text, bounded, encodable."""
    if not isinstance(name, str):
        return f"<{type(name).__name__}>"
    shown = str(name) if len(name) <= _SHOWN_NAME else name[:_SHOWN_NAME] + "…"
    return _escape_surrogates(shown)


def _args_text(args: Any, limit: int) -> str | None:
    """The args as sent, as JSON text cut at ``limit`` characters; ``None`` when they are not
    JSON at all (the call's result says why)."""
    kind = type(args)
    if kind is str:
        text: str = args
    elif kind is bytes or kind is bytearray:
        text = bytes(args[: limit * 4]).decode("utf-8", "replace")
    else:
        from pedelec._json import dumps_compact

        try:
            text = dumps_compact(args)
        except Exception:
            return None
    if len(text) > limit:
        text = text[:limit] + "…"
    return _escape_surrogates(text)


def _telemetry_failed(exc: BaseException) -> None:
    from pedelec._session.events import log_error

    log_error("pedelec.otel: recording a tool call's span failed", exc=exc)
