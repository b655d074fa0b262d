"""A session for ``pedelec serve`` whose tool calls are traced: one span per call, on stderr.

    pedelec serve examples/otel_server.py:session

Each ``tools/call`` makes the MCP SDK's ``tools/call update_counter`` span (a child of the client's span
when the request's ``_meta`` carries a ``traceparent``) and, inside it, pedelec's
``execute_tool update_counter`` span.
"""

# --8<-- [start:server]
import sys

from counter import session  # the quick start's session
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor

from pedelec.otel import instrument

provider = TracerProvider()
# Over stdio, stdout carries the protocol: spans go to stderr (or to a collector).
provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(out=sys.stderr)))
trace.set_tracer_provider(provider)  # the MCP SDK's request spans use the global provider

instrument(session)
# --8<-- [end:server]
