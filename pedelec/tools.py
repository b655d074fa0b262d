"""Tool definitions: ``define_tool``, the ``@tool`` decorator and ``ToolDefinition``.

A tool is a name, a description, a Tool Args Schema, an optional timeout and an optional inline
handler. ``define_tool`` and the ``@tool`` decorator build reusable ``ToolDefinition`` objects; a
``Session`` registers them. Every rule is checked when the definition is built (``INVALID_INPUT``
naming the tool); the rules live in ``pedelec._definitions``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Never, TypeVar, overload

from typing_extensions import ParamSpec

from pedelec._definitions import (
    Extras,
    ToolAnnotations,
    ToolDefinition,
    build_definition,
    check_name,
    definition_from_function,
)

if TYPE_CHECKING:
    from pedelec.approval import RequiresApproval
    from pedelec.schema.types import ToolArgsSchema, ToolArgsSchemaNode

__all__ = ["ToolAnnotations", "ToolDefinition", "define_tool", "tool"]

_P = ParamSpec("_P")
_R = TypeVar("_R")

_NO_SCHEMA: Final = object()


@overload
def define_tool(
    *,
    name: str,
    description: str,
    schema: ToolArgsSchema,
    timeout_ms: int | float | None = None,
    handler: Callable[_P, _R],
    title: str | None = None,
    annotations: ToolAnnotations | None = None,
    output_schema: ToolArgsSchemaNode | None = None,
    requires_approval: RequiresApproval = False,
    sequential: bool = False,
    **legacy: Never,
) -> ToolDefinition[_P, _R]: ...
@overload
def define_tool(
    *,
    name: str,
    description: str,
    schema: ToolArgsSchema,
    timeout_ms: int | float | None = None,
    handler: None = None,
    title: str | None = None,
    annotations: ToolAnnotations | None = None,
    output_schema: ToolArgsSchemaNode | None = None,
    requires_approval: RequiresApproval = False,
    sequential: bool = False,
    **legacy: Never,
) -> ToolDefinition[..., Any]: ...
def define_tool(
    *,
    name: str,
    description: str,
    # Required for type checkers (the overloads); optional here only so that the TypeScript
    # SDK's ``input=`` in its place gets the legacy-field error instead of a bare TypeError.
    schema: Any = _NO_SCHEMA,
    timeout_ms: int | float | None = None,
    handler: Callable[..., Any] | None = None,
    title: str | None = None,
    annotations: ToolAnnotations | None = None,
    output_schema: ToolArgsSchemaNode | None = None,
    requires_approval: RequiresApproval = False,
    sequential: bool = False,
    **legacy: Any,
) -> ToolDefinition[Any, Any]:
    """Define a tool: check every rule now and compile its schema (cached).

    Args:
        name: The name the agent calls, ``^[a-zA-Z][a-zA-Z0-9_.-]*$``.
        description: What the tool does and when to use it (non-empty).
        schema: The Tool Args Schema of the arguments (a root object node); cloned.
        timeout_ms: The tool's timeout in milliseconds (default: 60 000).
        handler: The inline handler, ``fn(args)`` or ``fn(args, ctx)``, sync or async; a
            session's ``on_tool(name)`` handler overrides it.
        title: A name for people (MCP's ``title``); optional.
        annotations: MCP hints (``ToolAnnotations``: ``readOnlyHint``, ``destructiveHint``,
            ``idempotentHint``, ``openWorldHint``, each a bool); optional.
        output_schema: A Tool Args Schema node of any kind (not only an object) that every
            successful result must match; a result that does not is
            ``SUBMIT_TOOL_RESULT_FAILED``, reported to ``on_error``. Optional; cloned.
        requires_approval: ``True`` when every call needs a person's approval (after its args
            are validated, before the handler runs), or a function ``(args, ctx) -> bool``
            deciding per call; see ``Session(approver=...)`` and ``Session.resume``.
        sequential: In a batch of provider tool calls, a call of this tool waits for the
            calls before it and runs before the calls after it (default ``False``: every call
            of a batch runs at once).

    Returns:
        A ``ToolDefinition`` to pass to ``Session(tools=[...])``.

    Raises:
        PedelecError: ``INVALID_INPUT`` naming the tool and what is wrong (also for the legacy
            ``input=`` field, which is now ``schema=``).

    Example:
        >>> from pedelec import Session, define_tool
        >>> echo = define_tool(
        ...     name="echo",
        ...     description="Return the text it is given.",
        ...     schema={"type": "object", "properties": {"text": {"type": "string"}}},
        ...     handler=lambda args: args.get("text", ""),
        ... )
        >>> Session(tools=[echo]).dispatch_sync("echo", {"text": "hi"}).value
        'hi'
    """
    if schema is _NO_SCHEMA and "input" not in legacy:
        raise TypeError("define_tool() missing 1 required keyword-only argument: 'schema'")
    return build_definition(
        name,
        description,
        schema,
        timeout_ms,
        handler,
        legacy,
        Extras(title, annotations, output_schema, requires_approval, sequential),
    )


@overload
def tool(name: Callable[_P, _R], /) -> ToolDefinition[_P, _R]: ...
@overload
def tool(
    name: str | None = None,
    /,
    *,
    description: str | None = None,
    schema: ToolArgsSchema | None = None,
    timeout_ms: int | float | None = None,
    title: str | None = None,
    annotations: ToolAnnotations | None = None,
    output_schema: ToolArgsSchemaNode | None = None,
    requires_approval: RequiresApproval = False,
    sequential: bool = False,
) -> Callable[[Callable[_P, _R]], ToolDefinition[_P, _R]]: ...
def tool(
    name: Any = None,
    /,
    *,
    description: str | None = None,
    schema: ToolArgsSchema | None = None,
    timeout_ms: int | float | None = None,
    title: str | None = None,
    annotations: ToolAnnotations | None = None,
    output_schema: ToolArgsSchemaNode | None = None,
    requires_approval: RequiresApproval = False,
    sequential: bool = False,
) -> Any:
    """Turn a function into a ``ToolDefinition`` whose inline handler is that function.

    With ``schema=`` the function is a handler taking ``(args)`` or ``(args, ctx)``. Without it,
    the schema is inferred from the function's typed signature and the function is called with
    keyword arguments (typed tools). The name defaults to the function's name and the
    description to the first paragraph of its docstring.

    Args:
        name: The tool's name (default: the function's ``__name__``). ``@tool`` works bare.
        description: What the tool does (default: the docstring's first paragraph).
        schema: The argument schema; omit it to infer one from the signature.
        timeout_ms: The tool's timeout in milliseconds (default: 60 000).
        title: A name for people (MCP's ``title``); optional.
        annotations: MCP hints (``ToolAnnotations``); optional.
        output_schema: The schema every result must match; without ``schema=`` it defaults to
            the one inferred from the return annotation (``-> None`` and unannotated returns
            have none).
        requires_approval: ``True``, or a function ``(args, ctx) -> bool``: the call needs a
            person's approval before it runs (see ``define_tool``).
        sequential: In a batch of provider tool calls, a call of this tool waits for the
            calls before it and runs before the calls after it (default ``False``).

    Returns:
        A decorator that returns the ``ToolDefinition``, which stays callable like the function.

    Raises:
        PedelecError: ``INVALID_INPUT`` naming the tool and what is wrong.

    Example:
        >>> from pedelec import Session, tool
        >>> @tool("shout", schema={"type": "object", "properties": {"text": {"type": "string"}}})
        ... def shout(args):
        ...     \"\"\"Repeat the text in capitals.\"\"\"
        ...     return args["text"].upper()
        >>> Session(tools=[shout]).dispatch_sync("shout", {"text": "hi"}).value
        'HI'
    """
    if callable(name):
        return definition_from_function(name, None, description, schema, timeout_ms)
    if name is not None and not isinstance(name, str):
        check_name(name)

    extras = Extras(title, annotations, output_schema, requires_approval, sequential)

    def decorate(fn: Callable[_P, _R]) -> ToolDefinition[_P, _R]:
        return definition_from_function(fn, name, description, schema, timeout_ms, extras)

    return decorate
