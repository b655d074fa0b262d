"""Trace every tool call with OpenTelemetry: one GenAI ``execute_tool`` span per call.

Run it: ``python examples/otel_spans.py`` (needs ``pip install 'pedelec[otel]' opentelemetry-sdk``).
It keeps the spans in memory and prints them; an application sends them to its collector.
"""

import asyncio

# --8<-- [start:setup]
from counter import session  # the quick start's session
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from pedelec.otel import instrument

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)  # the global provider: instrument() uses it by default

instrument(session)
# --8<-- [end:setup]

# --8<-- [start:calls]
tracer = trace.get_tracer("my-agent")


async def turn():
    with tracer.start_as_current_span("agent turn"):  # the tool spans are its children
        await session.dispatch("update_counter", {"delta": 3}, tool_request_id="call_1")
        await session.dispatch("update_counter", {"delta": "3"}, tool_request_id="call_2")


asyncio.run(turn())
for span in exporter.get_finished_spans():
    attributes = dict(span.attributes)
    print(span.name, attributes.get("gen_ai.tool.call.id"), attributes.get("error.type"))
# --8<-- [end:calls]
