"""Pin the public surface: each public module's ``__all__``, and that nothing else looks public.

The modules are the ones ``docs/api.md`` documents. A name added to or dropped from a public
module's surface must change this file too, so the change is deliberate.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import pedelec

ROOT = Path(__file__).resolve().parent.parent

# Each public module's ``__all__``, exactly, in the order ruff's RUF022 keeps it.
EXPECTED_ALL: dict[str, list[str]] = {
    "pedelec": [
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
    ],
    "pedelec.approval": ["ApprovalRequest", "Approver", "Denied", "RequiresApproval"],
    "pedelec.session": ["Session", "SessionStatus", "ToolCall", "ToolCallContext", "ToolResult"],
    "pedelec.tools": ["ToolAnnotations", "ToolDefinition", "define_tool", "tool"],
    "pedelec.markers": [
        "Description",
        "Examples",
        "MaxItems",
        "MaxLength",
        "Maximum",
        "MinItems",
        "MinLength",
        "Minimum",
        "Pattern",
        "UniqueItems",
    ],
    "pedelec.schema": [
        "ArgError",
        "Change",
        "Validator",
        "check_schema",
        "compile_schema",
        "convert",
        "convert_text",
    ],
    "pedelec.schema.types": [
        "ArraySchema",
        "BooleanSchema",
        "IntegerSchema",
        "JsonValue",
        "NumberSchema",
        "ObjectSchema",
        "OneOfSchema",
        "StringSchema",
        "ToolArgsSchema",
        "ToolArgsSchemaNode",
    ],
    "pedelec.errors": [
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
        "PedelecError",
    ],
    "pedelec.limits": [
        "DEFAULT_APPROVAL_TIMEOUT_MS",
        "DEFAULT_LIMITS",
        "DEFAULT_MAX_ABANDONED_THREADS",
        "DEFAULT_MAX_ARGS_BYTES",
        "DEFAULT_MAX_ARGS_VALUES",
        "DEFAULT_MAX_CALL_TIMEOUT_MS",
        "DEFAULT_MAX_DEPTH",
        "DEFAULT_MAX_ERRORS",
        "DEFAULT_MAX_PATTERN_LENGTH",
        "DEFAULT_MAX_PENDING_APPROVALS",
        "DEFAULT_MAX_RESULT_BYTES",
        "DEFAULT_TIMEOUT_MS",
        "MAX_SCHEMA_DEPTH",
        "MAX_TIMEOUT_MS",
        "MAX_TYPED_VALUE_DEPTH",
        "MIN_RESULT_BYTES",
        "Limits",
    ],
    "pedelec.adapters.openai": [
        "ChatFunction",
        "ChatTool",
        "ChatToolMessage",
        "FunctionCallOutput",
        "ResponsesTool",
        "chat_tools",
        "dispatch_responses_calls",
        "dispatch_responses_calls_sync",
        "dispatch_tool_calls",
        "dispatch_tool_calls_sync",
        "responses_tools",
        "strict_problems",
    ],
    "pedelec.adapters.anthropic": [
        "AnthropicTool",
        "ToolResultBlock",
        "dispatch_tool_uses",
        "dispatch_tool_uses_sync",
        "strict_problems",
        "tools",
    ],
    "pedelec.adapters.gemini": [
        "FunctionDeclaration",
        "FunctionResponse",
        "FunctionResponsePart",
        "dispatch_function_calls",
        "dispatch_function_calls_sync",
        "function_declarations",
    ],
    "pedelec.adapters.mcp": [
        "INVALID_PARAMS",
        "CallToolResult",
        "McpTool",
        "ProtocolError",
        "TextContent",
        "call_tool_result",
        "dispatch_tool_call",
        "dispatch_tool_call_sync",
        "tools",
        "unknown_cursor",
        "unknown_tool",
    ],
    "pedelec.adapters.agents": ["function_tools"],
    "pedelec.adapters.pydantic_ai": ["toolset"],
    "pedelec.otel": ["CAPTURE_CONTENT_ENV", "instrument"],
    "pedelec.serve": ["McpApp", "asgi_app"],
    "pedelec.cli": ["main"],
}

# Where each top-level name lives: ``pedelec.X`` is the very object of its home module.
HOMES: dict[str, str] = {
    **dict.fromkeys(EXPECTED_ALL["pedelec.errors"], "pedelec.errors"),
    **dict.fromkeys(["ApprovalRequest", "Denied"], "pedelec.approval"),
    **dict.fromkeys(EXPECTED_ALL["pedelec.markers"], "pedelec.markers"),
    **dict.fromkeys(["ArgError", "Validator", "check_schema", "compile_schema"], "pedelec.schema"),
    **dict.fromkeys(EXPECTED_ALL["pedelec.schema.types"], "pedelec.schema.types"),
    **dict.fromkeys(EXPECTED_ALL["pedelec.session"], "pedelec.session"),
    **dict.fromkeys(EXPECTED_ALL["pedelec.tools"], "pedelec.tools"),
    **dict.fromkeys(["DEFAULT_LIMITS", "DEFAULT_TIMEOUT_MS", "Limits"], "pedelec.limits"),
    "parse_json_args": "pedelec._json",
}


@pytest.mark.parametrize("module", list(EXPECTED_ALL))
def test_all_is_exactly_the_public_surface(module: str) -> None:
    assert importlib.import_module(module).__all__ == EXPECTED_ALL[module]


@pytest.mark.parametrize("module", list(EXPECTED_ALL))
def test_every_name_in_all_resolves(module: str) -> None:
    mod = importlib.import_module(module)
    assert [name for name in mod.__all__ if not hasattr(mod, name)] == []
    assert len(set(mod.__all__)) == len(mod.__all__)


@pytest.mark.parametrize("module", list(EXPECTED_ALL))
def test_every_public_name_defined_in_a_module_is_exported(module: str) -> None:
    """A function, class or type variable a public module defines is in ``__all__`` or private."""
    mod = importlib.import_module(module)
    defined = [
        name
        for name, value in vars(mod).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)
        and getattr(value, "__module__", None) == module
    ]
    assert sorted(set(defined) - set(mod.__all__)) == []


def test_the_table_of_homes_covers_the_top_level() -> None:
    assert sorted(HOMES) == sorted(EXPECTED_ALL["pedelec"])


@pytest.mark.parametrize("name", EXPECTED_ALL["pedelec"])
def test_each_top_level_name_is_its_home_modules_object(name: str) -> None:
    home = importlib.import_module(HOMES[name])
    assert getattr(pedelec, name) is getattr(home, name)


def test_dir_pedelec_lists_only_public_names() -> None:
    assert dir(pedelec) == sorted([*EXPECTED_ALL["pedelec"], "__version__"])


def test_star_import_gives_exactly_all() -> None:
    namespace: dict[str, object] = {}
    exec("from pedelec import *", namespace)
    assert sorted(set(namespace) - {"__builtins__"}) == sorted(EXPECTED_ALL["pedelec"])


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError) as caught:
        pedelec.Sesion  # type: ignore[attr-defined]  # noqa: B018
    assert str(caught.value) == "module 'pedelec' has no attribute 'Sesion'"


def test_import_pedelec_binds_no_public_name_until_one_is_used() -> None:
    """Fresh ``import pedelec`` holds only private names; a first use binds that name alone."""
    script = (
        "import pedelec, types\n"
        "def public():\n"
        "    return sorted(n for n, v in vars(pedelec).items()\n"
        "                  if not n.startswith('_') and not isinstance(v, types.ModuleType))\n"
        "print(public())\n"
        "pedelec.Limits\n"
        "print(public())\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert completed.stdout == "[]\n['Limits']\n"
    assert completed.stderr == ""


def _documented_paths() -> list[str]:
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    return re.findall(r"^::: (pedelec[\w.]*)$", text, flags=re.MULTILINE)


def test_docs_api_lists_the_paths_pinned_here() -> None:
    assert _documented_paths() == [
        "pedelec.session.Session",
        "pedelec.session.ToolResult",
        "pedelec.session.ToolCallContext",
        "pedelec.session.ToolCall",
        "pedelec.session.SessionStatus",
        "pedelec.approval",
        "pedelec.tools.define_tool",
        "pedelec.tools.tool",
        "pedelec.tools.ToolDefinition",
        "pedelec.markers",
        "pedelec.schema.compile_schema",
        "pedelec.schema.check_schema",
        "pedelec.schema.Validator",
        "pedelec.schema.ArgError",
        "pedelec._json.parse_json_args",
        "pedelec.schema.types",
        "pedelec.errors",
        "pedelec.limits.Limits",
        "pedelec.limits.DEFAULT_LIMITS",
        "pedelec.adapters.openai",
        "pedelec.adapters.anthropic",
        "pedelec.adapters.gemini",
        "pedelec.adapters.mcp",
        "pedelec.adapters.agents",
        "pedelec.adapters.pydantic_ai",
        "pedelec.otel",
        "pedelec.serve",
        "pedelec.cli.main",
    ]


@pytest.mark.parametrize("path", _documented_paths())
def test_each_documented_path_resolves(path: str) -> None:
    """``docs/api.md`` renders these paths; each must import (a module) or be an attribute."""
    module, _, name = path.rpartition(".")
    try:
        importlib.import_module(path)
    except ModuleNotFoundError:
        assert hasattr(importlib.import_module(module), name)
