"""Tool definitions and the rules a definition must follow, behind ``pedelec.tools``.

``ToolDefinition`` is public through ``pedelec.tools``; the rules (name, description, timeout,
the legacy ``input`` field, the schema) and the two builders are shared by ``tools``,
``manifest`` and ``Session``, and stay private here. Every rule is checked when the definition
is built (``INVALID_INPUT`` naming the tool), and the schema is compiled once through the cached
compiler, so registering the same definition with many sessions costs a dict insert. Handlers
are normalised once into a ``HandlerSpec`` so the dispatcher never inspects a function per call.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, Generic, NamedTuple, TypeVar, final

from typing_extensions import ParamSpec, TypedDict

from pedelec._handlers import HandlerSpec, handler_spec
from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.limits import DEFAULT_MAX_PATTERN_LENGTH

if TYPE_CHECKING:
    from pedelec.schema import Validator

__all__ = [
    "NO_EXTRAS",
    "Extras",
    "ToolAnnotations",
    "ToolDefinition",
    "build_definition",
    "check_name",
    "compile_tool_schema",
    "definition_from_function",
    "doc_description",
    "legacy_input_error",
]

_P = ParamSpec("_P")
_R = TypeVar("_R")

_NAME: Final = re.compile(r"[a-zA-Z][a-zA-Z0-9_.-]*")


class ToolAnnotations(TypedDict, total=False):
    """Hints about what a tool does, as MCP's ``ToolAnnotations`` defines them (all optional).

    Annotating the dict as ``ToolAnnotations`` makes mypy and pyright reject a misspelt hint
    (``"destructivehint"``) or a non-bool value; the declaration check enforces the same at run
    time (``INVALID_INPUT``). They are hints for clients and people, not guarantees.
    """

    readOnlyHint: bool
    """The tool does not change its environment."""
    destructiveHint: bool
    """The tool may delete or overwrite something (meaningful when not read-only)."""
    idempotentHint: bool
    """Calling it again with the same arguments has no further effect."""
    openWorldHint: bool
    """The tool reaches an open world of entities (the web, other people), not a closed one."""


_HINTS: Final = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


# --- definition rules ---------------------------------------------------------------------------


def _label(name: Any) -> str:
    return f'Tool "{name}"' if isinstance(name, str) else "A tool"


def check_name(name: Any) -> str:
    """Check a tool name (DESIGN §3) and return it.

    Raises:
        PedelecError: ``INVALID_INPUT`` when ``name`` is not a string matching
            ``^[a-zA-Z][a-zA-Z0-9_.-]*$``.
    """
    if type(name) is str and _NAME.fullmatch(name):
        return name
    from pedelec._json.render import SHOWN_NAME_CHARS, render

    shown = render(name, SHOWN_NAME_CHARS)
    raise PedelecError(
        INVALID_INPUT,
        f"Tool name {shown} is invalid; a name starts with a letter and continues with letters, "
        "digits, '_', '.' or '-' (e.g. \"update_counter\" or \"editor.replace\").",
        {"tool": name if isinstance(name, str) else repr(name), "field": "name"},
    )


def _check_description(name: str, description: Any) -> str:
    """Check a tool description: a string with text in it.

    "Text" is judged as upstream judges it (``pedelec._text.is_blank``: JavaScript's ``trim`` in
    the SDK's ``normalizeSkillsInput``, Rust's in the Core's ``from_skills_input``), not by
    ``str.strip()``, so a description of only ``"\\ufeff"`` is empty and one of ``"\\x1c"`` is not.
    """
    from pedelec._text import is_blank

    if isinstance(description, str) and not is_blank(description):
        return str(description)
    got = "an empty string" if isinstance(description, str) else type(description).__name__
    raise PedelecError(
        INVALID_INPUT,
        f"{_label(name)} needs a description (a non-empty string) that tells the agent when to "
        f"use it; got {got}.",
        {"tool": name, "field": "description"},
    )


def _check_timeout(name: str, timeout_ms: Any) -> int | None:
    """Check a tool timeout: ``None`` or a positive integer of milliseconds (not a bool), at most
    ``pedelec.limits.MAX_TIMEOUT_MS``; returned as an ``int``.

    An integral float (``3000.0``) is an integer, as in JSON Schema and in the TypeScript SDK's
    ``normalizeSkillsInput`` (``sdk/src/index.ts``: ``Number.isInteger(timeoutMs)``), so a
    manifest may spell it either way. The ceiling is the port's own: upstream's Core reads any
    ``u64``, but a number past 2**53 - 1 does not survive the SDK's ``JSON.parse`` exactly, and
    ``10**400`` would fail every call when turned into seconds.
    """
    if timeout_ms is None:
        return None
    kind = type(timeout_ms)
    if (kind is int or (kind is float and timeout_ms.is_integer())) and timeout_ms > 0:
        from pedelec.limits import MAX_TIMEOUT_MS

        if timeout_ms <= MAX_TIMEOUT_MS:
            return int(timeout_ms)
        from pedelec._json.render import render

        raise PedelecError(
            INVALID_INPUT,
            f"{_label(name)}: timeout_ms may be at most {MAX_TIMEOUT_MS} ms "
            "(pedelec.limits.MAX_TIMEOUT_MS, about 285 000 years), got "
            f"{render(timeout_ms)}.",
            {"tool": name, "field": "timeout_ms"},
        )
    raise PedelecError(
        INVALID_INPUT,
        f"{_label(name)}: timeout_ms must be a positive integer of milliseconds, got "
        f"{timeout_ms!r}.",
        {"tool": name, "field": "timeout_ms"},
    )


def check_title(name: str, title: Any) -> str | None:
    """Check a tool's display title: ``None`` or a string with text in it."""
    from pedelec._text import is_blank

    if title is None or (isinstance(title, str) and not is_blank(title)):
        return None if title is None else str(title)
    got = "an empty string" if isinstance(title, str) else type(title).__name__
    raise PedelecError(
        INVALID_INPUT,
        f"{_label(name)}: title must be a non-empty string (a name for people), got {got}.",
        {"tool": name, "field": "title"},
    )


def check_annotations(name: str, annotations: Any) -> dict[str, bool] | None:
    """Check a tool's MCP hints and return a copy (``None`` when there are none).

    Only the four MCP hints are accepted, each a bool: a misspelt hint would otherwise be sent
    to clients as if it meant something, and ``"false"`` would read as true to a lax client.
    """
    if annotations is None:
        return None
    if not isinstance(annotations, Mapping):
        raise PedelecError(
            INVALID_INPUT,
            f"{_label(name)}: annotations must be a dict of hints ({', '.join(_HINTS)}), got "
            f"{type(annotations).__name__}.",
            {"tool": name, "field": "annotations"},
        )
    from pedelec._json.render import render

    out: dict[str, bool] = {}
    for key, value in annotations.items():
        if key not in _HINTS:
            raise PedelecError(
                INVALID_INPUT,
                f"{_label(name)}: unknown annotation {render(key)}; the hints are "
                f"{', '.join(_HINTS)}.",
                {"tool": name, "field": "annotations", "hint": render(key)},
            )
        if type(value) is not bool:
            raise PedelecError(
                INVALID_INPUT,
                f"{_label(name)}: annotation {key} must be true or false, got {render(value)}.",
                {"tool": name, "field": "annotations", "hint": key},
            )
        out[key] = value
    return out or None


def check_requires_approval(name: str, requires_approval: Any) -> Any:
    """Check a tool's ``requires_approval``: ``True``, ``False`` or a callable ``(args, ctx)``."""
    if type(requires_approval) is bool or callable(requires_approval):
        return requires_approval
    raise PedelecError(
        INVALID_INPUT,
        f"{_label(name)}: requires_approval must be True, False or a function (args, ctx) -> "
        f"bool, got {type(requires_approval).__name__}.",
        {"tool": name, "field": "requires_approval"},
    )


def check_sequential(name: str, sequential: Any) -> bool:
    """Check a tool's ``sequential`` flag: a bool (``1`` or ``"yes"`` would hide a typo)."""
    if type(sequential) is bool:
        return sequential
    raise PedelecError(
        INVALID_INPUT,
        f"{_label(name)}: sequential must be True or False, got {type(sequential).__name__}.",
        {"tool": name, "field": "sequential"},
    )


def legacy_input_error(name: Any, where: str = "schema=") -> PedelecError:
    """The error for the TypeScript SDK's old ``input`` field."""
    return PedelecError(
        INVALID_INPUT,
        f'{_label(name)}: the "input" field is no longer supported; pass the argument schema '
        f"as {where} instead.",
        {"tool": name if isinstance(name, str) else repr(name), "field": "input"},
    )


def compile_tool_schema(name: str, schema: Any, max_pattern_length: int) -> Validator:
    """Check and compile a tool's schema through the cached compiler, naming the tool on error."""
    from pedelec.schema import check_schema, compile_schema

    try:
        return compile_schema(schema, max_pattern_length=max_pattern_length)
    except PedelecError:
        # Errors are rare: check again just to get the message and details that name the tool.
        check_schema(schema, tool=name)
        raise


def doc_description(fn: Any) -> str | None:
    """The first paragraph of ``fn``'s docstring, on one line (``None`` when it has none)."""
    doc = inspect.getdoc(fn)
    if not doc:
        return None
    first = doc.strip().split("\n\n", 1)[0]
    return " ".join(first.split()) or None


# --- ToolDefinition ---------------------------------------------------------------------------


@final
class ToolDefinition(Generic[_P, _R]):
    """A checked, reusable tool: name, description, schema, timeout and an optional handler.

    Build one with ``define_tool`` or the ``@tool`` decorator and pass it to
    ``Session(tools=[...])``. A definition made by ``@tool`` can still be called like the
    function it decorates.

    Attributes:
        name: The tool's name, as the agent calls it.
        description: What the tool does, for the agent.
        timeout_ms: The tool's own timeout in milliseconds, or ``None`` (``DEFAULT_TIMEOUT_MS`` applies).
        handler: The inline handler (the decorated function), or ``None``.
        title: A name for people (MCP's ``title``), or ``None``.
        annotations: The tool's MCP hints (``ToolAnnotations``), or ``None``; read-only by
            convention (``spec()`` returns a copy).
        output_validator: The compiled validator of the output schema (``output_schema``),
            or ``None`` when the tool declares none.
        requires_approval: ``True`` when every call needs a person's approval before it runs,
            a function ``(args, ctx) -> bool`` deciding per call, or ``False``.
        sequential: Whether a call of this tool in a batch of provider tool calls waits for
            the calls before it and runs before the calls after it (default ``False``).

    Example:
        >>> from pedelec import Session, tool
        >>> @tool("add", description="Add two integers.", schema={
        ...     "type": "object",
        ...     "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        ...     "required": ["a", "b"],
        ... })
        ... def add(args):
        ...     return args["a"] + args["b"]
        >>> add({"a": 1, "b": 2})
        3
        >>> Session(tools=[add]).dispatch_sync("add", {"a": 1, "b": 2}).value
        3
    """

    __slots__ = (
        "_output_schema",
        "_schema",
        "annotations",
        "call_spec",
        "description",
        "handler",
        "name",
        "output_validator",
        "prepare_args",
        "requires_approval",
        "sequential",
        "timeout_ms",
        "title",
        "validator",
    )

    name: str
    description: str
    timeout_ms: int | None
    handler: Callable[_P, _R] | None
    title: str | None
    annotations: dict[str, bool] | None
    requires_approval: bool | Callable[[Any, Any], Any]
    sequential: bool
    _schema: dict[str, Any]
    _output_schema: dict[str, Any] | None
    output_validator: Validator | None
    # Internal, read by the session's registry (``pedelec._session.registry``): the compiled
    # schema, how to call the inline handler, and the typed-tool step run before validation.
    validator: Validator
    call_spec: HandlerSpec | None
    prepare_args: Callable[[Any], Any] | None

    def __init__(self) -> None:
        raise TypeError("build a ToolDefinition with pedelec.define_tool(...) or @pedelec.tool")

    @classmethod
    def _make(
        cls,
        name: str,
        description: str,
        schema: dict[str, Any],
        validator: Validator,
        timeout_ms: int | None,
        handler: Any,
        spec: HandlerSpec | None,
        prepare: Callable[[Any], Any] | None = None,
        title: str | None = None,
        annotations: dict[str, bool] | None = None,
        output: tuple[dict[str, Any], Validator] | None = None,
        requires_approval: Any = False,
        sequential: bool = False,
    ) -> ToolDefinition[Any, Any]:
        self: ToolDefinition[Any, Any] = object.__new__(cls)
        self.requires_approval = requires_approval
        self.title = title
        self.annotations = annotations
        self._output_schema, self.output_validator = (None, None) if output is None else output
        self.sequential = sequential
        self.name = name
        self.description = description
        self._schema = schema
        self.validator = validator
        self.timeout_ms = timeout_ms
        self.handler = handler
        self.call_spec = spec
        # Typed tools: turns an agent's null for an optional parameter into "not given",
        # before validation (the subset has no null type).
        self.prepare_args = prepare
        return self

    @property
    def schema(self) -> dict[str, Any]:
        """A fresh copy of the tool's argument schema."""
        from pedelec._json import clone_json

        copy: dict[str, Any] = clone_json(self._schema)
        return copy

    @property
    def output_schema(self) -> dict[str, Any] | None:
        """A fresh copy of the tool's output schema, or ``None`` when it declares none."""
        if self._output_schema is None:
            return None
        from pedelec._json import clone_json

        copy: dict[str, Any] = clone_json(self._output_schema)
        return copy

    def spec(self) -> dict[str, Any]:
        """The tool as a manifest entry: ``{"name", "description", "argsSchema", "timeoutMs"?,
        "title"?, "annotations"?, "outputSchema"?, "requiresApproval"?, "sequential"?}``; the
        optional keys only when set.

        A per-call ``requires_approval`` function cannot be written down: it is written as
        ``"requiresApproval": true``, so a session built from the manifest asks for every call.
        """
        out: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "argsSchema": self.schema,
        }
        if self.timeout_ms is not None:
            out["timeoutMs"] = self.timeout_ms
        if self.title is not None:
            out["title"] = self.title
        if self.annotations is not None:
            out["annotations"] = dict(self.annotations)
        if self._output_schema is not None:
            out["outputSchema"] = self.output_schema
        if self.requires_approval is not False:
            out["requiresApproval"] = True
        if self.sequential:
            out["sequential"] = True
        return out

    def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        if self.handler is None:
            raise TypeError(f'tool "{self.name}" has no inline handler to call')
        return self.handler(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<ToolDefinition {self.name!r}>"


class Extras(NamedTuple):
    """A tool's optional declaration keywords as given, passed as one value from every way to
    declare a tool (``on_tool``, ``tool``, ``define_tool``, ``@tool``, a manifest entry) to the
    builders, which check them."""

    title: Any = None
    annotations: Any = None
    output_schema: Any = None
    requires_approval: Any = False
    sequential: Any = False


#: No optional keyword given.
NO_EXTRAS: Final = Extras()


def _checked_extras(name: str, extras: Extras) -> dict[str, Any]:
    """``ToolDefinition._make``'s metadata keywords from ``extras``, each checked (the output
    schema is compiled by the caller, after the args schema)."""
    return {
        "title": check_title(name, extras.title),
        "annotations": check_annotations(name, extras.annotations),
        "requires_approval": check_requires_approval(name, extras.requires_approval),
        "sequential": check_sequential(name, extras.sequential),
    }


def build_definition(
    name: Any,
    description: Any,
    schema: Any,
    timeout_ms: Any,
    handler: Any,
    legacy: Mapping[str, Any],
    extras: Extras = NO_EXTRAS,
) -> ToolDefinition[Any, Any]:
    """Check every definition rule and build the definition (``define_tool``'s engine)."""
    name = check_name(name)
    if "input" in legacy:
        raise legacy_input_error(name)
    if legacy:
        raise TypeError(f"define_tool() got an unexpected keyword argument {next(iter(legacy))!r}")
    description = _check_description(name, description)
    timeout_ms = _check_timeout(name, timeout_ms)
    metadata = _checked_extras(name, extras)
    spec = None if handler is None else handler_spec(handler, tool=name)
    validator = compile_tool_schema(name, schema, DEFAULT_MAX_PATTERN_LENGTH)
    return ToolDefinition._make(
        name,
        description,
        _own_copy(schema),
        validator,
        timeout_ms,
        handler,
        spec,
        output=_output(name, extras.output_schema),
        **metadata,
    )


def _output(name: str, output_schema: Any) -> tuple[dict[str, Any], Validator] | None:
    """The checked output schema (the author's copy) and its validator, or ``None``."""
    if output_schema is None:
        return None
    from pedelec._output import compile_output_schema

    return _own_copy(output_schema), compile_output_schema(name, output_schema)


def _own_copy(schema: Any) -> dict[str, Any]:
    """The schema as written (key order kept), for manifests; already proven valid."""
    from pedelec._json import clone_json

    # Equal schemas share one cached validator whose ``schema`` keeps the first one's key order;
    # the manifest shows each tool's schema as its author wrote it.
    copy: dict[str, Any] = clone_json(schema)
    return copy


def definition_from_function(
    fn: Any,
    name: str | None,
    description: str | None,
    schema: Any,
    timeout_ms: Any,
    extras: Extras = NO_EXTRAS,
) -> ToolDefinition[Any, Any]:
    """A definition whose inline handler is ``fn``; its schema is inferred when ``schema`` is None
    (and its output schema from the return annotation, unless ``output_schema`` is given)."""
    if schema is None:
        from pedelec.typed import infer_tool

        inferred = infer_tool(fn, name=name, description=description)
        timeout_ms = _check_timeout(inferred.name, timeout_ms)
        metadata = _checked_extras(inferred.name, extras)
        output = _output(inferred.name, extras.output_schema)
        if output is None:
            output = inferred.output
        # The inferred schema is fresh and already compiled: kept as is, not copied again.
        return ToolDefinition._make(
            inferred.name,
            inferred.description,
            inferred.schema,
            inferred.validator,
            timeout_ms,
            fn,
            inferred.handler,
            inferred.prepare_args if inferred.nullable else None,
            output=output,
            **metadata,
        )
    if name is None:
        name = getattr(fn, "__name__", None)
    if description is None:
        description = doc_description(fn)
    return build_definition(name, description, schema, timeout_ms, fn, {}, extras)
