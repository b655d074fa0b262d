"""The tools of one session and their handlers: a private dict behind add / get / attach / detach.

Writes take the lock; reads do not (a dict lookup is atomic), so the dispatcher's ``get`` is the
dict's own ``get``. An entry keeps the tool's inline handler, the *named* handler attached later
with ``on_tool(name)`` (it wins), and the registry keeps the one fallback handler.

Beside the tools, the registry keeps ``quick``: the tools whose usual call needs nothing of
admission but the validating copy, each with the sync handler it would run. Every write updates
it under the lock, so ``Session.dispatch_sync`` can take a call from the table to its handler
without asking the entry again what applies.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, TypeAlias, final

from pedelec._args import lenient_types
from pedelec._definitions import ToolDefinition, compile_tool_schema
from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.limits import DEFAULT_LIMITS, DEFAULT_MAX_RESULT_BYTES, DEFAULT_TIMEOUT_MS

if TYPE_CHECKING:
    from pedelec._handlers import HandlerSpec
    from pedelec.schema import Validator

__all__ = ["Entry", "Quick", "Registry", "duplicate"]

#: A tool of ``Registry.quick``, as the usual call reads it, each part looked up once at the
#: write instead of at every call: the validator (whose ``_copy`` is read at the call, so it is
#: the generated walk once that exists), the handler (``HandlerSpec.args_only``), the timeout
#: in seconds and in milliseconds, the entry and the handler's spec.
Quick: TypeAlias = tuple[
    "Validator", "Callable[[dict[str, Any]], Any]", float, int, "Entry", "HandlerSpec"
]


@final
class Entry:
    """One registered tool of one session (the definition plus this session's handlers)."""

    __slots__ = (
        "approval",
        "definition",
        "inline",
        "lenient",
        "name",
        "named",
        "output",
        "plain",
        "prepare",
        "takes_timeout",
        "timeout_ms",
        "validator",
    )

    def __init__(
        self,
        definition: ToolDefinition[Any, Any],
        validator: Validator,
        output: Validator | None = None,
    ) -> None:
        self.definition = definition
        self.name = definition.name
        self.validator = validator
        self.inline: HandlerSpec | None = definition.call_spec
        self.named: HandlerSpec | None = None
        self.prepare = definition.prepare_args
        timeout = definition.timeout_ms
        self.timeout_ms: int = DEFAULT_TIMEOUT_MS if timeout is None else timeout
        props = validator.schema.get("properties") or {}
        # A schema that declares its own ``timeoutMs`` keeps it as an ordinary argument.
        self.takes_timeout = "timeoutMs" in props
        self.lenient = lenient_types(props)
        #: The output schema's validator, run on every successful result (``pedelec._output``).
        self.output = output
        #: ``True``, ``False`` or the per-call ``(args, ctx) -> bool`` of ``requires_approval``.
        self.approval = definition.requires_approval
        #: No per-call extra (no output schema, no approval): the dispatcher's fast paths apply
        #: as they are.
        self.plain: bool = output is None and self.approval is False


@final
class Registry:
    """The declared tools of one session, in declaration order, and the fallback handler."""

    __slots__ = ("_lock", "_pattern_limit", "_result_limit", "_tools", "fallback", "get", "quick")

    def __init__(
        self, lock: Any, max_pattern_length: int, max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES
    ) -> None:
        self._lock = lock
        self._pattern_limit = max_pattern_length
        self._result_limit = max_result_bytes
        self._tools: dict[str, Entry] = {}
        self.fallback: HandlerSpec | None = None
        #: The entry of a tool name, or ``None`` (raises ``TypeError`` for an unhashable name).
        self.get: Final[Callable[[Any], Entry | None]] = self._tools.get
        #: ``name -> Quick`` for each tool with no per-call extra (``Entry.plain``), no typed
        #: preparation of its args, and a sync handler of ``(args)`` alone: its usual call is
        #: admitted by the validating copy alone and runs that handler with nothing around it
        #: but the clock and the running count (the session still checks ``timeoutMs`` and its
        #: own settings).
        self.quick: Final[dict[str, Quick]] = {}

    def _requick(self, entry: Entry) -> None:
        """Put ``entry`` in ``quick`` or take it out, after a write changed it (lock held)."""
        spec = entry.named or entry.inline or self.fallback
        if (
            spec is not None
            and not spec.is_async
            and spec.args_only is not None
            and entry.plain
            and entry.prepare is None
        ):
            ms = entry.timeout_ms
            self.quick[entry.name] = (entry.validator, spec.args_only, ms / 1000, ms, entry, spec)
        else:
            self.quick.pop(entry.name, None)

    def add(self, definition: ToolDefinition[Any, Any]) -> None:
        """Register a tool; its schema is recompiled when the session bounds patterns differently.

        Raises:
            PedelecError: ``INVALID_INPUT`` when the name is already declared.
        """
        validator = definition.validator
        if self._pattern_limit != DEFAULT_LIMITS.max_pattern_length:
            validator = compile_tool_schema(definition.name, definition.schema, self._pattern_limit)
        output = definition.output_validator
        if output is not None and self._result_limit > DEFAULT_MAX_RESULT_BYTES:
            # A longer result string is no mismatch for its length: its pattern is matched too.
            from pedelec._output import compile_output_schema

            output = compile_output_schema(definition.name, output.schema, self._result_limit)
        entry = Entry(definition, validator, output)
        with self._lock:
            if entry.name not in self._tools:
                self._tools[entry.name] = entry
                self._requick(entry)
                return
        raise duplicate(entry.name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def names(self) -> list[str]:
        """The declared names, in declaration order."""
        return list(self._tools)

    def definitions(self) -> list[ToolDefinition[Any, Any]]:
        """The declared definitions, in declaration order."""
        return [entry.definition for entry in list(self._tools.values())]

    def require(self, name: str) -> None:
        """Raise unless ``name`` is declared: a handler for it could never be called."""
        if name not in self._tools:
            raise PedelecError(
                INVALID_INPUT,
                f'Tool "{name}" is not declared in this session, so an agent could never call '
                "this handler; declare it with schema= (and description=), in tools=, or in "
                "the manifest.",
                {"tool": name, "field": "schema"},
            )

    def attach(self, name: str, spec: HandlerSpec) -> None:
        """Make ``spec`` the named handler of the declared tool ``name``."""
        with self._lock:
            entry = self._tools[name]
            entry.named = spec
            self._requick(entry)

    def detach(self, name: str, handler: Callable[..., Any]) -> bool:
        """Remove ``handler`` from ``name`` if it is the current one (named first, then inline)."""
        with self._lock:
            entry = self._tools.get(name)
            if entry is None:
                return False
            if entry.named is not None and entry.named.source == handler:
                entry.named = None
                self._requick(entry)
                return True
            if entry.named is None and entry.inline is not None and entry.inline.source == handler:
                entry.inline = None
                self._requick(entry)
                return True
        return False

    def set_fallback(self, spec: HandlerSpec) -> None:
        with self._lock:
            self.fallback = spec  # it takes (tool, args, ctx): never a tool of ``quick``

    def remove_fallback(self, handler: Callable[..., Any]) -> bool:
        """Remove the fallback handler if ``handler`` is the current one."""
        with self._lock:
            if self.fallback is not None and self.fallback.source == handler:
                self.fallback = None
                return True
        return False

    def handler(self, name: object) -> HandlerSpec | None:
        """The handler a call of ``name`` would run (named, inline, fallback), or ``None``."""
        entry = self._tools.get(name) if isinstance(name, str) else None
        if entry is None:
            return None
        return entry.named or entry.inline or self.fallback


def duplicate(name: str) -> PedelecError:
    return PedelecError(
        INVALID_INPUT,
        f'Tool "{name}" is already declared in this session; tool names must be unique '
        "(to replace its handler, use @session.on_tool(name) without a schema).",
        {"tool": name, "field": "name"},
    )
