"""Typed tools: a tool's argument schema and handler call, inferred from a Python signature.

``infer_tool(fn)`` reads ``fn``'s parameters, their annotations, defaults and docstring, and
returns the tool's name, description, root object schema (always inside the Tool Args Schema
subset) and a ``HandlerSpec`` that calls ``fn`` with keyword arguments.

Annotation → node (DESIGN §8, issue 5):

| annotation | node | the handler receives |
| --- | --- | --- |
| ``str`` / ``int`` / ``float`` / ``bool`` | string / integer / number / boolean | the value (``2.0`` for an ``int`` arrives as ``2``) |
| ``list[T]``, ``Sequence[T]`` | array of T | a ``list`` |
| a ``TypedDict`` | object (``Required``/``NotRequired``/``total``) | a ``dict`` |
| ``dict[str, Any]`` | object with no declared properties | a ``dict`` |
| a ``dataclass`` | object of its init fields (rules of parameters) | ``cls(**fields)`` |
| a pydantic model | object of ``model_fields`` (aliases, constraints) | ``cls.model_validate(value)`` |
| ``Literal["a", "b"]`` | enum (one node per JSON type) | the value |
| an ``Enum`` of strings or of integers | enum of its values | the member |
| a union of distinguishable types | ``oneOf`` | as for the member that matched |
| ``Annotated[T, marker...]`` | T's node plus the markers' keywords | as for T |
| ``Optional[T]`` on a parameter | T, not required | ``None`` when absent (see below) |
| ``ToolCallContext`` | (left out of the schema) | the call's context |

Parameters with a default are not required; the default (as JSON) becomes ``default``.
The return annotation gives the tool's output schema by the same table, where it can
(``pedelec.typed.output``).

**null**: the subset has no null type, so a schema never allows ``null``. For a parameter whose
annotation accepts ``None`` (``T | None``, or a ``None`` default), ``InferredTool.prepare_args``
turns an explicit ``null`` into "absent" before validation: the parameter's default applies, or
``None`` when it has none. Everywhere else ``null`` is a ``TOOL_ARGS_INVALID`` the agent can fix
by leaving the key out.

Ambiguity: ``oneOf`` means exactly one member matches, so a union whose members can match the
same value (``int | float``: ``1``; ``list[int] | list[str]``: ``[]``) would reject that value for
good. Such unions are ``INVALID_INPUT`` with a fix. Two object members count as distinguishable
when each requires a key the other does not declare, or when a key required by one is declared
by both with nodes that cannot match the same value (a ``Literal`` tag). Undeclared keys
are allowed in objects, so an agent that mixes both members' keys is still told "matches more
than one"; the rule guarantees that a value written for one member never matches another.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Final, final

from pedelec._context import ToolCallContext
from pedelec._handlers import HandlerSpec, is_async_callable
from pedelec._text import is_blank
from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.limits import DEFAULT_MAX_PATTERN_LENGTH
from pedelec.typed.convert import Convert
from pedelec.typed.docstrings import parse_docstring
from pedelec.typed.hints import MAX_WRAPPED, Unresolved, resolve_hints, strip_none
from pedelec.typed.output import infer_output
from pedelec.typed.shapes import Builder

if TYPE_CHECKING:
    from pedelec.schema.validator import Validator

__all__ = ["InferredTool", "infer_tool"]


@final
class InferredTool:
    """What ``infer_tool`` learned from a function: everything needed to register it.

    Attributes:
        name: The tool name (the function's ``__name__`` unless given).
        description: The tool description (the docstring's first paragraph unless given).
        schema: The root object schema, checked against the subset. It is built fresh for this
            tool and shared with nothing, so a registry may keep it without copying (and must
            not change it).
        handler: A ``HandlerSpec`` whose ``call(args, ctx)`` calls the function with keyword
            arguments built from validated args.
        validator: The compiled validator of ``schema`` (from the ``compile_schema`` cache), so
            registration does not check and compile the schema a second time.
        nullable: Names of the parameters whose annotation accepts ``None``.
        output: The output schema inferred from the return annotation and its validator, or
            ``None`` when the annotation gives none (see ``pedelec.typed.output``).
    """

    __slots__ = ("description", "handler", "name", "nullable", "output", "schema", "validator")

    name: str
    description: str
    schema: dict[str, Any]
    handler: HandlerSpec
    validator: Validator
    nullable: frozenset[str]
    output: tuple[dict[str, Any], Validator] | None

    def __init__(
        self,
        name: str,
        description: str,
        schema: dict[str, Any],
        handler: HandlerSpec,
        validator: Validator,
        nullable: frozenset[str] = frozenset(),
        output: tuple[dict[str, Any], Validator] | None = None,
    ) -> None:
        self.name = name
        self.description = description
        self.schema = schema
        self.handler = handler
        self.validator = validator
        self.nullable = nullable
        self.output = output

    def prepare_args(self, args: dict[str, Any]) -> dict[str, Any]:
        """Treat an explicit ``null`` for a parameter that accepts ``None`` as an absent key.

        Run it on the agent's args before validation. Returns ``args`` itself when there is
        nothing to drop (the common case costs one check per nullable parameter), else a copy.

        Example:
            >>> def f(q: str, limit: int | None = None) -> str:
            ...     "Search."
            ...     return q
            >>> infer_tool(f).prepare_args({"q": "x", "limit": None})
            {'q': 'x'}
        """
        nullable = self.nullable
        if not nullable or not isinstance(args, dict):
            return args  # args that are not an object are the validator's to reject
        for name in nullable:
            if name in args and args[name] is None:
                return {k: v for k, v in args.items() if v is not None or k not in nullable}
        return args

    def __repr__(self) -> str:
        return f"InferredTool(name={self.name!r}, description={self.description!r})"


def infer_tool(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    max_pattern_length: int = DEFAULT_MAX_PATTERN_LENGTH,
) -> InferredTool:
    """Infer a tool's schema and handler from a typed function.

    Args:
        fn: A function (sync or ``async def``), a bound method, a ``functools.partial`` or a
            callable object. Every parameter needs a supported annotation; see the module docs.
        name: The tool name; defaults to ``fn.__name__``.
        description: The tool description; defaults to the first paragraph of the docstring.
        max_pattern_length: Passed to ``compile_schema`` for ``InferredTool.validator``.

    Returns:
        An ``InferredTool`` with the name, description, checked schema and handler.

    Raises:
        PedelecError: ``INVALID_INPUT`` when a parameter cannot be expressed in the subset
            (``details`` ``{"tool", "parameter"}``), or when there is no description.

    Example:
        >>> from typing import Annotated, Literal
        >>> from pedelec.markers import Maximum, Minimum
        >>> def move(steps: Annotated[int, Minimum(1), Maximum(10)],
        ...          direction: Literal["left", "right"] = "left") -> str:
        ...     '''Move the cursor.
        ...
        ...     Args:
        ...         steps: How far to move.
        ...     '''
        ...     return f"{direction} {steps}"
        >>> tool = infer_tool(move)
        >>> tool.schema["properties"]["steps"]
        {'type': 'integer', 'minimum': 1, 'maximum': 10, 'description': 'How far to move.'}
        >>> tool.schema["required"]
        ['steps']
        >>> tool.handler.call({"steps": 3}, None)
        'left 3'
    """
    target = _annotated_callable(fn)
    tool = name if name is not None else _default_name(fn)
    doc = _docstring(fn, target)
    summary, param_docs = parse_docstring(doc)
    if description is None:
        description = summary
    if not description or (isinstance(description, str) and is_blank(description)):
        raise PedelecError(
            INVALID_INPUT,
            f'Tool "{tool}" has no description; give the function a docstring '
            f'or pass description="..."',
            {"tool": tool},
        )
    try:
        parameters = _parameters(fn)
    except (TypeError, ValueError) as exc:
        raise PedelecError(
            INVALID_INPUT,
            f'Tool "{tool}": cannot read the signature of {fn!r} ({exc}); '
            f"wrap it in a def with annotated parameters",
            {"tool": tool},
        ) from None
    hints = resolve_hints(target, [pname for pname, _, _ in parameters])

    builder = Builder(tool)
    properties: dict[str, Any] = {}
    required: list[str] = []
    plan: list[tuple[str, Convert | None, bool, bool]] = []
    nullable: set[str] = set()
    ctx_name: str | None = None
    param = inspect.Parameter
    for pname, kind, default in parameters:
        builder.start(pname)
        if kind is param.POSITIONAL_ONLY:
            raise builder.fail(
                "positional-only parameters cannot be passed by keyword; "
                "remove the / from the signature"
            )
        if kind is param.VAR_POSITIONAL:
            raise builder.fail(
                "*args cannot be described by a schema; declare each argument as its own "
                "parameter, or one list[T] parameter"
            )
        if kind is param.VAR_KEYWORD:
            raise builder.fail(
                "**kwargs cannot be described by a schema; declare each argument as its own "
                "parameter, or one TypedDict parameter"
            )
        annotation = hints.get(pname, param.empty)
        if annotation is param.empty:
            raise builder.fail(
                "it has no type annotation; annotate it (e.g. str, int, list[str], a TypedDict)"
            )
        if isinstance(annotation, Unresolved):
            raise builder.fail(
                f"its annotation {annotation.text!r} cannot be resolved ({annotation.reason}); "
                f"define or import the name at module level"
            )
        annotation, accepts_none = strip_none(annotation)
        if annotation is ToolCallContext:
            if ctx_name is not None:
                raise builder.fail(
                    f'parameter "{ctx_name}" already receives the ToolCallContext; keep one'
                )
            ctx_name = pname
            continue
        has_default = default is not param.empty
        if has_default and default is None:
            accepts_none = True
        shape = builder.child(annotation, param_docs.get(pname))
        if has_default and default is not None:
            shape.node["default"] = builder.json(default, "default")
        properties[pname] = shape.node
        if not has_default and not accepts_none:
            required.append(pname)
        if accepts_none:
            nullable.add(pname)
        # A required-by-Python parameter that accepts None gets None when the agent leaves it out.
        plan.append((pname, shape.convert, accepts_none, accepts_none and not has_default))

    schema = {"type": "object", "properties": properties, "required": required}
    validator = _compiled(schema, tool, max_pattern_length)
    call = _make_call(fn, tuple(plan), ctx_name)
    is_async = is_async_callable(fn)
    call = _with_result(call, _result_convert(tool, hints), is_async)
    handler = HandlerSpec(call, is_async, fn)
    output = infer_output(tool, hints)
    return InferredTool(tool, description, schema, handler, validator, frozenset(nullable), output)


def _parameters(fn: Callable[..., Any]) -> list[tuple[str, Any, Any]]:
    """``(name, kind, default)`` of each parameter, as ``inspect.signature(fn)`` lists them.

    A plain function (or a ``functools.wraps`` chain ending in one) is read from its code object
    directly, as ``inspect`` itself does, without building ``Parameter`` objects: about 3 µs
    instead of about 18 µs, a tenth of inferring a small tool. Anything else (a bound method, a
    partial, a callable object, a ``__signature__``) goes through ``inspect.signature``.

    Raises:
        TypeError, ValueError: from ``inspect.signature``, for a callable it cannot read.
    """
    inner: Any = fn
    for _ in range(MAX_WRAPPED):
        if type(inner) is not _FunctionType:
            break
        attributes = inner.__dict__
        if "__wrapped__" not in attributes or not _SIGNED.isdisjoint(attributes):
            break
        inner = attributes["__wrapped__"]
    else:
        inner = None  # a longer chain, maybe a loop
    if type(inner) is not _FunctionType or not _SIGNED.isdisjoint(inner.__dict__):
        # Not a plain function at the end of the chain: inspect knows every other kind (and
        # raises ValueError for a chain that loops).
        return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]
    param = inspect.Parameter
    code = inner.__code__
    names = code.co_varnames
    positional = code.co_argcount
    keyword_only = code.co_kwonlyargcount
    defaults = inner.__defaults__ or ()
    first_default = positional - len(defaults)
    listed: list[tuple[str, Any, Any]] = []
    for index in range(positional):
        kind = (
            param.POSITIONAL_ONLY
            if index < code.co_posonlyargcount
            else param.POSITIONAL_OR_KEYWORD
        )
        default = defaults[index - first_default] if index >= first_default else param.empty
        listed.append((names[index], kind, default))
    after = positional + keyword_only
    if code.co_flags & _CO_VARARGS:
        listed.append((names[after], param.VAR_POSITIONAL, param.empty))
    kwdefaults = inner.__kwdefaults__ or {}
    for name in names[positional:after]:
        listed.append((name, param.KEYWORD_ONLY, kwdefaults.get(name, param.empty)))
    if code.co_flags & _CO_VARKEYWORDS:
        index = after + 1 if code.co_flags & _CO_VARARGS else after
        listed.append((names[index], param.VAR_KEYWORD, param.empty))
    return listed


_FunctionType: Final = types.FunctionType
_CO_VARARGS: Final = inspect.CO_VARARGS
_CO_VARKEYWORDS: Final = inspect.CO_VARKEYWORDS
#: Attributes with which ``inspect.signature`` reads a function otherwise than from its code.
_SIGNED: Final = frozenset({"__signature__", "_partialmethod"})


def _annotated_callable(fn: Callable[..., Any]) -> Any:
    """The object whose ``__annotations__`` and docstring describe ``fn``'s parameters."""
    target: Any = fn
    while isinstance(target, partial):
        target = target.func
    if (
        not inspect.isroutine(target)
        and not isinstance(target, type)
        and callable(getattr(type(target), "__call__", None))  # noqa: B004 - the class attribute
    ):
        target = target.__call__
    return target


def _docstring(fn: Callable[..., Any], target: Any) -> str | None:
    """The raw docstring that documents ``fn``: a callable object's class docstring comes first;
    a method without one inherits its base method's (as ``inspect.getdoc`` does)."""
    if inspect.ismethod(target) and target.__name__ == "__call__" and not inspect.ismethod(fn):
        doc: str | None = type(target.__self__).__dict__.get("__doc__") or target.__doc__
        return doc
    doc = getattr(target, "__doc__", None)
    if doc is None and inspect.ismethod(target):
        doc = inspect.getdoc(target)
    return doc if isinstance(doc, str) else None


def _default_name(fn: Callable[..., Any]) -> str:
    target: Any = fn
    while isinstance(target, partial):
        target = target.func
    name = getattr(target, "__name__", None)
    if isinstance(name, str):
        return name
    raise PedelecError(
        INVALID_INPUT,
        f'Cannot infer a tool name from {fn!r}; pass name="..."',
        {"field": "name"},
    )


def _result_convert(tool: str, hints: dict[str, Any]) -> Convert:
    """How the tool's result becomes JSON, decided once from its return annotation."""
    from pedelec.typed.convert import duck_result, result_converter

    annotation = hints.get("return", Any)
    if annotation is Any or annotation is object or isinstance(annotation, (Unresolved, str)):
        return duck_result
    if annotation is None or annotation is type(None):
        return duck_result
    return result_converter(tool, annotation) or _same


def _same(value: Any) -> Any:
    return value


def _with_result(
    call: Callable[[dict[str, Any], Any], Any], convert: Convert, is_async: bool
) -> Callable[[dict[str, Any], Any], Any]:
    """``call`` whose result goes through ``convert`` (awaited first for an async handler)."""
    if convert is _same:
        return call
    if is_async:

        async def call_async(args: dict[str, Any], ctx: Any) -> Any:
            return convert(await call(args, ctx))

        return call_async

    def call_converted(args: dict[str, Any], ctx: Any) -> Any:
        return convert(call(args, ctx))

    return call_converted


def _make_call(
    fn: Callable[..., Any],
    plan: tuple[tuple[str, Convert | None, bool, bool], ...],
    ctx_name: str | None,
) -> Callable[[dict[str, Any], Any], Any]:
    """Build ``call(args, ctx)``: keyword arguments from validated args, converted where needed.

    ``plan`` holds, per parameter: name, converter, whether ``None``/``null`` means absent, and
    whether an absent value is passed as ``None`` (a parameter with no default that accepts None).
    Keys the signature does not declare are not passed.
    """
    if all(convert is None and not nullable for _, convert, nullable, _ in plan):
        names = tuple(name for name, *_ in plan)

        def call_plain(args: dict[str, Any], ctx: Any) -> Any:
            kwargs = {name: args[name] for name in names if name in args}
            if ctx_name is not None:
                kwargs[ctx_name] = ctx
            return fn(**kwargs)

        return call_plain

    def call(args: dict[str, Any], ctx: Any) -> Any:
        kwargs: dict[str, Any] = {}
        for name, convert, nullable, fill_none in plan:
            if name in args:
                value = args[name]
                if value is None and nullable:
                    if fill_none:
                        kwargs[name] = None
                    continue
                kwargs[name] = value if convert is None else convert(value)
            elif fill_none:
                kwargs[name] = None
        if ctx_name is not None:
            kwargs[ctx_name] = ctx
        return fn(**kwargs)

    return call


def _compiled(schema: dict[str, Any], tool: str, max_pattern_length: int) -> Validator:
    """Check and compile the inferred schema (cached); name the parameter when a rule fails."""
    from pedelec.schema import _cache
    from pedelec.schema.check import Invalid

    try:
        return _cache.compiled_built(schema, max_pattern_length)
    except Invalid as bad:
        exc = bad.error(None)
        details = {**exc.details, "tool": tool}
        path = bad.path
        if len(path) > 1 and path[0] == "properties":
            parameter = str(path[1])
            details["parameter"] = parameter
            message = f'Parameter "{parameter}" of tool "{tool}": {exc.message}'
        else:  # pragma: no cover - every inferred node sits under /properties/<name>
            message = f'Tool "{tool}": {exc.message}'
        raise PedelecError(INVALID_INPUT, message, details) from None
