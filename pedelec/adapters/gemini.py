"""A session's tools for the Gemini API (the ``google-genai`` SDK).

Export the tools with :func:`function_declarations`, pass the model's ``functionCall`` parts to
:func:`dispatch_function_calls`, and send the ``functionResponse`` parts it returns back in a
``user`` turn. Gemini accepts every pedelec tool name as it is (``.`` included, see
:mod:`pedelec.adapters._names`), so names are sent unchanged; one longer than 64 characters
raises ``INVALID_INPUT`` at export.

The ``google-genai`` package is imported only by ``dispatch_function_calls(..., sdk=True)``,
which returns its ``types.Part`` objects; everything else reads the SDK's objects by attribute
and produces plain dicts in the API's own (camelCase) shape, which the SDK accepts wherever it
takes its types.

Example:
    >>> from google import genai
    >>> from google.genai import types
    >>> from pedelec.adapters import gemini as pedelec_gemini
    >>> config = types.GenerateContentConfig(
    ...     system_instruction=session.guidance,
    ...     tools=[types.Tool(function_declarations=pedelec_gemini.function_declarations(session))],
    ...     automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    ... )
    >>> response = genai.Client().models.generate_content(
    ...     model="gemini-2.5-flash", contents=contents, config=config
    ... )
    >>> contents.append(response.candidates[0].content)
    >>> parts = await pedelec_gemini.dispatch_function_calls(session, response.function_calls)
    >>> contents.append({"role": "user", "parts": parts})
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final, Literal, NotRequired, overload

from typing_extensions import TypedDict

from pedelec._json import dumps_compact
from pedelec.adapters._calls import (
    MISSING,
    Call,
    field,
    items_of,
    no_name,
    normalise_args,
    run_calls,
    run_calls_sync,
    text_field,
)
from pedelec.adapters._names import GEMINI_NAMES, NameMap, name_map

if TYPE_CHECKING:
    from pedelec._result import ToolResult
    from pedelec.session import Session

__all__ = [
    "FunctionDeclaration",
    "FunctionResponse",
    "FunctionResponsePart",
    "dispatch_function_calls",
    "dispatch_function_calls_sync",
    "function_declarations",
]

_PROVIDER = "Gemini"

#: JSON Schema type → the member of ``google.genai.types.Type`` (the API's ``Type`` enum).
_TYPES: Final = {
    "string": "STRING",
    "number": "NUMBER",
    "integer": "INTEGER",
    "boolean": "BOOLEAN",
    "array": "ARRAY",
    "object": "OBJECT",
}
#: Keywords Gemini's ``Schema`` has under the same name, copied as they are.
_SAME: Final = frozenset(
    (
        "description",
        "default",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
        "minItems",
        "maxItems",
        "required",
    )
)


class FunctionDeclaration(TypedDict):
    """One entry of a Gemini tool's ``functionDeclarations``."""

    name: str
    description: str
    parametersJsonSchema: NotRequired[dict[str, Any]]
    parameters: NotRequired[dict[str, Any]]


class FunctionResponse(TypedDict):
    """The answer to one ``functionCall``: ``response`` is ``{"output": ...}`` or ``{"error": ...}``."""

    id: NotRequired[str]
    name: str
    response: dict[str, Any]


class FunctionResponsePart(TypedDict):
    """A content part holding one :class:`FunctionResponse`."""

    functionResponse: FunctionResponse


def _names(session: Session) -> NameMap:
    return name_map(session.tool_names(), _PROVIDER, GEMINI_NAMES)


def _openapi(node: Mapping[str, Any]) -> dict[str, Any]:
    """One Tool Args Schema node as Gemini's OpenAPI-subset ``Schema``.

    Gemini's ``enum`` holds strings only, and its ``Schema`` has no ``uniqueItems`` or
    ``examples``: those go into the description, in words the model reads, and pedelec's
    validation still enforces them when the call comes in.
    """
    out: dict[str, Any] = {}
    notes: list[str] = []
    for key, value in node.items():
        if key == "type":
            out["type"] = _TYPES[value]
        elif key == "oneOf":
            # Gemini has no oneOf; pedelec still checks that exactly one branch matches.
            out["anyOf"] = [_openapi(branch) for branch in value]
        elif key == "items":
            out["items"] = _openapi(value)
        elif key == "properties":
            out["properties"] = {name: _openapi(child) for name, child in value.items()}
        elif key == "enum" and node.get("type") == "string":
            out["enum"] = list(value)
        elif key == "enum":
            notes.append(f"One of: {', '.join(dumps_compact(member) for member in value)}.")
        elif key == "uniqueItems":
            if value:
                notes.append("Items must be unique.")
        elif key == "examples":
            notes.append(f"Examples: {', '.join(dumps_compact(example) for example in value)}.")
        elif key in _SAME:
            out[key] = value
        # The subset has no other keyword (registration checked the schema); the test schema
        # EVERY_KEYWORD in tests/test_adapters_gemini.py holds each one.
    if notes:
        out["description"] = " ".join([*filter(None, [out.get("description")]), *notes])
    return out


def _declaration(
    name: str, description: str, schema: dict[str, Any], form: str
) -> FunctionDeclaration:
    declaration: FunctionDeclaration = {"name": name, "description": description}
    if form == "json_schema":
        declaration["parametersJsonSchema"] = schema
    elif schema.get("properties"):
        declaration["parameters"] = _openapi(schema)
    # An OBJECT without properties is rejected by the API ("should be non-empty for OBJECT
    # type"); a function without parameters leaves ``parameters`` out, as the SDK documents.
    return declaration


def function_declarations(
    session: Session, *, form: Literal["json_schema", "openapi"] = "json_schema"
) -> list[FunctionDeclaration]:
    """Return the session's tools as Gemini function declarations.

    ``form="json_schema"`` sends each Tool Args Schema as it is, in ``parametersJsonSchema``.
    ``form="openapi"`` translates it into the OpenAPI subset of ``parameters`` (for models or
    endpoints that take only that): types upper-case (``"STRING"``, ``"OBJECT"``, ...),
    ``oneOf`` as ``anyOf``, and what that subset cannot say — an ``enum`` of numbers or
    booleans, ``uniqueItems``, ``examples`` — written into the node's description. pedelec
    validates every call against the full schema either way, so nothing dropped goes unchecked.
    A tool whose schema declares no properties has no ``parameters`` in that form.

    Args:
        session: The session whose tools to export.
        form: ``"json_schema"`` (default) or ``"openapi"``.

    Returns:
        ``[{"name", "description", "parametersJsonSchema"}, ...]`` (or ``"parameters"``) in
        registration order; each schema is a fresh copy. Pass them as
        ``types.Tool(function_declarations=...)`` or ``{"functionDeclarations": ...}``.

    Raises:
        PedelecError: ``INVALID_INPUT`` when a tool name is longer than 64 characters.
        ValueError: For a ``form`` that is neither of the two.

    Example:
        >>> function_declarations(session, form="openapi")[0]["parameters"]["type"]
        'OBJECT'
    """
    if form not in ("json_schema", "openapi"):
        raise ValueError(f'form must be "json_schema" or "openapi", got {form!r}')
    names = _names(session)
    return [
        _declaration(names.to_provider(tool["name"]), tool["description"], tool["argsSchema"], form)
        for tool in session.manifest()["tools"]
    ]


def _function_call(item: Any) -> Any:
    """The ``functionCall`` inside a part, the item itself when it is one, or ``None``."""
    for key in ("functionCall", "function_call"):
        inner = field(item, key)
        if inner is not MISSING:
            return inner
    if any(field(item, key) is not MISSING for key in ("name", "args", "id")):
        return item
    return None


def _call(function_call: Any, names: NameMap) -> Call:
    call_id = text_field(function_call, "id") or ""
    name = text_field(function_call, "name")
    if name is None:
        return no_name(call_id, "functionCall")
    # Gemini's call ids are optional (older models send none): answers are matched by order.
    return Call(call_id, names.from_provider(name), normalise_args(field(function_call, "args")))


def _calls(session: Session, parts: Iterable[Any] | None) -> list[Call]:
    names = _names(session)
    found = (_function_call(item) for item in items_of(parts, "response.function_calls"))
    return [_call(function_call, names) for function_call in found if function_call is not None]


def _part(call: Call, result: ToolResult) -> FunctionResponsePart:
    # The SDK documents the keys: "Use "output" key to specify function output and "error" key
    # to specify error details" (google.genai.types.FunctionResponse.response).
    answer = result.to_json() if result.is_error else {"output": result.to_json()}
    if call.call_id:
        return {"functionResponse": {"id": call.call_id, "name": result.tool, "response": answer}}
    return {"functionResponse": {"name": result.tool, "response": answer}}


def _parts(calls: list[Call], results: list[ToolResult], sdk: bool) -> list[Any]:
    parts = [_part(call, result) for call, result in zip(calls, results, strict=True)]
    if not sdk:
        return parts
    from google.genai import types

    return [types.Part.model_validate(part) for part in parts]


@overload
async def dispatch_function_calls(
    session: Session,
    function_calls: Iterable[Any] | None,
    *,
    turn_id: str | None = None,
    sdk: Literal[False] = False,
) -> list[FunctionResponsePart]: ...


@overload
async def dispatch_function_calls(
    session: Session,
    function_calls: Iterable[Any] | None,
    *,
    turn_id: str | None = None,
    sdk: Literal[True],
) -> list[Any]: ...


async def dispatch_function_calls(
    session: Session,
    function_calls: Iterable[Any] | None,
    *,
    turn_id: str | None = None,
    sdk: bool = False,
) -> list[Any]:
    """Run the model's ``functionCall`` parts and return the ``functionResponse`` parts.

    Parts of other kinds (text, thoughts) are skipped, so ``content.parts`` can be passed as it
    is. The calls run concurrently; the responses come back in the order of the calls, each
    with the call's ``id`` when it had one. A success is ``{"output": value}`` and every error
    — arguments that do not match the schema, an unknown tool, a handler that raised or timed
    out — is pedelec's envelope ``{"error": {"code", "message", "details"?}}``, the two keys the
    API documents for ``FunctionResponse.response``. A malformed call never raises.

    Args:
        session: The session that runs the tools.
        function_calls: ``response.function_calls`` or ``content.parts`` as the SDK returns
            them (``None`` means no calls), or dicts ``{"name", "args", "id"?}`` or
            ``{"functionCall": {...}}``.
        turn_id: Passed to every handler's ``ctx.turn_id``.
        sdk: Return ``google.genai.types.Part`` objects instead of dicts.

    Returns:
        ``[{"functionResponse": {"id"?, "name", "response"}}, ...]``, to send back as
        ``{"role": "user", "parts": ...}``.

    Raises:
        TypeError: When given one object (the whole response or content) instead of its list.

    Example:
        >>> parts = await dispatch_function_calls(session, response.function_calls)
        >>> contents.append({"role": "user", "parts": parts})
    """
    calls = _calls(session, function_calls)
    return _parts(calls, await run_calls(session, calls, turn_id=turn_id), sdk)


@overload
def dispatch_function_calls_sync(
    session: Session,
    function_calls: Iterable[Any] | None,
    *,
    turn_id: str | None = None,
    sdk: Literal[False] = False,
) -> list[FunctionResponsePart]: ...


@overload
def dispatch_function_calls_sync(
    session: Session,
    function_calls: Iterable[Any] | None,
    *,
    turn_id: str | None = None,
    sdk: Literal[True],
) -> list[Any]: ...


def dispatch_function_calls_sync(
    session: Session,
    function_calls: Iterable[Any] | None,
    *,
    turn_id: str | None = None,
    sdk: bool = False,
) -> list[Any]:
    """Synchronous :func:`dispatch_function_calls`, for code without an event loop.

    Raises:
        RuntimeError: When called from a thread that is running an event loop.

    Example:
        >>> parts = dispatch_function_calls_sync(session, response.function_calls)
    """
    calls = _calls(session, function_calls)
    results = run_calls_sync("dispatch_function_calls", session, calls, turn_id=turn_id)
    return _parts(calls, results, sdk)
