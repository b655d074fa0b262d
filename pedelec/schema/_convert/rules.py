"""The per-keyword rewrites: ``const``, exclusive bounds, keywords dropped or moved, and meta.

Each step takes a node's merged keywords (``Kw``), pops what it settles and records a change
for it; a constraint the subset cannot hold but an agent can follow becomes a ``Move``, a
phrase that ``meta`` adds to the node's description.
"""

from __future__ import annotations

import math
from typing import Any, Final

from pedelec._json import json_key
from pedelec._json.render import render
from pedelec.schema._convert.log import Log, Path
from pedelec.schema._convert.tables import (
    ANNOTATIONS,
    META,
    NOT_EXPRESSIBLE,
    TYPE_OF,
    Kw,
    Move,
    applies,
    article,
    number_text,
    with_phrases,
)
from pedelec.schema.interpret import accepts

_ADVICE: Final = "to reject undeclared arguments, use Session(reject_unknown_args=True)"
_MAPS: Final = ("additionalProperties", "unevaluatedProperties")


def const_to_enum(kw: Kw, log: Log) -> None:
    """``const`` becomes a one-member ``enum`` (or narrows the ``enum`` beside it)."""
    values = kw.values
    if "const" not in values:
        return
    const = values.pop("const")
    if "enum" in values and type(values["enum"]) is list:
        values["enum"] = [v for v in values["enum"] if json_key(v) == json_key(const)]
    else:
        values["enum"] = [const]
        kw.homes["enum"] = kw.homes["const"]
    log.change(
        kw.at("const"),
        const,
        {"enum": [const]},
        '"const" became a one-member "enum", which means the same.',
    )


def bounds(kind: str, kw: Kw, moves: list[Move], log: Log) -> bool:
    """Exclusive bounds: inclusive ones for integers, a description phrase for numbers.

    Returns False when one cannot be read (a problem is recorded).
    """
    ok = True
    for keyword, inclusive, lower in (
        ("exclusiveMinimum", "minimum", True),
        ("exclusiveMaximum", "maximum", False),
    ):
        if keyword in kw.values:
            ok = _bound(kind, kw, keyword, inclusive, lower, moves, log) and ok
    return ok


def _bound(
    kind: str, kw: Kw, keyword: str, inclusive: str, lower: bool, moves: list[Move], log: Log
) -> bool:
    values = kw.values
    where = kw.at(keyword)
    value = values.pop(keyword)
    if value is False or (value is True and inclusive not in values):
        log.change(where, value, None, f"{render(keyword)}: {value} says nothing here.")
        return True
    if value is True:  # draft-04 and OpenAPI 3.0: the inclusive bound is exclusive
        bound = values.pop(inclusive)
    elif type(value) in (int, float):
        bound = value
    else:
        log.problem(where, f"{render(keyword)} must be a number, got {render(value)}")
        return False
    if type(bound) not in (int, float):
        return True  # the bound's own check reports it
    if kind == "number":
        words = "Greater than" if lower else "Less than"
        phrase = f"{words} {number_text(bound)}."
        moves.append(Move(where, value, phrase, "the subset has no exclusive bounds"))
        return True
    edge = math.floor(bound) + 1 if lower else math.ceil(bound) - 1
    current = values.get(inclusive)
    if current is None or (current < edge if lower else current > edge):
        values[inclusive] = edge
        kw.homes[inclusive] = kw.homes.get(keyword, kw.path)
        log.change(
            where,
            value,
            {inclusive: edge},
            f"{render(keyword)} became {render(inclusive)} {edge}, the nearest "
            f"integer inside the bound, which allows the same integers.",
        )
    else:
        log.change(
            where,
            value,
            None,
            f"{render(keyword)} was dropped: {render(inclusive)} is at least as strict.",
        )
    return True


def others(kw: Kw, kind: str | None, moves: list[Move], log: Log) -> bool:
    """Every keyword left that the node does not hold: dropped, moved, or a problem.

    Returns False when one cannot be expressed.
    """
    ok = True
    for keyword in [k for k in kw.values if k not in META]:
        ok = _other(kw, keyword, kind, moves, log) and ok
    return ok


def _other(kw: Kw, keyword: str, kind: str | None, moves: list[Move], log: Log) -> bool:
    """Settle one keyword the node does not hold; False when it cannot be expressed."""
    value = kw.values.pop(keyword)
    where = kw.at(keyword)
    name = render(keyword)
    if keyword in ANNOTATIONS or keyword.startswith("x-"):
        log.change(where, value, None, f"{name} only annotates; it was dropped.")
    elif keyword == "example":
        kw.values.setdefault("examples", [value])
        kw.homes.setdefault("examples", kw.homes.get(keyword, kw.path))
        log.change(where, value, {"examples": [value]}, '"example" became "examples".')
    elif keyword == "format":
        moves.append(Move(where, value, f"Format: {value}.", "the subset checks no format"))
    elif kind is not None and keyword in TYPE_OF and not applies(keyword, kind):
        log.change(
            where,
            value,
            None,
            f"{name} applies to {TYPE_OF[keyword]} values only, so it said nothing on "
            f"{article(kind)} node; it was dropped.",
        )
    elif keyword == "multipleOf" and kind == "integer" and value == 1:
        log.change(where, value, None, '"multipleOf": 1 says nothing on integers.')
    elif keyword == "multipleOf":
        why = 'the subset has no "multipleOf"'
        moves.append(Move(where, value, f"Multiple of {number_text(value)}.", why))
    elif keyword in ("minProperties", "maxProperties"):
        words = "At least" if keyword == "minProperties" else "At most"
        noun = "property" if value == 1 else "properties"
        phrase = f"{words} {number_text(value)} {noun}."
        moves.append(Move(where, value, phrase, "the subset does not count properties"))
    elif keyword in _MAPS:
        return _map(where, name, value, log)
    elif keyword in NOT_EXPRESSIBLE or keyword == "enum":
        fix = NOT_EXPRESSIBLE.get(keyword, "use enum on a string, number or boolean node")
        log.problem(where, f"{name} cannot be expressed in a Tool Args Schema; {fix}")
        return False
    else:
        log.change(
            where,
            value,
            None,
            f"{name} is no validation keyword, so it said nothing; it was dropped.",
        )
    return True


def _map(where: Path, name: str, value: Any, log: Log) -> bool:
    """``additionalProperties`` or ``unevaluatedProperties``: only ``false`` and "any" convert."""
    if value is False:
        log.change(
            where,
            value,
            None,
            f"{name}: false was dropped: a Tool Args Schema allows undeclared properties; "
            f"{_ADVICE}.",
        )
    elif value in (True, {}):
        log.change(
            where, value, None, f"{name} was dropped: it allowed any property, as the subset does."
        )
    else:
        log.problem(
            where,
            f"{name} with a node (a map of any keys) cannot be expressed; declare each "
            f"property, or take a list of {{key, value}} objects",
        )
        return False
    return True


def meta(node: dict[str, Any], kw: Kw, moves: list[Move], log: Log) -> dict[str, Any]:
    """Give the node its description, default and examples, where they still hold."""
    values = kw.values
    node = dict(node)
    text = values.get("description", node.get("description"))
    if type(text) is not str and text is not None:
        log.problem(kw.at("description"), '"description" must be a string')
        text = None
    if "description" in values and node.get("description") not in (None, text):
        log.change(
            kw.at("description"),
            node["description"],
            None,
            "The description of the alternative gave way to the one beside it.",
        )
    described = with_phrases(text, [move.phrase for move in moves])
    if described is not None:
        node["description"] = described
    for move in moves:
        log.change(
            move.path,
            move.was,
            {"description": described},
            f"{move.why[0].upper()}{move.why[1:]}, so the constraint moved into the description "
            f"for the agent to follow.",
        )
    if "default" in values:
        node.pop("default", None)
        if accepts(node, values["default"]):
            node["default"] = values["default"]
        else:
            log.change(
                kw.at("default"),
                values["default"],
                None,
                "The default was dropped: the converted node does not accept it.",
            )
    if "examples" in values:
        _examples(node, kw, log)
    return node


def _examples(node: dict[str, Any], kw: Kw, log: Log) -> None:
    """Keep the ``examples`` entries the converted node accepts."""
    examples = kw.values["examples"]
    node.pop("examples", None)
    if type(examples) is not list:
        log.problem(kw.at("examples"), '"examples" must be an array of values')
        return
    for index, example in enumerate(examples):
        if not accepts(node, example):
            log.change(
                (*kw.at("examples"), index),
                example,
                None,
                "The example was dropped: the converted node does not accept it.",
            )
    kept = [example for example in examples if accepts(node, example)]
    if kept:
        node["examples"] = kept
