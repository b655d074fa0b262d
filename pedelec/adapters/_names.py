"""Tool names as each provider accepts them, and the way back.

OpenAI and Anthropic require tool names to match ``^[a-zA-Z0-9_-]{1,64}$``. pedelec names may
also contain ``.`` (``editor.replace_selection``), so the adapters send each ``.`` as ``__``
(``editor__replace_selection``). Gemini accepts ``.`` (its rule is :data:`GEMINI_NAMES`), so
every pedelec name short enough is sent to it unchanged. The mapping is decided per session from the names it actually
has, so the dispatcher maps back with a table lookup instead of guessing: if two tools would be
sent under the same name (``a.b`` and ``a__b``), or a mapped name is longer than the provider
allows, exporting fails with ``INVALID_INPUT`` rather than renaming a tool behind the
developer's back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Final, NamedTuple

from pedelec.errors import INVALID_INPUT, PedelecError

__all__ = [
    "GEMINI_NAMES",
    "MAX_PROVIDER_NAME_LENGTH",
    "OPENAI_NAMES",
    "PROVIDER_NAME_PATTERN",
    "NameMap",
    "NameRule",
    "name_map",
]

#: The longest tool name the OpenAI and Anthropic APIs accept.
MAX_PROVIDER_NAME_LENGTH: Final = 64
#: The tool name rule shared by the OpenAI and Anthropic APIs, as the messages show it.
_PROVIDER_RULE: Final = f"^[a-zA-Z0-9_-]{{1,{MAX_PROVIDER_NAME_LENGTH}}}$"
#: The same rule, matched with ``fullmatch``.
PROVIDER_NAME_PATTERN: Final = re.compile(_PROVIDER_RULE[1:-1])

# Distinct tuples of tool names whose maps are kept: a bound on memory, not a name rule.
_CACHED_NAME_SETS: Final = 256


class NameRule(NamedTuple):
    """A provider's tool name rule, and what a ``.`` of a pedelec name is sent as."""

    pattern: re.Pattern[str]
    #: The rule as messages show it.
    text: str
    dot: str


#: OpenAI and Anthropic: no ``.``, so each one is sent as ``__``.
OPENAI_NAMES: Final = NameRule(PROVIDER_NAME_PATTERN, _PROVIDER_RULE, "__")
#: Gemini, as its API's own rejection says it: "Must start with a letter or an underscore. Must
#: be a-z, A-Z, 0-9, or contain underscores (_), dots (.), colons (:), or dashes (-), with a
#: maximum length of 64." (newer SDK docstrings say 128; 64 is what every version accepts).
GEMINI_NAMES: Final = NameRule(
    re.compile(r"[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}"), "^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$", "."
)


def provider_name(name: str, dot: str = "__") -> str:
    """Return the name a tool is sent under: every ``.`` becomes ``dot``.

    Example:
        >>> provider_name("editor.replace_selection")
        'editor__replace_selection'
    """
    return name.replace(".", dot)


class NameMap:
    """A two-way table between a session's tool names and the names a provider sees.

    Built by :func:`name_map`, which guarantees the table is one-to-one.
    """

    __slots__ = ("_from_provider", "_to_provider")

    def __init__(self, to_provider: Mapping[str, str]) -> None:
        self._to_provider = dict(to_provider)
        self._from_provider = {sent: name for name, sent in self._to_provider.items()}

    def to_provider(self, name: str) -> str:
        """Return the provider name of the session tool ``name``."""
        return self._to_provider[name]

    def from_provider(self, sent: str) -> str:
        """Return the session tool name behind the provider name ``sent``.

        A name the table does not know is returned unchanged, so the session reports it as an
        unknown tool in its own words.
        """
        return self._from_provider.get(sent, sent)


def name_map(names: Iterable[str], provider: str, rule: NameRule = OPENAI_NAMES) -> NameMap:
    """Build the name table for a session's tools, checking the provider's name rule.

    Args:
        names: The session's tool names, in registration order.
        provider: The provider's display name for messages, e.g. ``"OpenAI"``.
        rule: The provider's name rule (default: OpenAI's and Anthropic's).

    Returns:
        A one-to-one :class:`NameMap`.

    Raises:
        PedelecError: ``INVALID_INPUT`` when two tools map to the same provider name, or a
            mapped name breaks the provider's rule (longer than ``MAX_PROVIDER_NAME_LENGTH``).

    Example:
        >>> name_map(["editor.replace_selection"], "OpenAI").to_provider("editor.replace_selection")
        'editor__replace_selection'
    """
    return _name_map(tuple(names), provider, rule)


@lru_cache(maxsize=_CACHED_NAME_SETS)
def _name_map(names: tuple[str, ...], provider: str, rule: NameRule) -> NameMap:
    # Cached by the exact tuple of names: a session's tool list rarely changes between turns,
    # and every dispatch of a provider call needs the table again.
    table: dict[str, str] = {}
    owner: dict[str, str] = {}
    for name in names:
        sent = provider_name(name, rule.dot)
        if sent in owner:
            first = owner[sent]
            raise PedelecError(
                INVALID_INPUT,
                f'Tools "{first}" and "{name}" would both be sent to {provider} as "{sent}" '
                f'(each "." is sent as "{rule.dot}"); rename one of them.',
                {"tools": [first, name], "providerName": sent},
            )
        if len(sent) > MAX_PROVIDER_NAME_LENGTH:
            raise PedelecError(
                INVALID_INPUT,
                f'Tool "{name}" would be sent to {provider} as a name of {len(sent)} characters; '
                f"{provider} allows at most {MAX_PROVIDER_NAME_LENGTH}.",
                {"tool": name, "providerName": sent, "limit": MAX_PROVIDER_NAME_LENGTH},
            )
        if rule.pattern.fullmatch(sent) is None:
            raise PedelecError(
                INVALID_INPUT,
                f'Tool "{name}" would be sent to {provider} as "{sent}", which does not match '
                f"{provider}'s tool name rule {rule.text}.",
                {"tool": name, "providerName": sent},
            )
        owner[sent] = name
        table[name] = sent
    return NameMap(table)
