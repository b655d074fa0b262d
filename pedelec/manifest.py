"""The ``tools.json`` manifest shape: reading it, checking its entries, writing it back.

A manifest is ``{"guidance"?, "tools": [{"name", "description", "argsSchema", "timeoutMs"?}]}``
(the TypeScript SDK's ``SerializableSkillsManifest``); a bare list of tools is accepted too.
``Session.from_manifest`` and ``Session.manifest`` are thin calls into this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from pedelec._definitions import ToolDefinition, build_definition, check_name, legacy_input_error
from pedelec.errors import INVALID_INPUT, PedelecError

__all__ = ["build_manifest", "definition_from_entry", "parse_manifest", "read_manifest"]

#: The keys of a manifest tool entry (the TypeScript SDK's shape), plus an optional handler.
ENTRY_KEYS: Final = ("name", "description", "argsSchema", "timeoutMs", "handler")


def read_manifest(path: Any) -> Any:
    """The JSON value of the manifest file at ``path``, parsed strictly.

    Raises:
        PedelecError: ``INVALID_INPUT`` naming the path for an unreadable file or bad JSON.
    """
    import os

    fs_path = os.fspath(path)
    try:
        with open(fs_path, "rb") as f:
            text = f.read()
    except OSError as exc:
        raise PedelecError(
            INVALID_INPUT,
            f"Cannot read the manifest {fs_path!r}: {exc.strerror or exc}.",
            {"path": fs_path},
        ) from None
    from pedelec._json import parse_json_args

    try:
        return parse_json_args(text)
    except PedelecError as exc:
        message = exc.message.replace("args are not valid JSON", "it is not valid JSON", 1)
        raise PedelecError(
            INVALID_INPUT,
            f"Cannot load the manifest {fs_path!r}: {message}",
            {"path": fs_path, **(exc.details if isinstance(exc.details, dict) else {})},
        ) from None


def parse_manifest(manifest: Any) -> tuple[list[Any], Any]:
    """A manifest (dict, bare list, or path of a JSON file) as its ``(tools, guidance)``.

    The entries and the guidance are not checked here: ``Session`` checks them as it would
    its own ``tools=`` and ``guidance=``.
    """
    data: Any = manifest
    if isinstance(manifest, str) or hasattr(manifest, "__fspath__"):
        data = read_manifest(manifest)
    if isinstance(data, list):
        return data, ""
    if not isinstance(data, Mapping):
        raise PedelecError(
            INVALID_INPUT,
            'A manifest must be an object with a "tools" array (or a path to such a JSON '
            f"file), got {type(data).__name__}.",
            {"field": "manifest"},
        )
    extra = [k for k in data if k not in ("guidance", "tools")]
    if extra:
        raise PedelecError(
            INVALID_INPUT,
            f'Unknown manifest key {extra[0]!r}; a manifest has "guidance" and "tools".',
            {"field": str(extra[0])},
        )
    tools = data.get("tools", [])
    if not isinstance(tools, list):
        raise PedelecError(
            INVALID_INPUT,
            f'The manifest\'s "tools" must be an array, got {type(tools).__name__}.',
            {"field": "tools"},
        )
    return tools, data.get("guidance", "")


def build_manifest(
    guidance: str, definitions: Iterable[ToolDefinition[Any, Any]]
) -> dict[str, Any]:
    """The manifest of these tools: fresh copies, ``timeoutMs`` only where a tool set one."""
    return {"guidance": guidance, "tools": [definition.spec() for definition in definitions]}


def definition_from_entry(item: Any, index: int) -> ToolDefinition[Any, Any]:
    """A ``tools=`` entry as a definition: a ``ToolDefinition`` or a manifest-style dict."""
    if isinstance(item, ToolDefinition):
        return item
    if not isinstance(item, Mapping):
        raise PedelecError(
            INVALID_INPUT,
            f"tools[{index}] must be a tool definition (define_tool, @tool) or a dict with "
            f'"name", "description" and "argsSchema", got {type(item).__name__}.',
            {"index": index},
        )
    name = item.get("name")
    if "input" in item:
        raise legacy_input_error(name, '"argsSchema"')
    extra = [k for k in item if k not in ENTRY_KEYS]
    if extra:
        label = f'Tool "{name}"' if isinstance(name, str) else f"tools[{index}]"
        raise PedelecError(
            INVALID_INPUT,
            f"{label}: unknown key {extra[0]!r}; a tool has "
            + ", ".join(f'"{k}"' for k in ENTRY_KEYS)
            + ".",
            {
                "tool": name if isinstance(name, str) else None,
                "index": index,
                "field": str(extra[0]),
            },
        )
    if "argsSchema" not in item:
        check_name(name)
        raise PedelecError(
            INVALID_INPUT,
            f'Tool "{name}" has no "argsSchema"; every tool needs one (a tool without arguments '
            'uses {"type": "object", "properties": {}}).',
            {"tool": name, "index": index, "field": "argsSchema"},
        )
    return build_definition(
        name,
        item.get("description"),
        item["argsSchema"],
        item.get("timeoutMs"),
        item.get("handler"),
        {},
    )
