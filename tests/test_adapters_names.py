"""The tool name mapping between pedelec names and OpenAI/Anthropic names."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, strategies as st

from pedelec.adapters._names import name_map, provider_name
from pedelec.errors import INVALID_INPUT, PedelecError

PEDELEC_NAME = re.compile(r"[a-zA-Z][a-zA-Z0-9_.-]*")


@pytest.mark.parametrize(
    ("name", "sent"),
    [
        ("update_counter", "update_counter"),
        ("editor.replace_selection", "editor__replace_selection"),
        ("a.b.c", "a__b__c"),
        ("kebab-case.v2", "kebab-case__v2"),
        ("x", "x"),
    ],
)
def test_dots_are_sent_as_double_underscores(name: str, sent: str) -> None:
    names = name_map([name], "OpenAI")
    assert provider_name(name) == sent
    assert names.to_provider(name) == sent
    assert names.from_provider(sent) == name


def test_unknown_provider_names_come_back_unchanged() -> None:
    names = name_map(["a.b"], "OpenAI")
    assert names.from_provider("nope") == "nope"
    # "a.b" itself is not a provider name; the session reports it as unknown in its own words.
    assert names.from_provider("a.b") == "a.b"


@pytest.mark.parametrize(
    ("names", "message", "details"),
    [
        (
            ["a.b", "a__b"],
            'Tools "a.b" and "a__b" would both be sent to OpenAI as "a__b" '
            '(each "." is sent as "__"); rename one of them.',
            {"tools": ["a.b", "a__b"], "providerName": "a__b"},
        ),
        (
            ["x__y", "ok", "x.y"],
            'Tools "x__y" and "x.y" would both be sent to OpenAI as "x__y" '
            '(each "." is sent as "__"); rename one of them.',
            {"tools": ["x__y", "x.y"], "providerName": "x__y"},
        ),
        (
            ["a._b", "a_.b"],
            'Tools "a._b" and "a_.b" would both be sent to OpenAI as "a___b" '
            '(each "." is sent as "__"); rename one of them.',
            {"tools": ["a._b", "a_.b"], "providerName": "a___b"},
        ),
    ],
)
def test_a_collision_is_invalid_input_naming_both_tools(
    names: list[str], message: str, details: dict[str, object]
) -> None:
    with pytest.raises(PedelecError) as info:
        name_map(names, "OpenAI")
    assert info.value.code == INVALID_INPUT
    assert info.value.message == message
    assert info.value.details == details


def test_sixty_four_characters_pass_and_sixty_five_fail() -> None:
    assert name_map(["a" * 64], "Anthropic").to_provider("a" * 64) == "a" * 64
    with pytest.raises(PedelecError) as info:
        name_map(["a" * 65], "Anthropic")
    assert info.value.code == INVALID_INPUT
    assert info.value.message == (
        f'Tool "{"a" * 65}" would be sent to Anthropic as a name of 65 characters; '
        "Anthropic allows at most 64."
    )
    assert info.value.details == {"tool": "a" * 65, "providerName": "a" * 65, "limit": 64}


def test_a_dot_can_push_a_name_over_the_limit() -> None:
    name = "a" * 31 + "." + "b" * 32  # 64 characters, 65 once the dot is sent as "__"
    with pytest.raises(PedelecError) as info:
        name_map([name], "OpenAI")
    assert info.value.message == (
        f'Tool "{name}" would be sent to OpenAI as a name of 65 characters; '
        "OpenAI allows at most 64."
    )


def test_a_name_outside_the_provider_alphabet_is_refused() -> None:
    # Session names never contain spaces; a hand-edited manifest might.
    with pytest.raises(PedelecError) as info:
        name_map(["bad name"], "OpenAI")
    assert info.value.message == (
        'Tool "bad name" would be sent to OpenAI as "bad name", which does not match '
        "OpenAI's tool name rule ^[a-zA-Z0-9_-]{1,64}$."
    )


@given(st.lists(st.from_regex(PEDELEC_NAME, fullmatch=True).filter(lambda n: len(n) <= 30)))
def test_the_mapping_is_one_to_one_or_refused(names: list[str]) -> None:
    names = list(dict.fromkeys(names))  # a session's names are unique
    try:
        table = name_map(names, "OpenAI")
    except PedelecError as exc:
        assert exc.code == INVALID_INPUT
        sent = [provider_name(n) for n in names]
        assert len(set(sent)) < len(sent)
        return
    sent = [table.to_provider(n) for n in names]
    assert len(set(sent)) == len(sent)
    for name, wire in zip(names, sent, strict=True):
        assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", wire)
        assert table.from_provider(wire) == name
