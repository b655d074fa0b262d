"""Constraints and documentation for typed tool parameters, written inside ``Annotated[...]``.

A typed tool infers its argument schema from the function's signature; these markers add the
keywords a Python type cannot say. Each marker becomes exactly one Tool Args Schema keyword::

    from collections.abc import Sequence
    from typing import Annotated

    from pedelec import Description, MaxItems, Maximum, MinLength, Minimum, Session

    session = Session()

    @session.tool(description="Search the catalogue.")
    def search(
        query: Annotated[str, MinLength(1), Description("Words to look for.")],
        limit: Annotated[int, Minimum(1), Maximum(50)] = 10,
        tags: Annotated[Sequence[str], MaxItems(5)] = (),
    ) -> list[str]:
        ...

| marker | keyword | applies to |
| --- | --- | --- |
| ``Minimum(n)`` / ``Maximum(n)`` | ``minimum`` / ``maximum`` (inclusive) | ``int``, ``float`` |
| ``MinLength(n)`` / ``MaxLength(n)`` | ``minLength`` / ``maxLength`` (code points) | ``str`` |
| ``Pattern(regex)`` | ``pattern`` (unanchored search) | ``str`` |
| ``MinItems(n)`` / ``MaxItems(n)`` | ``minItems`` / ``maxItems`` | ``list[T]``, ``Sequence[T]`` |
| ``UniqueItems()`` | ``uniqueItems`` | ``list[T]``, ``Sequence[T]`` |
| ``Description(text)`` | ``description`` | any parameter type |
| ``Examples(v, ...)`` | ``examples`` | any parameter type |

The ``annotated-types`` objects (``Ge``, ``Le``, ``Gt``, ``Lt``, ``Interval``, ``MinLen``,
``MaxLen``, ``Len``) are recognised too, without ``pedelec`` depending on that package.

A marker checks its own value when it is created, so a mistake such as ``MinLength(-1)`` fails
at import time, on the line that wrote it, with ``INVALID_INPUT``. Rules that involve the whole
schema (``minimum`` not above ``maximum``, a portable ``pattern``) are checked when the tool is
registered. Markers are immutable and compare by value.
"""

from __future__ import annotations

from typing import Any, ClassVar, final

from pedelec._text import is_blank
from pedelec.errors import INVALID_INPUT, PedelecError

__all__ = [
    "Description",
    "Examples",
    "MaxItems",
    "MaxLength",
    "Maximum",
    "MinItems",
    "MinLength",
    "Minimum",
    "Pattern",
    "UniqueItems",
]

_NUMERIC: tuple[str, ...] = ("integer", "number")
_STRING: tuple[str, ...] = ("string",)
_ARRAY: tuple[str, ...] = ("array",)


class _Marker:
    """One schema keyword with its value; subclasses fix the keyword and where it applies."""

    __slots__ = ("_value",)

    #: The Tool Args Schema keyword this marker sets.
    keyword: ClassVar[str]
    #: The node types (``"string"``, ``"oneOf"``...) the keyword is valid on; ``None``: any node.
    applies_to: ClassVar[tuple[str, ...] | None]
    #: What ``applies_to`` means in Python terms, for error messages.
    python_types: ClassVar[str] = "any parameter type"

    _value: Any

    def __init__(self, value: Any) -> None:
        object.__setattr__(self, "_value", value)

    @property
    def value(self) -> Any:
        """The keyword's value as it appears in the schema."""
        return self._value

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Marker) or type(other) is not type(self):
            return NotImplemented
        # Types are compared too, so ``Examples(1) != Examples(True)``: bool is its own JSON type.
        return bool(_typed(self._value) == _typed(other._value))

    def __hash__(self) -> int:
        return hash((type(self), _typed(self._value)))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._value!r})"


def _typed(value: Any) -> Any:
    """A comparison key that keeps ``True``, ``1`` and ``1.0`` apart at every depth."""
    if isinstance(value, list | tuple):
        return (type(value), tuple(_typed(v) for v in value))
    if isinstance(value, dict):
        return (dict, tuple(sorted((k, _typed(v)) for k, v in value.items())))
    return (type(value), value)


def _invalid(marker: str, clause: str) -> PedelecError:
    return PedelecError(INVALID_INPUT, f"{marker}: {clause}.", {"marker": marker})


def _marker_number(marker: str, value: Any) -> float:
    if type(value) not in (int, float) or value != value or value in (float("inf"), -float("inf")):
        raise _invalid(marker, f"the bound must be a finite int or float, got {value!r}")
    bound: float = value
    return bound


def _marker_count(marker: str, value: Any) -> int:
    if type(value) is not int or value < 0:
        raise _invalid(marker, f"the length must be an int of 0 or more, got {value!r}")
    count: int = value
    return count


@final
class Minimum(_Marker):
    """The smallest value an ``int`` or ``float`` parameter accepts, inclusive (``minimum``).

    Args:
        value: The bound, a finite ``int`` or ``float``.

    Example:
        >>> from typing import Annotated
        >>> def zoom(factor: Annotated[float, Minimum(0.1)]) -> None: ...
        >>> Minimum(0.1).keyword, Minimum(0.1).value
        ('minimum', 0.1)
    """

    __slots__ = ()
    keyword = "minimum"
    applies_to = _NUMERIC
    python_types = "int and float"

    def __init__(self, value: float) -> None:
        super().__init__(_marker_number("Minimum", value))


@final
class Maximum(_Marker):
    """The largest value an ``int`` or ``float`` parameter accepts, inclusive (``maximum``).

    Args:
        value: The bound, a finite ``int`` or ``float``.

    Example:
        >>> from typing import Annotated
        >>> def move(steps: Annotated[int, Minimum(-10), Maximum(10)]) -> None: ...
        >>> Maximum(10)
        Maximum(10)
    """

    __slots__ = ()
    keyword = "maximum"
    applies_to = _NUMERIC
    python_types = "int and float"

    def __init__(self, value: float) -> None:
        super().__init__(_marker_number("Maximum", value))


@final
class MinLength(_Marker):
    """The fewest characters (code points) a ``str`` parameter accepts (``minLength``).

    Args:
        value: An ``int`` of 0 or more. ``MinLength(1)`` rejects the empty string.

    Example:
        >>> from typing import Annotated
        >>> def greet(name: Annotated[str, MinLength(1)]) -> str: ...
        >>> MinLength(1).keyword
        'minLength'
    """

    __slots__ = ()
    keyword = "minLength"
    applies_to = _STRING
    python_types = "str"

    def __init__(self, value: int) -> None:
        super().__init__(_marker_count("MinLength", value))


@final
class MaxLength(_Marker):
    """The most characters (code points) a ``str`` parameter accepts (``maxLength``).

    Args:
        value: An ``int`` of 0 or more.

    Example:
        >>> from typing import Annotated
        >>> def rename(title: Annotated[str, MaxLength(80)]) -> None: ...
        >>> MaxLength(80).value
        80
    """

    __slots__ = ()
    keyword = "maxLength"
    applies_to = _STRING
    python_types = "str"

    def __init__(self, value: int) -> None:
        super().__init__(_marker_count("MaxLength", value))


@final
class Pattern(_Marker):
    """A regular expression a ``str`` parameter must contain a match of (``pattern``).

    The search is unanchored, as in JSON Schema: write ``^...$`` to match the whole string.
    Agents and providers read the pattern too, so it must be portable to ECMA-262 and must not
    backtrack catastrophically; registration checks both.

    Args:
        value: The pattern, as text.

    Example:
        >>> from typing import Annotated
        >>> def lookup(sku: Annotated[str, Pattern(r"^[A-Z]{3}-[0-9]{4}$")]) -> None: ...
        >>> Pattern(r"^[a-z]+$")
        Pattern('^[a-z]+$')
    """

    __slots__ = ()
    keyword = "pattern"
    applies_to = _STRING
    python_types = "str"

    def __init__(self, value: str) -> None:
        if type(value) is not str:
            raise _invalid("Pattern", f"the pattern must be a str, got {value!r}")
        super().__init__(value)


@final
class MinItems(_Marker):
    """The fewest items a ``list[T]`` or ``Sequence[T]`` parameter accepts (``minItems``).

    Args:
        value: An ``int`` of 0 or more.

    Example:
        >>> from typing import Annotated
        >>> def tag(ids: Annotated[list[str], MinItems(1)]) -> None: ...
        >>> MinItems(1).keyword
        'minItems'
    """

    __slots__ = ()
    keyword = "minItems"
    applies_to = _ARRAY
    python_types = "list[T] and Sequence[T]"

    def __init__(self, value: int) -> None:
        super().__init__(_marker_count("MinItems", value))


@final
class MaxItems(_Marker):
    """The most items a ``list[T]`` or ``Sequence[T]`` parameter accepts (``maxItems``).

    Bound every list an agent fills: an unbounded list invites an unbounded bulk operation.

    Args:
        value: An ``int`` of 0 or more.

    Example:
        >>> from typing import Annotated
        >>> def delete(ids: Annotated[list[str], MaxItems(50)]) -> None: ...
        >>> MaxItems(50)
        MaxItems(50)
    """

    __slots__ = ()
    keyword = "maxItems"
    applies_to = _ARRAY
    python_types = "list[T] and Sequence[T]"

    def __init__(self, value: int) -> None:
        super().__init__(_marker_count("MaxItems", value))


@final
class UniqueItems(_Marker):
    """Require the items of a ``list[T]`` or ``Sequence[T]`` parameter to be distinct.

    Items are compared as JSON values: ``1`` and ``1.0`` are duplicates, ``1`` and ``true``
    are not.

    Args:
        value: ``True`` (the default) to require distinct items; ``False`` states the default.

    Example:
        >>> from typing import Annotated
        >>> def invite(emails: Annotated[list[str], UniqueItems()]) -> None: ...
        >>> UniqueItems()
        UniqueItems(True)
    """

    __slots__ = ()
    keyword = "uniqueItems"
    applies_to = _ARRAY
    python_types = "list[T] and Sequence[T]"

    def __init__(self, value: bool = True) -> None:
        if type(value) is not bool:
            raise _invalid("UniqueItems", f"the flag must be True or False, got {value!r}")
        super().__init__(value)


@final
class Description(_Marker):
    """Explain a parameter to the agent (``description``).

    A ``Description`` wins over the parameter's entry in the function's docstring. A plain
    string in ``Annotated[...]`` means the same: ``Annotated[str, "City name."]``.

    Args:
        value: Non-empty text.

    Example:
        >>> from typing import Annotated
        >>> def weather(city: Annotated[str, Description("City name, e.g. Paris.")]) -> str: ...
        >>> Description("City name.").keyword
        'description'
    """

    __slots__ = ()
    keyword = "description"
    applies_to = None

    def __init__(self, value: str) -> None:
        if type(value) is not str or is_blank(value):
            raise _invalid("Description", f"the description must be non-empty text, got {value!r}")
        super().__init__(value)


@final
class Examples(_Marker):
    """Example values of a parameter, to guide the agent (``examples``).

    Each example must be JSON and valid for the parameter; registration checks that. Enum
    members and tuples are written as their JSON values (``Color.RED`` → ``"red"``).

    Args:
        *values: One or more example values.

    Example:
        >>> from typing import Annotated
        >>> def translate(lang: Annotated[str, Examples("en", "zh-TW")]) -> str: ...
        >>> Examples("en", "zh-TW").value
        ('en', 'zh-TW')
    """

    __slots__ = ()
    keyword = "examples"
    applies_to = None

    def __init__(self, *values: Any) -> None:
        if not values:
            raise _invalid("Examples", "give at least one example value")
        super().__init__(values)

    def __repr__(self) -> str:
        return f"Examples({', '.join(map(repr, self._value))})"
