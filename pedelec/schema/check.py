"""Registration rules of the Tool Args Schema subset (DESIGN §3).

A schema is checked once, when a tool is registered, and every break of the rules is an
``INVALID_INPUT`` error for the developer, never a surprise for the agent. The rules of each
keyword are rows of ``keywords.SUBSET`` (node kind → allowed keyword → row); this module is the
walk that applies them and the messages about the node itself.

The check runs in three passes, each on data the previous pass made safe:

1. ``clone_json`` copies the input; anything that is not plain JSON (sets, NaN, cycles, ...)
   fails here, so the later passes only ever see dicts, lists and JSON scalars.
2. An iterative walk (no recursion, so a 10 000-deep schema is an error, not a ``RecursionError``)
   checks every node against ``SUBSET`` in document order and stops at the first problem.
3. Once the whole structure is known to be inside the subset, every ``default`` and ``examples``
   entry is tested against its own node by the one interpreter (``interpret.accepts``), with
   the call-time ``pattern`` bound.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

from pedelec._json import NotJsonError, clone_json, pointer
from pedelec._json.render import render
from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.limits import MAX_SCHEMA_DEPTH
from pedelec.schema.keywords import META, SUBSET, got, quoted

if TYPE_CHECKING:
    from pedelec.schema.validator import ArgError

__all__ = ["Invalid", "check_schema", "checked", "checked_clone", "schema_problems"]

_Path = tuple[str | int, ...]


def _join(names: Iterable[str]) -> str:
    return ", ".join(names)


_TYPES: Final = tuple(kind for kind in SUBSET if kind != "oneOf")
_TYPE_SET: Final = frozenset(_TYPES)

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


class Invalid(Exception):
    """A rule broken at ``path`` (``keyword`` None for the node itself); internal only.

    The path stays a tuple so a caller that names part of it (typed-tool inference names the
    parameter) reads it as data; ``error`` turns it into the public ``PedelecError``.
    """

    def __init__(self, path: _Path, keyword: str | None, clause: str) -> None:
        super().__init__(clause)
        self.path = path
        self.keyword = keyword
        self.clause = clause

    def error(self, tool: str | None) -> PedelecError:
        """The ``INVALID_INPUT`` error registration raises, naming ``tool`` when given."""
        where = pointer(self.path) or "the root"
        who = "" if tool is None else f" for tool {render(tool)}"
        details: dict[str, Any] = {"pointer": pointer(self.path), "keyword": self.keyword}
        if tool is not None:
            details["tool"] = tool
        return PedelecError(
            INVALID_INPUT, f"Invalid schema{who} at {where}: {self.clause}.", details
        )


def _unsupported_clause(keyword: str, kind: str | None) -> str:
    if kind is None:
        where = "a Tool Args Schema"
    else:
        # The discriminator ("type", or "oneOf" for a oneOf node) is not listed: it is given.
        allowed = _join([name for name in SUBSET[kind].keywords if name != kind])
        where = f"a Tool Args Schema {kind} node (allowed: {allowed})"
    fix = _INSTEAD.get(keyword, "remove it or check the value in your handler")
    return f"{quoted(keyword)} is not supported in {where}; {fix}"


def _kind_of(node: Any, path: _Path) -> str:
    """The kind of a node (a key of ``SUBSET``), or raise for a node that has none."""
    if type(node) is not dict:
        raise Invalid(
            path,
            None,
            f'expected a schema node (an object with "type" or "oneOf"), got {got(node)}; '
            f'use e.g. {{"type": "string"}}',
        )
    if "type" in node:
        kind = node["type"]
        if "oneOf" in node:
            raise Invalid(
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
        raise Invalid(
            (*path, "type"),
            "type",
            f'"type" must be one of {_join([quoted(t) for t in _TYPES])}, got {got(kind)}; {fix}',
        )
    if "oneOf" in node:
        return "oneOf"
    for keyword in node:
        if keyword in _INSTEAD:
            raise Invalid((*path, keyword), keyword, _unsupported_clause(keyword, None))
    raise Invalid(
        path,
        "type",
        f'a schema node needs "type" (one of {_join([quoted(t) for t in _TYPES])}) or "oneOf"; '
        f'add "type": {quoted(_suggest_type(node))}',
    )


def _suggest_type(node: Mapping[str, Any]) -> str:
    """The type a node without one most likely means, judged by its keywords (else string)."""
    for keyword in node:
        if keyword in META:
            continue
        for kind in _TYPES:
            if keyword in SUBSET[kind].keywords:
                return kind
    return "string"


# The walk's view of ``SUBSET``: plain dicts and tuples, cheaper to read than the read-only
# mappings the table is published as. Per kind: keyword -> (check, children).
_RULES: Final = {
    kind: {keyword: (rule.check, rule.children) for keyword, rule in row.keywords.items()}
    for kind, row in SUBSET.items()
}
_NEEDS: Final = {kind: tuple(row.needs.items()) for kind, row in SUBSET.items()}


def _broken(bad: Invalid, found: list[Invalid] | None) -> None:
    if found is None:
        raise bad
    found.append(bad)


def _walk(root: Any, found: list[Invalid] | None = None) -> None:
    """Check every node below ``root`` (a JSON clone) in document order; raise at the first break,
    or, given ``found``, append every break to it and go on (a broken node's subtree is skipped).

    Iterative on purpose: the depth bound is a rule with its own message, not a crash.
    """
    stack: list[tuple[_Path, Any, int]] = [((), root, 1)]
    with_examples: list[tuple[_Path, dict[str, Any]]] = []
    pop = stack.pop
    push = stack.append
    while stack:
        path, node, depth = pop()
        try:
            if depth > MAX_SCHEMA_DEPTH:
                raise Invalid(
                    path,
                    None,
                    f"the schema is nested too deeply (more than {MAX_SCHEMA_DEPTH} levels of "
                    f"nodes); flatten it or split the tool",
                )
            # The usual node, {"type": <a type>, ...}, is told without a call; _kind_of says
            # what is wrong with any other.
            kind = node.get("type") if node.__class__ is dict else None
            if kind.__class__ is not str or kind not in _TYPE_SET or "oneOf" in node:
                kind = _kind_of(node, path)
        except Invalid as bad:
            _broken(bad, found)
            continue
        rules = _RULES[kind]
        children: list[tuple[_Path, Any]] | None = None
        for keyword, value in node.items():
            if keyword == "type":  # the discriminator, already checked by _kind_of
                continue
            rule = rules.get(keyword)
            if rule is None:
                _broken(
                    Invalid((*path, keyword), keyword, _unsupported_clause(keyword, kind)), found
                )
                continue
            check, below_of = rule
            problem = check(value, node)
            if problem is not None:
                below, clause = problem
                _broken(Invalid((*path, keyword, *below), keyword, clause), found)
                continue
            if below_of is not None:
                if children is None:
                    children = []
                at = (*path, keyword)
                for below, child in below_of(value):
                    children.append(((*at, *below), child))
        for keyword, clause in _NEEDS[kind]:
            if keyword not in node:
                _broken(Invalid(path, keyword, clause), found)
        if "default" in node or "examples" in node:
            with_examples.append((path, node))
        if children is not None:
            depth += 1
            for child_path, child in reversed(children):
                push((child_path, child, depth))
    if not found:  # examples are validated only once the structure is inside the subset
        _check_examples(with_examples)


def _check_examples(nodes: list[tuple[_Path, dict[str, Any]]]) -> None:
    """Validate each ``default`` and ``examples`` entry against the node that holds it."""
    if not nodes:
        return
    # Imported here: only schemas that carry examples need them. A node is walked directly by
    # the one interpreter; code is generated only to describe a failure.
    from pedelec.schema.interpret import accepts
    from pedelec.schema.validator import compile_node

    for path, node in nodes:
        if "default" in node and not accepts(node, node["default"]):
            errors = compile_node(node).errors(node["default"], max_errors=1)
            raise Invalid(
                (*path, "default"),
                "default",
                f'"default" is not valid for its own node ({_located(errors[0])}); '
                f"fix the default or remove it",
            )
        for index, example in enumerate(node.get("examples", ())):
            if not accepts(node, example):
                errors = compile_node(node).errors(example, max_errors=1)
                raise Invalid(
                    (*path, "examples", index),
                    "examples",
                    f'"examples" entry {index} is not valid for its own node '
                    f"({_located(errors[0])}); fix the example or remove it",
                )


def _located(error: ArgError) -> str:
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


def _clone(schema: Any) -> Any:
    try:
        return clone_json(schema)
    except NotJsonError as exc:
        clause = f"{exc.reason}; {_PLAIN_JSON}"
        raise Invalid(exc.path, _keyword_at(schema, exc.path), clause) from None


def _check_node(node: Any, *, tool: str | None = None) -> dict[str, Any]:
    """Check one schema node of any kind (no root rule) and return a private JSON copy.

    For tests of the rules on nodes that stand alone (a ``oneOf`` branch, an array's items);
    errors are those of ``check_schema``, with pointers starting at ``node``.
    """
    try:
        clone = _clone(node)
        _walk(clone)
    except Invalid as bad:
        raise bad.error(tool) from None
    result: dict[str, Any] = clone
    return result


def checked(schema: Any, root: bool = True) -> dict[str, Any]:
    """``check_schema`` for callers inside pedelec: the first broken rule raises ``Invalid``.

    ``root=False`` checks a node of any kind (an output schema), without the root object rule.

    Raises:
        Invalid: with the path as a tuple of parts, the keyword and the clause.
    """
    clone = _clone(schema)
    bad = (_root_problem(clone) if root else None) or _unsendable(clone)
    if bad is not None:
        raise bad
    _walk(clone)
    result: dict[str, Any] = clone
    return result


def checked_clone(clone: Any, root: bool = True) -> dict[str, Any]:
    """``checked`` of a fresh ``clone_json`` copy the wire is known to carry (its canonical JSON
    text encodes as UTF-8): the same rules, without copying or walking for the wire again.

    Raises:
        Invalid: as ``checked``, at the first broken rule.
    """
    bad = _root_problem(clone) if root else None
    if bad is not None:
        raise bad
    _walk(clone)
    result: dict[str, Any] = clone
    return result


def _unsendable(clone: Any) -> Invalid | None:
    """A number or string of the schema that no JSON text can carry (an int past the digit
    limit, a lone surrogate): the schema is sent to the model, and written to manifests."""
    from pedelec._json.wire import wire_problem

    problem = wire_problem(clone)
    if problem is None:
        return None
    path, reason = problem
    return Invalid(path, _keyword_at(clone, path), f"{reason}; the schema cannot be sent as JSON")


def _root_problem(clone: Any) -> Invalid | None:
    """The break of the rule that the root is ``{"type": "object", ...}``, if any."""
    if type(clone) is dict and clone.get("type") == "object":
        return None
    path: _Path = ()
    keyword: str | None = "type"
    if type(clone) is not dict:
        keyword, arrived = None, got(clone)
    elif "type" in clone:
        path, arrived = ("type",), f'"type": {render(clone["type"])}'
    else:
        arrived = 'a node without "type"'
    return Invalid(
        path,
        keyword,
        f'the root must be {{"type": "object", ...}}, got {arrived}; a tool\'s arguments are always '
        f'an object (a tool without arguments uses {{"type": "object", "properties": {{}}}})',
    )


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
    try:
        return checked(schema)
    except Invalid as bad:
        raise bad.error(tool) from None


def schema_problems(schema: Any) -> list[tuple[_Path, str | None, str]]:
    """Every rule a tool's argument schema breaks, as ``(path, keyword, clause)`` in document order.

    ``check_schema`` stops at the first break, which suits a schema being written; a schema
    written for another engine (an upstream manifest's ``argsSchema``) is better reported whole,
    so it can be fixed, or converted, in one go. Below a broken node nothing more is reported,
    and ``default``/``examples`` are validated only when nothing else is broken. ``[]`` means
    ``check_schema`` accepts the schema.

    Example:
        >>> [(p, k) for p, k, _ in schema_problems({"type": "object", "title": "T",
        ...     "properties": {"n": {"type": "integer", "format": "int32"}}})]
        [(('title',), 'title'), (('properties', 'n', 'format'), 'format')]
    """
    try:
        clone = _clone(schema)
    except Invalid as bad:
        return [(bad.path, bad.keyword, bad.clause)]
    root = _root_problem(clone)
    if root is not None:
        return [(root.path, root.keyword, root.clause)]
    found: list[Invalid] = []
    try:
        _walk(clone, found)
    except Invalid as bad:  # a default or an example, checked only when all else is sound
        found.append(bad)
    return [(bad.path, bad.keyword, bad.clause) for bad in found]
