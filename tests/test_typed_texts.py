"""Annotation texts read without ``compile`` (``pedelec.typed.texts``) must mean what ``eval``
makes of them: the same value or the same exception, after the same steps in the same order.

``Probe`` objects stand for user names: every attribute, subscript, call and ``|`` on one is
written to a shared log and answers a new probe named after the step, so two evaluations agree
only if they ran the same steps in the same order with the same operands. Texts ``parse``
leaves to ``compile`` are listed one per construct; hypothesis writes texts inside the part,
outside it, and broken ones.
"""

from __future__ import annotations

import builtins
from typing import Annotated, Any, Literal

import pytest
from hypothesis import given, strategies as st

from pedelec.typed import hints, infer_tool
from pedelec.typed.texts import MAX_DEPTH, evaluate, parse


class Probe:
    """A user object that logs what is done to it."""

    def __init__(self, label: str, log: list[str]) -> None:
        self.label = label
        self.log = log

    def _next(self, step: str) -> Probe:
        self.log.append(step)
        return Probe(step, self.log)

    def __getattr__(self, name: str) -> Probe:
        if name.startswith("__"):
            raise AttributeError(name)
        return self._next(f"{self.label}.{name}")

    def __getitem__(self, index: Any) -> Probe:
        return self._next(f"{self.label}[{show(index)}]")

    def __call__(self, *args: Any, **kwargs: Any) -> Probe:
        listed = [show(a) for a in args] + [f"{k}={show(v)}" for k, v in kwargs.items()]
        return self._next(f"{self.label}({', '.join(listed)})")

    def __or__(self, other: Any) -> Probe:
        return self._next(f"({self.label} | {show(other)})")

    def __ror__(self, other: Any) -> Probe:
        return self._next(f"({show(other)} | {self.label})")


def show(value: Any) -> str:
    """A value as the log writes it; probes by label, containers item by item (with type)."""
    if isinstance(value, Probe):
        return value.label
    if isinstance(value, list | tuple):
        return f"{type(value).__name__}({', '.join(show(v) for v in value)})"
    return f"{type(value).__name__}:{value!r}"


PROBES = ("A", "B", "f", "g", "mod")


def namespace(log: list[str]) -> dict[str, Any]:
    space: dict[str, Any] = {name: Probe(name, log) for name in PROBES}
    space["__builtins__"] = builtins
    return space


def outcome(run: Any) -> tuple[str, str, list[str]]:
    """(``ok`` and the value, or ``raised`` and the exception type; the log)."""
    log: list[str] = []
    try:
        value = run(namespace(log))
    except Exception as exc:  # the two ways must raise the same kind of error
        return "raised", type(exc).__name__, log
    return "ok", show(value), log


def by_eval(text: str) -> tuple[str, str, list[str]]:
    code = compile(text, "<annotation>", "eval")
    return outcome(lambda space: eval(code, space))


def by_parse(text: str) -> tuple[str, str, list[str]]:
    node = parse(text)
    assert node is not None, text
    return outcome(lambda space: evaluate(node, space))


#: Texts inside the part, with what both ways give (the value as ``show`` writes it).
PARSED = [
    ("int", "ok", "type:<class 'int'>"),
    ("A", "ok", "A"),
    ("mod.sub.Name", "ok", "mod.sub.Name"),
    ("A[B]", "ok", "A[B]"),
    ("A[B,]", "ok", "A[tuple(B)]"),
    ("A[B, f(1)]", "ok", "A[tuple(B, f(int:1))]"),
    ("A[(B, g)]", "ok", "A[tuple(B, g)]"),
    ("A[()]", "ok", "A[tuple()]"),
    ("A[[B, g], f]", "ok", "A[tuple(list(B, g), f)]"),
    ("f(1, -2, 1.5, - 0.25)", "ok", "f(int:1, int:-2, float:1.5, float:-0.25)"),
    ("f('a b', \"c'd\", '')", "ok", "f(str:'a b', str:\"c'd\", str:'')"),
    (
        "f(None, True, False, ...)",
        "ok",
        "f(NoneType:None, bool:True, bool:False, ellipsis:Ellipsis)",
    ),
    ("f(x=1, y=B)", "ok", "f(x=int:1, y=B)"),
    ("f(1, y=2,)", "ok", "f(int:1, y=int:2)"),
    ("f()", "ok", "f()"),
    ("A | B | None", "ok", "((A | B) | NoneType:None)"),
    ("None | A", "ok", "(NoneType:None | A)"),
    ("(A)", "ok", "A"),
    ("(A,)", "ok", "tuple(A)"),
    ("[]", "ok", "list()"),
    ("A [ B ] . c ( 0 )", "ok", "A[B].c(int:0)"),
    ("A[B]   ", "ok", "A[B]"),
    ("f(0)(1)[2].x", "ok", "f(int:0)(int:1)[int:2].x"),
    ("int | str", "ok", "UnionType:int | str"),
    ("list[dict[str, int]]", "ok", "GenericAlias:list[dict[str, int]]"),
    ("'a' | 1", "raised", "TypeError"),
    ("missing", "raised", "NameError"),
    ("A[missing]", "raised", "NameError"),
    ("int.nope", "raised", "AttributeError"),
    ("len(1)", "raised", "TypeError"),
]


@pytest.mark.parametrize(("text", "status", "value"), PARSED)
def test_parsed_texts_mean_what_eval_makes_of_them(text: str, status: str, value: str) -> None:
    got = by_parse(text)
    assert got == by_eval(text)
    assert got[:2] == (status, value)


def test_steps_run_in_evals_order() -> None:
    text = "A[f(1, k=g.x), B | g]"
    got = by_parse(text)
    assert got == by_eval(text)
    assert got[2] == [
        "g.x",
        "f(int:1, k=g.x)",
        "(B | g)",
        "A[tuple(f(int:1, k=g.x), (B | g))]",
    ]


#: Texts left to ``compile``: valid Python outside the part, and broken texts (compile then
#: raises ``SyntaxError`` itself). One per construct.
FALLBACK = [
    "",
    " int",  # a leading space: compile says "unexpected indent"
    "\tint",
    "int\n",
    "A[\nB]",
    "A[B:1]",  # a slice
    "A[*B]",
    "f(*B)",
    "f(**B)",
    "lambda: 1",
    "A if B else g",
    "not A",
    "A and B",
    "A + B",
    "A & B",
    "-A",
    "--1",
    "-True",
    "~1",
    "[x for x in A]",
    "{1: 2}",
    "{1}",
    "'a' 'b'",  # implicit concatenation
    "b'x'",
    "f'x'",
    "r'x'",
    "'a\\n'",  # an escape
    "'\\''",
    "'''x'''",
    "01",
    "1_000",
    "0x10",
    "1e3",
    "1.",
    ".5",
    "1j",
    "1.5.real",
    "1 .real",
    "'a'[0]",  # compile warns about indexing or calling some literals: all are left to it
    "(1)(2)",
    "[]()",
    "(A, B)[0]",
    "()()",
    "A.None",
    "A.if",
    "__debug__",
    "await A",
    "A[]",
    "f(x=1, x=2)",  # a repeated keyword
    "f(x=1, 2)",  # positional after keyword
    "f(,)",
    "(,)",
    "A[B",
    "A]",
    "A B",
    "A =",
    "A = 1",
    "f(1 = 2)",
    "f(None=1)",
    "f(if=1)",
    "A!",  # a character no token holds, where the text ends
    "A[B]$",
    "café",  # non-ASCII name
    "'\\x00'",
    "1" * 19,  # more digits than parse reads
    "A" + "[B" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1),
]


@pytest.mark.parametrize("text", FALLBACK)
def test_texts_outside_the_part_are_left_to_compile(text: str) -> None:
    assert parse(text) is None


def test_nesting_up_to_the_limit_is_parsed() -> None:
    text = "A" + "[B" * MAX_DEPTH + "]" * MAX_DEPTH
    assert by_parse(text) == by_eval(text)


NAMES = st.sampled_from([*PROBES, "int", "str", "None", "True", "missing", "lambda", "if", "é"])
NUMBERS = st.sampled_from(["0", "1", "12", "-3", "- 4", "1.5", "-0.5", "01", "1_0", "1e3", "1."])
STRINGS = st.sampled_from(["'a'", '"b c"', "''", "'it\\'s'", "b'x'", "'\\n'", '"q\'"'])
JUNK = st.sampled_from([" ", ",", "(", ")", "[", "]", "|", ".", "=", "-", "*", ":", "+", "\t"])


def texts() -> st.SearchStrategy[str]:
    atoms = st.one_of(NAMES, NUMBERS, STRINGS, st.just("..."))

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        items = st.lists(inner, max_size=3).map(", ".join)
        keyword = st.tuples(st.sampled_from(["x", "y", "None"]), inner).map("=".join)
        arguments = st.lists(st.one_of(inner, keyword), max_size=3).map(", ".join)
        return st.one_of(
            st.tuples(inner, NAMES).map(".".join),
            st.tuples(inner, items).map(lambda p: f"{p[0]}[{p[1]}]"),
            st.tuples(inner, arguments).map(lambda p: f"{p[0]}({p[1]})"),
            st.tuples(inner, inner).map(" | ".join),
            items.map(lambda i: f"[{i}]"),
            items.map(lambda i: f"({i})"),
            inner.map(lambda i: f"({i},)"),
        )

    return st.recursive(atoms, extend, max_leaves=12)


@st.composite
def broken(draw: st.DrawFn) -> str:
    """A generated text with a stray character put in or one taken out."""
    text = draw(texts())
    at = draw(st.integers(0, len(text)))
    if draw(st.booleans()) or not text:
        return text[:at] + draw(JUNK) + text[at:]
    return text[:at] + text[at + 1 :]


@given(st.one_of(texts(), broken()))
def test_generated_texts_agree_with_eval(text: str) -> None:
    try:
        compile(text, "<annotation>", "eval")
    except (SyntaxError, ValueError):
        assert parse(text) is None, text
        return
    if parse(text) is not None:
        assert by_parse(text) == by_eval(text)


def test_a_registered_tool_keeps_parsed_and_compiled_texts_apart() -> None:
    """A future-annotations function: the texts inside the part are cached as trees, the one
    outside as code, and the schema is what the annotations say."""
    source = (
        "from __future__ import annotations\n"
        "def pick(kind: Literal['a', 'b'], count: Annotated[int, 'how many'] = 1,"
        " extra: list[int] if True else int = []) -> None:\n"
        "    'Pick some.'\n"
    )
    space: dict[str, Any] = {"Literal": Literal, "Annotated": Annotated}
    exec(compile(source, "<pick>", "exec"), space)
    hints._ANNOTATION_CODE.clear()
    tool = infer_tool(space["pick"])
    cached = {text: type(code).__name__ for text, code in hints._ANNOTATION_CODE.items()}
    assert cached == {
        "Literal['a', 'b']": "tuple",
        "Annotated[int, 'how many']": "tuple",
        "list[int] if True else int": "code",
        "None": "tuple",
    }
    assert tool.schema == {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": ["a", "b"]},
            "count": {"type": "integer", "description": "how many", "default": 1},
            "extra": {"type": "array", "items": {"type": "integer"}, "default": []},
        },
        "required": ["kind"],
    }
