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
| ``Literal["a", "b"]`` | enum (one node per JSON type) | the value |
| an ``Enum`` of strings or of integers | enum of its values | the member |
| a union of distinguishable types | ``oneOf`` | as for the member that matched |
| ``Annotated[T, marker...]`` | T's node plus the markers' keywords | as for T |
| ``Optional[T]`` on a parameter | T, not required | ``None`` when absent (see below) |
| ``ToolCallContext`` | (left out of the schema) | the call's context |

Parameters with a default are not required; the default (as JSON) becomes ``default``.

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

import enum
import inspect
import math
import re
import types
from collections.abc import Callable, Mapping, MutableSequence, Sequence
from functools import partial
from typing import (
    TYPE_CHECKING,
    Any,
    Final,
    Literal,
    NamedTuple,
    Union,
    final,
    get_args,
    get_origin,
)

import typing_extensions as te

from pedelec._context import ToolCallContext
from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.markers import _Marker

if TYPE_CHECKING:
    from pedelec.schema.validator import Validator
    from pedelec.tools import HandlerSpec

__all__ = ["InferredTool", "infer_tool"]

_Convert = Callable[[Any], Any]
_NoneType: Final = type(None)
_INF: Final = math.inf


def _to_int(value: Any) -> Any:
    # JSON Schema counts 2.0 as an integer; an ``int`` parameter should still get an int.
    return value if type(value) is not float else int(value)


#: The plain types that map to one scalar node → (node type, converter of a validated value).
_SCALARS: Final[Mapping[Any, tuple[str, _Convert | None]]] = {
    str: ("string", None),
    bool: ("boolean", None),
    int: ("integer", _to_int),
    float: ("number", None),
}
# ``origin`` of the generic aliases that become an array (the handler receives a list).
_ARRAY_ORIGINS: Final = (list, Sequence, MutableSequence)
_OBJECT_ORIGINS: Final = (dict, Mapping)
# Containers the subset cannot express, with the closest thing it can.
_CONTAINER_HINTS: Final[Mapping[Any, str]] = {
    tuple: "use list[T] or Sequence[T] (the subset has no fixed-length tuples)",
    set: "use list[T] with UniqueItems()",
    frozenset: "use list[T] with UniqueItems()",
}


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
    """

    __slots__ = ("description", "handler", "name", "nullable", "schema", "validator")

    name: str
    description: str
    schema: dict[str, Any]
    handler: HandlerSpec
    validator: Validator
    nullable: frozenset[str]

    def __init__(
        self,
        name: str,
        description: str,
        schema: dict[str, Any],
        handler: HandlerSpec,
        validator: Validator,
        nullable: frozenset[str] = frozenset(),
    ) -> None:
        self.name = name
        self.description = description
        self.schema = schema
        self.handler = handler
        self.validator = validator
        self.nullable = nullable

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
    max_pattern_length: int = 1024,
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
    from pedelec.tools import HandlerSpec, is_async_callable

    target = _annotated_callable(fn)
    tool = name if name is not None else _default_name(fn)
    doc = _docstring(fn, target)
    summary, param_docs = _parse_docstring(doc)
    if description is None:
        description = summary
    if not description or (isinstance(description, str) and not description.strip()):
        raise PedelecError(
            INVALID_INPUT,
            f'Tool "{tool}" has no description; give the function a docstring '
            f'or pass description="..."',
            {"tool": tool},
        )
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise PedelecError(
            INVALID_INPUT,
            f'Tool "{tool}": cannot read the signature of {fn!r} ({exc}); '
            f"wrap it in a def with annotated parameters",
            {"tool": tool},
        ) from None
    hints = _resolve_hints(target, signature)

    builder = _Builder(tool)
    properties: dict[str, Any] = {}
    required: list[str] = []
    plan: list[tuple[str, _Convert | None, bool, bool]] = []
    nullable: set[str] = set()
    ctx_name: str | None = None
    for param in signature.parameters.values():
        builder.start(param.name)
        if param.kind is param.POSITIONAL_ONLY:
            raise builder.fail(
                "positional-only parameters cannot be passed by keyword; "
                "remove the / from the signature"
            )
        if param.kind is param.VAR_POSITIONAL:
            raise builder.fail(
                "*args cannot be described by a schema; declare each argument as its own "
                "parameter, or one list[T] parameter"
            )
        if param.kind is param.VAR_KEYWORD:
            raise builder.fail(
                "**kwargs cannot be described by a schema; declare each argument as its own "
                "parameter, or one TypedDict parameter"
            )
        annotation = hints.get(param.name, param.empty)
        if annotation is param.empty:
            raise builder.fail(
                "it has no type annotation; annotate it (e.g. str, int, list[str], a TypedDict)"
            )
        if isinstance(annotation, _Unresolved):
            raise builder.fail(
                f"its annotation {annotation.text!r} cannot be resolved ({annotation.reason}); "
                f"define or import the name at module level"
            )
        annotation, accepts_none = _strip_none(annotation)
        if annotation is ToolCallContext:
            if ctx_name is not None:
                raise builder.fail(
                    f'parameter "{ctx_name}" already receives the ToolCallContext; keep one'
                )
            ctx_name = param.name
            continue
        has_default = param.default is not param.empty
        if has_default and param.default is None:
            accepts_none = True
        shape = builder.child(annotation, param_docs.get(param.name))
        if has_default and param.default is not None:
            shape.node["default"] = builder.json(param.default, "default")
        properties[param.name] = shape.node
        if not has_default and not accepts_none:
            required.append(param.name)
        if accepts_none:
            nullable.add(param.name)
        # A required-by-Python parameter that accepts None gets None when the agent leaves it out.
        plan.append((param.name, shape.convert, accepts_none, accepts_none and not has_default))

    schema = {"type": "object", "properties": properties, "required": required}
    validator = _compiled(schema, tool, max_pattern_length)
    call = _make_call(fn, tuple(plan), ctx_name)
    handler = HandlerSpec(call, is_async_callable(fn), fn)
    return InferredTool(tool, description, schema, handler, validator, frozenset(nullable))


# --- the callable: name, annotations, call -----------------------------------------------------


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


class _Unresolved(NamedTuple):
    """An annotation that could not be evaluated; reported when its parameter is reached."""

    text: str
    reason: str


#: How ``ToolCallContext`` reads as an annotation string that cannot be evaluated, e.g. when it
#: is imported under ``if TYPE_CHECKING:`` in a module using ``from __future__ import annotations``.
_CTX_TEXT: Final = re.compile(r"(?:[\w.]+\.)?ToolCallContext(?:\s*\|\s*None)?")


#: Compiled annotation strings (``from __future__ import annotations``): the same few texts
#: ("int", "list[str]", …) recur across tools, and compiling them is most of evaluating them.
_ANNOTATION_CODE: dict[str, types.CodeType] = {}


def _plain_hints(target: Any) -> dict[str, Any] | None:
    """Evaluate a plain function's annotations like ``get_type_hints``, or ``None`` to defer.

    Handles the common case cheaply: string annotations are compiled once per text and
    evaluated in the function's globals. Anything less plain (a wrapped or bound callable, a
    failure, a forward reference left inside the result) goes back to ``get_type_hints``.
    """
    if not inspect.isfunction(target) or hasattr(target, "__wrapped__"):
        return None
    raw = target.__annotations__
    globalns = target.__globals__
    hints: dict[str, Any] = {}
    try:
        for name, annotation in raw.items():
            text = annotation if isinstance(annotation, str) else None
            if text is not None:
                code = _ANNOTATION_CODE.get(text)
                if code is None:
                    code = compile(text, "<annotation>", "eval")
                    if len(_ANNOTATION_CODE) < 4096:
                        _ANNOTATION_CODE[text] = code
                annotation = eval(code, globalns)  # what get_type_hints does, minus the compile
            if annotation is None:
                annotation = type(None)
            # Evaluated text holds a forward reference only if it quotes a name in it.
            if (text is None or "'" in text or '"' in text) and _has_forward_ref(annotation):
                return None
            hints[name] = annotation
    except Exception:  # let get_type_hints and the per-parameter retry report it
        return None
    return hints


def _has_forward_ref(annotation: Any) -> bool:
    if isinstance(annotation, str | te.ForwardRef):
        return True
    origin = te.get_origin(annotation)
    if origin is te.Literal:  # its arguments are values, strings included
        return False
    args = te.get_args(annotation)
    if origin is te.Annotated:  # metadata (markers, a description string) is not a type
        args = args[:1]
    return any(_has_forward_ref(arg) for arg in args)


def _resolve_hints(target: Any, signature: inspect.Signature) -> dict[str, Any]:
    """Evaluated annotations by parameter name (``Annotated`` kept).

    ``get_type_hints`` evaluates every annotation at once, the return annotation included; when
    that fails, each parameter is evaluated on its own so the error names the one at fault and an
    unresolvable return annotation does not matter.
    """
    fast = _plain_hints(target)
    if fast is not None:
        return fast
    try:
        return te.get_type_hints(target, include_extras=True)
    except Exception:  # any failure of user annotations: retried one by one below
        pass
    raw = getattr(target, "__annotations__", None) or {}
    unwrapped = inspect.unwrap(target) if inspect.isroutine(target) else target
    globalns = getattr(getattr(unwrapped, "__func__", unwrapped), "__globals__", {})
    hints: dict[str, Any] = {}
    for name in signature.parameters:
        if name not in raw:
            continue
        annotation = raw[name]
        holder = types.SimpleNamespace(__annotations__={name: annotation})
        try:
            hints[name] = te.get_type_hints(holder, globalns=globalns, include_extras=True)[name]
        except Exception as exc:  # reported as INVALID_INPUT for this parameter
            if isinstance(annotation, str) and _CTX_TEXT.fullmatch(annotation.strip()):
                hints[name] = ToolCallContext
            else:
                hints[name] = _Unresolved(str(annotation), f"{type(exc).__name__}: {exc}")
    return hints


def _make_call(
    fn: Callable[..., Any],
    plan: tuple[tuple[str, _Convert | None, bool, bool], ...],
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
    from pedelec.schema import compile_schema

    try:
        return compile_schema(schema, max_pattern_length=max_pattern_length)
    except PedelecError as exc:
        details = dict(exc.details) if isinstance(exc.details, dict) else {}
        parts = str(details.get("pointer", "")).split("/")
        details["tool"] = tool
        if len(parts) > 2 and parts[1] == "properties":
            parameter = parts[2].replace("~1", "/").replace("~0", "~")
            details["parameter"] = parameter
            message = f'Parameter "{parameter}" of tool "{tool}": {exc.message}'
        else:  # pragma: no cover - every inferred node sits under /properties/<name>
            message = f'Tool "{tool}": {exc.message}'
        raise PedelecError(INVALID_INPUT, message, details) from None


# --- annotations → nodes ---------------------------------------------------------------------


class _Shape(NamedTuple):
    """One annotation, translated: its node, how to convert a validated value, how it reads."""

    node: dict[str, Any]
    convert: _Convert | None
    #: The type's own documentation (a TypedDict's or Enum's docstring summary): the node's
    #: description when nothing more specific gives one.
    doc: str | None
    #: The annotation as written in messages, e.g. ``list[int]``.
    label: str


def _strip_none(annotation: Any) -> tuple[Any, bool]:
    """``annotation`` without its ``None`` member (also inside ``Annotated`` and ``Literal``)."""
    if type(annotation) is type and annotation in _SCALARS:
        return annotation, False
    origin = get_origin(annotation)
    if origin is te.Annotated:
        inner, accepts_none = _strip_none(annotation.__origin__)
        if not accepts_none:
            return annotation, False
        return te.Annotated[(inner, *annotation.__metadata__)], True
    if origin is Union or origin is types.UnionType:
        results = [_strip_none(member) for member in get_args(annotation)]
        if not any(accepts_none for _, accepts_none in results):
            return annotation, False
        kept = [member for member, _ in results if member is not _NoneType]
        if not kept:
            return _NoneType, True
        # ``Union[...]`` builds a union from a runtime tuple; ``|`` would need a fold.
        return (kept[0] if len(kept) == 1 else Union[tuple(kept)]), True  # noqa: UP007
    if origin is Literal:
        values = get_args(annotation)
        if None not in values:
            return annotation, False
        others = tuple(v for v in values if v is not None)
        return (Literal[others] if others else _NoneType), True
    return annotation, annotation is _NoneType


class _Builder:
    """Translates the annotations of one tool, knowing where it is for error messages."""

    def __init__(self, tool: str) -> None:
        self.tool = tool
        self.param = ""
        self.path: list[str] = []
        self.typeddicts: list[type] = []

    def start(self, param: str) -> None:
        self.param = param
        self.path = [param]

    def fail(self, clause: str) -> PedelecError:
        where = f'Parameter "{self.param}" of tool "{self.tool}"'
        if len(self.path) > 1:
            where += f" (at {''.join(self.path)})"
        return PedelecError(
            INVALID_INPUT, f"{where}: {clause}.", {"tool": self.tool, "parameter": self.param}
        )

    # -- entry points

    def child(self, annotation: Any, doc: str | None = None) -> _Shape:
        """The shape of a node placed inside another: ``doc`` (else the type's own doc) becomes
        its description unless a marker already gave one."""
        shape = self.shape(annotation)
        text = doc or shape.doc
        if text and "description" not in shape.node:
            shape.node["description"] = text
        return shape

    def shape(self, tp: Any) -> _Shape:
        scalar = _SCALARS.get(tp) if type(tp) is type else None
        if scalar is not None:
            kind, convert = scalar
            return _Shape({"type": kind}, convert, None, tp.__name__)
        origin = get_origin(tp)
        if origin is not None:
            return self._generic(tp, origin)
        if te.is_typeddict(tp):
            return self._typeddict(tp)
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return self._enum(tp)
        if isinstance(tp, te.NewType):
            return self.shape(tp.__supertype__)
        if type(tp).__name__ == "TypeAliasType" and hasattr(tp, "__value__"):
            return self.shape(tp.__value__)
        if tp is dict or tp is Mapping:
            return _Shape({"type": "object"}, None, None, _label(tp))
        return self._unsupported(tp)

    def _unsupported(self, tp: Any) -> _Shape:
        label = _label(tp)
        if tp is _NoneType:
            raise self.fail(
                "None is only allowed as T | None on a parameter or on a NotRequired TypedDict "
                "field (the subset has no null type); leave the key out instead of sending null"
            )
        if tp is Any or tp is object:
            raise self.fail(
                f"{label} cannot be described (the subset has no 'any' type); "
                f"annotate a concrete type such as str, int, list[str] or a TypedDict"
            )
        if tp is ToolCallContext:
            raise self.fail(
                "ToolCallContext can only be the annotation of a parameter of its own, "
                "which receives the call context"
            )
        if tp in _ARRAY_ORIGINS:
            raise self.fail(f"{label} needs an item type; write e.g. {label}[str]")
        if tp in _CONTAINER_HINTS:
            raise self.fail(f"{label} is not supported; {_CONTAINER_HINTS[tp]}")
        if isinstance(tp, str | te.ForwardRef):
            raise self.fail(
                f"the annotation {label} cannot be resolved; "
                f"define or import the name at module level"
            )
        raise self.fail(
            f"{label} is not supported; use str, int, float, bool, list[T], a TypedDict, "
            f"Literal[...], an Enum, or a union of these"
        )

    def _generic(self, tp: Any, origin: Any) -> _Shape:
        if origin is te.Annotated:
            return self._annotated(tp)
        if origin is Union or origin is types.UnionType:
            return self._union(tp)
        if origin is Literal:
            return self._literal(tp)
        args = get_args(tp)
        if origin in _ARRAY_ORIGINS:
            self.path.append("[]")
            items = self.child(args[0])
            self.path.pop()
            convert = None if items.convert is None else _list_converter(items.convert)
            return _Shape(
                {"type": "array", "items": items.node},
                convert,
                None,
                f"{_label(origin)}[{items.label}]",
            )
        if origin in _OBJECT_ORIGINS:
            if args and (args[0] is not str or args[1] is not Any):
                raise self.fail(
                    f"{_label(tp)} is not supported: the subset cannot constrain the values of "
                    f"a free-form object; use a TypedDict, or {_label(origin)}[str, Any] for any object"
                )
            return _Shape({"type": "object"}, None, None, _label(tp))
        if origin in _CONTAINER_HINTS:
            raise self.fail(f"{_label(tp)} is not supported; {_CONTAINER_HINTS[origin]}")
        if origin in (te.Required, te.NotRequired, te.ReadOnly):
            raise self.fail(f"{_label(tp)} is only meaningful on a TypedDict field")
        return self._unsupported(tp)

    # -- kinds

    def _annotated(self, tp: Any) -> _Shape:
        shape = self.shape(tp.__origin__)
        for meta in tp.__metadata__:
            self._apply(shape, meta)
        return shape

    def _union(self, tp: Any) -> _Shape:
        members = get_args(tp)
        label = " | ".join(_label(m) for m in members)
        if _NoneType in members:
            raise self.fail(
                f"{label} accepts None, which is only allowed on a parameter or on a NotRequired "
                f"TypedDict field (the subset has no null type); use NotRequired[...] without "
                f"None, or drop None"
            )
        literals: list[Any] = []
        branches: list[_Shape] = []
        for member in members:
            if get_origin(member) is Literal:
                literals.extend(get_args(member))
            else:
                branches.append(self.child(member))
        if literals:
            branches[0:0] = self._literal_groups(tuple(literals))
        if len(branches) == 1:
            return branches[0]
        self._check_distinct(branches, label)
        node = {"oneOf": [b.node for b in branches]}
        return _Shape(node, _union_converter(branches), None, label)

    def _literal(self, tp: Any) -> _Shape:
        groups = self._literal_groups(get_args(tp))
        if len(groups) == 1:
            return groups[0]
        # Members of different JSON types can never match the same value.
        node = {"oneOf": [g.node for g in groups]}
        return _Shape(node, _union_converter(groups), None, _label(tp))

    def _literal_groups(self, values: tuple[Any, ...]) -> list[_Shape]:
        """``Literal`` values as one enum node per JSON type, in order of first appearance."""
        groups: dict[str, list[Any]] = {}
        labels: dict[str, list[str]] = {}
        members: dict[str, dict[Any, enum.Enum]] = {}
        seen: set[tuple[type, Any]] = set()
        for value in values:
            raw = value.value if isinstance(value, enum.Enum) else value
            if (type(raw), raw) in seen:
                continue  # Literal["a"] | Literal["a", "b"]: one "a" is enough
            seen.add((type(raw), raw))
            kind = _scalar_type(raw)
            if kind is None:
                raise self.fail(
                    f"Literal value {value!r} is not a string, integer or boolean; "
                    f"the subset's enums hold JSON values"
                )
            groups.setdefault(kind, []).append(raw)
            labels.setdefault(kind, []).append(_literal_label(value))
            if isinstance(value, enum.Enum):
                members.setdefault(kind, {})[raw] = value
        shapes = []
        for kind, raws in groups.items():
            shapes.append(
                _Shape(
                    {"type": kind, "enum": raws},
                    _literal_converter(kind, members.get(kind)),
                    None,
                    f"Literal[{', '.join(labels[kind])}]",
                )
            )
        return shapes

    def _enum(self, cls: type[enum.Enum]) -> _Shape:
        values = [member.value for member in cls]
        if not values:
            raise self.fail(f"Enum {cls.__name__} has no members")
        if all(type(v) is str for v in values):
            kind = "string"
        elif all(type(v) is int for v in values):
            kind = "integer"
        else:
            raise self.fail(
                f"the values of Enum {cls.__name__} must be all strings or all integers, "
                f"got {values!r}; give the members str or int values"
            )
        summary, _ = _parse_docstring(cls.__doc__)
        return _Shape({"type": kind, "enum": values}, cls, summary, cls.__name__)

    def _typeddict(self, td: Any) -> _Shape:
        name = td.__name__
        if td in self.typeddicts:
            raise self.fail(
                f"TypedDict {name} contains itself; recursive types cannot be described "
                f"(the subset has no $ref)"
            )
        try:
            hints = te.get_type_hints(td, include_extras=True)
        except Exception as exc:  # any failure of user annotations
            raise self.fail(
                f"the fields of TypedDict {name} cannot be resolved ({type(exc).__name__}: {exc}); "
                f"define or import the names at module level"
            ) from None
        summary, field_docs = _parse_docstring(td.__doc__)
        properties: dict[str, Any] = {}
        required: list[str] = []
        converters: list[tuple[str, _Convert]] = []
        self.typeddicts.append(td)
        for key, annotation in hints.items():
            annotation, explicit = _qualifiers(annotation)
            is_required = key in td.__required_keys__ if explicit is None else explicit
            if not is_required:
                # An optional key may be typed ``T | None``: the handler never sees None, only
                # an absent key, which its type allows.
                annotation, _ = _strip_none(annotation)
            self.path.append(f".{key}")
            shape = self.child(annotation, field_docs.get(key))
            self.path.pop()
            properties[key] = shape.node
            if is_required:
                required.append(key)
            if shape.convert is not None:
                converters.append((key, shape.convert))
        self.typeddicts.pop()
        node = {"type": "object", "properties": properties, "required": required}
        convert = _dict_converter(tuple(converters)) if converters else None
        return _Shape(node, convert, summary, name)

    # -- Annotated metadata

    def _apply(self, shape: _Shape, meta: Any) -> None:
        node = shape.node
        kind = node.get("type", "oneOf")
        if isinstance(meta, _Marker):
            if meta.applies_to is not None and kind not in meta.applies_to:
                raise self.fail(self._misplaced(meta, meta.python_types, shape))
            value = meta.value
            if meta.keyword == "examples":
                value = [self.json(v, "example") for v in value]
            node[meta.keyword] = value
        elif isinstance(meta, str):
            if not meta.strip():
                raise self.fail("an empty string in Annotated[...] is not a description")
            node["description"] = meta
        elif isinstance(meta, type) and issubclass(meta, _Marker):
            raise self.fail(
                f"write {meta.__name__}(...) in Annotated[...], an instance, not the class"
            )
        else:
            self._apply_foreign(shape, kind, meta)

    def _misplaced(self, meta: Any, applies: str, shape: _Shape) -> str:
        clause = f"{meta!r} applies to {applies}, not to {shape.label}"
        if "oneOf" in shape.node:
            clause += "; put it on the member it constrains, e.g. Annotated[int, Minimum(0)] | str"
        return clause

    def _apply_foreign(self, shape: _Shape, kind: str, meta: Any) -> None:
        """``annotated-types`` constraints and ``Doc``, recognised by their names and fields."""
        node = shape.node
        cls = type(meta).__name__
        bounds = _BOUND_FIELDS.get(cls)
        if bounds is not None:
            found = False
            for field in bounds:
                value = getattr(meta, field, None)
                if value is not None:
                    found = True
                    self._bound(shape, kind, meta, field, value)
            if found:
                return
        lengths = _LENGTH_FIELDS.get(cls)
        if lengths is not None and any(hasattr(meta, f) for f in lengths):
            if kind not in ("string", "array"):
                raise self.fail(self._misplaced(meta, "str and lists", shape))
            for field in lengths:
                value = getattr(meta, field, None)
                if value is None:
                    continue
                if type(value) is not int or value < 0:
                    raise self.fail(f"{meta!r}: the length must be an int of 0 or more")
                prefix = "min" if field == "min_length" else "max"
                node[f"{prefix}{'Length' if kind == 'string' else 'Items'}"] = value
            return
        documentation = getattr(meta, "documentation", None)
        if cls in ("Doc", "DocInfo") and isinstance(documentation, str) and documentation.strip():
            node["description"] = documentation
            return
        if type(meta).__module__.split(".")[0] == "annotated_types":
            raise self.fail(
                f"{meta!r} has no equivalent in the Tool Args Schema subset; "
                f"check it in the handler instead"
            )
        raise self.fail(
            f"Annotated metadata {meta!r} is not understood; use the pedelec markers (Minimum, "
            f"Maximum, MinLength, MaxLength, Pattern, MinItems, MaxItems, UniqueItems, "
            f"Description, Examples) or annotated-types constraints"
        )

    def _bound(self, shape: _Shape, kind: str, meta: Any, field: str, value: Any) -> None:
        if kind not in ("integer", "number"):
            raise self.fail(self._misplaced(meta, "int and float", shape))
        if type(value) not in (int, float) or not math.isfinite(value):
            raise self.fail(f"{meta!r}: the bound must be a finite int or float")
        if field in ("ge", "le"):
            shape.node["minimum" if field == "ge" else "maximum"] = value
            return
        if kind == "number":
            inclusive = "Ge" if field == "gt" else "Le"
            raise self.fail(
                f"{meta!r} is an exclusive bound, which the subset cannot express for float "
                f"(it has no exclusiveMinimum/exclusiveMaximum); use {inclusive}(...) with the "
                f"closest value you accept"
            )
        # For integers an exclusive bound is an inclusive one: n > 2.5 ⇔ n >= 3.
        if field == "gt":
            shape.node["minimum"] = math.floor(value) + 1
        else:
            shape.node["maximum"] = math.ceil(value) - 1

    # -- values

    def json(self, value: Any, what: str) -> Any:
        """A default or example as JSON: Enum members become their values, tuples lists."""
        try:
            return _to_json(value, 0)
        except ValueError as exc:
            raise self.fail(f"the {what} {value!r} is not JSON ({exc}); use a JSON value") from None

    # -- ambiguity

    def _check_distinct(self, branches: list[_Shape], label: str) -> None:
        for i, first in enumerate(branches):
            for second in branches[i + 1 :]:
                witness = _common(first.node, second.node)
                if witness is not None:
                    raise self.fail(
                        f"the union {label} is ambiguous: {first.label} and {second.label} can "
                        f"both match {witness}, and oneOf rejects a value that matches two "
                        f"members; {_fix(first, second)}"
                    )


def _qualifiers(annotation: Any) -> tuple[Any, bool | None]:
    """A TypedDict field's type without ``Required``/``NotRequired``/``ReadOnly``, and whether
    it was marked required (``None``: the class's totality decides)."""
    required: bool | None = None
    while True:
        origin = get_origin(annotation)
        if origin is te.Required or origin is te.NotRequired:
            required = origin is te.Required
            annotation = get_args(annotation)[0]
        elif origin is te.ReadOnly:
            annotation = get_args(annotation)[0]
        elif origin is te.Annotated and get_origin(annotation.__origin__) in (
            te.Required,
            te.NotRequired,
            te.ReadOnly,
        ):
            inner, required_inside = _qualifiers(annotation.__origin__)
            if required_inside is not None:
                required = required_inside
            annotation = te.Annotated[(inner, *annotation.__metadata__)]
        else:
            return annotation, required


#: ``annotated-types`` classes that bound a number → their fields, in the order applied.
_BOUND_FIELDS: Final[Mapping[str, tuple[str, ...]]] = {
    "Ge": ("ge",),
    "Le": ("le",),
    "Gt": ("gt",),
    "Lt": ("lt",),
    "Interval": ("gt", "ge", "lt", "le"),
}
#: ``annotated-types`` classes that bound a length (of a string or a list) → their fields.
_LENGTH_FIELDS: Final[Mapping[str, tuple[str, ...]]] = {
    "MinLen": ("min_length",),
    "MaxLen": ("max_length",),
    "Len": ("min_length", "max_length"),
}


def _scalar_type(value: Any) -> str | None:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, str):
        return "string"
    return None


def _to_json(value: Any, depth: int) -> Any:
    if depth > 64:
        raise ValueError("nested too deeply, or it contains itself")
    if isinstance(value, enum.Enum):
        value = value.value
    if value is None or type(value) in (str, bool, int):
        return value
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value!r} is not a JSON number")
        return float(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, list | tuple):
        return [_to_json(item, depth + 1) for item in value]
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError(f"the key {key!r} is not a string")
            out[str(key)] = _to_json(item, depth + 1)
        return out
    raise ValueError(f"{type(value).__name__} has no JSON form")


# --- converters ------------------------------------------------------------------------------


def _list_converter(convert: _Convert) -> _Convert:
    def convert_list(value: Any) -> Any:
        return [convert(item) for item in value]

    return convert_list


def _dict_converter(fields: tuple[tuple[str, _Convert], ...]) -> _Convert:
    def convert_dict(value: Any) -> Any:
        out = dict(value)  # a copy: the caller's args stay as the agent sent them
        for key, convert in fields:
            if key in out:
                out[key] = convert(out[key])
        return out

    return convert_dict


def _literal_converter(kind: str, members: dict[Any, enum.Enum] | None) -> _Convert | None:
    if members is None:
        return _to_int if kind == "integer" else None

    def convert_literal(value: Any) -> Any:
        member = members.get(value)
        if member is not None:
            return member
        return _to_int(value) if kind == "integer" else value

    return convert_literal


#: The JSON type of a validated value, as the key ``_union_converter`` dispatches on.
_VALUE_KIND: Final[Mapping[type, str]] = {
    str: "string",
    bool: "boolean",
    int: "number",
    float: "number",
    list: "array",
    dict: "object",
}


def _node_kinds(node: Mapping[str, Any]) -> set[str]:
    if "oneOf" in node:
        return {k for branch in node["oneOf"] for k in _node_kinds(branch)}
    kind = node["type"]
    return {"number" if kind == "integer" else kind}


def _union_converter(branches: list[_Shape]) -> _Convert | None:
    """Convert a value of a ``oneOf`` as the member that matched it would.

    Members of different JSON types are told apart by the value's type. When several members
    share a type (two TypedDicts, two Literal groups of integers...), their nodes are compiled on
    first use and the one that accepts the value is taken; validation already ensured exactly one
    does.
    """
    if all(b.convert is None for b in branches):
        return None
    by_kind: dict[str, list[_Shape]] = {}
    for branch in branches:
        for kind in _node_kinds(branch.node):
            by_kind.setdefault(kind, []).append(branch)
    table: dict[str, _Convert | None] = {}
    for kind, shapes in by_kind.items():
        if len(shapes) == 1:
            table[kind] = shapes[0].convert
        elif any(s.convert is not None for s in shapes):
            table[kind] = _Pick(shapes)
        else:
            table[kind] = None

    def convert_union(value: Any) -> Any:
        convert = table.get(_VALUE_KIND.get(type(value), ""))
        return value if convert is None else convert(value)

    return convert_union


class _Pick:
    """Convert with the member whose node accepts the value (nodes compiled on first use)."""

    __slots__ = ("_shapes", "_validators")

    def __init__(self, shapes: list[_Shape]) -> None:
        self._shapes = shapes
        self._validators: list[Validator] | None = None

    def __call__(self, value: Any) -> Any:
        validators = self._validators
        if validators is None:
            from pedelec.schema.validator import compile_node

            # Compiling twice in a race is harmless; both lists are equal.
            validators = self._validators = [compile_node(s.node) for s in self._shapes]
        for shape, validator in zip(self._shapes, validators, strict=True):
            if validator.is_valid(value):
                return value if shape.convert is None else shape.convert(value)
        return value


# --- ambiguity analysis ----------------------------------------------------------------------


def _common(a: Mapping[str, Any], b: Mapping[str, Any]) -> str | None:
    """A value (as text) both nodes accept, or None when they cannot match the same value.

    Conservative where the subset allows it to be: two patterns are assumed to overlap.
    Objects follow the softer rule of the module docs (a distinguishing required key).
    """
    if "oneOf" in a:
        return next((w for n in a["oneOf"] if (w := _common(n, b)) is not None), None)
    if "oneOf" in b:
        return next((w for n in b["oneOf"] if (w := _common(a, n)) is not None), None)
    ta, tb = a["type"], b["type"]
    numeric = ta in ("integer", "number") and tb in ("integer", "number")
    if ta != tb and not numeric:
        return None
    for left, right in ((a, b), (b, a)):
        if "enum" in left:
            for value in left["enum"]:
                if _accepts(left, value) and _accepts(right, value):
                    return _render(value)
            return None
    if numeric:
        return _common_number(a, b, "integer" in (ta, tb))
    if ta == "string":
        low = max(a.get("minLength", 0), b.get("minLength", 0))
        high = min(a.get("maxLength", _INF), b.get("maxLength", _INF))
        if low > high:
            return None
        if "pattern" in a or "pattern" in b:
            return "the same string"
        return _render("a" * low)
    if ta == "boolean":
        return "true"
    if ta == "array":
        low = max(a.get("minItems", 0), b.get("minItems", 0))
        high = min(a.get("maxItems", _INF), b.get("maxItems", _INF))
        if low > high:
            return None
        if low == 0:
            return "[]"
        item = _common(a["items"], b["items"])
        return None if item is None else f"a list of {low} item(s) like {item}"
    return _common_object(a, b)


def _common_number(a: Mapping[str, Any], b: Mapping[str, Any], integer: bool) -> str | None:
    low = max(a.get("minimum", -_INF), b.get("minimum", -_INF))
    high = min(a.get("maximum", _INF), b.get("maximum", _INF))
    if integer:
        low = low if low == -_INF else math.ceil(low)
        high = high if high == _INF else math.floor(high)
    if low > high:
        return None
    return _render(min(max(1, low), high))


def _common_object(a: Mapping[str, Any], b: Mapping[str, Any]) -> str | None:
    ra, rb = set(a.get("required", ())), set(b.get("required", ()))
    pa, pb = a.get("properties", {}), b.get("properties", {})
    for key in (ra | rb) & pa.keys() & pb.keys():
        if _common(pa[key], pb[key]) is None:
            return None  # a tag: the key's values tell the members apart
    if ra - pb.keys() and rb - pa.keys():
        # Each member requires a key the other does not declare: a value written for one (with
        # any of its own optional keys) lacks a key the other requires.
        return None
    keys = sorted(ra | rb)
    if not keys:
        return "{}"
    return "an object with the keys " + ", ".join(_render(k) for k in keys)


def _accepts(node: Mapping[str, Any], value: Any) -> bool:
    """Whether a scalar node accepts a scalar JSON value (an enum entry)."""
    kind = node["type"]
    if kind == "boolean":
        ok = type(value) is bool
    elif kind == "string":
        ok = type(value) is str
    elif kind == "integer":
        ok = type(value) is int or (type(value) is float and value.is_integer())
    elif kind == "number":
        ok = type(value) in (int, float)
    else:
        return False
    if not ok:
        return False
    if "enum" in node and not any(
        e == value and (type(e) is bool) == (type(value) is bool) for e in node["enum"]
    ):
        return False
    if kind in ("integer", "number"):
        return bool(node.get("minimum", -_INF) <= value <= node.get("maximum", _INF))
    if kind == "string":
        if not node.get("minLength", 0) <= len(value) <= node.get("maxLength", _INF):
            return False
        if "pattern" in node:
            try:
                return re.search(node["pattern"], value) is not None
            except re.error:
                return True
    return True


def _render(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value)


def _fix(a: _Shape, b: _Shape) -> str:
    """How to make two overlapping union members distinguishable."""
    kinds = {a.node.get("type"), b.node.get("type")}
    enums = ("enum" in a.node, "enum" in b.node)
    if kinds == {"integer", "number"} and not any(enums):
        return "use float alone, it accepts whole numbers too"
    if enums == (True, False) or enums == (False, True):
        plain, listed = (b, a) if enums[0] else (a, b)
        return f"{plain.label} already accepts those values; drop {listed.label} or {plain.label}"
    if all(enums):
        return f"remove the shared values from {a.label} or {b.label}"
    if kinds == {"array"}:
        return (
            "an empty list matches both; use one list of a union (e.g. list[int | str]), "
            "or add MinItems(1) to each"
        )
    if kinds == {"object"}:
        return (
            "give each TypedDict a required key the other does not declare, or a required "
            'tag key with different Literal values (e.g. kind: Literal["a"])'
        )
    return "make the members distinguishable (different JSON types, or disjoint values or bounds)"


# --- labels ------------------------------------------------------------------------------------


def _label(tp: Any) -> str:
    """An annotation as a reader wrote it: ``list[int]``, ``Literal['a']``, ``Point``."""
    if tp is _NoneType or tp is None:
        return "None"
    origin = get_origin(tp)
    if origin is te.Annotated:
        return _label(tp.__origin__)
    if origin is Union or origin is types.UnionType:
        return " | ".join(_label(m) for m in get_args(tp))
    if origin is Literal:
        return f"Literal[{', '.join(_literal_label(v) for v in get_args(tp))}]"
    if origin is not None:
        args = get_args(tp)
        name = _label(origin)
        return f"{name}[{', '.join(_label(a) for a in args)}]" if args else name
    if tp is Any:
        return "Any"
    if isinstance(tp, type):
        return tp.__name__
    if isinstance(tp, te.ForwardRef):
        return tp.__forward_arg__
    if isinstance(tp, str):
        return tp
    return getattr(tp, "__name__", None) or repr(tp).replace("typing.", "")


def _literal_label(value: Any) -> str:
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    return repr(value)


# --- docstrings -------------------------------------------------------------------------------

#: Google-style section headers ("Args:"); the ones that document parameters or fields first.
_PARAM_SECTIONS: Final = frozenset(
    {
        "args",
        "arguments",
        "parameters",
        "params",
        "keyword args",
        "keyword arguments",
        "kwargs",
        "other parameters",
        "attributes",
        "fields",
        "keys",
    }
)
_OTHER_SECTIONS: Final = frozenset(
    {
        "returns",
        "return",
        "yields",
        "yield",
        "raises",
        "example",
        "examples",
        "note",
        "notes",
        "see also",
        "warning",
        "warnings",
        "references",
        "todo",
        "methods",
    }
)
_SECTIONS: Final = _PARAM_SECTIONS | _OTHER_SECTIONS
_HEADER: Final = re.compile(r"([A-Za-z][A-Za-z ]*?)\s*:")
_DASHES: Final = re.compile(r"\s*-{3,}\s*")
_GOOGLE_ENTRY: Final = re.compile(r"\*{0,2}(\w+)\s*(?:\(.*\))?\s*:(?:\s+(.*))?")
_NUMPY_ENTRY: Final = re.compile(r"(\*{0,2}\w+(?:\s*,\s*\*{0,2}\w+)*)\s*(?::.*)?")
_REST_FIELD: Final = re.compile(r":(?:param|parameter|arg|argument|key|keyword)\s+([^:]+?)\s*:(.*)")


def _parse_docstring(doc: str | None) -> tuple[str | None, dict[str, str]]:
    """The first paragraph (lines joined by spaces) and the per-parameter descriptions.

    Reads Google (``Args:``), NumPy (``Parameters`` over a dashed line) and reST
    (``:param name:``) styles; the first description of a name wins.
    """
    if not doc:
        return None, {}
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or _starts_section(lines, index, stripped):
            break
        summary.append(stripped)
    params: dict[str, str] = {}
    index = 0
    # Cheap first-character tests guard the regexes: most lines are plain prose.
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        if stripped:
            indent = len(line) - len(line.lstrip())
            if stripped[0] == ":":
                field = _REST_FIELD.fullmatch(stripped)
                if field is not None:
                    index = _rest_field(lines, index, indent, field, params)
                    continue
            elif stripped[-1] == ":":
                if _section_name(stripped) in _PARAM_SECTIONS:
                    index = _google_section(lines, index + 1, indent, params)
                    continue
            elif _is_numpy_header(lines, index) and stripped.lower() in _PARAM_SECTIONS:
                index = _numpy_section(lines, index + 2, indent, params)
                continue
        index += 1
    return " ".join(summary) or None, params


def _section_name(stripped: str) -> str | None:
    """The lower-cased name of a Google-style header line (``"Args:"`` → ``"args"``)."""
    if stripped[-1] != ":" or len(stripped) > 40:
        return None
    header = _HEADER.fullmatch(stripped)
    return None if header is None else header.group(1).lower()


def _starts_section(lines: list[str], index: int, stripped: str) -> bool:
    if stripped[0] in ":>.-":
        return stripped.startswith((":", ">>>", ".. ")) or _DASHES.fullmatch(stripped) is not None
    if stripped[-1] == ":":
        return _section_name(stripped) in _SECTIONS
    return _is_numpy_header(lines, index)


def _is_numpy_header(lines: list[str], index: int) -> bool:
    following = lines[index + 1].lstrip() if index + 1 < len(lines) else ""
    return following.startswith("---") and _DASHES.fullmatch(following) is not None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _add(params: dict[str, str], names: list[str], parts: list[str]) -> None:
    text = " ".join(p for p in parts if p)
    if text:
        for name in names:
            params.setdefault(name, text)


def _google_section(lines: list[str], index: int, header: int, params: dict[str, str]) -> int:
    entry: int | None = None
    names: list[str] = []
    parts: list[str] = []
    while index < len(lines):
        line = lines[index]
        if line.strip():
            indent = _indent(line)
            if indent <= header:
                break
            if entry is None:
                entry = indent
            if indent <= entry:
                _add(params, names, parts)
                match = _GOOGLE_ENTRY.fullmatch(line.strip())
                names = [match.group(1)] if match else []
                parts = [(match.group(2) or "") if match else ""]
            else:
                parts.append(line.strip())
        index += 1
    _add(params, names, parts)
    return index


def _numpy_section(lines: list[str], index: int, header: int, params: dict[str, str]) -> int:
    names: list[str] = []
    parts: list[str] = []
    while index < len(lines):
        line = lines[index]
        if line.strip():
            indent = _indent(line)
            if indent < header or (indent == header and _is_numpy_header(lines, index)):
                break
            if indent == header:
                _add(params, names, parts)
                match = _NUMPY_ENTRY.fullmatch(line.strip())
                names = [n.strip().lstrip("*") for n in match.group(1).split(",")] if match else []
                parts = []
            else:
                parts.append(line.strip())
        index += 1
    _add(params, names, parts)
    return index


def _rest_field(
    lines: list[str], index: int, indent: int, field: re.Match[str], params: dict[str, str]
) -> int:
    names = [field.group(1).split()[-1].lstrip("*")]
    parts = [field.group(2).strip()]
    index += 1
    while index < len(lines):
        line = lines[index]
        if line.strip():
            if _indent(line) <= indent:
                break
            parts.append(line.strip())
        index += 1
    _add(params, names, parts)
    return index
