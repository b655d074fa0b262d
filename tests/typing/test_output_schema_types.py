"""``output_schema=`` takes a node of any kind, typed as ``ToolArgsSchemaNode``.

Checked by ``mypy --strict`` with ``warn_unused_ignores``: the line that must be a type error
carries ``# type: ignore[<code>]``, so an ignore that stopped being needed fails mypy.
"""

from __future__ import annotations

from typing import Any

from pedelec import Session, ToolArgsSchemaNode, define_tool, tool

COUNT: ToolArgsSchemaNode = {"type": "integer", "minimum": 0}
NOT_A_NODE: ToolArgsSchemaNode = {"type": "integer", "pattern": "x"}  # type: ignore[typeddict-item]


def handler(args: dict[str, Any]) -> int:
    return 1


def test_output_schemas_of_every_kind_type_check() -> None:
    counted = define_tool(
        name="n", description="N.", schema={"type": "object"}, handler=handler, output_schema=COUNT
    )
    listed = tool(
        "l",
        description="L.",
        schema={"type": "object"},
        output_schema={"type": "array", "items": {"type": "string"}},
    )(handler)
    session = Session(tools=[counted, listed])
    session.on_tool(
        "o",
        description="O.",
        schema={"type": "object"},
        output_schema={"oneOf": [{"type": "string"}, {"type": "boolean"}]},
    )(handler)
    assert session.tool_spec("n")["outputSchema"] == {"type": "integer", "minimum": 0}
