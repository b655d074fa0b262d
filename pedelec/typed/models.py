"""Classes as parameters: a ``dataclass`` or a pydantic model becomes an object node, and the
handler receives an instance built from the validated value.

A dataclass's fields follow the rules of a function's parameters: a field without a default
is required, a field with one is not (its JSON form becomes ``default``), ``T | None`` is
allowed on a field with a default. The instance is ``cls(**fields)``, nested classes built
first. A pydantic model's fields are read from ``model_fields`` (annotation, alias, default,
description, examples and the constraints pydantic keeps as ``annotated-types`` objects); the
instance is ``cls.model_validate(value)``. pydantic is never imported: a model class is
recognised by its ``model_fields`` and ``model_validate``.

Anything the subset cannot express (an ``InitVar``, a computed alias, a constraint without a
keyword) is ``INVALID_INPUT`` naming the parameter and the field.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import typing_extensions as te

from pedelec.errors import TOOL_ARGS_INVALID, PedelecError
from pedelec.typed.convert import Shape
from pedelec.typed.docstrings import parse_docstring
from pedelec.typed.hints import annotation_label, strip_none


class Builder(te.Protocol):
    """What a class's fields need of the annotation builder (``shapes.Builder``); a protocol so
    this room does not import the one that routes annotations to it."""

    tool: str
    path: list[str]
    typeddicts: list[type]

    def fail(self, clause: str) -> _Error: ...

    def child(self, annotation: Any, doc: str | None = None) -> Shape: ...

    def json(self, value: Any, what: str) -> Any: ...


if TYPE_CHECKING:
    from pedelec.errors import PedelecError as _Error
    from pedelec.typed.convert import Convert

__all__ = ["class_shape", "is_model_class"]

_ABSENT: Final[Any] = object()


class _Field(NamedTuple):
    """One field of a class, as the node and the constructor see it."""

    key: str  # the key in the JSON object (a pydantic alias, else the field name)
    name: str  # the constructor's keyword
    annotation: Any
    required: bool
    default: Any  # _ABSENT when there is none (or it comes from a factory)
    doc: str | None
    examples: list[Any] | None


def is_model_class(tp: Any) -> bool:
    """Whether ``tp`` is a dataclass or a pydantic model class (without importing pydantic)."""
    if not isinstance(tp, type):
        return False
    if hasattr(tp, "__dataclass_fields__"):
        return True
    return hasattr(tp, "model_fields") and callable(getattr(tp, "model_validate", None))


def class_shape(builder: Builder, cls: type) -> Shape:
    """The object node of a dataclass or pydantic model, and the converter that builds it."""
    if cls in builder.typeddicts:
        raise builder.fail(
            f"{cls.__name__} contains itself; recursive types cannot be described "
            f"(the subset has no $ref)"
        )
    dataclass = hasattr(cls, "__dataclass_fields__")
    kind = "dataclass" if dataclass else "model"
    summary, field_docs = parse_docstring(_own_doc(cls))
    fields = _dataclass_fields(builder, cls) if dataclass else _model_fields(builder, cls)
    builder.typeddicts.append(cls)  # the classes being expanded, whatever their kind
    try:
        node, converters = _object(builder, cls, kind, fields, field_docs)
    finally:
        builder.typeddicts.pop()
    where = "".join(builder.path)
    convert = _build(cls, converters) if dataclass else _validate(cls, fields, builder.tool, where)
    return _shape(node, convert, summary, cls.__name__)


def _shape(node: dict[str, Any], convert: Convert, doc: str | None, label: str) -> Shape:
    return Shape(node, convert, doc, label)


def _object(
    builder: Builder, cls: type, kind: str, fields: list[_Field], field_docs: dict[str, str]
) -> tuple[dict[str, Any], list[tuple[str, str, Convert | None]]]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    converters: list[tuple[str, str, Convert | None]] = []
    for field in fields:
        builder.path.append(f".{field.key}")
        annotation, accepts_none = strip_none(field.annotation)
        if accepts_none and field.required:
            raise builder.fail(
                f"{annotation_label(field.annotation)} accepts None, but the field has no "
                f"default (the subset has no null type); give the {kind} field a default "
                f"(= None) so the agent can leave it out, or drop None"
            )
        shape = builder.child(annotation, field.doc or field_docs.get(field.name))
        if field.default is not _ABSENT and field.default is not None:
            shape.node["default"] = builder.json(field.default, "default")
        if field.examples is not None:
            shape.node["examples"] = [builder.json(v, "example") for v in field.examples]
        builder.path.pop()
        properties[field.key] = shape.node
        if field.required:
            required.append(field.key)
        converters.append((field.key, field.name, shape.convert))
    return {"type": "object", "properties": properties, "required": required}, converters


def _own_doc(cls: type) -> str | None:
    """The class's docstring, but not the signature ``dataclass`` writes when there is none."""
    doc = cls.__dict__.get("__doc__")
    if not isinstance(doc, str) or (doc.startswith(f"{cls.__name__}(") and "\n" not in doc):
        return None
    return doc


def _dataclass_fields(builder: Builder, cls: type) -> list[_Field]:
    import dataclasses  # loaded already: cls is a dataclass

    try:
        hints = te.get_type_hints(cls, include_extras=True)
    except Exception as exc:  # any failure of user annotations
        raise builder.fail(
            f"the fields of dataclass {cls.__name__} cannot be resolved "
            f"({type(exc).__name__}: {exc}); define or import the names at module level"
        ) from None
    for name, hint in hints.items():
        if isinstance(hint, dataclasses.InitVar):
            builder.path.append(f".{name}")
            raise builder.fail(
                f"the InitVar {name} of dataclass {cls.__name__} is not a field the agent can "
                f"send; make it a field, or compute it in __post_init__"
            )
    fields = []
    for field in dataclasses.fields(cls):
        if not field.init:
            continue  # set by the class itself, never passed to the constructor
        has_default = field.default is not dataclasses.MISSING
        factory = field.default_factory is not dataclasses.MISSING
        fields.append(
            _Field(
                field.name,
                field.name,
                hints.get(field.name, field.type),
                not has_default and not factory,
                field.default if has_default else _ABSENT,
                None,
                None,
            )
        )
    return fields


def _model_fields(builder: Builder, cls: Any) -> list[_Field]:
    if getattr(cls, "__pydantic_complete__", True) is False:
        raise builder.fail(
            f"model {cls.__name__} is not fully defined (a forward reference is unresolved); "
            f"define the missing types and call {cls.__name__}.model_rebuild()"
        )
    fields = []
    for name, info in cls.model_fields.items():
        key = getattr(info, "validation_alias", None) or getattr(info, "alias", None) or name
        if not isinstance(key, str):
            builder.path.append(f".{name}")
            raise builder.fail(
                f"field {name} of model {cls.__name__} has the validation_alias {key!r}; only "
                f"a plain string alias can name a key of the schema"
            )
        annotation = info.annotation
        metadata = [_marker(builder, cls, key, meta) for meta in info.metadata]
        if metadata:
            annotation = te.Annotated[(annotation, *metadata)]
        default = info.default
        if info.is_required() or info.default_factory is not None:
            default = _ABSENT
        description = info.description
        examples = info.examples
        fields.append(
            _Field(
                key,
                name,
                annotation,
                bool(info.is_required()),
                default,
                description if isinstance(description, str) else None,
                list(examples) if isinstance(examples, list) else None,
            )
        )
    return fields


def _marker(builder: Builder, cls: type, key: str, meta: Any) -> Any:
    """pydantic's own constraint holder as pedelec markers; ``annotated-types`` objects as is."""
    if type(meta).__name__ != "_PydanticGeneralMetadata":
        return meta
    from pedelec.markers import Pattern

    extra = {k: v for k, v in vars(meta).items() if k != "pattern"}
    if extra:
        listed = ", ".join(f"{k}={v!r}" for k, v in extra.items())
        builder.path.append(f".{key}")
        error = builder.fail(
            f"the constraint {listed} of model {cls.__name__} has no equivalent in the Tool "
            f"Args Schema subset; check it in the handler instead"
        )
        builder.path.pop()
        raise error
    return Pattern(vars(meta)["pattern"])


def _build(cls: type, converters: list[tuple[str, str, Convert | None]]) -> Convert:
    """``cls(**fields)`` from a validated object; keys the class does not declare are dropped."""
    plan = tuple(converters)

    def build(value: Any) -> Any:
        kwargs = {}
        for key, name, convert in plan:
            if key in value:
                item = value[key]
                kwargs[name] = item if convert is None else convert(item)
        return cls(**kwargs)

    return build


def _validate(cls: Any, fields: list[_Field], tool: str, where: str) -> Callable[[Any], Any]:
    """``cls.model_validate`` of the declared keys: pydantic builds nested values itself.

    What the model's own validators reject (a ``field_validator``, a constraint the subset
    cannot state) is the agent's to fix, so it becomes ``TOOL_ARGS_INVALID`` rather than a
    handler failure.
    """
    keys = tuple(field.key for field in fields)
    validate = cls.model_validate

    def build(value: Any) -> Any:
        try:
            return validate({key: value[key] for key in keys if key in value})
        except Exception as exc:
            errors = getattr(exc, "errors", None)
            if type(exc).__name__ != "ValidationError" or not callable(errors):
                raise
            raise _rejected(tool, where, cls.__name__, errors()) from None

    return build


def _rejected(tool: str, where: str, model: str, errors: list[dict[str, Any]]) -> PedelecError:
    found = [
        {"field": ".".join(str(part) for part in error["loc"]), "message": str(error["msg"])}
        for error in errors
    ]
    listed = "; ".join(
        f"{e['field']}: {e['message']}" if e["field"] else e["message"] for e in found
    )
    return PedelecError(
        TOOL_ARGS_INVALID,
        f'Invalid arguments for tool "{tool}": {where}: {model} rejected the value ({listed}). '
        "Correct the arguments and call the tool again.",
        {"tool": tool, "at": where, "errors": found},
    )
