"""The pattern tree: node kinds and fields, pinned whole, since every pattern reader uses them."""

from __future__ import annotations

import pytest

from pedelec.schema.patterns.parse import Invalid, TooComplex, Unportable, parse
from pedelec.schema.patterns.tree import (
    UNBOUNDED,
    Alt,
    Anchor,
    Backref,
    CharSet,
    Group,
    Look,
    Repeat,
    Seq,
    walk,
)

TREES = [
    ("", "Seq(start=0, end=0, parts=())"),
    (
        "^a.$",
        "Seq(start=0, end=4, parts=(Anchor(start=0, end=1, kind='^'), "
        "CharSet(start=1, end=2, negated=False, items=((97, 97),)), "
        "CharSet(start=2, end=3, negated=False, items=('.',)), Anchor(start=3, end=4, kind='$')))",
    ),
    (
        "[^a-c\\d]\\W\\b\\B",
        "Seq(start=0, end=14, parts=(CharSet(start=0, end=8, negated=True, items=((97, 99), 'd')), "
        "CharSet(start=8, end=10, negated=False, items=('W',)), Anchor(start=10, end=12, kind='b'), "
        "Anchor(start=12, end=14, kind='B')))",
    ),
    (
        "a|",
        "Alt(start=0, end=2, options=(Seq(start=0, end=2, parts=(CharSet(start=0, end=1, "
        "negated=False, items=((97, 97),)),)), Seq(start=0, end=2, parts=())))",
    ),
    (
        "(?:x)*?",
        "Seq(start=0, end=7, parts=(Repeat(start=0, end=7, body=Group(start=0, end=5, "
        "body=Seq(start=0, end=5, parts=(CharSet(start=3, end=4, negated=False, "
        "items=((120, 120),)),)), index=0), lo=0, hi=-1, lazy=True),))",
    ),
    (
        "(?<!x)",
        "Seq(start=0, end=6, parts=(Look(start=0, end=6, body=Seq(start=0, end=6, "
        "parts=(CharSet(start=4, end=5, negated=False, items=((120, 120),)),)), ahead=False, "
        "negated=True),))",
    ),
    (
        "(a)\\1{2,3}",
        "Seq(start=0, end=10, parts=(Group(start=0, end=3, body=Seq(start=0, end=3, "
        "parts=(CharSet(start=1, end=2, negated=False, items=((97, 97),)),)), index=1), "
        "Repeat(start=3, end=10, body=Backref(start=3, end=5, index=1), lo=2, hi=3, "
        "lazy=False)))",
    ),
]


@pytest.mark.parametrize(("pattern", "shown"), TREES)
def test_tree_catalogue(pattern: str, shown: str) -> None:
    assert repr(parse(pattern)) == shown


def test_fields_by_kind() -> None:
    tree = parse("(a)+(?=b)\\1")
    assert isinstance(tree, Seq)
    repeat, look, ref = tree.parts
    assert isinstance(repeat, Repeat) and (repeat.lo, repeat.hi, repeat.lazy) == (
        1,
        UNBOUNDED,
        False,
    )
    assert isinstance(repeat.body, Group) and repeat.body.index == 1
    assert isinstance(look, Look) and (look.ahead, look.negated) == (True, False)
    assert isinstance(ref, Backref) and ref.group is repeat.body
    assert [type(node).__name__ for node in walk(tree)] == [
        "Seq", "Repeat", "Group", "Seq", "CharSet", "Look", "Seq", "CharSet", "Backref",
    ]  # fmt: skip
    assert isinstance(parse("a|b"), Alt)
    match parse("^x").parts[0]:
        case Anchor(kind=kind):
            assert kind == "^"
        case _:
            raise AssertionError("not an anchor")
    match parse("[^x]").parts[0]:
        case CharSet(negated=negated, items=items):
            assert (negated, items) == (True, ((120, 120),))
        case _:
            raise AssertionError("not a set")


@pytest.mark.parametrize(
    ("pattern", "error"),
    [("(?i)a", Unportable), ("a{,2}", Unportable), ("a)", Invalid), ("\\2(a)", Invalid)],
)
def test_refusals(pattern: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        parse(pattern)


def test_backreferences_count_as_copies() -> None:
    # each copy of this group counts its 2 492 nodes against the 20 000-node budget
    group = "(" + "a" * 2_490 + ")"
    parse(group + "\\1" * 7)
    with pytest.raises(TooComplex):
        parse(group + "\\1" * 9)
