"""A typed tool's output schema, inferred from its return annotation (DESIGN §10).

The return annotation is translated by the same ``Builder`` as the parameters, so ``-> int``,
``-> list[Point]`` or ``-> Color`` get the node a parameter of that type would get. A schema is
inferred only when every value the annotation allows has a JSON form that schema accepts; a
return annotation that is JSON but that the subset cannot describe exactly has none (and its
result is converted and sent as before, unchecked):

- no annotation, ``-> None``, ``-> Any``, ``-> object``;
- anything that may hold ``None`` (``T | None``, a dataclass, model or TypedDict field typed
  ``T | None``): the subset has no null type;
- a pydantic model whose ``model_dump`` renames or drops a field (an alias, ``exclude``);
- what the subset has no node for (``tuple[...]``, ``dict[str, T]``, an object with only
  ``model_dump``).

Pass ``output_schema=`` to give such a tool one, or to replace the inferred one.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import typing_extensions as te

from pedelec.errors import PedelecError
from pedelec.typed.hints import Unresolved, qualifiers, strip_none
from pedelec.typed.shapes import Builder

if TYPE_CHECKING:
    from pedelec.schema.validator import Validator
    from pedelec.typed.convert import Shape

__all__ = ["infer_output"]


class _Undescribed(Exception):
    """The return annotation allows a value whose JSON form no subset node describes."""


class _OutputBuilder(Builder):
    """The parameters' ``Builder``, refusing the classes whose JSON form differs from the node
    a parameter of that class gets (checked at every level, nested ones too)."""

    def shape(self, tp: Any) -> Shape:
        _check_fields(tp)
        return super().shape(tp)

    def _free_object(self, tp: Any, origin: Any) -> Exception:
        # No schema, and no message: writing one costs more than the rest of the inference
        # (``annotation_label`` twice), and it would be discarded.
        return _Undescribed()


def _check_fields(tp: Any) -> None:
    if not isinstance(tp, type):
        return
    if te.is_typeddict(tp):
        hints = te.get_type_hints(tp, include_extras=True)
        annotations = [qualifiers(hint)[0] for hint in hints.values()]
    elif dataclasses.is_dataclass(tp):
        hints = te.get_type_hints(tp)
        annotations = [hints.get(f.name, f.type) for f in dataclasses.fields(tp)]
    elif hasattr(tp, "model_fields") and callable(getattr(tp, "model_dump", None)):
        annotations = []
        for name, info in tp.model_fields.items():
            alias = getattr(info, "serialization_alias", None) or getattr(info, "alias", None)
            if getattr(info, "exclude", None) or alias not in (None, name):
                raise _Undescribed
            annotations.append(info.annotation)
    else:
        return
    if any(strip_none(annotation)[1] for annotation in annotations):
        raise _Undescribed


def infer_output(tool: str, hints: dict[str, Any]) -> tuple[dict[str, Any], Validator] | None:
    """The output schema of a typed tool and its validator, or ``None`` when it has none."""
    from pedelec._output import compile_output_schema

    annotation = hints.get("return")
    if annotation is None or annotation is type(None) or isinstance(annotation, (Unresolved, str)):
        return None
    if annotation is Any or annotation is object:
        return None
    builder = _OutputBuilder(tool)
    builder.start("return")
    try:
        node = builder.child(annotation).node
        return node, compile_output_schema(tool, node)
    except (PedelecError, _Undescribed):
        return None
    except Exception:  # a class whose own hints do not resolve: no schema, as for the result
        return None
