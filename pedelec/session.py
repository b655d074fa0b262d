"""The session: a tool registry, handler priority, dispatch with timeouts, status and events.

One call goes through ``_prepare`` (ended? known tool? args parsed or cloned, ``timeoutMs`` taken
out, args validated, handler chosen) and then one of three runners:

* inline in ``dispatch_sync``: a sync handler, in the calling thread;
* ``_run_async``: an async handler, in the awaiting task (``dispatch``) or on a private per-thread
  event loop (``dispatch_sync``); its first step runs eagerly and a timer is only armed if it
  suspends, so a handler that never awaits costs no more than a function call;
* ``_run_threaded``: a sync handler under ``dispatch``, in the session's worker threads.

Args handling beyond the general JSON and schema rules is in ``pedelec._args``; the cancellation
machinery and private event loops are in ``pedelec._running``; result and error texts are in
``pedelec._result``.
"""

from __future__ import annotations

import sys
from _thread import allocate_lock
from collections.abc import Callable, Iterable, Mapping
from time import monotonic
from typing import TYPE_CHECKING, Any, Final, Literal, Never, TypeVar, final, overload

from pedelec import _result
from pedelec._args import (
    FLAT_ARGS,
    SCALARS,
    flat_copy,
    lenient_types,
    timeout_problem,
    timeout_too_long,
    unknown_args,
)
from pedelec._context import ToolCallContext
from pedelec._json import NotJsonError, clone_json, parse_json_args
from pedelec._result import ToolResult, next_request_number, request_id
from pedelec._running import (
    Call,
    Resume,
    call_unless_cancelled,
    cancelled_type,
    discard,
    log_late,
    logger,
    private_loop,
)
from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.limits import DEFAULT_LIMITS, Limits
from pedelec.tools import (
    DEFAULT_TIMEOUT_MS,
    HandlerSpec,
    ToolDefinition,
    build_definition,
    check_name,
    compile_tool_schema,
    definition_from_entry,
    definition_from_function,
    doc_description,
    handler_spec,
    legacy_input_error,
    read_manifest,
)

if TYPE_CHECKING:
    import os

    from pedelec.schema import ArgError, Validator
    from pedelec.schema.types import ToolArgsSchema

__all__ = ["Session", "SessionStatus", "ToolCallContext", "ToolResult"]

#: ``idle``: no call is running; ``waiting_tool_result``: at least one handler is running;
#: ``ended``: ``end()`` was called. A failed call is only that call's result, so there is no
#: session-wide error status (see ``on_error``).
SessionStatus = Literal["idle", "waiting_tool_result", "ended"]

F = TypeVar("F", bound=Callable[..., Any])

_modules: Final = sys.modules


@final
class _Entry:
    """One registered tool of one session (the definition plus this session's handlers)."""

    __slots__ = (
        "definition",
        "inline",
        "lenient",
        "name",
        "named",
        "prepare",
        "takes_timeout",
        "timeout_ms",
        "validator",
    )

    def __init__(self, definition: ToolDefinition[Any, Any], validator: Validator) -> None:
        self.definition = definition
        self.name = definition.name
        self.validator = validator
        self.inline: HandlerSpec | None = definition._spec
        self.named: HandlerSpec | None = None
        self.prepare = definition._prepare
        timeout = definition.timeout_ms
        self.timeout_ms: int = DEFAULT_TIMEOUT_MS if timeout is None else timeout
        props = validator.schema.get("properties") or {}
        # A schema that declares its own ``timeoutMs`` keeps it as an ordinary argument.
        self.takes_timeout = "timeoutMs" in props
        self.lenient = lenient_types(props)


class Session:
    """A set of tools an agent can call, and the dispatcher that runs its calls.

    Args:
        tools: Tool definitions (``define_tool``, ``@tool``) or manifest-style dicts
            ``{"name", "description", "argsSchema", "timeoutMs"?, "handler"?}``.
        guidance: Text for the agent's system prompt about how to use the tools.
        session_id: The session's id (default: a random hex id).
        reject_unknown_args: Treat an argument the schema does not declare (at any depth) as
            ``TOOL_ARGS_INVALID``, naming the closest declared property. Off by default: JSON
            Schema allows undeclared properties, and a misspelled one is then silently ignored.
        lenient_json_args: Accept a top-level argument sent as JSON text where the schema
            expects an array or object, when the text parses to that type (some MCP clients
            send arguments that way). Off by default.
        limits: Bounds on the args of each call (default: ``DEFAULT_LIMITS``).

    Raises:
        PedelecError: ``INVALID_INPUT`` for a tool that breaks a rule or a duplicate name.

    Example:
        >>> from pedelec import Session
        >>> session = Session(guidance="Use add to add numbers.")
        >>> @session.on_tool("add", description="Add two integers.", schema={
        ...     "type": "object",
        ...     "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        ...     "required": ["a", "b"],
        ... })
        ... def add(args):
        ...     return args["a"] + args["b"]
        >>> session.dispatch_sync("add", '{"a": 1, "b": 2}').to_json()
        3
    """

    def __init__(
        self,
        tools: Iterable[ToolDefinition[Any, Any] | Mapping[str, Any]] = (),
        guidance: str = "",
        session_id: str | None = None,
        *,
        reject_unknown_args: bool = False,
        lenient_json_args: bool = False,
        limits: Limits | None = None,
    ) -> None:
        if not isinstance(guidance, str):
            raise PedelecError(
                INVALID_INPUT,
                f"guidance must be a string, got {type(guidance).__name__}.",
                {"field": "guidance"},
            )
        if session_id is None:
            import os

            session_id = os.urandom(16).hex()
        elif not isinstance(session_id, str) or not session_id:
            raise PedelecError(
                INVALID_INPUT,
                f"session_id must be a non-empty string, got {session_id!r}.",
                {"field": "session_id"},
            )
        if limits is None:
            limits = DEFAULT_LIMITS
        elif not isinstance(limits, Limits):
            raise PedelecError(
                INVALID_INPUT,
                f"limits must be a pedelec.Limits, got {type(limits).__name__}.",
                {"field": "limits"},
            )
        self._guidance = guidance
        self._session_id = session_id
        self._reject_unknown = bool(reject_unknown_args)
        self._lenient = bool(lenient_json_args)
        self._limits = limits
        self._max_depth = limits.max_depth
        self._max_values = limits.max_args_values
        self._max_bytes = limits.max_args_bytes
        self._flat_limit = min(64, limits.max_args_values)
        self._lock = allocate_lock()
        self._tools: dict[str, _Entry] = {}
        self._fallback: HandlerSpec | None = None
        # One entry per running handler: ``append``/``pop`` are atomic, so counting needs no lock
        # unless someone listens for status changes (then transitions are computed under it).
        self._running: list[None] = []
        self._ended = False
        # Calls end() must cancel: key -> a function that cancels it from any thread.
        self._live: dict[object, Callable[[], None]] = {}
        self._executor: Any = None
        self._status_cbs: tuple[tuple[Callable[[SessionStatus], object]], ...] = ()
        self._error_cbs: tuple[tuple[Callable[[ToolResult], object]], ...] = ()
        self._ended_cbs: tuple[tuple[Callable[[], object]], ...] = ()
        if isinstance(tools, (str, bytes, Mapping)):
            raise PedelecError(
                INVALID_INPUT,
                f"tools must be a list of tool definitions, got a single {type(tools).__name__}.",
                {"field": "tools"},
            )
        for index, item in enumerate(tools):
            self._register(definition_from_entry(item, index))

    # --- properties -----------------------------------------------------------------------

    @property
    def session_id(self) -> str:
        """The session's id (``ctx.session_id`` in handlers)."""
        return self._session_id

    @property
    def guidance(self) -> str:
        """Text for the agent's system prompt about how to use the tools."""
        return self._guidance

    @property
    def limits(self) -> Limits:
        """The bounds applied to each call's args."""
        return self._limits

    @property
    def reject_unknown_args(self) -> bool:
        """Whether an argument the schema does not declare is ``TOOL_ARGS_INVALID`` (settable)."""
        return self._reject_unknown

    @reject_unknown_args.setter
    def reject_unknown_args(self, value: bool) -> None:
        self._reject_unknown = bool(value)

    @property
    def lenient_json_args(self) -> bool:
        """Whether a top-level array/object argument may arrive as JSON text (settable).

        ``pedelec serve`` turns it on, because some MCP clients send arguments that way.
        """
        return self._lenient

    @lenient_json_args.setter
    def lenient_json_args(self, value: bool) -> None:
        self._lenient = bool(value)

    @property
    def status(self) -> SessionStatus:
        """``"idle"``, ``"waiting_tool_result"`` (a handler is running) or ``"ended"``.

        A call counts as running until its caller has its result: a threaded handler that
        overran its timeout and still runs in its worker thread no longer counts.
        """
        if self._ended:
            return "ended"
        return "waiting_tool_result" if self._running else "idle"

    def __repr__(self) -> str:
        return (
            f"<pedelec Session {self._session_id!r} status={self.status!r} "
            f"tools={list(self._tools)!r}>"
        )

    # --- registration ---------------------------------------------------------------------

    def _register(self, definition: ToolDefinition[Any, Any]) -> None:
        validator = definition._validator
        pattern_limit = self._limits.max_pattern_length
        if pattern_limit != DEFAULT_LIMITS.max_pattern_length:
            validator = compile_tool_schema(definition.name, definition._schema, pattern_limit)
        entry = _Entry(definition, validator)
        with self._lock:
            if entry.name not in self._tools:
                self._tools[entry.name] = entry
                return
        raise _duplicate(entry.name)

    @overload
    def on_tool(
        self,
        name: str,
        *,
        schema: ToolArgsSchema,
        description: str | None = None,
        timeout_ms: int | None = None,
        **legacy: Never,
    ) -> Callable[[F], F]: ...
    @overload
    def on_tool(self, name: str, **legacy: Never) -> Callable[[F], F]: ...
    def on_tool(
        self,
        name: str,
        *,
        schema: ToolArgsSchema | None = None,
        description: str | None = None,
        timeout_ms: int | None = None,
        **legacy: Any,
    ) -> Callable[[F], F]:
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
            if description is not None or timeout_ms is not None:
                raise PedelecError(
                    INVALID_INPUT,
                    f'Tool "{name}": description and timeout_ms only apply when declaring the '
                    "tool with schema=.",
                    {"tool": name, "field": "schema"},
                )
            self._declared(name)

            def attach(fn: F) -> F:
                spec = handler_spec(fn, tool=name)
                with self._lock:
                    self._tools[name].named = spec
                return fn

            return attach
        if name in self._tools:
            raise _duplicate(name)

        def declare(fn: F) -> F:
            text = description if description is not None else doc_description(fn)
            self._register(build_definition(name, text, schema, timeout_ms, fn, {}))
            return fn

        return declare

    def _declared(self, name: str) -> None:
        if name not in self._tools:
            raise PedelecError(
                INVALID_INPUT,
                f'Tool "{name}" is not declared in this session, so an agent could never call '
                "this handler; declare it with schema= (and description=), in tools=, or in "
                "the manifest.",
                {"tool": name, "field": "schema"},
            )

    @overload
    def tool(self, fn: F, /) -> F: ...
    @overload
    def tool(
        self,
        name: str | None = None,
        /,
        *,
        description: str | None = None,
        timeout_ms: int | None = None,
    ) -> Callable[[F], F]: ...
    @overload
    def tool(
        self,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        timeout_ms: int | None = None,
    ) -> Callable[[F], F]: ...
    def tool(
        self,
        target: Any = None,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        timeout_ms: int | None = None,
    ) -> Any:
        """Declare a typed tool: the schema is inferred from the function's signature.

        The function is called with keyword arguments (``fn(**args)``); a parameter annotated
        ``ToolCallContext`` receives the context. Works bare (``@session.tool``) or with
        options. The decorator returns the function unchanged.

        Args:
            name: The tool's name (default: the function's name).
            description: What the tool does (default: the docstring's first paragraph).
            timeout_ms: The tool's timeout in milliseconds (default: 60 000).

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
        if callable(target):
            self._register(definition_from_function(target, None, None, None, timeout_ms))
            return target
        if target is not None:
            name = target

        def declare(fn: F) -> F:
            self._register(definition_from_function(fn, name, description, None, timeout_ms))
            return fn

        return declare

    def on_any_tool(self, fn: F) -> F:
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
        spec = handler_spec(fn, fallback=True)
        with self._lock:
            self._fallback = spec
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
        with self._lock:
            entry = self._tools.get(name)
            if entry is None:
                return False
            if entry.named is not None and entry.named.source == handler:
                entry.named = None
                return True
            if entry.named is None and entry.inline is not None and entry.inline.source == handler:
                entry.inline = None
                return True
        return False

    def off_any_tool(self, handler: Callable[..., Any]) -> bool:
        """Remove the fallback handler if ``handler`` is still the current one.

        Returns:
            True when it was removed.
        """
        with self._lock:
            if self._fallback is not None and self._fallback.source == handler:
                self._fallback = None
                return True
        return False

    # --- manifests ------------------------------------------------------------------------

    def tool_names(self) -> list[str]:
        """The names of the declared tools, in declaration order."""
        return list(self._tools)

    def has_handler(self, name: str) -> bool:
        """Whether a call of tool ``name`` would find a handler (named, inline or fallback).

        Example:
            >>> from pedelec import Session
            >>> session = Session.from_manifest({"tools": [{"name": "t",
            ...     "description": "T.", "argsSchema": {"type": "object"}}]})
            >>> session.has_handler("t"), session.has_handler("nope")
            (False, False)
        """
        entry = self._tools.get(name) if isinstance(name, str) else None
        if entry is None:
            return False
        return (entry.named or entry.inline or self._fallback) is not None

    def tool_spec(self, name: str) -> dict[str, Any]:
        """One tool as ``{"name", "description", "argsSchema", "timeoutMs"?}`` (a fresh copy).

        Raises:
            PedelecError: ``TOOL_NOT_FOUND`` when no such tool is declared.

        Example:
            >>> from pedelec import Session
            >>> session = Session.from_manifest({"tools": [{"name": "t",
            ...     "description": "T.", "argsSchema": {"type": "object"}, "timeoutMs": 500}]})
            >>> session.tool_spec("t")
            {'name': 't', 'description': 'T.', 'argsSchema': {'type': 'object'}, 'timeoutMs': 500}
        """
        entry = self._tools.get(name) if isinstance(name, str) else None
        if entry is None:
            error = _result.tool_not_found(name, "", list(self._tools)).error
            assert error is not None
            raise error
        return entry.definition.spec()

    def manifest(self) -> dict[str, Any]:
        """The session as the TypeScript SDK's ``SerializableSkillsManifest`` (fresh copies).

        Returns:
            ``{"guidance": str, "tools": [{"name", "description", "argsSchema",
            "timeoutMs"?}]}``; ``timeoutMs`` only for tools that set one. No handlers.

        Example:
            >>> from pedelec import Session
            >>> Session(guidance="Be brief.").manifest()
            {'guidance': 'Be brief.', 'tools': []}
        """
        return {
            "guidance": self._guidance,
            "tools": [entry.definition.spec() for entry in list(self._tools.values())],
        }

    @classmethod
    def from_manifest(
        cls,
        manifest: Mapping[str, Any] | list[Any] | str | os.PathLike[str],
        *,
        session_id: str | None = None,
        reject_unknown_args: bool = False,
        lenient_json_args: bool = False,
        limits: Limits | None = None,
    ) -> Session:
        """Build a session from a manifest dict, or the path of a manifest JSON file.

        The manifest is ``{"guidance"?, "tools": [{"name", "description", "argsSchema",
        "timeoutMs"?}]}`` (the TypeScript SDK's ``tools.json`` shape; a bare list of tools is
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
        data: Any = manifest
        if isinstance(manifest, str) or hasattr(manifest, "__fspath__"):
            data = read_manifest(manifest)
        if isinstance(data, list):
            guidance: Any = ""
            tools: Any = data
        elif isinstance(data, Mapping):
            extra = [k for k in data if k not in ("guidance", "tools")]
            if extra:
                raise PedelecError(
                    INVALID_INPUT,
                    f'Unknown manifest key {extra[0]!r}; a manifest has "guidance" and "tools".',
                    {"field": str(extra[0])},
                )
            guidance = data.get("guidance", "")
            tools = data.get("tools", [])
            if not isinstance(tools, list):
                raise PedelecError(
                    INVALID_INPUT,
                    f'The manifest\'s "tools" must be an array, got {type(tools).__name__}.',
                    {"field": "tools"},
                )
        else:
            raise PedelecError(
                INVALID_INPUT,
                'A manifest must be an object with a "tools" array (or a path to such a JSON '
                f"file), got {type(data).__name__}.",
                {"field": "manifest"},
            )
        return cls(
            tools,
            guidance,
            session_id,
            reject_unknown_args=reject_unknown_args,
            lenient_json_args=lenient_json_args,
            limits=limits,
        )

    # --- events ---------------------------------------------------------------------------

    def on_status(self, callback: Callable[[SessionStatus], object]) -> Callable[[], None]:
        """Call ``callback(status)`` on every status change; returns an unsubscribe function.

        Callbacks run in the thread that caused the change; with calls in several threads,
        two changes may be delivered out of order, so read ``session.status`` for the latest.
        A callback that raises is logged to the ``pedelec`` logger and otherwise ignored.

        Example:
            >>> from pedelec import Session
            >>> session = Session()
            >>> seen = []
            >>> unsubscribe = session.on_status(seen.append)
            >>> session.end()
            >>> seen
            ['ended']
        """
        return self._subscribe("_status_cbs", callback)

    def on_error(self, callback: Callable[[ToolResult], object]) -> Callable[[], None]:
        """Call ``callback(result)`` when a call fails in a way the developer should see.

        That is ``TOOL_HANDLER_ERROR``, ``TOOL_TIMEOUT``, ``SUBMIT_TOOL_RESULT_FAILED`` and
        ``TOOL_HANDLER_NOT_FOUND``; not the agent's own mistakes (``TOOL_NOT_FOUND``,
        ``TOOL_ARGS_INVALID``), domain errors a handler raised or returned, or
        ``SESSION_ENDED``. Returns an unsubscribe function; a callback that raises is logged.
        """
        return self._subscribe("_error_cbs", callback)

    def on_ended(self, callback: Callable[[], object]) -> Callable[[], None]:
        """Call ``callback()`` once when the session ends (at once if it already has).

        Returns an unsubscribe function; a callback that raises is logged.
        """
        with self._lock:
            ended = self._ended
        if ended:
            self._safe_call(callback)
            return _noop
        return self._subscribe("_ended_cbs", callback)

    def _subscribe(self, attr: str, callback: Any) -> Callable[[], None]:
        if not callable(callback):
            raise PedelecError(
                INVALID_INPUT,
                f"A callback must be callable, got {type(callback).__name__}.",
                {"field": "callback"},
            )
        token = (callback,)
        with self._lock:
            setattr(self, attr, (*getattr(self, attr), token))

        def unsubscribe() -> None:
            with self._lock:
                setattr(self, attr, tuple(t for t in getattr(self, attr) if t is not token))

        return unsubscribe

    def _safe_call(self, callback: Callable[..., object], *args: Any) -> None:
        try:
            callback(*args)
        except Exception:
            logger().exception("pedelec: a session callback raised; it was ignored")

    def _emit_status(self, status: SessionStatus) -> None:
        for (cb,) in self._status_cbs:
            self._safe_call(cb, status)

    def _report(self, result: ToolResult) -> ToolResult:
        for (cb,) in self._error_cbs:
            self._safe_call(cb, result)
        return result

    # --- lifecycle ------------------------------------------------------------------------

    def end(self) -> None:
        """End the session: new calls get ``SESSION_ENDED``, running calls are cancelled.

        Awaited calls (async handlers, and sync handlers under ``dispatch``) return
        ``SESSION_ENDED`` at once; the context's ``cancel_event`` of every running call is set.
        A sync handler already running in a thread cannot be stopped: it finishes, and its
        result is discarded. ``on_ended`` callbacks fire once; calling ``end()`` again does
        nothing.

        Example:
            >>> from pedelec import Session
            >>> session = Session()
            >>> session.end(); session.end()
            >>> session.status
            'ended'
        """
        with self._lock:
            if self._ended:
                return
            self._ended = True
            live = list(self._live.values())
            executor, self._executor = self._executor, None
            ended_cbs, self._ended_cbs = self._ended_cbs, ()
        for cancel in live:
            self._safe_call(cancel)
        if executor is not None:
            executor.shutdown(wait=False)
        self._emit_status("ended")
        for (cb,) in ended_cbs:
            self._safe_call(cb)

    def _enter(self) -> None:
        if not self._status_cbs:
            self._running.append(None)
            return
        with self._lock:
            self._running.append(None)
            first = len(self._running) == 1 and not self._ended
        if first:
            self._emit_status("waiting_tool_result")

    def _leave(self) -> None:
        if not self._status_cbs:
            self._running.pop()
            return
        with self._lock:
            self._running.pop()
            last = not self._running and not self._ended
        if last:
            self._emit_status("idle")

    # --- dispatch -------------------------------------------------------------------------

    def dispatch_sync(
        self,
        name: str,
        args: Any,
        *,
        turn_id: str | None = None,
        tool_request_id: str | None = None,
    ) -> ToolResult:
        """Run one tool call from synchronous code and return its result; never raises for
        anything the agent sent.

        A sync handler runs in the calling thread: a timeout cannot interrupt it, so when it
        overruns its timeout the call waits for it and then reports ``TOOL_TIMEOUT`` (the same
        result ``dispatch`` gives), discarding the value; ``ctx.cancelled`` turns true at the
        deadline for handlers that poll it. An async handler runs on a private event loop of
        the calling thread and is cancelled at its timeout.

        Args:
            name: The tool the agent called.
            args: The arguments: a dict, or JSON text (``str``/``bytes``) parsed strictly.
            turn_id: The agent turn this call belongs to (``ctx.turn_id``).
            tool_request_id: The provider's id for this call (default: a fresh unique id).

        Returns:
            The ``ToolResult``.

        Raises:
            RuntimeError: When called from a thread that is running an event loop (it would
                block the loop); use ``await session.dispatch(...)`` there.

        Example:
            >>> from pedelec import Session
            >>> session = Session()
            >>> @session.on_tool("double", description="Double n.", schema={
            ...     "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
            ... def double(args):
            ...     return args["n"] * 2
            >>> session.dispatch_sync("double", {"n": 21}).to_json()
            42
            >>> session.dispatch_sync("double", {"n": "21"}).error.message
            'Invalid arguments for tool "double": /n: expected integer, got string "21" (type). Correct the arguments and call the tool again.'
        """
        aio = _modules.get("asyncio")
        if aio is not None and aio._get_running_loop() is not None:
            raise RuntimeError(
                "Session.dispatch_sync() was called from a thread that is running an event "
                "loop, where it would block that loop; use `await session.dispatch(...)` "
                "instead."
            )
        rid = next_request_number() if tool_request_id is None else str(tool_request_id)
        prepared = self._prepare(name, args, rid)
        if type(prepared) is ToolResult:
            return prepared
        entry, args, spec, timeout_ms = prepared
        name = entry.name
        if spec.is_async:
            return private_loop().run_until_complete(  # type: ignore[no-any-return]
                self._run_async(name, rid, spec, args, turn_id, timeout_ms)
            )
        # A sync handler runs here, in the calling thread. This block is the whole overhead of
        # a trivial call, so it is written out rather than split into helpers.
        fn = spec.args_only
        ctx = None
        value: Any = None
        raised: Exception | None = None
        if self._status_cbs:
            self._enter()
        else:
            self._running.append(None)
        try:
            start = monotonic()
            if fn is not None:
                try:
                    value = fn(args)
                except Exception as exc:
                    raised = exc
            else:
                ctx = self._context(name, rid, turn_id, timeout_ms)
                rid = ctx.tool_request_id
                live = self._live
                live[ctx] = ctx._cancel  # dict stores are atomic; end() copies under the lock
                if self._ended:
                    ctx._cancel()
                try:
                    value = spec.call(args, ctx)
                except Exception as exc:
                    raised = exc
                finally:
                    del live[ctx]
            if monotonic() - start > timeout_ms / 1000 or self._ended:
                discard(value)
                return self._late(name, rid, timeout_ms, ctx, raised)
            if raised is None and type(value) in SCALARS:
                return ToolResult(name, rid, value)
            return self._outcome(name, rid, value, raised)
        finally:
            if self._status_cbs:
                self._leave()
            else:
                self._running.pop()

    async def dispatch(
        self,
        name: str,
        args: Any,
        *,
        turn_id: str | None = None,
        tool_request_id: str | None = None,
    ) -> ToolResult:
        """Run one tool call and return its result; never raises for anything the agent sent.

        Order: session ended → ``SESSION_ENDED``; unknown tool → ``TOOL_NOT_FOUND``; args
        parsed (JSON text) or copied (dict), a top-level ``timeoutMs`` the schema does not
        declare taken out as this call's timeout; args validated → ``TOOL_ARGS_INVALID``;
        handler chosen (named → inline → fallback) → ``TOOL_HANDLER_NOT_FOUND``; handler run.
        An async handler runs in the awaiting task and is cancelled at its timeout; a sync
        handler runs in a worker thread of the session (a thread cannot be stopped: at the
        timeout the call returns ``TOOL_TIMEOUT``, ``ctx.cancel_event`` is set and the thread
        runs on until the handler returns).

        Args:
            name: The tool the agent called.
            args: The arguments: a dict, or JSON text (``str``/``bytes``) parsed strictly.
            turn_id: The agent turn this call belongs to (``ctx.turn_id``).
            tool_request_id: The provider's id for this call (default: a fresh unique id).

        Returns:
            The ``ToolResult``. Cancelling the awaiting task still raises ``CancelledError``.

        Example:
            >>> import asyncio
            >>> from pedelec import Session
            >>> session = Session()
            >>> @session.on_tool("wait", description="Wait a bit.", timeout_ms=10,
            ...                  schema={"type": "object"})
            ... async def wait(args):
            ...     await asyncio.sleep(1)
            >>> asyncio.run(session.dispatch("wait", {})).error.code
            'TOOL_TIMEOUT'
        """
        rid = next_request_number() if tool_request_id is None else str(tool_request_id)
        prepared = self._prepare(name, args, rid)
        if type(prepared) is ToolResult:
            return prepared
        entry, args, spec, timeout_ms = prepared
        if spec.is_async:
            return await self._run_async(entry.name, rid, spec, args, turn_id, timeout_ms)
        return await self._run_threaded(entry.name, rid, spec, args, turn_id, timeout_ms)

    def _prepare(self, name: Any, args: Any, rid: str | int) -> Any:
        """Everything before the handler runs: a ``ToolResult`` when the call stops here, else
        ``(entry, args, spec, timeout_ms)``."""
        if self._ended:
            return _result.session_ended(name, rid)
        try:
            entry = self._tools.get(name)
        except TypeError:  # an unhashable "name"
            entry = None
        if entry is None:
            return _result.tool_not_found(name, rid, list(self._tools))
        name = entry.name
        kind = type(args)
        if kind is dict and len(args) < self._flat_limit:
            # Fast path for the usual flat object of scalars: a shallow copy is a deep copy, and
            # whatever ``clone_json`` would reject here (a non-string key, NaN) fails validation.
            copy = args.copy()
            if not FLAT_ARGS.issuperset(map(type, copy.values())):
                try:
                    copy = clone_json(copy, max_depth=self._max_depth, max_values=self._max_values)
                except NotJsonError as exc:
                    return _result.args_not_json(name, rid, exc)
            args = copy
        elif kind is str or kind is bytes or kind is bytearray:
            try:
                args = parse_json_args(args, max_bytes=self._max_bytes, max_depth=self._max_depth)
            except PedelecError as exc:
                return _result.args_unparsable(name, rid, exc)
        else:
            try:
                args = clone_json(args, max_depth=self._max_depth, max_values=self._max_values)
            except NotJsonError as exc:
                return _result.args_not_json(name, rid, exc)
        timeout_ms = entry.timeout_ms
        problems: list[ArgError] | None = None
        if type(args) is dict and "timeoutMs" in args and not entry.takes_timeout:
            raw = args.pop("timeoutMs")
            if type(raw) is int and raw > 0:
                timeout_ms = raw
            elif type(raw) is float and raw > 0 and raw.is_integer():
                timeout_ms = int(raw)
            else:
                problems = [timeout_problem(raw)]
            if problems is None and timeout_ms > self._limits.max_call_timeout_ms:
                problems = [timeout_too_long(timeout_ms, self._limits.max_call_timeout_ms)]
        prepare = entry.prepare
        if prepare is not None:
            args = prepare(args)
        validator = entry.validator
        if not validator.is_valid(args):
            invalid = True
            if self._lenient and entry.lenient and type(args) is dict:
                args = self._coerce(entry, args)
                invalid = not validator.is_valid(args)
            if invalid:
                problems = (problems or []) + validator.errors(
                    args, max_errors=self._limits.max_errors
                )
        if self._reject_unknown:
            problems = (problems or []) + unknown_args(
                validator.schema, args, self._limits.max_errors
            )
        if problems:
            return _result.args_invalid(name, rid, problems[: self._limits.max_errors])
        spec = entry.named or entry.inline or self._fallback
        if spec is None:
            return self._report(_result.handler_not_found(name, rid))
        return entry, args, spec, timeout_ms

    def _coerce(self, entry: _Entry, args: dict[str, Any]) -> dict[str, Any]:
        """``lenient_json_args``: parse top-level JSON-text values where an array/object is due."""
        for key, types in entry.lenient.items():
            text = args.get(key)
            if type(text) is not str:
                continue
            try:
                value = parse_json_args(text, max_bytes=self._max_bytes, max_depth=self._max_depth)
            except PedelecError:
                continue
            if type(value) in types:
                args[key] = value
        return args

    def _context(
        self, name: str, rid: str | int, turn_id: str | None, timeout_ms: int
    ) -> ToolCallContext:
        return ToolCallContext(self._session_id, request_id(rid), name, turn_id, timeout_ms)

    def _outcome(
        self, name: str, rid: str | int, value: Any, raised: BaseException | None
    ) -> ToolResult:
        """The result of a handler that returned ``value`` or raised ``raised``."""
        if raised is not None:
            if isinstance(raised, PedelecError):
                return self._raised(name, rid, raised)
            logger().error('pedelec: the handler of tool "%s" raised', name, exc_info=raised)
            return self._report(_result.handler_failed(name, rid, raised))
        t = type(value)
        if t in SCALARS or (t is float and value - value == 0.0):
            return ToolResult(name, rid, value)
        if t is dict and len(value) < 64:
            copy = flat_copy(value)
            if copy is not None and not (len(copy) == 1 and "error" in copy):
                return ToolResult(name, rid, copy)
        result = _result.from_value(name, rid, value)
        if result.value is None and result.error is not None:
            self._report(result)  # only a value that is not JSON gets here
        return result

    def _raised(self, name: str, rid: str | int, exc: PedelecError) -> ToolResult:
        details = exc.details
        if details is not None:
            try:
                details = clone_json(details)
            except NotJsonError as bad:
                return self._report(_result.details_not_json(name, rid, exc, bad))
        return ToolResult(name, rid, None, PedelecError(str(exc.code), str(exc.message), details))

    def _late(
        self,
        name: str,
        rid: str | int,
        timeout_ms: int,
        ctx: ToolCallContext | None,
        raised: BaseException | None,
    ) -> ToolResult:
        """The result of a call that ended after its deadline or after ``end()``."""
        if ctx is not None:
            ctx._cancel()
        if raised is not None and not isinstance(raised, (PedelecError, cancelled_type())):
            logger().error(
                'pedelec: the handler of tool "%s" raised after its call was over',
                name,
                exc_info=raised,
            )
        if self._ended:
            return _result.session_ended(name, rid, running=True)
        return self._report(_result.timed_out(name, rid, timeout_ms))

    async def _run_async(
        self,
        name: str,
        rid: str | int,
        spec: HandlerSpec,
        args: dict[str, Any],
        turn_id: str | None,
        timeout_ms: int,
    ) -> ToolResult:
        fn = spec.args_only
        ctx = None
        value: Any = None
        raised: Exception | None = None
        self._enter()
        try:
            start = monotonic()
            try:
                if fn is not None:
                    awaitable = fn(args)
                else:
                    ctx = self._context(name, rid, turn_id, timeout_ms)
                    awaitable = spec.call(args, ctx)
                it = awaitable.__await__()
                first = it.send(None)
            except StopIteration as stop:
                value = stop.value
            except Exception as exc:
                raised = exc
            else:
                # The handler suspended: from here on a timer (and end()) may cancel it.
                deadline = start + timeout_ms / 1000
                return await self._await_rest(
                    name, rid, ctx, Resume(it, first), deadline, timeout_ms
                )
            if monotonic() - start > timeout_ms / 1000 or self._ended:
                return self._late(name, rid, timeout_ms, ctx, raised)
            return self._outcome(name, rid, value, raised)
        finally:
            self._leave()

    async def _run_threaded(
        self,
        name: str,
        rid: str | int,
        spec: HandlerSpec,
        args: dict[str, Any],
        turn_id: str | None,
        timeout_ms: int,
    ) -> ToolResult:
        import asyncio
        import contextvars

        # Always a context here: its flag tells a worker that picks the call up late not to
        # start it, and its event tells a running handler that nobody waits any more.
        ctx = self._context(name, rid, turn_id, timeout_ms)
        self._enter()
        try:
            start = monotonic()
            executor = self._get_executor()
            if executor is None:  # the session ended meanwhile
                return _result.session_ended(name, rid)
            run = contextvars.copy_context().run
            fn = spec.args_only
            if fn is not None:
                future = executor.submit(run, call_unless_cancelled, ctx, fn, args)
            else:
                future = executor.submit(run, call_unless_cancelled, ctx, spec.call, args, ctx)
            deadline = start + timeout_ms / 1000
            result = await self._await_rest(
                name, rid, ctx, asyncio.wrap_future(future), deadline, timeout_ms
            )
            if result.error is not None and result.error.code in _LATE_CODES:
                future.add_done_callback(lambda f: log_late(name, f))
            return result
        finally:
            self._leave()

    def _get_executor(self) -> Any:
        executor = self._executor
        if executor is None:
            from concurrent.futures import ThreadPoolExecutor

            with self._lock:
                if self._ended:
                    return None
                executor = self._executor
                if executor is None:
                    executor = self._executor = ThreadPoolExecutor(
                        thread_name_prefix=f"pedelec-{self._session_id[:8]}"
                    )
        return executor

    async def _await_rest(
        self,
        name: str,
        rid: str | int,
        ctx: ToolCallContext | None,
        awaitable: Any,
        deadline: float,
        timeout_ms: int,
    ) -> ToolResult:
        """Await a running handler under its deadline and ``end()``; turn it into a result."""
        import asyncio

        value: Any = None
        raised: BaseException | None = None
        loop = asyncio.get_running_loop()
        task = asyncio.current_task(loop)
        if task is None:  # driven by something other than an asyncio task: no timer possible
            try:
                value = await awaitable
            except Exception as exc:
                raised = exc
            return self._outcome(name, rid, value, raised)
        call = Call(loop, task, ctx)
        cancelling = task.cancelling()
        handle = loop.call_at(loop.time() + (deadline - monotonic()), call.expire)
        with self._lock:
            ended = self._ended
            if not ended:
                self._live[call] = call.end
        if ended:
            call.cancel("ended")
        try:
            value = await awaitable
        except asyncio.CancelledError as exc:
            if call.reason is None:
                raise
            raised = exc
        except Exception as exc:
            raised = exc
        finally:
            call.done = True
            handle.cancel()
            with self._lock:
                self._live.pop(call, None)
        if call.reason is not None:
            # Take our cancellation back; re-raise when someone else cancelled the task too.
            if task.uncancel() > cancelling and isinstance(raised, asyncio.CancelledError):
                raise raised
            discard(value)
            return self._late(name, rid, timeout_ms, ctx, raised)
        if self._ended:  # ended while the handler ran, too late to cancel it
            discard(value)
            return self._late(name, rid, timeout_ms, ctx, raised)
        return self._outcome(name, rid, value, raised)


_LATE_CODES: Final = frozenset({"TOOL_TIMEOUT", "SESSION_ENDED"})


def _duplicate(name: str) -> PedelecError:
    return PedelecError(
        INVALID_INPUT,
        f'Tool "{name}" is already declared in this session; tool names must be unique '
        "(to replace its handler, use @session.on_tool(name) without a schema).",
        {"tool": name, "field": "name"},
    )


def _noop() -> None:
    return None
