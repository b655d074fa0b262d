"""The keyword table of the Tool Args Schema subset: one row per keyword of each node kind.

A row (``Keyword``) holds all there is to know about one keyword: ``check``, the registration
rule for its value (``check.py`` walks a schema through these rows); ``children``, where the
nodes inside its value are; and ``code``, what a compiled validator tests: a ``Condition`` (a
template fused into the node's one condition chain, with its message function) or a ``Step``
(naming the generator routine of a keyword that holds nodes or has fast paths). A ``Kind`` row
adds the node's type test. Adding a keyword is one row here plus its conformance cases.

The ``m_*`` functions are the validator's messages; they show every value through the one
message vocabulary (``pedelec._json.render``), as registration messages do, so a tab or a
``\\x01`` in a value reads ``\\t`` or ``\\u0001`` in both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import Any, Final, NamedTuple

from pedelec._json import duplicates, type_name
from pedelec._json.render import (
    SHOWN_CHARS,
    SHOWN_NAME_CHARS,
    SHOWN_OPTION_CHARS,
    describe,
    quote,
    render,
    scalar_text,
)

__all__ = [
    "META",
    "SUBSET",
    "Condition",
    "Keyword",
    "Kind",
    "Step",
    "got",
    "m_pattern",
    "m_pattern_too_long",
    "m_required",
    "m_type",
    "quoted",
]

_Part = str | int
_Path = tuple[_Part, ...]
#: A problem found by a keyword check: the path below the keyword (``()`` for the keyword's own
#: value, ``(2,)`` for its third entry) and a clause "what is wrong; how to fix it".
_Problem = tuple[_Path, str]
_Check = Callable[[Any, Mapping[str, Any]], "_Problem | None"]


def _same(value: Any) -> Any:
    return value


class Condition(NamedTuple):
    """A keyword the validator checks with one condition, fused into its node's chain.

    ``fails`` is a template over ``{v}`` (the value), ``{n}`` (its length, computed once per
    node) and ``{k}`` (the keyword's value, bound as a constant); it is true when the value
    fails. The generated message is ``message(shown, got)``.
    """

    #: Position among the node's checks in generated code (and so in the error list).
    order: int
    fails: str
    message: Callable[[Any, Any], str]
    #: What the message is told arrived: ``"{v}"`` the value or ``"{n}"`` its length.
    got: str = "{v}"
    #: The constant ``{k}`` the condition uses, made from the keyword's value.
    bind: Callable[[Any], Any] = _same
    #: The constant the message shows, made from the keyword's value.
    shown: Callable[[Any], Any] = _same


class Step(NamedTuple):
    """A keyword the generator writes with a routine of its own (``_Gen.<routine>``)."""

    order: int
    routine: str
    #: Whether the routine uses the length ``{n}`` of the value.
    length: bool = False


class Keyword(NamedTuple):
    """One allowed keyword of one node kind: registration rule, generated code, message."""

    check: _Check
    #: For ``items``/``properties``/``oneOf``: the child nodes inside the (already checked) value,
    #: each with its path below the keyword.
    children: Callable[[Any], Iterator[tuple[_Path, Any]]] | None = None
    #: What the validator tests; None where nothing is tested (metadata) or where the kind's
    #: own routine does it (``required``, with ``properties``).
    code: Condition | Step | None = None


class Kind(NamedTuple):
    """A node kind: its keywords besides the discriminator (``type`` or ``oneOf``)."""

    keywords: Mapping[str, Keyword]
    #: Keywords the kind cannot do without → what to say when one is missing.
    needs: Mapping[str, str]
    #: Condition template, true when ``{v}`` is not of this kind; ``{t}`` is ``type({v})``.
    #: None for ``oneOf``, which has no type of its own.
    wrong_type: str | None
    #: Generator routine for what the kind checks beyond its keywords (``_Gen.<rest>``).
    rest: str | None = None


# --- rendering for registration messages ------------------------------------------------------


def got(value: Any) -> str:
    """What arrived, as the validator's messages say it: ``boolean true``, ``string "3"``, ``null``."""
    if value is None:
        return "null"
    return f"{type_name(value)} {render(value)}"


def quoted(name: str) -> str:
    """A keyword or property name, quoted as JSON."""
    return render(name)


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


def _check_text(value: Any, node: Mapping[str, Any]) -> _Problem | None:
    if type(value) is str:
        return None
    return (), f'"description" must be a string, got {got(value)}; write it as text'


def _anything(value: Any, node: Mapping[str, Any]) -> _Problem | None:
    # ``default`` may be any JSON value here; pass 3 validates it against its node.
    return None


def _example_list(value: Any, node: Mapping[str, Any]) -> _Problem | None:
    if type(value) is list:
        return None
    return (), (
        f'"examples" must be an array of example values, got {got(value)}; '
        f"wrap the example in an array: [{render(value)}]"
    )


def _count(keyword: str) -> _Check:
    def check(value: Any, node: Mapping[str, Any]) -> _Problem | None:
        kind = type(value)
        if (kind is int or (kind is float and value.is_integer())) and value >= 0:
            return None
        return (), (
            f"{quoted(keyword)} must be a non-negative integer, got {got(value)}; "
            f"use a whole number, 0 or more"
        )

    return check


def _number(keyword: str) -> _Check:
    def check(value: Any, node: Mapping[str, Any]) -> _Problem | None:
        if type(value) is int or type(value) is float:
            return None
        return (), f"{quoted(keyword)} must be a number, got {got(value)}; use a number such as 0"

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
                f"{quoted(lower)} ({render(value)}) is greater than {quoted(upper)} "
                f"({render(bound)}), so nothing can match; lower {quoted(lower)} "
                f"or raise {quoted(upper)}"
            )
        return None

    return check


def _flag(keyword: str) -> _Check:
    def check(value: Any, node: Mapping[str, Any]) -> _Problem | None:
        if type(value) is bool:
            return None
        return (), f"{quoted(keyword)} must be true or false, got {got(value)}; use true or false"

    return check


def _enum(member_ok: Callable[[Any], bool], member: str) -> _Check:
    """``enum`` of a scalar node: a non-empty array of distinct members of the node's type.

    Members are compared the way the validator compares values (``1 == 1.0``, ``True != 1``), so
    ``[1, 1.0]`` in a number node is a duplicate: both entries accept exactly the same values.
    """

    def check(value: Any, node: Mapping[str, Any]) -> _Problem | None:
        if type(value) is not list or not value:
            return (), (
                f'"enum" must be a non-empty array of {member} values, got {got(value)}; '
                f'list the allowed values, or remove "enum"'
            )
        bad = None
        for index, item in enumerate(value):
            if not member_ok(item):
                bad = index
                break
        # Distinct as Python sees them is distinct as the validator does (it tells True from 1
        # too): only lists with a Python repeat are searched for a validator's one.
        try:
            repeat = None if len(set(value)) == len(value) else next(duplicates(value), None)
        except TypeError:  # an unhashable entry (a list or an object)
            repeat = next(duplicates(value), None)
        # The problem at the lower index is reported, a wrong member before a repeat of it.
        if bad is not None and (repeat is None or bad <= repeat[1]):
            return (bad,), (
                f'"enum" entry {bad} must be {_a(member)} like its node, got {got(value[bad])}; '
                f'fix the entry or the node\'s "type"'
            )
        if repeat is not None:
            first, index = repeat
            return (index,), (
                f'"enum" entry {index} ({render(value[index])}) repeats entry {first}; '
                f"list each value once"
            )
        return None

    return check


def _pattern(value: Any, node: Mapping[str, Any]) -> _Problem | None:
    if not _is_string(value):
        return (), (
            f'"pattern" must be a string holding a regular expression, got {got(value)}; '
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
        f'got {got(value)}; use e.g. {{"name": {{"type": "string"}}}}'
    )


def _property_children(value: Any) -> Iterator[tuple[_Path, Any]]:
    for name, child in value.items():
        yield (name,), child


def _required(value: Any, node: Mapping[str, Any]) -> _Problem | None:
    if type(value) is not list:
        return (), (
            f'"required" must be an array of property names, got {got(value)}; use e.g. ["name"]'
        )
    properties = node.get("properties", {})
    # A malformed "properties" is reported by its own row; names are checked against a real one.
    defined = properties if type(properties) is dict else None
    seen: dict[str, int] = {}
    for index, name in enumerate(value):
        if not _is_string(name):
            return (index,), (
                f'"required" entry {index} must be a property name (a string), got {got(name)}; '
                f"use the name as text"
            )
        first = seen.setdefault(name, index)
        if first != index:
            return (index,), (
                f'"required" entry {index} repeats {quoted(name)} (entry {first}); list each name once'
            )
        if defined is not None and name not in defined:
            return (index,), (
                f'"required" names {quoted(name)}, which "properties" does not define; '
                f'define it in "properties" or remove it from "required"'
            )
    return None


def _one_of(value: Any, node: Mapping[str, Any]) -> _Problem | None:
    if type(value) is list and value:
        return None
    return (), (
        f'"oneOf" must be a non-empty array of nodes, got {got(value)}; '
        f'list the alternatives, e.g. [{{"type": "string"}}, {{"type": "integer"}}]'
    )


def _branches(value: Any) -> Iterator[tuple[_Path, Any]]:
    for index, child in enumerate(value):
        yield (index,), child


# --- validator messages -------------------------------------------------------------------


def m_type(expected: str, value: Any) -> str:
    return f"expected {expected}, got {describe(value)}"


def m_min(limit: Any, value: Any) -> str:
    return f"must be >= {scalar_text(limit)}, got {scalar_text(value)}"


def m_max(limit: Any, value: Any) -> str:
    return f"must be <= {scalar_text(limit)}, got {scalar_text(value)}"


def _plural(n: Any, word: str) -> str:
    # A count may be written 2.0 in the schema; it still reads "2 characters".
    return f"{scalar_text(int(n))} {word}{'' if n == 1 else 's'}"


def m_min_length(limit: Any, n: int) -> str:
    return f"must be at least {_plural(limit, 'character')} long, got {n}"


def m_max_length(limit: Any, n: int) -> str:
    return f"must be at most {_plural(limit, 'character')} long, got {n}"


def m_min_items(limit: Any, n: int) -> str:
    return f"must have at least {_plural(limit, 'item')}, got {n}"


def m_max_items(limit: Any, n: int) -> str:
    return f"must have at most {_plural(limit, 'item')}, got {n}"


def m_enum(options: tuple[Any, ...], value: Any) -> str:
    shown = ", ".join(scalar_text(o, SHOWN_OPTION_CHARS) for o in options[:10])
    if len(options) > 10:
        shown += f", … ({len(options)} in all)"
    return f"must be one of {shown}; got {scalar_text(value, SHOWN_OPTION_CHARS)}"


def m_pattern(source: str, value: str) -> str:
    return f"must match pattern {quote(source, SHOWN_NAME_CHARS)}, got {quote(value, SHOWN_CHARS)}"


def m_pattern_too_long(source: str, limit: int, n: int) -> str:
    return (
        f"is {n} characters long, too long to check against pattern {quote(source, SHOWN_NAME_CHARS)} "
        f"(limit {limit}); send a shorter string"
    )


def m_required(name: str) -> str:
    return f"missing required property {quote(name, SHOWN_NAME_CHARS)}"


# --- the table ------------------------------------------------------------------------------

#: Keywords every node may carry (DESIGN §3 "shared metadata").
META: Final[Mapping[str, Keyword]] = {
    "description": Keyword(_check_text),
    "default": Keyword(_anything),
    "examples": Keyword(_example_list),
}


def _kind(
    wrong_type: str | None,
    keywords: Mapping[str, Keyword],
    needs: Mapping[str, str] | None = None,
    rest: str | None = None,
) -> Kind:
    return Kind(
        MappingProxyType({**META, **keywords}),
        MappingProxyType(dict(needs or {})),
        wrong_type,
        rest,
    )


def _enum_test(order: int) -> Condition:
    return Condition(order, "{v} not in {k}", m_enum, bind=frozenset, shown=tuple)


_MINIMUM: Final = Keyword(
    _at_most("minimum", "maximum", _number("minimum")), code=Condition(1, "{v} < {k}", m_min)
)
_MAXIMUM: Final = Keyword(_number("maximum"), code=Condition(2, "{v} > {k}", m_max))

#: The Tool Args Schema subset: ``type`` value (or ``"oneOf"``) → allowed keyword → row.
#: Keywords are listed in the order messages list them; ``order`` is the order of the checks.
SUBSET: Final[Mapping[str, Kind]] = MappingProxyType(
    {
        "string": _kind(
            "type({v}) is not str",
            {
                "enum": Keyword(_enum(_is_string, "string"), code=_enum_test(3)),
                "minLength": Keyword(
                    _at_most("minLength", "maxLength", _count("minLength")),
                    code=Condition(1, "{n} < {k}", m_min_length, got="{n}"),
                ),
                "maxLength": Keyword(
                    _count("maxLength"), code=Condition(2, "{n} > {k}", m_max_length, got="{n}")
                ),
                "pattern": Keyword(_pattern, code=Step(4, "pattern", length=True)),
            },
        ),
        "number": _kind(
            # Two tests for an int or a finite float: for a float, v - v is 0.0 (falsy) unless
            # v is NaN or infinite, when it is NaN (truthy).
            "({t} is not float or {v} - {v}) and {t} is not int",
            {
                "enum": Keyword(_enum(_is_number, "number"), code=_enum_test(3)),
                "minimum": _MINIMUM,
                "maximum": _MAXIMUM,
            },
        ),
        "integer": _kind(
            "{t} is not int and ({t} is not float or not {v}.is_integer())",
            {
                "enum": Keyword(_enum(_is_integer, "integer"), code=_enum_test(3)),
                "minimum": _MINIMUM,
                "maximum": _MAXIMUM,
            },
        ),
        "boolean": _kind(
            "{v} is not True and {v} is not False",
            {"enum": Keyword(_enum(_is_boolean, "boolean"), code=_enum_test(1))},
        ),
        "array": _kind(
            "type({v}) is not list",
            {
                "items": Keyword(_items, _one_child, Step(3, "items")),
                "minItems": Keyword(
                    _at_most("minItems", "maxItems", _count("minItems")),
                    code=Condition(1, "{n} < {k}", m_min_items, got="{n}"),
                ),
                "maxItems": Keyword(
                    _count("maxItems"), code=Condition(2, "{n} > {k}", m_max_items, got="{n}")
                ),
                "uniqueItems": Keyword(_flag("uniqueItems"), code=Step(4, "unique", length=True)),
            },
            needs={
                "items": 'an array node needs "items", the node every item must match; '
                'add e.g. "items": {"type": "string"}'
            },
        ),
        "object": _kind(
            "type({v}) is not dict",
            {
                "properties": Keyword(_properties, _property_children),
                "required": Keyword(_required),
            },
            rest="object",
        ),
        "oneOf": _kind(None, {"oneOf": Keyword(_one_of, _branches)}, rest="one_of"),
    }
)
