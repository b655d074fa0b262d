"""Typed tools read a plain function's parameters from its code object (``typed._parameters``);
every answer must be the one ``inspect.signature`` gives, which reads the same code.

Hypothesis writes the signatures (positional-only, defaults, ``*args``, keyword-only with and
without defaults, ``**kwargs``) and wraps some in ``functools.wraps`` chains; the table covers
what ``inspect`` reads otherwise (``__signature__``, partials, methods, callable objects, a
wrapper chain that loops).
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

import pytest
from hypothesis import given, strategies as st

from pedelec import PedelecError
from pedelec.typed import _parameters, infer_tool


def by_inspect(fn: Any) -> list[tuple[str, Any, Any]]:
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]


@st.composite
def signatures(draw: st.DrawFn) -> str:
    """The parameter list of a def: names a0, a1, … in order, defaults 0, 1, …"""
    names = iter(f"a{i}" for i in range(64))
    counter = iter(range(64))
    posonly = draw(st.integers(0, 3))
    positional = draw(st.integers(0, 3))
    defaulted = draw(st.integers(0, posonly + positional))
    parts = []
    for index in range(posonly + positional):
        name = next(names)
        has_default = index >= posonly + positional - defaulted
        parts.append(f"{name}={next(counter)}" if has_default else name)
        if index == posonly - 1:
            parts.append("/")
    star = draw(st.booleans())
    keyword_only = draw(st.lists(st.booleans(), max_size=3))
    if star:
        parts.append(f"*{next(names)}")
    elif keyword_only:
        parts.append("*")
    for has_default in keyword_only:
        name = next(names)
        parts.append(f"{name}={next(counter)}" if has_default else name)
    if draw(st.booleans()):
        parts.append(f"**{next(names)}")
    return ", ".join(parts)


def make(parameters: str, wraps: int) -> Any:
    namespace: dict[str, Any] = {}
    exec(f"def fn({parameters}):\n    return None\n", namespace)
    fn = namespace["fn"]
    for _ in range(wraps):

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return None

        fn = wrapper
    return fn


@given(signatures(), st.integers(0, 3))
def test_a_plain_function_reads_as_inspect_reads_it(parameters: str, wraps: int) -> None:
    fn = make(parameters, wraps)
    assert _parameters(fn) == by_inspect(fn)


class Callable:
    def __call__(self, x: int, *, y: int = 2) -> None:
        return None

    def method(self, z: int, w: int = 5) -> None:
        return None


def with_signature(a: int, b: int) -> None:
    return None


with_signature.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [inspect.Parameter("only", inspect.Parameter.KEYWORD_ONLY, default=1)]
)


@functools.wraps(with_signature)
def wrapping_signed(*args: Any, **kwargs: Any) -> None:
    return None


class Partials:
    def target(self, a: int, b: int = 3) -> None:
        return None

    half = functools.partialmethod(target, 1)


@pytest.mark.parametrize(
    ("fn", "expected"),
    [
        (Callable(), [("x", "POSITIONAL_OR_KEYWORD", "-"), ("y", "KEYWORD_ONLY", 2)]),
        (Callable().method, [("z", "POSITIONAL_OR_KEYWORD", "-"), ("w", "POSITIONAL_OR_KEYWORD", 5)]),
        (with_signature, [("only", "KEYWORD_ONLY", 1)]),
        (wrapping_signed, [("only", "KEYWORD_ONLY", 1)]),
        (functools.partial(lambda a, b=4: None, 1), [("b", "POSITIONAL_OR_KEYWORD", 4)]),
        (Partials.half, [("self", "POSITIONAL_OR_KEYWORD", "-"), ("b", "POSITIONAL_OR_KEYWORD", 3)]),
    ],
    ids=["callable object", "bound method", "__signature__", "wraps a __signature__", "partial",
         "partialmethod"],
)  # fmt: skip
def test_what_inspect_reads_otherwise_goes_through_inspect(
    fn: Any, expected: list[tuple[str, str, Any]]
) -> None:
    empty = inspect.Parameter.empty
    shown = [(n, k.name, "-" if d is empty else d) for n, k, d in _parameters(fn)]
    assert shown == expected
    assert _parameters(fn) == by_inspect(fn)


def test_a_wrapper_chain_that_loops_cannot_be_read() -> None:
    def looped(x: int) -> int:
        """Loop."""
        return x

    looped.__wrapped__ = looped  # type: ignore[attr-defined]
    with pytest.raises(PedelecError) as raised:
        infer_tool(looped)
    assert raised.value.message == (
        f'Tool "looped": cannot read the signature of {looped!r} (wrapper loop when unwrapping '
        f"{looped!r}); wrap it in a def with annotated parameters"
    )
