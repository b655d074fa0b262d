"""pedelec: give an LLM agent tools, with strict argument schemas and safe dispatch.

Declare tools with a name, a description, a Tool Args Schema and a handler; pedelec checks every
schema at registration, validates every agent tool call before the handler runs, runs the handler
with a timeout, and turns every failure into a structured error the agent can act on.

    >>> from pedelec import Session
    >>> session = Session(guidance="Use update_counter to change the counter.")
    >>> @session.on_tool(
    ...     "update_counter",
    ...     description="Change the counter by a signed delta.",
    ...     schema={
    ...         "type": "object",
    ...         "properties": {"delta": {"type": "integer", "minimum": -100, "maximum": 100}},
    ...         "required": ["delta"],
    ...     },
    ... )
    ... def update_counter(args):
    ...     return {"value": args["delta"]}
    >>> session.dispatch_sync("update_counter", {"delta": 3}).to_json()
    {'value': 3}

Public names are imported on first use, so ``import pedelec`` stays cheap; type checkers and
IDEs read them from the imports below, which only they see.
"""

import typing as _typing

if _typing.TYPE_CHECKING:
    from pedelec._json import (
        parse_json_args as parse_json_args,
    )
    from pedelec.approval import (
        ApprovalRequest as ApprovalRequest,
        Denied as Denied,
    )
    from pedelec.errors import (
        ERROR_CODES as ERROR_CODES,
        INVALID_INPUT as INVALID_INPUT,
        SESSION_ENDED as SESSION_ENDED,
        SUBMIT_TOOL_RESULT_FAILED as SUBMIT_TOOL_RESULT_FAILED,
        TOOL_APPROVAL_DENIED as TOOL_APPROVAL_DENIED,
        TOOL_APPROVAL_INVALID as TOOL_APPROVAL_INVALID,
        TOOL_APPROVAL_REQUIRED as TOOL_APPROVAL_REQUIRED,
        TOOL_ARGS_INVALID as TOOL_ARGS_INVALID,
        TOOL_HANDLER_ERROR as TOOL_HANDLER_ERROR,
        TOOL_HANDLER_NOT_FOUND as TOOL_HANDLER_NOT_FOUND,
        TOOL_NOT_FOUND as TOOL_NOT_FOUND,
        TOOL_RESULT_TOO_LARGE as TOOL_RESULT_TOO_LARGE,
        TOOL_TIMEOUT as TOOL_TIMEOUT,
        TOOL_WORKERS_EXHAUSTED as TOOL_WORKERS_EXHAUSTED,
        PedelecError as PedelecError,
    )
    from pedelec.limits import (
        DEFAULT_LIMITS as DEFAULT_LIMITS,
        DEFAULT_TIMEOUT_MS as DEFAULT_TIMEOUT_MS,
        Limits as Limits,
    )
    from pedelec.markers import (
        Description as Description,
        Examples as Examples,
        Maximum as Maximum,
        MaxItems as MaxItems,
        MaxLength as MaxLength,
        Minimum as Minimum,
        MinItems as MinItems,
        MinLength as MinLength,
        Pattern as Pattern,
        UniqueItems as UniqueItems,
    )
    from pedelec.schema import (
        ArgError as ArgError,
        Validator as Validator,
        check_schema as check_schema,
        compile_schema as compile_schema,
    )
    from pedelec.schema.types import (
        ArraySchema as ArraySchema,
        BooleanSchema as BooleanSchema,
        IntegerSchema as IntegerSchema,
        JsonValue as JsonValue,
        NumberSchema as NumberSchema,
        ObjectSchema as ObjectSchema,
        OneOfSchema as OneOfSchema,
        StringSchema as StringSchema,
        ToolArgsSchema as ToolArgsSchema,
        ToolArgsSchemaNode as ToolArgsSchemaNode,
    )
    from pedelec.session import (
        Session as Session,
        SessionStatus as SessionStatus,
        ToolCall as ToolCall,
        ToolCallContext as ToolCallContext,
        ToolResult as ToolResult,
    )
    from pedelec.tools import (
        ToolAnnotations as ToolAnnotations,
        ToolDefinition as ToolDefinition,
        define_tool as define_tool,
        tool as tool,
    )

__version__ = "0.1.0"

# Public name -> the module that defines it. Nothing is imported until a name is first used.
_EXPORTS: dict[str, str] = {
    "ApprovalRequest": "pedelec.approval",
    "ArgError": "pedelec.schema",
    "ArraySchema": "pedelec.schema.types",
    "BooleanSchema": "pedelec.schema.types",
    "DEFAULT_LIMITS": "pedelec.limits",
    "DEFAULT_TIMEOUT_MS": "pedelec.limits",
    "Denied": "pedelec.approval",
    "Description": "pedelec.markers",
    "ERROR_CODES": "pedelec.errors",
    "Examples": "pedelec.markers",
    "INVALID_INPUT": "pedelec.errors",
    "IntegerSchema": "pedelec.schema.types",
    "JsonValue": "pedelec.schema.types",
    "Limits": "pedelec.limits",
    "MaxItems": "pedelec.markers",
    "MaxLength": "pedelec.markers",
    "Maximum": "pedelec.markers",
    "MinItems": "pedelec.markers",
    "MinLength": "pedelec.markers",
    "Minimum": "pedelec.markers",
    "NumberSchema": "pedelec.schema.types",
    "ObjectSchema": "pedelec.schema.types",
    "OneOfSchema": "pedelec.schema.types",
    "Pattern": "pedelec.markers",
    "PedelecError": "pedelec.errors",
    "SESSION_ENDED": "pedelec.errors",
    "SUBMIT_TOOL_RESULT_FAILED": "pedelec.errors",
    "Session": "pedelec.session",
    "SessionStatus": "pedelec.session",
    "StringSchema": "pedelec.schema.types",
    "TOOL_APPROVAL_DENIED": "pedelec.errors",
    "TOOL_APPROVAL_INVALID": "pedelec.errors",
    "TOOL_APPROVAL_REQUIRED": "pedelec.errors",
    "TOOL_ARGS_INVALID": "pedelec.errors",
    "TOOL_HANDLER_ERROR": "pedelec.errors",
    "TOOL_HANDLER_NOT_FOUND": "pedelec.errors",
    "TOOL_NOT_FOUND": "pedelec.errors",
    "TOOL_RESULT_TOO_LARGE": "pedelec.errors",
    "TOOL_TIMEOUT": "pedelec.errors",
    "TOOL_WORKERS_EXHAUSTED": "pedelec.errors",
    "ToolAnnotations": "pedelec.tools",
    "ToolArgsSchema": "pedelec.schema.types",
    "ToolArgsSchemaNode": "pedelec.schema.types",
    "ToolCall": "pedelec.session",
    "ToolCallContext": "pedelec.session",
    "ToolDefinition": "pedelec.tools",
    "ToolResult": "pedelec.session",
    "UniqueItems": "pedelec.markers",
    "Validator": "pedelec.schema",
    "check_schema": "pedelec.schema",
    "compile_schema": "pedelec.schema",
    "define_tool": "pedelec.tools",
    "parse_json_args": "pedelec._json",
    "tool": "pedelec.tools",
}

# A literal list, so type checkers and IDEs can read it; tests/test_exported_members.py holds
# it equal to the table above.
__all__ = [
    "DEFAULT_LIMITS",
    "DEFAULT_TIMEOUT_MS",
    "ERROR_CODES",
    "INVALID_INPUT",
    "SESSION_ENDED",
    "SUBMIT_TOOL_RESULT_FAILED",
    "TOOL_APPROVAL_DENIED",
    "TOOL_APPROVAL_INVALID",
    "TOOL_APPROVAL_REQUIRED",
    "TOOL_ARGS_INVALID",
    "TOOL_HANDLER_ERROR",
    "TOOL_HANDLER_NOT_FOUND",
    "TOOL_NOT_FOUND",
    "TOOL_RESULT_TOO_LARGE",
    "TOOL_TIMEOUT",
    "TOOL_WORKERS_EXHAUSTED",
    "ApprovalRequest",
    "ArgError",
    "ArraySchema",
    "BooleanSchema",
    "Denied",
    "Description",
    "Examples",
    "IntegerSchema",
    "JsonValue",
    "Limits",
    "MaxItems",
    "MaxLength",
    "Maximum",
    "MinItems",
    "MinLength",
    "Minimum",
    "NumberSchema",
    "ObjectSchema",
    "OneOfSchema",
    "Pattern",
    "PedelecError",
    "Session",
    "SessionStatus",
    "StringSchema",
    "ToolAnnotations",
    "ToolArgsSchema",
    "ToolArgsSchemaNode",
    "ToolCall",
    "ToolCallContext",
    "ToolDefinition",
    "ToolResult",
    "UniqueItems",
    "Validator",
    "check_schema",
    "compile_schema",
    "define_tool",
    "parse_json_args",
    "tool",
]

if not _typing.TYPE_CHECKING:
    # Hidden from type checkers, so a misspelt ``pedelec.Sesion`` is an error there, not ``Any``.

    def __getattr__(name: str) -> object:
        module = _EXPORTS.get(name)
        if module is None:
            raise AttributeError(f"module 'pedelec' has no attribute {name!r}")
        from importlib import import_module

        value = getattr(import_module(module), name)
        globals()[name] = value  # later lookups skip this function
        return value


def __dir__() -> list[str]:
    return [*__all__, "__version__"]
