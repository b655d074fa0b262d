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

Public names are imported on first use, so ``import pedelec`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pedelec._json import parse_json_args
    from pedelec.errors import (
        ERROR_CODES,
        INVALID_INPUT,
        SESSION_ENDED,
        SUBMIT_TOOL_RESULT_FAILED,
        TOOL_ARGS_INVALID,
        TOOL_HANDLER_ERROR,
        TOOL_HANDLER_NOT_FOUND,
        TOOL_NOT_FOUND,
        TOOL_TIMEOUT,
        PedelecError,
    )
    from pedelec.limits import DEFAULT_LIMITS, Limits
    from pedelec.schema import ArgError, Validator, check_schema, compile_schema

__version__ = "0.1.0"

# name -> module that defines it; filled in as the package grows.
_EXPORTS: dict[str, str] = {
    "ArgError": "pedelec.schema",
    "DEFAULT_LIMITS": "pedelec.limits",
    "ERROR_CODES": "pedelec.errors",
    "INVALID_INPUT": "pedelec.errors",
    "Limits": "pedelec.limits",
    "PedelecError": "pedelec.errors",
    "SESSION_ENDED": "pedelec.errors",
    "SUBMIT_TOOL_RESULT_FAILED": "pedelec.errors",
    "TOOL_ARGS_INVALID": "pedelec.errors",
    "TOOL_HANDLER_ERROR": "pedelec.errors",
    "TOOL_HANDLER_NOT_FOUND": "pedelec.errors",
    "TOOL_NOT_FOUND": "pedelec.errors",
    "TOOL_TIMEOUT": "pedelec.errors",
    "Validator": "pedelec.schema",
    "check_schema": "pedelec.schema",
    "compile_schema": "pedelec.schema",
    "parse_json_args": "pedelec._json",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pedelec' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
