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
that declares no properties (a free-form map, apart from the root of a no-argument tool), a
``oneOf`` not proven disjoint, a schema past the provider's size limits.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple

from pedelec._json import dumps_compact, parse_json_args, pointer
from pedelec.errors import INVALID_INPUT, PedelecError

if TYPE_CHECKING:
    from pedelec.session import Session

__all__ = [
    "ANTHROPIC",
    "OPENAI",
    "Blocker",
    "Profile",
    "StrictMode",
    "check_mode",
    "nulls_as_absent",
    "strict_schema",
]

#: ``strict=`` of the export functions: always, never, or wherever the schema allows it.
StrictMode = bool | Literal["auto"]

Node = Mapping[str, Any]
_NULL: Final = {"type": "null"}
# Keywords that say nothing about accepted values: they never block and are never moved.
_ANNOTATIONS: Final = frozenset({"description"})


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


#: OpenAI Structured Outputs: strings keep ``pattern``, numbers ``minimum``/``maximum``, arrays
#: ``minItems``/``maxItems``; up to 5000 properties and 10 levels of nesting.
OPENAI: Final = Profile(
    "OpenAI",
    frozenset({"enum", "pattern", "minimum", "maximum", "minItems", "maxItems"}),
    all_required=True,
    max_depth=10,
    max_properties=5000,
)
#: Anthropic strict tool use: no numeric or length constraints; optional properties stay
#: optional (its caps on optional and union parameters are checked per request by the adapter).
ANTHROPIC: Final = Profile(
    "Anthropic",
    frozenset({"enum", "pattern"}),
    all_required=False,
    max_depth=None,
    max_properties=None,
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
    __slots__ = ("profile", "properties")

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.properties = 0

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
            if key in self.profile.kept:
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

    def object(
        self, node: Node, out: dict[str, Any], path: tuple[str | int, ...], depth: int
    ) -> None:
        profile = self.profile
        properties: Mapping[str, Node] = node.get("properties", {})
        if not properties and path:
            raise self.block(
                path,
                "an object that declares no properties accepts any keys, and strict mode "
                "closes every object",
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
