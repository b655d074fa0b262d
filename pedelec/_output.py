"""Output schemas (DESIGN §10): checking one at declaration, and every result against it.

A tool's ``output_schema`` is a Tool Args Schema node of any kind (an object, an array, a
string, a ``oneOf``...): only the arguments' root has to be an object. It is checked by the
same rules as an argument schema (``INVALID_INPUT`` with the pointer) and compiled through the
same cache. After a call, the result's JSON copy is validated against it; a mismatch is the
tool's own bug, never the agent's, so it is a ``SUBMIT_TOOL_RESULT_FAILED`` result reported to
``on_error``, whose message says that calling again will not help.

MCP (through revision 2025-11-25) requires ``outputSchema`` to be an object schema and
``structuredContent`` to be an object, so a non-object output is wrapped there as
``{"result": value}`` (``mcp_output_schema``, ``structured_content``), the key the official
SDK's own server uses for the same case.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from pedelec.errors import INVALID_INPUT, SUBMIT_TOOL_RESULT_FAILED, PedelecError
from pedelec.limits import DEFAULT_MAX_RESULT_BYTES

if TYPE_CHECKING:
    from collections.abc import Callable

    from pedelec._result import ToolResult
    from pedelec.schema import ArgError, Validator

__all__ = [
    "WRAP_KEY",
    "check_result",
    "compile_output_schema",
    "mcp_output_schema",
    "output_mismatch",
    "structured_content",
]

#: The key under which MCP carries a non-object output (``{"result": value}``).
WRAP_KEY: Final = "result"


def compile_output_schema(
    name: str, schema: Any, max_pattern_length: int = DEFAULT_MAX_RESULT_BYTES
) -> Validator:
    """Check and compile a tool's output schema (any node kind), naming the tool on error.

    ``pattern`` is bounded by the largest result a session sends (``Limits.max_result_bytes``)
    rather than by the args' bound: a long string in a result is not a mismatch for its length.

    Raises:
        PedelecError: ``INVALID_INPUT`` ``Invalid output schema for tool "x" at POINTER: ...``,
            with ``details`` ``{"pointer", "keyword", "tool", "field": "output_schema"}``.
    """
    from pedelec.schema import _cache
    from pedelec.schema.check import Invalid

    try:
        return _cache.compiled(schema, max_pattern_length, root=False)
    except Invalid as bad:
        error = bad.error(name)
        details = {**(error.details or {}), "field": "output_schema"}
        message = error.message.replace("Invalid schema", "Invalid output schema", 1)
        raise PedelecError(INVALID_INPUT, message, details) from None


def check_result(
    output: Validator | None,
    result: ToolResult,
    report: Callable[[ToolResult], ToolResult],
    limit: int,
    max_errors: int,
) -> ToolResult:
    """``result``, or the ``SUBMIT_TOOL_RESULT_FAILED`` result (passed to ``report``, the
    session's ``on_error``, and kept within ``limit`` bytes) when a successful result does not
    match the tool's output schema ``output``. Never raises."""
    if output is None or result.error is not None or output.is_valid(result.value):
        return result
    errors = output.errors(result.value, max_errors=max_errors)
    return report(output_mismatch(result.tool, result._rid, errors, limit))


def output_mismatch(
    tool: str, rid: str | int, errors: list[ArgError], limit: int = DEFAULT_MAX_RESULT_BYTES
) -> ToolResult:
    """The result of a call whose result broke its output schema, within ``limit`` bytes.

    Fewer errors are listed when all of them would make the error itself too large to send
    (a result's keys are the developer's data and may be long).
    """
    from pedelec._result import text_bytes

    shown = list(errors)
    while True:
        result = _mismatch(tool, rid, shown, named=True)
        if text_bytes(result.to_text()) <= limit:
            return result
        if not shown:
            # Only a tool name near the limit gets here: the same facts, without the name.
            return _mismatch(tool, rid, [], named=False)
        shown = shown[: len(shown) // 2]


def _mismatch(tool: str, rid: str | int, shown: list[ArgError], *, named: bool) -> ToolResult:
    from pedelec._result import ToolResult

    listed = "; ".join(str(e) for e in shown)
    message = (
        (f'Tool "{tool}"' if named else "The tool")
        + " returned a result that does not match its output schema"
        + (f": {listed}" if shown else "")
        + ". This is a bug in the tool, not in the arguments; calling it again unchanged "
        "will not help."
    )
    details: dict[str, Any] = {"errors": [e.to_dict() for e in shown]}
    if named:
        details = {"tool": tool, **details}
    return ToolResult(tool, rid, None, PedelecError(SUBMIT_TOOL_RESULT_FAILED, message, details))


def mcp_output_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` as an MCP ``outputSchema``: itself when its root is an object node, else
    ``{"type": "object", "properties": {"result": schema}, "required": ["result"]}``."""
    if schema.get("type") == "object":
        return schema
    return {"type": "object", "properties": {WRAP_KEY: schema}, "required": [WRAP_KEY]}


def structured_content(schema: dict[str, Any], value: Any) -> Any:
    """A result's ``structuredContent`` for a tool whose output schema is ``schema``."""
    return value if schema.get("type") == "object" else {WRAP_KEY: value}
