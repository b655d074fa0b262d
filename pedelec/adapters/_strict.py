"""Strict-mode exports of Tool Args Schemas, and the way back for the args that come in.

A provider's strict mode constrains the model's output with a grammar built from the schema, but
accepts only part of JSON Schema. The subset allows an exact, reversible translation:

* every object is closed (``additionalProperties: false``); the subset's objects are open, but a
  model writing under a grammar sends only declared properties, which every tool accepts;
* where the provider demands every property be required (OpenAI), an optional property is made
  nullable instead (``{"anyOf": [node, {"type": "null"}]}``), and :func:`nulls_as_absent` turns
  that ``null`` back into "absent" before the session validates the call; the subset has no
  null type, so no valid value is ever lost;
* ``oneOf`` becomes ``anyOf`` only when the overlap analysis proves its branches disjoint for
  values written for one branch (``disjoint(..., own_keys=True)``), which is what a closed grammar
  produces; then "at least one" and "exactly one" accept the same values;
* a keyword the provider does not accept is moved into the node's description, where the model
  still reads it, and pedelec's validation still enforces it on every call.

What cannot be translated without changing the accepted values is a :class:`Blocker`: an object
that declares no properties (a free-form map, or the root of a tool declaring no arguments,
which accepts any), a ``oneOf`` not proven disjoint, a schema past the provider's size limits.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple

from pedelec._json import dumps_compact, parse_json_args, pointer
from pedelec.errors import INVALID_INPUT, PedelecError

if TYPE_CHECKING:
    from pedelec.session import Session

__all__ = [
    "ANTHROPIC",
    "OPENAI",
    "Blocker",
    "Caps",
    "Exported",
    "Profile",
    "StrictMode",
    "check_mode",
    "export",
    "nulls_as_absent",
    "problems",
    "strict_schema",
]

#: ``strict=`` of the export functions: always, never, or wherever the schema allows it.
StrictMode = bool | Literal["auto"]

Node = Mapping[str, Any]
_NULL: Final = {"type": "null"}
# Keywords that say nothing about accepted values: they never block and are never moved.
_ANNOTATIONS: Final = frozenset({"description"})


class Caps(NamedTuple):
    """Limits a provider puts on all the strict tools of one request together."""

    tools: int
    #: Properties not listed in ``required``, at any depth.
    optional: int
    #: Union nodes (``anyOf``).
    unions: int


class Profile(NamedTuple):
    """What one provider's strict mode accepts."""

    provider: str
    #: Validation keywords the provider keeps (beside ``type``, ``properties``, ``items``...).
    kept: frozenset[str]
    #: Whether every property must be listed in ``required`` (optional ones become nullable).
    all_required: bool
    #: Most levels of object nesting, or ``None``.
    max_depth: int | None
    #: Most object properties in one schema, or ``None``.
    max_properties: int | None
    #: Limits across the strict tools of one request, or ``None``.
    caps: Caps | None = None
    #: Most characters of property names and enum values in one schema, or ``None``.
    max_text: int | None = None
    #: Most enum values in one schema, or ``None``.
    max_enum_values: int | None = None
    #: ``(count, chars)``: a string enum of more than ``count`` values may hold at most
    #: ``chars`` characters, or ``None``.
    large_enum: tuple[int, int] | None = None
    #: Whether a ``pattern`` is kept only without backreferences, lookaround and ``\b``/``\B``
    #: (else it is moved into the description, like any keyword the provider does not take).
    plain_patterns: bool = False


# The provider pages these profiles follow, as read on 2026-12-01 through the search tool the
# pedelec helpers use (which held no copy of OpenAI's own page, and of Anthropic's page only
# its navigation; the numbers below come from the secondary pages named, which quote the
# primary ones):
#
# OpenAI, "Structured model outputs", section "Supported schemas",
# https://platform.openai.com/docs/guides/structured-outputs#supported-schemas, as transcribed
# by "OpenAI Structured Outputs Profile",
# https://jsonschemaprofiles.unitvectorylabs.com/schemas/openai: supported keywords ``pattern``,
# ``format`` (strings), ``multipleOf``, ``maximum``, ``exclusiveMaximum``, ``minimum``,
# ``exclusiveMinimum`` (numbers), ``minItems``, ``maxItems`` (arrays), ``enum``; every field
# required; ``additionalProperties: false``; at most 5000 object properties and 10 levels of
# nesting; at most 120,000 characters of property names, definition names, enum and const
# values; at most 1000 enum values; a string enum of more than 250 values at most 15,000
# characters. Of these, the Tool Args Schema subset has ``enum``, ``pattern``, ``minimum``,
# ``maximum``, ``minItems`` and ``maxItems``; ``minLength``, ``maxLength``, ``uniqueItems``,
# ``default`` and ``examples`` are not in the list, so they are moved.
#
# Anthropic, "Structured outputs", sections "JSON Schema limitations" and "Schema complexity
# limits", https://platform.claude.com/docs/en/build-with-claude/structured-outputs (the page
# "Strict tool use", https://platform.claude.com/docs/agents-and-tools/tool-use/strict-tool-use,
# refers to it for the subset strict tools accept), as summarised by the LangSchema converter's
# documentation, https://repo.hex.pm/docs/lang_schema-0.7.1.tar.gz:LangSchema.Converter.Anthropic.html,
# and counted by Pydantic AI's ``pydantic_ai/models/_anthropic_schema_limits.py`` (installed with
# the test extra): no ``minimum``, ``maximum``, ``multipleOf``, ``minLength``, ``maxLength``,
# ``maxItems``, nor ``minItems`` other than 0 or 1 (moved here in every case); ``enum`` of
# primitives; ``pattern`` without backreferences, lookaround or ``\b``; at most 20 strict tools,
# 24 optional parameters and 16 parameters with union types (``anyOf`` or a list of types)
# across the strict tools of one request. :func:`_cost` counts every ``anyOf`` node, a
# superset of those parameters, so a request it allows is never over the documented cap.
# Anthropic documents no nesting or size limit beside these; requests whose grammar is too
# large are refused by the API with "The compiled grammar is too large", at a size it does not
# document, which no check here can foresee.

#: OpenAI Structured Outputs: strings keep ``pattern``, numbers ``minimum``/``maximum``, arrays
#: ``minItems``/``maxItems``; 5000 properties, 10 levels of nesting, 120,000 characters of names
#: and enum values, 1000 enum values, 15,000 characters for a string enum past 250 values.
OPENAI: Final = Profile(
    "OpenAI",
    frozenset({"enum", "pattern", "minimum", "maximum", "minItems", "maxItems"}),
    all_required=True,
    max_depth=10,
    max_properties=5000,
    max_text=120_000,
    max_enum_values=1000,
    large_enum=(250, 15_000),
)
#: Anthropic strict tool use: no numeric, length or item-count constraints, patterns without
#: backreferences, lookaround or word boundaries; optional properties stay optional, within its
#: per-request caps: 20 strict tools, 24 optional parameters and 16 union parameters across them.
ANTHROPIC: Final = Profile(
    "Anthropic",
    frozenset({"enum", "pattern"}),
    all_required=False,
    max_depth=None,
    max_properties=None,
    caps=Caps(tools=20, optional=24, unions=16),
    plain_patterns=True,
)


class Blocker(NamedTuple):
    """Why a schema cannot be exported strict: where, and what is in the way."""

    pointer: str
    reason: str


class _Blocked(Exception):
    def __init__(self, blocker: Blocker) -> None:
        self.blocker = blocker


def check_mode(strict: Any) -> StrictMode:
    """Return ``strict`` when it is ``True``, ``False`` or ``"auto"``.

    Raises:
        PedelecError: ``INVALID_INPUT`` for anything else (``1`` is not ``True`` here).
    """
    if strict is True or strict is False or strict == "auto":
        return strict  # type: ignore[no-any-return]
    raise PedelecError(
        INVALID_INPUT,
        f'strict must be True, False or "auto", not {dumps_compact(strict)}.'
        if isinstance(strict, (str, int, float))
        else f'strict must be True, False or "auto", not a {type(strict).__name__}.',
    )


def strict_schema(schema: Node, profile: Profile = OPENAI) -> dict[str, Any] | Blocker:
    """Translate a checked Tool Args Schema for ``profile``'s strict mode.

    Returns:
        The strict schema (a fresh dict), or the :class:`Blocker` of the first node that
        cannot be translated without changing which values the tool accepts.

    Example:
        >>> strict_schema({"type": "object", "properties": {"q": {"type": "string",
        ...     "maxLength": 80}}})
        {'type': 'object', 'properties': {'q': {'anyOf': [{'type': 'string', 'description': \
'(maxLength: 80)'}, {'type': 'null'}]}}, 'required': ['q'], 'additionalProperties': False}
    """
    state = _Translate(profile)
    try:
        return state.node(schema, (), 0)
    except _Blocked as exc:
        return exc.blocker


class _Translate:
    __slots__ = ("enum_values", "profile", "properties", "text")

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.properties = 0
        self.text = 0
        self.enum_values = 0

    def block(self, path: tuple[str | int, ...], reason: str) -> _Blocked:
        return _Blocked(Blocker(pointer(path), reason))

    def node(self, node: Node, path: tuple[str | int, ...], depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        moved: list[str] = []
        if "oneOf" in node:
            branches = node["oneOf"]
            self.disjoint_branches(branches, path)
            out["anyOf"] = [
                self.node(branch, (*path, "oneOf", i), depth) for i, branch in enumerate(branches)
            ]
        else:
            out["type"] = node["type"]
        for key, value in node.items():
            if key in ("oneOf", "type", "properties", "required", "items", *_ANNOTATIONS):
                continue
            if key in self.profile.kept and self.keeps(key, value, path):
                out[key] = value
            else:
                moved.append(f"{key}: {dumps_compact(value)}")
        description = node.get("description")
        if moved:
            notes = f"({', '.join(moved)})"
            description = f"{description} {notes}" if description else notes
        if description is not None:
            out["description"] = description
        kind = node.get("type")
        if kind == "array":
            out["items"] = self.node(node["items"], (*path, "items"), depth)
        elif kind == "object":
            self.object(node, out, path, depth + 1)
        return out

    def keeps(self, key: str, value: Any, path: tuple[str | int, ...]) -> bool:
        """Whether the provider takes this kept keyword as it is; counts what it limits."""
        if key == "pattern":
            return not self.profile.plain_patterns or _plain_pattern(value)
        if key == "enum":
            self.count_enum(value, path)
        return True

    def count_enum(self, values: list[Any], path: tuple[str | int, ...]) -> None:
        profile = self.profile
        chars = sum(len(v) if isinstance(v, str) else len(dumps_compact(v)) for v in values)
        self.enum_values += len(values)
        if profile.max_enum_values is not None and self.enum_values > profile.max_enum_values:
            raise self.block(
                path,
                f"{profile.provider} strict mode allows {profile.max_enum_values} enum values "
                "in one schema",
            )
        if profile.large_enum is not None:
            count, most = profile.large_enum
            if len(values) > count and chars > most and all(isinstance(v, str) for v in values):
                raise self.block(
                    path,
                    f"{profile.provider} strict mode allows a string enum of more than {count} "
                    f"values {most} characters in all; this one has {chars}",
                )
        self.add_text(chars, path)

    def add_text(self, chars: int, path: tuple[str | int, ...]) -> None:
        profile = self.profile
        self.text += chars
        if profile.max_text is not None and self.text > profile.max_text:
            raise self.block(
                path,
                f"{profile.provider} strict mode allows {profile.max_text} characters of "
                "property names and enum values in one schema",
            )

    def object(
        self, node: Node, out: dict[str, Any], path: tuple[str | int, ...], depth: int
    ) -> None:
        profile = self.profile
        properties: Mapping[str, Node] = node.get("properties", {})
        if not properties:
            # The subset leaves undeclared properties to the tool, so a closed {} would
            # refuse calls the tool accepts; at the root too, where that is every argument.
            raise self.block(
                path,
                "an object that declares no properties accepts any keys, and strict mode "
                "closes every object"
                if path
                else "the tool's arguments object declares no properties, so it accepts any "
                "arguments, and strict mode closes every object",
            )
        if profile.max_depth is not None and depth > profile.max_depth:
            raise self.block(
                path, f"{profile.provider} strict mode allows {profile.max_depth} levels of nesting"
            )
        self.properties += len(properties)
        if profile.max_properties is not None and self.properties > profile.max_properties:
            raise self.block(
                path,
                f"{profile.provider} strict mode allows {profile.max_properties} properties "
                "in one schema",
            )
        self.add_text(sum(map(len, properties)), path)
        required = node.get("required", [])
        translated: dict[str, Any] = {}
        for key, child in properties.items():
            strict = self.node(child, (*path, "properties", key), depth)
            if profile.all_required and key not in required:
                strict = _nullable(strict)
            translated[key] = strict
        out["properties"] = translated
        out["required"] = list(properties) if profile.all_required else list(required)
        out["additionalProperties"] = False

    def disjoint_branches(self, branches: list[Node], path: tuple[str | int, ...]) -> None:
        from pedelec.schema.overlap import disjoint

        for i, first in enumerate(branches):
            for j in range(i + 1, len(branches)):
                if not disjoint(first, branches[j], own_keys=True):
                    raise self.block(
                        (*path, "oneOf"),
                        f"branches {i} and {j} are not proven disjoint, so anyOf (the only "
                        "union strict mode accepts) could accept values oneOf rejects",
                    )


class Exported(NamedTuple):
    """One tool as a provider export sends it."""

    name: str
    description: str
    parameters: dict[str, Any]
    strict: bool
    #: Why the tool is not strict when strict was wanted, else ``None``.
    blocker: Blocker | None


def export(
    session: Session,
    profile: Profile,
    strict: Any,
    tools: Iterable[Mapping[str, Any]] | None = None,
) -> list[Exported]:
    """The session's tools for ``profile``, strict where ``strict`` asks and the schema allows.

    Tools are taken in registration order (or the order of ``tools``, specs as
    ``session.tool_spec`` returns them, for an export of some tools only); under the provider's
    per-request caps, a tool that would exceed what the earlier strict tools left is exported
    non-strict (``"auto"``).

    Raises:
        PedelecError: ``INVALID_INPUT`` for a bad ``strict``, or with ``strict=True`` for the
            first tool that cannot be strict, naming the pointer of what is in the way.
    """
    mode = check_mode(strict)
    used = Caps(0, 0, 0)
    out: list[Exported] = []
    for tool in session.manifest()["tools"] if tools is None else tools:
        schema: dict[str, Any] = tool["argsSchema"]
        if mode is False:
            out.append(Exported(tool["name"], tool["description"], schema, False, None))
            continue
        translated = strict_schema(schema, profile)
        if not isinstance(translated, Blocker) and profile.caps is not None:
            cost = _cost(translated)
            translated = _within(profile, used, cost) or translated
            if not isinstance(translated, Blocker):
                used = Caps(*(a + b for a, b in zip(used, cost, strict=True)))
        if isinstance(translated, Blocker):
            if mode is True:
                raise _not_strict(profile, tool["name"], translated)
            out.append(Exported(tool["name"], tool["description"], schema, False, translated))
        else:
            out.append(Exported(tool["name"], tool["description"], translated, True, None))
    return out


def problems(session: Session, profile: Profile) -> dict[str, Blocker]:
    """The tools ``strict="auto"`` exports non-strict for ``profile``, each with its reason."""
    return {
        item.name: item.blocker
        for item in export(session, profile, "auto")
        if item.blocker is not None
    }


def _not_strict(profile: Profile, name: str, blocker: Blocker) -> PedelecError:
    # A root blocker's reason names the whole tool; 'at ""' would say nothing more.
    where = f'at "{blocker.pointer}", ' if blocker.pointer else ""
    return PedelecError(
        INVALID_INPUT,
        f'Tool "{name}" cannot be exported in {profile.provider} strict mode: {where}'
        f'{blocker.reason}; pass strict="auto" to export it non-strict.',
        {"tool": name, "pointer": blocker.pointer},
    )


def _cost(schema: Node) -> Caps:
    optional = unions = 0
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if "anyOf" in node:
            unions += 1
            stack.extend(node["anyOf"])
            continue
        if "items" in node:
            stack.append(node["items"])
        properties = node.get("properties")
        if properties:
            optional += len(properties) - len(node.get("required", ()))
            stack.extend(properties.values())
    return Caps(1, optional, unions)


_CAPPED: Final = {
    "tools": "strict tools",
    "optional": "optional parameters (not in required)",
    "unions": "union parameters (anyOf)",
}


def _within(profile: Profile, used: Caps, cost: Caps) -> Blocker | None:
    caps = profile.caps
    assert caps is not None
    for key, limit in caps._asdict().items():
        spent, more = getattr(used, key), getattr(cost, key)
        if spent + more > limit:
            return Blocker(
                "",
                f"{profile.provider} allows {limit} {_CAPPED[key]} across the strict tools of "
                f"one request; this tool has {more} and the strict tools before it {spent}",
            )
    return None


def _plain_pattern(pattern: str) -> bool:
    """Whether ``pattern`` uses no backreference, lookaround or word boundary."""
    from pedelec.schema.patterns.parse import Invalid, TooComplex, Unportable, parse
    from pedelec.schema.patterns.tree import Anchor, Backref, Look, walk

    try:
        tree = parse(pattern)
    except (Invalid, TooComplex, Unportable):  # not in a checked schema; not plain either way
        return False
    return not any(
        isinstance(node, (Backref, Look)) or (isinstance(node, Anchor) and node.kind in "bB")
        for node in walk(tree)
    )


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    if "anyOf" in node:
        return {**node, "anyOf": [*node["anyOf"], dict(_NULL)]}
    return {"anyOf": [node, dict(_NULL)]}


def nulls_as_absent(session: Session, name: str, args: Any) -> Any:
    """Drop every ``null`` the session's schema for ``name`` allows only as "absent".

    Strict exports make optional properties nullable; the model then sends ``null`` where it
    means "not given". Removing those before the session validates keeps the handler from ever
    seeing them, while every other value (a ``null`` for a required property, a bad value
    anywhere) reaches validation unchanged and is reported there. Args the adapter cannot read
    (not JSON, not an object, an unknown tool) are returned as they came, for the session to
    report in its own words.
    """
    if isinstance(args, str):
        if "null" not in args:
            return args
        limits = session.limits
        try:
            parsed = parse_json_args(
                args, max_bytes=limits.max_args_bytes, max_depth=limits.max_depth
            )
        except PedelecError:
            return args
    elif isinstance(args, dict):
        parsed = args
    else:
        return args
    if not isinstance(parsed, dict) or not _has_null(parsed):
        return args
    try:
        schema = session.tool_spec(name)["argsSchema"]
    except PedelecError:
        return args
    return _strip(schema, parsed)


def _has_null(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if item is None:
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _strip(node: Node, value: Any) -> Any:
    if "oneOf" in node:
        from pedelec.schema.interpret import accepts

        for branch in node["oneOf"]:
            candidate = _strip(branch, value)
            if candidate is not value and accepts(branch, candidate):
                return candidate
        return value
    kind = node["type"]
    if kind == "object" and isinstance(value, dict):
        properties: Mapping[str, Node] = node.get("properties", {})
        required = node.get("required", ())
        out: dict[str, Any] = {}
        changed = False
        for key, item in value.items():
            child = properties.get(key)
            if child is None:
                out[key] = item
            elif item is None and key not in required:
                changed = True
            else:
                stripped = _strip(child, item)
                changed = changed or stripped is not item
                out[key] = stripped
        return out if changed else value
    if kind == "array" and isinstance(value, list):
        items = [_strip(node["items"], item) for item in value]
        if any(new is not old for new, old in zip(items, value, strict=True)):
            return items
    return value
