"""Annotations as types: evaluating them (forward references included), unwrapping ``None``
and TypedDict qualifiers, and writing them back as a reader wrote them (for messages)."""

from __future__ import annotations

import enum
import inspect
import re
import types
from collections.abc import Iterable
from typing import Any, Final, Literal, NamedTuple, Union, get_args, get_origin

import typing_extensions as te

from pedelec._context import ToolCallContext
from pedelec.typed.texts import Node, evaluate as evaluate_text, parse as parse_text

NoneType: Final = type(None)
#: Types that never hold ``None``, so ``strip_none`` returns them at once (the common case).
_PLAIN: Final = frozenset({str, bool, int, float})


class Unresolved(NamedTuple):
    """An annotation that could not be evaluated; reported when its parameter is reached."""

    text: str
    reason: str


#: How ``ToolCallContext`` reads as an annotation string that cannot be evaluated, e.g. when it
#: is imported under ``if TYPE_CHECKING:`` in a module using ``from __future__ import annotations``.
_CTX_TEXT: Final = re.compile(r"(?:[\w.]+\.)?ToolCallContext(?:\s*\|\s*None)?")


#: Wrappers followed to the wrapped function before ``get_type_hints`` (here) or
#: ``inspect.signature`` (``typed._parameters``) takes over.
MAX_WRAPPED: Final = 16

#: Annotation strings (``from __future__ import annotations``) ready to evaluate: parsed
#: (``texts.parse``) or, outside what that reads, compiled. The same few texts ("int",
#: "list[str]", …) recur across tools, and reading them is most of evaluating them.
_ANNOTATION_CODE: dict[str, Node | types.CodeType] = {}


def _plain_hints(target: Any) -> dict[str, Any] | None:
    """Evaluate a plain function's annotations like ``get_type_hints``, or ``None`` to defer.

    Handles the common case cheaply: string annotations are parsed (``texts``) or compiled
    once per text and evaluated in the function's globals. Anything less plain (a wrapped or
    bound callable, a failure, a forward reference left inside the result) goes back to
    ``get_type_hints``.
    """
    if not inspect.isfunction(target):
        return None
    # The globals get_type_hints reads names in: those of the innermost ``__wrapped__``
    # function, for a wrapper made by ``functools.wraps`` (the annotations are the wrapper's).
    inner: Any = target
    for _ in range(MAX_WRAPPED):
        if not hasattr(inner, "__wrapped__"):
            break
        inner = inner.__wrapped__
    else:
        return None
    globalns = getattr(inner, "__globals__", None)
    raw = target.__annotations__
    if type(globalns) is not dict or type(raw) is not dict:
        return None
    hints: dict[str, Any] = {}
    try:
        for name, annotation in raw.items():
            text = annotation if isinstance(annotation, str) else None
            if text is not None:
                code = _ANNOTATION_CODE.get(text)
                if code is None:
                    code = parse_text(text) or compile(text, "<annotation>", "eval")
                    if len(_ANNOTATION_CODE) < 4096:
                        _ANNOTATION_CODE[text] = code
                # What get_type_hints does, minus the compile (a parsed text is evaluated by
                # ``texts.evaluate``, which performs eval's steps).
                if isinstance(code, types.CodeType):
                    annotation = eval(code, globalns)
                else:
                    annotation = evaluate_text(code, globalns)
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


def resolve_hints(target: Any, parameters: Iterable[str]) -> dict[str, Any]:
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
    for name in parameters:
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
                hints[name] = Unresolved(str(annotation), f"{type(exc).__name__}: {exc}")
    return hints


def strip_none(annotation: Any) -> tuple[Any, bool]:
    """``annotation`` without its ``None`` member (also inside ``Annotated`` and ``Literal``)."""
    if type(annotation) is type and annotation in _PLAIN:
        return annotation, False
    origin = get_origin(annotation)
    if origin is te.Annotated:
        inner, accepts_none = strip_none(annotation.__origin__)
        if not accepts_none:
            return annotation, False
        return te.Annotated[(inner, *annotation.__metadata__)], True
    if origin is Union or origin is types.UnionType:
        results = [strip_none(member) for member in get_args(annotation)]
        if not any(accepts_none for _, accepts_none in results):
            return annotation, False
        kept = [member for member, _ in results if member is not NoneType]
        if not kept:
            return NoneType, True
        # ``Union[...]`` builds a union from a runtime tuple; ``|`` would need a fold.
        return (kept[0] if len(kept) == 1 else Union[tuple(kept)]), True  # noqa: UP007
    if origin is Literal:
        values = get_args(annotation)
        if None not in values:
            return annotation, False
        others = tuple(v for v in values if v is not None)
        return (Literal[others] if others else NoneType), True
    return annotation, annotation is NoneType


def qualifiers(annotation: Any) -> tuple[Any, bool | None]:
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
            inner, required_inside = qualifiers(annotation.__origin__)
            if required_inside is not None:
                required = required_inside
            annotation = te.Annotated[(inner, *annotation.__metadata__)]
        else:
            return annotation, required


def annotation_label(tp: Any) -> str:
    """An annotation as a reader wrote it: ``list[int]``, ``Literal['a']``, ``Point``."""
    if tp is NoneType or tp is None:
        return "None"
    origin = get_origin(tp)
    if origin is te.Annotated:
        return annotation_label(tp.__origin__)
    if origin is Union or origin is types.UnionType:
        return " | ".join(annotation_label(m) for m in get_args(tp))
    if origin is Literal:
        return f"Literal[{', '.join(literal_label(v) for v in get_args(tp))}]"
    if origin is not None and origin is not tp:  # get_origin(Generic) is Generic
        args = get_args(tp)
        name = annotation_label(origin)
        return f"{name}[{', '.join(annotation_label(a) for a in args)}]" if args else name
    if tp is Any:
        return "Any"
    if isinstance(tp, type):
        return tp.__name__
    if isinstance(tp, te.ForwardRef):
        return tp.__forward_arg__
    if isinstance(tp, str):
        return tp
    return getattr(tp, "__name__", None) or repr(tp).replace("typing.", "")


def literal_label(value: Any) -> str:
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    try:
        return repr(value)
    except ValueError:  # an int past the digit limit of int-to-text conversion
        return f"<an int of {value.bit_length()} bits>"
