"""The ``tools.json`` manifest shape: reading it, checking its entries, writing it back.

A manifest is ``{"guidance"?, "tools": [{"name", "description", "argsSchema", "timeoutMs"?,
"title"?, "annotations"?, "outputSchema"?, "requiresApproval"?, "sequential"?}]}``
(the TypeScript SDK's ``SerializableSkillsManifest``); a bare list of tools is accepted too.
``Session.from_manifest`` and ``Session.manifest`` are thin calls into this module.

Read as upstream reads it: other keys, on a tool or at the top, are ignored and kept out of the
definition (the SDK's ``normalizeSkillsInput`` in ``sdk/src/index.ts`` copies only the known
fields; the Core's ``RawToolRegistry``/``RawToolDefinition`` in
``desktop/crates/pedelec-core/src/lib.rs`` are serde structs without ``deny_unknown_fields``),
so a manifest with a newer field still loads. Written so upstream reads it: ``guidance`` is always
a string and ``timeoutMs`` a positive integer no larger than ``pedelec.limits.MAX_TIMEOUT_MS``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from pedelec._definitions import (
    Extras,
    ToolDefinition,
    build_definition,
    check_name,
    legacy_input_error,
)
from pedelec.errors import INVALID_INPUT, PedelecError

__all__ = ["build_manifest", "definition_from_entry", "parse_manifest", "read_manifest"]

#: The keys of a manifest tool entry the port reads (the TypeScript SDK's
#: ``SerializableToolManifest``), plus an optional handler and the port's optional MCP
#: metadata (``title``, ``annotations``, ``outputSchema``, ``requiresApproval``: DESIGN §10) and
#: ``sequential`` (DESIGN §12); any other key is ignored.
ENTRY_KEYS: Final = (
    "name",
    "description",
    "argsSchema",
    "timeoutMs",
    "handler",
    "title",
    "annotations",
    "outputSchema",
    "requiresApproval",
    "sequential",
)


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

    Every ``argsSchema`` is checked here, all of them, so a manifest written for upstream's full
    JSON Schema gets one error listing each thing to convert. The rest of the entries and the
    guidance are not checked here: ``Session`` checks them as it would its own ``tools=`` and
    ``guidance=``.
    """
    data: Any = manifest
    if isinstance(manifest, str) or hasattr(manifest, "__fspath__"):
        data = read_manifest(manifest)
    if isinstance(data, list):
        _check_schemas(data)
        return data, ""
    if not isinstance(data, Mapping):
        raise PedelecError(
            INVALID_INPUT,
            'A manifest must be an object with a "tools" array (or a path to such a JSON '
            f"file), got {type(data).__name__}.",
            {"field": "manifest"},
        )
    tools = data.get("tools", [])
    if not isinstance(tools, list):
        raise PedelecError(
            INVALID_INPUT,
            f'The manifest\'s "tools" must be an array, got {type(tools).__name__}.',
            {"field": "tools"},
        )
    _check_schemas(tools)
    return tools, data.get("guidance", "")


def _check_schemas(tools: list[Any]) -> None:
    """Raise one ``INVALID_INPUT`` listing every subset break in the tools' ``argsSchema``, if any.

    Upstream's Core compiles full JSON Schema 2020-12 (``validate_tool_args_schema_with_code``),
    so its manifests may hold ``additionalProperties``, ``$ref``, ``format`` and the like; one
    report of all of them beats a fix-and-retry loop, and the converter handles most.
    """
    from pedelec._json import pointer
    from pedelec._json.render import render
    from pedelec.schema.check import schema_problems

    lines: list[str] = []
    problems: list[dict[str, Any]] = []
    for index, item in enumerate(tools):
        if not isinstance(item, Mapping) or "argsSchema" not in item:
            continue  # not a schema problem: Session reports the entry itself
        name = item.get("name")
        label = f"tool {render(name)}" if isinstance(name, str) else f"tools[{index}]"
        for path, keyword, clause in schema_problems(item["argsSchema"]):
            where = pointer(path)
            lines.append(f"- {label} at {where or 'the root'}: {clause}.")
            problems.append(
                {
                    "tool": name if isinstance(name, str) else None,
                    "index": index,
                    "pointer": where,
                    "keyword": keyword,
                    "message": clause,
                }
            )
    if problems:
        many = len(problems) > 1
        count, them = (f"{len(problems)} places", "them") if many else ("1 place", "it")
        raise PedelecError(
            INVALID_INPUT,
            f"The manifest's schemas are outside the Tool Args Schema subset in {count}; fix {them} "
            "as each line says, or convert each argsSchema with pedelec.schema.convert or "
            "`pedelec convert FILE`:\n" + "\n".join(lines),
            {"problems": problems},
        )


def build_manifest(
    guidance: str, definitions: Iterable[ToolDefinition[Any, Any]]
) -> dict[str, Any]:
    """The manifest of these tools: fresh copies; ``timeoutMs``, ``title``, ``annotations`` and
    ``outputSchema`` only where a tool set them."""
    return {"guidance": guidance, "tools": [definition.spec() for definition in definitions]}


def definition_from_entry(item: Any, index: int) -> ToolDefinition[Any, Any]:
    """A ``tools=`` entry as a definition: a ``ToolDefinition`` or a manifest-style dict.

    Only ``ENTRY_KEYS`` are read; other keys are ignored, as upstream's ``normalizeSkillsInput``
    (``sdk/src/index.ts``) ignores them. The legacy ``input`` is still refused, as it does.
    """
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
        Extras(
            item.get("title"),
            item.get("annotations"),
            item.get("outputSchema"),
            item.get("requiresApproval", False),
            item.get("sequential", False),
        ),
    )
