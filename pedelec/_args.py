"""Agent args on their way to a handler: fast copies, the ``timeoutMs`` rule, undeclared
properties (``reject_unknown_args``) and JSON text inside args (``lenient_json_args``).

The general rules (strict clone, strict parse, schema validation) live in ``pedelec._json`` and
``pedelec.schema``; this module holds what a session adds on top, so ``pedelec.session`` only
orchestrates.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from pedelec.schema import ArgError

__all__ = [
    "SCALARS",
    "call_timeout",
    "coerce_json_text",
    "flat_copy",
    "lenient_types",
    "unknown_args",
]

#: Exact types of JSON scalars other than float (a float needs a finiteness check).
SCALARS: Final = frozenset({str, int, bool, type(None)})
_STR: Final = frozenset({str})


def flat_copy(value: dict[Any, Any]) -> dict[str, Any] | None:
    """A copy of a flat object of JSON scalars, or ``None`` when ``value`` needs ``clone_json``.

    For such an object a shallow copy is a full deep copy (the values are immutable); checking
    the types with C-level set operations makes this many times faster than the general clone
    on the small objects handlers usually return. Floats take the general path (NaN check).
    """
    copy = value.copy()
    if SCALARS.issuperset(map(type, copy.values())) and _STR.issuperset(map(type, copy)):
        return copy
    return None


def lenient_types(properties: Mapping[str, Any]) -> dict[str, tuple[type, ...]]:
    """Top-level properties a lenient client may send as JSON text: name → accepted types.

    A property qualifies when its node (or a ``oneOf`` branch of it) is an array or an object.
    """
    found: dict[str, tuple[type, ...]] = {}
    for key, node in properties.items():
        if "oneOf" not in node:  # the usual node, read without building sets (once per tool)
            kind = node["type"]
            if kind == "array":
                found[key] = (list,)
            elif kind == "object":
                found[key] = (dict,)
            continue
        kinds = {n.get("type") for n in node["oneOf"]}
        types = tuple(t for k, t in (("array", list), ("object", dict)) if k in kinds)
        if types:
            found[key] = types
    return found


def coerce_json_text(
    args: dict[str, Any], lenient: Mapping[str, tuple[type, ...]], max_bytes: int, max_depth: int
) -> dict[str, Any]:
    """``lenient_json_args``: parse top-level JSON-text values where an array/object is due.

    ``lenient`` is ``lenient_types`` of the tool's properties; ``args`` is changed in place.
    """
    from pedelec._json import parse_json_args
    from pedelec.errors import PedelecError

    for key, types in lenient.items():
        text = args.get(key)
        if type(text) is not str:
            continue
        try:
            value = parse_json_args(text, max_bytes=max_bytes, max_depth=max_depth)
        except PedelecError:
            continue
        if type(value) in types:
            args[key] = value
    return args


def call_timeout(raw: Any, most: int) -> int | ArgError:
    """A call's own ``timeoutMs``: the timeout in milliseconds, or the problem with it.

    Upstream's Core reads it in ``ToolRegistry::normalize_tool_call`` through
    ``parse_tool_timeout_override`` (``desktop/crates/pedelec-core/src/lib.rs``): a positive
    integer, whether or not the schema declares the property. Two differences on purpose: an
    integral float (``2000.0``) is an integer here, as in JSON Schema (the Core's ``as_u64``
    refuses it), and ``most`` (``Limits.max_call_timeout_ms``, itself at most
    ``pedelec.limits.MAX_TIMEOUT_MS``) caps what an agent may ask for, so every timeout that
    leaves here converts to seconds without overflow.
    """
    if type(raw) is int and raw > 0:
        timeout_ms = raw
    elif type(raw) is float and raw > 0 and raw.is_integer():
        timeout_ms = int(raw)
    else:
        return _timeout_problem(raw)
    if timeout_ms > most:
        return _timeout_too_long(raw, most)
    return timeout_ms


def _timeout_problem(raw: Any) -> ArgError:
    from pedelec._json import type_name
    from pedelec._json.render import render
    from pedelec.schema import ArgError

    got = render(raw) if raw is None or type(raw) is bool else f"{type_name(raw)} {render(raw)}"
    return ArgError(
        ("timeoutMs",),
        "timeoutMs",
        f"expected a positive integer of milliseconds (this call's timeout), got {got}",
    )


def _timeout_too_long(raw: int | float, most: int) -> ArgError:
    from pedelec._json.render import render
    from pedelec.schema import ArgError

    # render, not str: an int of 4 300 digits or more cannot be turned into text at all.
    return ArgError(
        ("timeoutMs",),
        "timeoutMs",
        f"this call's timeout may be at most {most} ms, got {render(raw)}; ask for less or "
        "leave timeoutMs out to use the tool's own timeout",
    )


class _Enough(Exception):
    """Stops the walk once ``limit`` undeclared properties are found."""


def unknown_args(schema: dict[str, Any], args: Any, limit: int) -> list[ArgError]:
    """``reject_unknown_args``: the properties of ``args`` its schema does not declare.

    Walks the value along the schema (so the depth is the schema's, at most 64), takes every
    object branch of a ``oneOf`` into account, and stops after ``limit`` findings, so a flood
    of undeclared keys costs no more than the report can show.
    """
    from pedelec._json import pointer
    from pedelec._json.render import render
    from pedelec.schema import ArgError

    found: list[ArgError] = []
    seen: set[tuple[str, str]] = set()

    def nodes_of(node: dict[str, Any], kind: str) -> list[dict[str, Any]]:
        if "oneOf" in node:
            return [n for branch in node["oneOf"] for n in nodes_of(branch, kind)]
        return [node] if node.get("type") == kind else []

    def walk(node: dict[str, Any], value: Any, path: tuple[str | int, ...]) -> None:
        if type(value) is dict:
            declared: dict[str, list[dict[str, Any]]] = {}
            for obj in nodes_of(node, "object"):
                for key, sub in (obj.get("properties") or {}).items():
                    declared.setdefault(key, []).append(sub)
            for key, item in value.items():
                subs = declared.get(key)
                if subs is not None:
                    for sub in subs:
                        walk(sub, item, (*path, key))
                elif type(key) is str:  # other keys are reported by validation
                    message = unknown_message(key, list(declared), render)
                    mark = (pointer(path), message)
                    if mark not in seen:
                        seen.add(mark)
                        found.append(ArgError(path, "additionalProperties", message))
                        if len(found) >= limit:
                            raise _Enough
        elif type(value) is list:
            for arr in nodes_of(node, "array"):
                for index, item in enumerate(value):
                    walk(arr["items"], item, (*path, index))

    with contextlib.suppress(_Enough):
        walk(schema, args, ())
    return found


def unknown_message(key: str, declared: list[str], render: Callable[..., str]) -> str:
    """What to tell the agent about one undeclared property: the closest declared name."""
    from pedelec._json.render import SHOWN_OPTION_CHARS

    shown = render(key, SHOWN_OPTION_CHARS)
    if not declared:
        return f"unknown property {shown}; this object takes no properties"
    from pedelec._result import closest_name

    close = closest_name(key, declared)
    if close is not None:
        return f'unknown property {shown}; did you mean "{close}"?'
    listed = ", ".join(f'"{k}"' for k in declared[:20])
    return f"unknown property {shown}; declared properties are {listed}"
