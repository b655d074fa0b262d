"""``Session``'s declaration API: tools, handlers and manifests.

A base class of ``pedelec.session.Session``, kept apart so the session module is the
constructor and the dispatch hot path. It only reads the registry and the guidance the
session's ``__init__`` sets up.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, Never, Self, TypeVar, overload

from pedelec import _result
from pedelec._definitions import (
    Extras,
    build_definition,
    check_name,
    definition_from_function,
    doc_description,
    legacy_input_error,
)
from pedelec._handlers import handler_spec
from pedelec._session.registry import duplicate
from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.manifest import build_manifest, parse_manifest

if TYPE_CHECKING:
    import os
    from concurrent.futures import Executor

    from pedelec._definitions import ToolAnnotations
    from pedelec._session.registry import Registry
    from pedelec.approval import Approver, RequiresApproval
    from pedelec.limits import Limits
    from pedelec.schema.types import ToolArgsSchema, ToolArgsSchemaNode

_F = TypeVar("_F", bound=Callable[..., Any])


class Declaring:
    """The tool declaration and manifest methods of ``Session``."""

    _registry: Registry
    _guidance: str

    # --- registration ---------------------------------------------------------------------

    @overload
    def on_tool(
        self,
        name: str,
        *,
        schema: ToolArgsSchema,
        description: str | None = None,
        timeout_ms: int | float | None = None,
        title: str | None = None,
        annotations: ToolAnnotations | None = None,
        output_schema: ToolArgsSchemaNode | None = None,
        requires_approval: RequiresApproval = False,
        sequential: bool = False,
        **legacy: Never,
    ) -> Callable[[_F], _F]: ...
    @overload
    def on_tool(self, name: str, **legacy: Never) -> Callable[[_F], _F]: ...
    def on_tool(
        self,
        name: str,
        *,
        schema: ToolArgsSchema | None = None,
        description: str | None = None,
        timeout_ms: int | float | None = None,
        title: str | None = None,
        annotations: ToolAnnotations | None = None,
        output_schema: ToolArgsSchemaNode | None = None,
        requires_approval: RequiresApproval = False,
        sequential: bool = False,
        **legacy: Any,
    ) -> Callable[[_F], _F]:
        """Declare a tool and its handler, or attach a handler to a declared tool.

        With ``schema=``, declares the tool (description defaults to the function's docstring)
        with the decorated function as its handler. Without it, the tool must already be
        declared (by ``tools=``, a manifest, or an earlier ``on_tool``) and the function becomes
        its *named* handler, which overrides the inline one. The handler takes ``(args)`` or
        ``(args, ctx)`` and may be sync or async; the decorator returns it unchanged.

        Args:
            name: The tool's name.
            schema: The Tool Args Schema, to declare the tool.
            description: What the tool does (only with ``schema=``).
            timeout_ms: The tool's timeout in milliseconds (only with ``schema=``).
            title: A name for people, MCP's ``title`` (only with ``schema=``).
            annotations: MCP hints, ``ToolAnnotations`` (only with ``schema=``).
            output_schema: A Tool Args Schema node of any kind the handler's every result must
                match (only with ``schema=``); a result that does not is
                ``SUBMIT_TOOL_RESULT_FAILED``, reported to ``on_error``.
            requires_approval: ``True`` or a function ``(args, ctx) -> bool``: a call needs a
                person's approval before it runs (only with ``schema=``; see ``resume``).
            sequential: In a batch of provider tool calls, a call of this tool waits for the
                calls before it and runs before the calls after it (only with ``schema=``).

        Returns:
            A decorator that registers the function and returns it unchanged.

        Raises:
            PedelecError: ``INVALID_INPUT`` for a bad name, schema, description, timeout or
                handler, a duplicate declaration, or a handler for an undeclared tool.

        Example:
            >>> from pedelec import Session
            >>> session = Session.from_manifest({"guidance": "", "tools": [{
            ...     "name": "ping", "description": "Answer pong.",
            ...     "argsSchema": {"type": "object", "properties": {}}}]})
            >>> @session.on_tool("ping")
            ... def ping(args, ctx):
            ...     return "pong"
            >>> session.dispatch_sync("ping", {}).value
            'pong'
        """
        name = check_name(name)
        if "input" in legacy:
            raise legacy_input_error(name)
        if legacy:
            raise TypeError(f"on_tool() got an unexpected keyword argument {next(iter(legacy))!r}")
        if schema is None:
            if output_schema is not None:
                raise PedelecError(
                    INVALID_INPUT,
                    f'Tool "{name}": output_schema only applies when declaring the tool with '
                    "schema= (a tool's results are checked whichever handler answers).",
                    {"tool": name, "field": "output_schema"},
                )
            if sequential is not False or any(
                x is not None for x in (description, timeout_ms, title, annotations)
            ):
                raise PedelecError(
                    INVALID_INPUT,
                    f'Tool "{name}": description, timeout_ms, title, annotations and sequential '
                    "only apply when declaring the tool with schema=.",
                    {"tool": name, "field": "schema"},
                )
            if requires_approval is not False:
                raise PedelecError(
                    INVALID_INPUT,
                    f'Tool "{name}": requires_approval only applies when declaring the tool with '
                    "schema=.",
                    {"tool": name, "field": "schema"},
                )
            self._registry.require(name)

            def attach(fn: _F) -> _F:
                self._registry.attach(name, handler_spec(fn, tool=name))
                return fn

            return attach
        if name in self._registry:
            raise duplicate(name)

        def declare(fn: _F) -> _F:
            text = description if description is not None else doc_description(fn)
            self._registry.add(
                build_definition(
                    name,
                    text,
                    schema,
                    timeout_ms,
                    fn,
                    {},
                    Extras(title, annotations, output_schema, requires_approval, sequential),
                )
            )
            return fn

        return declare

    @overload
    def tool(self, fn: _F, /) -> _F: ...
    @overload
    def tool(
        self,
        name: str | None = None,
        /,
        *,
        description: str | None = None,
        timeout_ms: int | float | None = None,
        title: str | None = None,
        annotations: ToolAnnotations | None = None,
        output_schema: ToolArgsSchemaNode | None = None,
        requires_approval: RequiresApproval = False,
        sequential: bool = False,
    ) -> Callable[[_F], _F]: ...
    @overload
    def tool(
        self,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        timeout_ms: int | float | None = None,
        title: str | None = None,
        annotations: ToolAnnotations | None = None,
        output_schema: ToolArgsSchemaNode | None = None,
        requires_approval: RequiresApproval = False,
        sequential: bool = False,
    ) -> Callable[[_F], _F]: ...
    def tool(
        self,
        target: Any = None,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        timeout_ms: int | float | None = None,
        title: str | None = None,
        annotations: ToolAnnotations | None = None,
        output_schema: ToolArgsSchemaNode | None = None,
        requires_approval: RequiresApproval = False,
        sequential: bool = False,
    ) -> Any:
        """Declare a typed tool: the schema is inferred from the function's signature.

        The function is called with keyword arguments (``fn(**args)``); a parameter annotated
        ``ToolCallContext`` receives the context. Works bare (``@session.tool``) or with
        options. The decorator returns the function unchanged.

        Args:
            name: The tool's name (default: the function's name).
            description: What the tool does (default: the docstring's first paragraph).
            timeout_ms: The tool's timeout in milliseconds (default: 60 000).
            title: A name for people, MCP's ``title``; optional.
            annotations: MCP hints, ``ToolAnnotations``; optional.
            output_schema: The schema every result must match (default: inferred from the
                return annotation where the subset describes it; ``-> None`` and unannotated
                returns have none).
            requires_approval: ``True`` or a function ``(args, ctx) -> bool``: a call needs a
                person's approval before it runs (see ``resume``).
            sequential: In a batch of provider tool calls, a call of this tool waits for the
                calls before it and runs before the calls after it (default ``False``).

        Returns:
            The function, or a decorator that returns it.

        Raises:
            PedelecError: ``INVALID_INPUT`` naming the parameter that cannot be inferred.

        Example:
            >>> from pedelec import Session
            >>> session = Session()
            >>> @session.tool
            ... def greet(name: str) -> str:
            ...     \"\"\"Greet someone by name.\"\"\"
            ...     return f"Hello, {name}!"
            >>> session.dispatch_sync("greet", {"name": "Ada"}).value
            'Hello, Ada!'
        """
        extras = Extras(title, annotations, output_schema, requires_approval, sequential)
        if callable(target):
            self._registry.add(
                definition_from_function(target, None, None, None, timeout_ms, extras)
            )
            return target
        if target is not None:
            name = target

        def declare(fn: _F) -> _F:
            self._registry.add(
                definition_from_function(fn, name, description, None, timeout_ms, extras)
            )
            return fn

        return declare

    def on_any_tool(self, fn: _F) -> _F:
        """Register the fallback handler ``fn(tool, args, ctx)`` for tools without a handler.

        It replaces any earlier fallback. Priority per call: the tool's named handler, then its
        inline handler, then this one.

        Example:
            >>> from pedelec import Session
            >>> session = Session.from_manifest({"tools": [{"name": "echo",
            ...     "description": "Echo.", "argsSchema": {"type": "object"}}]})
            >>> @session.on_any_tool
            ... def anything(tool, args, ctx):
            ...     return {"tool": tool, "args": args}
            >>> session.dispatch_sync("echo", {"x": 1}).value
            {'tool': 'echo', 'args': {'x': 1}}
        """
        self._registry.set_fallback(handler_spec(fn, fallback=True))
        return fn

    def off_tool(self, name: str, handler: Callable[..., Any]) -> bool:
        """Remove ``handler`` from tool ``name`` if it is still that tool's current handler.

        The named handler is checked first, then the inline one; the tool stays declared.

        Returns:
            True when a handler was removed.

        Example:
            >>> from pedelec import Session
            >>> session = Session()
            >>> @session.on_tool("t", description="T.", schema={"type": "object"})
            ... def t(args):
            ...     return 1
            >>> session.off_tool("t", t), session.off_tool("t", t)
            (True, False)
        """
        return self._registry.detach(name, handler)

    def off_any_tool(self, handler: Callable[..., Any]) -> bool:
        """Remove the fallback handler if ``handler`` is still the current one.

        Returns:
            True when it was removed.
        """
        return self._registry.remove_fallback(handler)

    # --- manifests ------------------------------------------------------------------------

    def tool_names(self) -> list[str]:
        """The names of the declared tools, in declaration order."""
        return self._registry.names()

    def has_handler(self, name: str) -> bool:
        """Whether a call of tool ``name`` would find a handler (named, inline or fallback).

        Example:
            >>> from pedelec import Session
            >>> session = Session.from_manifest({"tools": [{"name": "t",
            ...     "description": "T.", "argsSchema": {"type": "object"}}]})
            >>> session.has_handler("t"), session.has_handler("nope")
            (False, False)
        """
        return self._registry.handler(name) is not None

    def tool_spec(self, name: str) -> dict[str, Any]:
        """One tool as ``{"name", "description", "argsSchema", "timeoutMs"?, "title"?,
        "annotations"?, "outputSchema"?}`` (a fresh copy; the optional keys only when set).

        Raises:
            PedelecError: ``TOOL_NOT_FOUND`` when no such tool is declared.

        Example:
            >>> from pedelec import Session
            >>> session = Session.from_manifest({"tools": [{"name": "t",
            ...     "description": "T.", "argsSchema": {"type": "object"}, "timeoutMs": 500}]})
            >>> session.tool_spec("t")
            {'name': 't', 'description': 'T.', 'argsSchema': {'type': 'object'}, 'timeoutMs': 500}
        """
        registry = self._registry
        entry = registry.get(name) if isinstance(name, str) else None
        if entry is None:
            error = _result.tool_not_found(name, "", registry.names()).error
            assert error is not None
            raise error
        return entry.definition.spec()

    def manifest(self) -> dict[str, Any]:
        """The session as the TypeScript SDK's ``SerializableSkillsManifest`` (fresh copies).

        Returns:
            ``{"guidance": str, "tools": [{"name", "description", "argsSchema",
            "timeoutMs"?, "title"?, "annotations"?, "outputSchema"?}]}``; the optional keys
            only for tools that set them. No handlers.

        Example:
            >>> from pedelec import Session
            >>> Session(guidance="Be brief.").manifest()
            {'guidance': 'Be brief.', 'tools': []}
        """
        return build_manifest(self._guidance, self._registry.definitions())

    @classmethod
    def from_manifest(
        cls,
        manifest: Mapping[str, Any] | list[Any] | str | os.PathLike[str],
        *,
        session_id: str | None = None,
        reject_unknown_args: bool = False,
        lenient_json_args: bool = False,
        limits: Limits | None = None,
        sync_dispatch: Literal["inline", "worker"] = "inline",
        executor: Executor | None = None,
        max_workers: int | None = None,
        approver: Approver | None = None,
        max_concurrency: int | None = None,
    ) -> Self:
        """Build a session from a manifest dict, or the path of a manifest JSON file.

        The manifest is ``{"guidance"?, "tools": [{"name", "description", "argsSchema",
        "timeoutMs"?, "title"?, "annotations"?, "outputSchema"?}]}`` (the TypeScript SDK's
        ``tools.json`` shape, plus pedelec's optional MCP metadata; a bare list of tools is
        accepted too). Every schema is checked: a keyword outside the subset is an error naming
        the tool and the pointer, never silently dropped. Attach handlers afterwards with
        ``@session.on_tool(name)``.

        Raises:
            PedelecError: ``INVALID_INPUT`` for an unreadable file, bad JSON, or a tool that
                breaks a rule.

        Example:
            >>> from pedelec import Session
            >>> session = Session.from_manifest({"guidance": "Hi.", "tools": [{
            ...     "name": "t", "description": "T.", "argsSchema": {"type": "object"}}]})
            >>> session.tool_names(), session.guidance
            (['t'], 'Hi.')
        """
        tools, guidance = parse_manifest(manifest)
        # ``Session.__init__`` takes these; this base class does not declare that constructor.
        build: Callable[..., Self] = cls
        return build(
            tools,
            guidance,
            session_id,
            reject_unknown_args=reject_unknown_args,
            lenient_json_args=lenient_json_args,
            limits=limits,
            sync_dispatch=sync_dispatch,
            executor=executor,
            max_workers=max_workers,
            approver=approver,
            max_concurrency=max_concurrency,
        )
