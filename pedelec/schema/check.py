"""Registration rules of the Tool Args Schema subset (DESIGN §3).

A schema is checked once, when a tool is registered, and every break of the rules is an
``INVALID_INPUT`` error for the developer, never a surprise for the agent. ``SUBSET`` below is the
single table that owns the subset: node kind → allowed keyword → the check of its value. Adding a
keyword is one row there (plus conformance cases and a row in the validator).

The check runs in three passes, each on data the previous pass made safe:

1. ``clone_json`` copies the input; anything that is not plain JSON (sets, NaN, cycles, ...)
   fails here, so the later passes only ever see dicts, lists and JSON scalars.
2. An iterative walk (no recursion, so a 10 000-deep schema is an error, not a ``RecursionError``)
   checks every node against ``SUBSET`` in document order and stops at the first problem.
3. Once the whole structure is known to be inside the subset, every ``default`` and ``examples``
   entry is validated against its own node with the real validator.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from pedelec._json import NotJsonError, clone_json, json_key, pointer, short_repr, type_name
from pedelec.errors import INVALID_INPUT, PedelecError

if TYPE_CHECKING:
    from pedelec.schema._compile import ArgError

__all__ = ["MAX_SCHEMA_DEPTH", "SUBSET", "check_node", "check_schema"]

#: Deepest nesting of schema nodes accepted (the root node is level 1). Real schemas stay far
#: below it; the bound keeps compiling and validating free of deep recursion.
MAX_SCHEMA_DEPTH: Final = 64

_Part = str | int
_Path = tuple[_Part, ...]
#: A problem found by a keyword check: the path below the keyword (``()`` for the keyword's own
#: value, ``(2,)`` for its third entry) and a clause "what is wrong; how to fix it".
_Problem = tuple[_Path, str]
_Check = Callable[[Any, Mapping[str, Any]], "_Problem | None"]


class _Rule(NamedTuple):
    """One allowed keyword: the check of its value and, for keywords that hold nodes, where."""

    check: _Check
    #: For ``items``/``properties``/``oneOf``: the child nodes inside the (already checked) value,
    #: each with its path below the keyword.
    children: Callable[[Any], Iterator[tuple[_Path, Any]]] | None = None


class _Kind(NamedTuple):
    """A node kind: its keywords besides the discriminator (``type`` or ``oneOf``)."""

    keywords: Mapping[str, _Rule]
    #: Keywords the kind cannot do without → what to say when one is missing.
    needs: Mapping[str, str]


# --- rendering ------------------------------------------------------------------------------


def _got(value: Any) -> str:
    """What arrived, as the validator's messages say it: ``boolean true``, ``string "3"``, ``null``."""
    if value is None:
        return "null"
    return f"{type_name(value)} {short_repr(value)}"


def _q(name: str) -> str:
    """A keyword or property name, quoted as JSON."""
    return short_repr(name)


def _join(names: Iterable[str]) -> str:
    return ", ".join(names)


def _a(noun: str) -> str:
    return f"an {noun}" if noun[0] in "aeiou" else f"a {noun}"


# --- value checks (each returns a problem or None) -------------------------------------------


def _is_integer(value: Any) -> bool:
    # JSON Schema integers: 2 and 2.0 are integers, True is not (the clone holds plain types only).
    return type(value) is int or (type(value) is float and value.is_integer())


def _is_number(value: Any) -> bool:
    return type(value) is int or type(value) is float


def _is_string(value: Any) -> bool:
    return type(value) is str


def _is_boolean(value: Any) -> bool:
    return type(value) is bool


def _text(value: Any, node: Mapping[str, Any]) -> _Problem | None:
    if _is_string(value):
        return None
    return (), f'"description" must be a string, got {_got(value)}; write it as text'


def _anything(value: Any, node: Mapping[str, Any]) -> _Problem | None:
    # ``default`` may be any JSON value here; pass 3 validates it against its node.
    return None


def _example_list(value: Any, node: Mapping[str, Any]) -> _Problem | None:
    if type(value) is list:
        return None
    return (), (
        f'"examples" must be an array of example values, got {_got(value)}; '
        f"wrap the example in an array: [{short_repr(value)}]"
    )


def _count(keyword: str) -> _Check:
    def check(value: Any, node: Mapping[str, Any]) -> _Problem | None:
        if _is_integer(value) and value >= 0:
            return None
        return (), (
            f"{_q(keyword)} must be a non-negative integer, got {_got(value)}; "
            f"use a whole number, 0 or more"
        )

    return check


def _number(keyword: str) -> _Check:
    def check(value: Any, node: Mapping[str, Any]) -> _Problem | None:
        if _is_number(value):
            return None
        return (), f"{_q(keyword)} must be a number, got {_got(value)}; use a number such as 0"

    return check


def _at_most(lower: str, upper: str, value_check: _Check) -> _Check:
    """The check of a lower bound keyword: its own value, then that it does not exceed ``upper``."""

    def check(value: Any, node: Mapping[str, Any]) -> _Problem | None:
        problem = value_check(value, node)
        if problem is not None:
            return problem
        bound = node.get(upper)
        # A malformed upper bound is reported by its own row; compare only two valid bounds.
        if upper in node and value_check(bound, node) is None and value > bound:
            return (), (
                f"{_q(lower)} ({short_repr(value)}) is greater than {_q(upper)} "
                f"({short_repr(bound)}), so nothing can match; lower {_q(lower)} "
                f"or raise {_q(upper)}"
            )
        return None

    return check


def _flag(keyword: str) -> _Check:
    def check(value: Any, node: Mapping[str, Any]) -> _Problem | None:
        if _is_boolean(value):
            return None
        return (), f"{_q(keyword)} must be true or false, got {_got(value)}; use true or false"

    return check


def _enum(member_ok: Callable[[Any], bool], member: str) -> _Check:
    """``enum`` of a scalar node: a non-empty array of distinct members of the node's type.

    Members are compared the way the validator compares values (``1 == 1.0``, ``True != 1``), so
    ``[1, 1.0]`` in a number node is a duplicate: both entries accept exactly the same values.
    """

    def check(value: Any, node: Mapping[str, Any]) -> _Problem | None:
        if type(value) is not list or not value:
            return (), (
                f'"enum" must be a non-empty array of {member} values, got {_got(value)}; '
                f'list the allowed values, or remove "enum"'
            )
        seen: dict[Any, int] = {}
        for index, item in enumerate(value):
            if not member_ok(item):
                return (index,), (
                    f'"enum" entry {index} must be {_a(member)} like its node, got {_got(item)}; '
                    f'fix the entry or the node\'s "type"'
                )
            first = seen.setdefault(json_key(item), index)
            if first != index:
                return (index,), (
                    f'"enum" entry {index} ({short_repr(item)}) repeats entry {first}; '
                    f"list each value once"
                )
        return None

    return check


def _pattern(value: Any, node: Mapping[str, Any]) -> _Problem | None:
    if not _is_string(value):
        return (), (
            f'"pattern" must be a string holding a regular expression, got {_got(value)}; '
            f"write the pattern as text"
        )
    # Imported here so the regex analysis loads only when a schema actually has a pattern.
    from pedelec.schema.patterns import pattern_problem

    problem = pattern_problem(value)  # one clause that names the pattern and the fix
    return None if problem is None else ((), problem)


def _items(value: Any, node: Mapping[str, Any]) -> _Problem | None:
    # The value is one node, which the walk checks like every other node (a list, the tuple
    # form of older JSON Schema drafts, is reported there as "expected a schema node").
    return None


def _one_child(value: Any) -> Iterator[tuple[_Path, Any]]:
    yield (), value


def _properties(value: Any, node: Mapping[str, Any]) -> _Problem | None:
    if type(value) is dict:
        return None
    return (), (
        f'"properties" must be an object mapping each property name to its node, '
        f'got {_got(value)}; use e.g. {{"name": {{"type": "string"}}}}'
    )


def _property_children(value: Any) -> Iterator[tuple[_Path, Any]]:
    for name, child in value.items():
        yield (name,), child


def _required(value: Any, node: Mapping[str, Any]) -> _Problem | None:
    if type(value) is not list:
        return (), (
            f'"required" must be an array of property names, got {_got(value)}; use e.g. ["name"]'
        )
    properties = node.get("properties", {})
    # A malformed "properties" is reported by its own row; names are checked against a real one.
    defined = properties if type(properties) is dict else None
    seen: dict[str, int] = {}
    for index, name in enumerate(value):
        if not _is_string(name):
            return (index,), (
                f'"required" entry {index} must be a property name (a string), got {_got(name)}; '
                f"use the name as text"
            )
        first = seen.setdefault(name, index)
        if first != index:
            return (index,), (
                f'"required" entry {index} repeats {_q(name)} (entry {first}); list each name once'
            )
        if defined is not None and name not in defined:
            return (index,), (
                f'"required" names {_q(name)}, which "properties" does not define; '
                f'define it in "properties" or remove it from "required"'
            )
    return None


def _one_of(value: Any, node: Mapping[str, Any]) -> _Problem | None:
    if type(value) is list and value:
        return None
    return (), (
        f'"oneOf" must be a non-empty array of nodes, got {_got(value)}; '
        f'list the alternatives, e.g. [{{"type": "string"}}, {{"type": "integer"}}]'
    )


def _branches(value: Any) -> Iterator[tuple[_Path, Any]]:
    for index, child in enumerate(value):
        yield (index,), child


# --- the table ------------------------------------------------------------------------------

#: Keywords every node may carry (DESIGN §3 "shared metadata").
_META: Final[Mapping[str, _Rule]] = {
    "description": _Rule(_text),
    "default": _Rule(_anything),
    "examples": _Rule(_example_list),
}


def _kind(keywords: Mapping[str, _Rule], needs: Mapping[str, str] | None = None) -> _Kind:
    return _Kind(MappingProxyType({**_META, **keywords}), MappingProxyType(dict(needs or {})))


#: The Tool Args Schema subset: ``type`` value (or ``"oneOf"``) → allowed keyword → rule.
SUBSET: Final[Mapping[str, _Kind]] = MappingProxyType(
    {
        "string": _kind(
            {
                "enum": _Rule(_enum(_is_string, "string")),
                "minLength": _Rule(_at_most("minLength", "maxLength", _count("minLength"))),
                "maxLength": _Rule(_count("maxLength")),
                "pattern": _Rule(_pattern),
            }
        ),
        "number": _kind(
            {
                "enum": _Rule(_enum(_is_number, "number")),
                "minimum": _Rule(_at_most("minimum", "maximum", _number("minimum"))),
                "maximum": _Rule(_number("maximum")),
            }
        ),
        "integer": _kind(
            {
                "enum": _Rule(_enum(_is_integer, "integer")),
                "minimum": _Rule(_at_most("minimum", "maximum", _number("minimum"))),
                "maximum": _Rule(_number("maximum")),
            }
        ),
        "boolean": _kind({"enum": _Rule(_enum(_is_boolean, "boolean"))}),
        "array": _kind(
            {
                "items": _Rule(_items, _one_child),
                "minItems": _Rule(_at_most("minItems", "maxItems", _count("minItems"))),
                "maxItems": _Rule(_count("maxItems")),
                "uniqueItems": _Rule(_flag("uniqueItems")),
            },
            needs={
                "items": 'an array node needs "items", the node every item must match; '
                'add e.g. "items": {"type": "string"}'
            },
        ),
        "object": _kind(
            {
                "properties": _Rule(_properties, _property_children),
                "required": _Rule(_required),
            }
        ),
        "oneOf": _kind({"oneOf": _Rule(_one_of, _branches)}),
    }
)

#: The names ``"type"`` accepts, in message order.
_TYPES: Final = tuple(kind for kind in SUBSET if kind != "oneOf")

_REUSE: Final = (
    "write the node in place instead (to reuse a node, assign it to a Python constant and "
    "use the constant wherever it is needed)"
)

#: How to do without a keyword the subset rejects, where there is a better answer than
#: "remove it or check the value in your handler".
_INSTEAD: Final[Mapping[str, str]] = {
    "$ref": _REUSE,
    "$defs": _REUSE,
    "definitions": _REUSE,
    "additionalProperties": (
        "remove it (to reject undeclared arguments, use Session(reject_unknown_args=True))"
    ),
    "anyOf": 'use "oneOf" with alternatives that cannot match the same value',
    "allOf": 'merge the parts into one node, or use "oneOf" for alternatives',
    "exclusiveMinimum": 'use "minimum" (inclusive) instead',
    "exclusiveMaximum": 'use "maximum" (inclusive) instead',
    "const": 'use "enum" with a single value on a string, number, integer or boolean node',
    "title": 'put the text in "description"',
}


# --- the walk -------------------------------------------------------------------------------


class _Invalid(Exception):
    """A rule broken at ``path`` (``keyword`` None for the node itself); internal only."""

    def __init__(self, path: _Path, keyword: str | None, clause: str) -> None:
        super().__init__(clause)
        self.path = path
        self.keyword = keyword
        self.clause = clause


def _unsupported(keyword: str, kind: str | None) -> str:
    if kind is None:
        where = "a Tool Args Schema"
    else:
        # The discriminator ("type", or "oneOf" for a oneOf node) is not listed: it is given.
        allowed = _join([name for name in SUBSET[kind].keywords if name != kind])
        where = f"a Tool Args Schema {kind} node (allowed: {allowed})"
    fix = _INSTEAD.get(keyword, "remove it or check the value in your handler")
    return f"{_q(keyword)} is not supported in {where}; {fix}"


def _kind_of(node: Any, path: _Path) -> str:
    """The kind of a node (a key of ``SUBSET``), or raise for a node that has none."""
    if type(node) is not dict:
        raise _Invalid(
            path,
            None,
            f'expected a schema node (an object with "type" or "oneOf"), got {_got(node)}; '
            f'use e.g. {{"type": "string"}}',
        )
    if "type" in node:
        kind = node["type"]
        if "oneOf" in node:
            raise _Invalid(
                (*path, "oneOf"),
                "oneOf",
                '"oneOf" cannot stand beside "type" in one node; remove "type" here and give '
                'each "oneOf" alternative its own "type"',
            )
        if type(kind) is str and kind in _TYPES:
            return kind
        if type(kind) is list:
            fix = 'use "oneOf" with one node per type'
        elif kind == "null":
            fix = (
                "the subset has no null type; to let a value be missing, leave its property out "
                'of "required"'
            )
        else:
            fix = "use one of these names"
        raise _Invalid(
            (*path, "type"),
            "type",
            f'"type" must be one of {_join([_q(t) for t in _TYPES])}, got {_got(kind)}; {fix}',
        )
    if "oneOf" in node:
        return "oneOf"
    for keyword in node:
        if keyword in _INSTEAD:
            raise _Invalid((*path, keyword), keyword, _unsupported(keyword, None))
    raise _Invalid(
        path,
        "type",
        f'a schema node needs "type" (one of {_join([_q(t) for t in _TYPES])}) or "oneOf"; '
        f'add "type": {_q(_suggest_type(node))}',
    )


def _suggest_type(node: Mapping[str, Any]) -> str:
    """The type a node without one most likely means, judged by its keywords (else string)."""
    for keyword in node:
        if keyword in _META:
            continue
        for kind in _TYPES:
            if keyword in SUBSET[kind].keywords:
                return kind
    return "string"


def _walk(root: Any) -> None:
    """Check every node below ``root`` (a JSON clone) in document order; raise at the first break.

    Iterative on purpose: the depth bound is a rule with its own message, not a crash.
    """
    stack: list[tuple[_Path, Any, int]] = [((), root, 1)]
    with_examples: list[tuple[_Path, dict[str, Any]]] = []
    while stack:
        path, node, depth = stack.pop()
        if depth > MAX_SCHEMA_DEPTH:
            raise _Invalid(
                path,
                None,
                f"the schema is nested too deeply (more than {MAX_SCHEMA_DEPTH} levels of nodes); "
                f"flatten it or split the tool",
            )
        kind = _kind_of(node, path)
        rules = SUBSET[kind].keywords
        children: list[tuple[_Path, Any]] = []
        for keyword, value in node.items():
            if keyword == "type":  # the discriminator, already checked by _kind_of
                continue
            rule = rules.get(keyword)
            if rule is None:
                raise _Invalid((*path, keyword), keyword, _unsupported(keyword, kind))
            problem = rule.check(value, node)
            if problem is not None:
                below, clause = problem
                raise _Invalid((*path, keyword, *below), keyword, clause)
            if rule.children is not None:
                children.extend(
                    ((*path, keyword, *below), child) for below, child in rule.children(value)
                )
        for keyword, clause in SUBSET[kind].needs.items():
            if keyword not in node:
                raise _Invalid(path, keyword, clause)
        if "default" in node or "examples" in node:
            with_examples.append((path, node))
        stack.extend((child_path, child, depth + 1) for child_path, child in reversed(children))
    _check_examples(with_examples)


def _check_examples(nodes: list[tuple[_Path, dict[str, Any]]]) -> None:
    """Validate each ``default`` and ``examples`` entry against the node that holds it."""
    if not nodes:
        return
    # Imported here: the validator is only needed by schemas that carry examples. A node is
    # walked directly (accepts); code is generated only to describe a failure.
    from pedelec.schema._compile import accepts, compile_node

    for path, node in nodes:
        if "default" in node and not accepts(node, node["default"]):
            errors = compile_node(node).errors(node["default"], max_errors=1)
            raise _Invalid(
                (*path, "default"),
                "default",
                f'"default" is not valid for its own node ({_describe(errors[0])}); '
                f"fix the default or remove it",
            )
        for index, example in enumerate(node.get("examples", ())):
            if not accepts(node, example):
                errors = compile_node(node).errors(example, max_errors=1)
                raise _Invalid(
                    (*path, "examples", index),
                    "examples",
                    f'"examples" entry {index} is not valid for its own node '
                    f"({_describe(errors[0])}); fix the example or remove it",
                )


def _describe(error: ArgError) -> str:
    """One validation error of an example value, located inside that value."""
    where = "" if error.path == "" else f"at {error.path}: "
    return f"{where}{error.message}"


def _keyword_at(schema: Any, path: _Path) -> str | None:
    """The keyword under which ``path`` lies in a raw schema, or None if it ends at a node.

    Follows the subset's grammar through ``items``, ``properties`` and ``oneOf``; used only to
    fill ``details["keyword"]`` for a value that is not JSON.
    """
    node: Any = schema
    index = 0
    while index < len(path):
        part = path[index]
        if not isinstance(node, dict) or type(part) is not str:
            return None
        value: Any = node.get(part)
        if part == "items":
            node, index = value, index + 1
            continue
        holds_nodes = (part == "properties" and isinstance(value, dict)) or (
            part == "oneOf" and isinstance(value, list)
        )
        if not holds_nodes or index + 1 == len(path):
            return part
        try:
            node = value[path[index + 1]]
        except (LookupError, TypeError):
            return part
        index += 2
    return None


_PLAIN_JSON: Final = (
    "a schema holds only plain JSON: dicts with str keys, lists, str, int, finite float, bool "
    "and None"
)


def _error(path: _Path, keyword: str | None, clause: str, tool: str | None) -> PedelecError:
    where = pointer(path) or "the root"
    who = "" if tool is None else f" for tool {short_repr(tool)}"
    details: dict[str, Any] = {"pointer": pointer(path), "keyword": keyword}
    if tool is not None:
        details["tool"] = tool
    return PedelecError(INVALID_INPUT, f"Invalid schema{who} at {where}: {clause}.", details)


def _clone(schema: Any, tool: str | None) -> Any:
    try:
        return clone_json(schema)
    except NotJsonError as exc:
        clause = f"{exc.reason}; {_PLAIN_JSON}"
        raise _error(exc.path, _keyword_at(schema, exc.path), clause, tool) from None


def _checked(clone: Any, tool: str | None) -> dict[str, Any]:
    try:
        _walk(clone)
    except _Invalid as bad:
        raise _error(bad.path, bad.keyword, bad.clause, tool) from None
    result: dict[str, Any] = clone
    return result


def check_node(node: Any, *, tool: str | None = None) -> dict[str, Any]:
    """Check one schema node (any kind) against the subset and return a private JSON copy.

    The check behind ``check_schema``, without the rule that the root is an object; typed-tool
    inference uses it for parameter nodes.

    Args:
        node: The node, e.g. ``{"type": "integer", "minimum": 0}``.
        tool: The tool the node belongs to, named in the error message when given.

    Returns:
        A deep JSON copy of ``node`` that shares nothing with it.

    Raises:
        PedelecError: ``INVALID_INPUT``, with ``details`` ``{"pointer", "keyword", "tool"?}``,
            at the first rule the node breaks.

    Example:
        >>> check_node({"type": "integer", "minimum": 0})
        {'type': 'integer', 'minimum': 0}
    """
    return _checked(_clone(node, tool), tool)


def check_schema(schema: Any, *, tool: str | None = None) -> dict[str, Any]:
    """Check a tool's argument schema against the subset and return a private JSON copy.

    Args:
        schema: The root node; always ``{"type": "object", ...}``.
        tool: The tool's name, named in the error message when given.

    Returns:
        A deep JSON copy of ``schema`` that shares nothing with it: later changes to the
        caller's dict do not reach it.

    Raises:
        PedelecError: ``INVALID_INPUT``, with ``details`` ``{"pointer", "keyword", "tool"?}``,
            at the first rule the schema breaks.

    Example:
        >>> check_schema({"type": "object", "properties": {"delta": {"type": "integer"}}})
        {'type': 'object', 'properties': {'delta': {'type': 'integer'}}}
    """
    clone = _clone(schema, tool)
    if type(clone) is dict and clone.get("type") == "object":
        return _checked(clone, tool)
    path: _Path = ()
    keyword: str | None = "type"
    if type(clone) is not dict:
        keyword, got = None, _got(clone)
    elif "type" in clone:
        path, got = ("type",), f'"type": {short_repr(clone["type"])}'
    else:
        got = 'a node without "type"'
    raise _error(
        path,
        keyword,
        f'the root must be {{"type": "object", ...}}, got {got}; a tool\'s arguments are always '
        f'an object (a tool without arguments uses {{"type": "object", "properties": {{}}}})',
        tool,
    )
