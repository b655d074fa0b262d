"""Output schemas (DESIGN §10, issue 14 item 4): declared on every kind of tool, inferred from a
typed tool's return annotation, and checked against every successful result."""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import threading
from collections.abc import Mapping
from typing import Annotated, Any, Literal, NotRequired, TypedDict

import pytest
from pydantic import BaseModel, Field

from pedelec import Limits, PedelecError, Session, ToolResult, define_tool, tool

ARGS: dict[str, Any] = {"type": "object"}  # "r", the result to return, is undeclared
NO_ARGS: dict[str, Any] = {"type": "object"}
COUNT = {
    "type": "object",
    "properties": {
        "count": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["count"],
}
SCORE = {"type": "number", "minimum": 0, "maximum": 1}
ENDING = (
    ". This is a bug in the tool, not in the arguments; calling it again unchanged will not help."
)


def mismatch(tool_name: str, listed: str) -> str:
    return f'Tool "{tool_name}" returned a result that does not match its output schema: {listed}{ENDING}'


def echo(args: dict[str, Any]) -> Any:
    return args["r"]


async def echo_async(args: dict[str, Any]) -> Any:
    await asyncio.sleep(0)
    return args["r"]


def echo_ctx(args: dict[str, Any], ctx: Any) -> Any:
    return args["r"]


HANDLERS = [echo, echo_async, echo_ctx]

# (output schema, returned value, None when it matches or the mismatch listing)
CASES: list[tuple[dict[str, Any], Any, str | None]] = [
    (COUNT, {"count": 3}, None),
    (COUNT, {"count": 3, "tags": ["a"], "extra": True}, None),  # undeclared keys are allowed
    (COUNT, {"count": 3.0}, None),  # 3.0 is an integer
    (
        COUNT,
        {"count": "3", "tags": ["a", 2]},
        '/count: expected integer, got string "3" (type); /tags/1: expected string, got integer 2 (type)',
    ),
    (COUNT, {}, '(root): missing required property "count" (required)'),
    (COUNT, [1], "(root): expected object, got array of 1 item (type)"),
    (COUNT, None, "(root): expected object, got null (type)"),
    (COUNT, 7, "(root): expected object, got integer 7 (type)"),
    (SCORE, 0.5, None),
    (SCORE, 1, None),
    (SCORE, 2, "(root): must be <= 1, got 2 (maximum)"),
    (SCORE, None, "(root): expected number, got null (type)"),
    (SCORE, True, "(root): expected number, got boolean true (type)"),
    ({"type": "string", "enum": ["on", "off"]}, "on", None),
    (
        {"type": "string", "enum": ["on", "off"]},
        "up",
        '(root): must be one of "on", "off"; got "up" (enum)',
    ),
    ({"type": "array", "items": {"type": "integer"}, "maxItems": 2}, [1, 2], None),
    (
        {"type": "array", "items": {"type": "integer"}, "maxItems": 2},
        [1, 2, 3],
        "(root): must have at most 2 items, got 3 (maxItems)",
    ),
    (
        {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        1.5,
        "(root): matches none of the 2 alternatives: [1] (root): expected string, got number "
        "1.5; [2] (root): expected integer, got number 1.5 (oneOf)",
    ),
]


@pytest.mark.parametrize("handler", HANDLERS, ids=lambda h: h.__name__)
@pytest.mark.parametrize(("output", "value", "listed"), CASES)
def test_every_result_is_checked_against_the_output_schema(
    handler: Any, output: dict[str, Any], value: Any, listed: str | None
) -> None:
    session = Session()
    reported: list[ToolResult] = []
    session.on_error(reported.append)
    session.on_tool("t", description="T.", schema=ARGS, output_schema=output)(handler)
    outcomes = [
        session.dispatch_sync("t", {"r": value}),
        asyncio.run(session.dispatch("t", {"r": value})),
    ]
    for result in outcomes:
        if listed is None:
            assert (result.error, result.value) == (None, value)
        else:
            assert result.error is not None
            assert (result.error.code, result.error.message, result.value) == (
                "SUBMIT_TOOL_RESULT_FAILED",
                mismatch("t", listed),
                None,
            )
            assert result.error.details is not None
            assert result.error.details["tool"] == "t"
            assert "; ".join(str_error(e) for e in result.error.details["errors"]) == listed
    assert reported == ([] if listed is None else [r for r in outcomes])


def str_error(error: dict[str, str]) -> str:
    return f"{error['path'] or '(root)'}: {error['message']} ({error['keyword']})"


def test_the_inline_fast_path_checks_none_and_int_results() -> None:
    # dispatch_sync answers a None or small int result of a sync handler without settle: a tool
    # with an output schema must not take that shortcut.
    session = Session()
    reported: list[ToolResult] = []
    session.on_error(reported.append)
    session.on_tool("n", description="N.", schema=ARGS, output_schema={"type": "string"})(echo)
    session.on_tool("plain", description="P.", schema=ARGS)(echo)
    none, number = session.dispatch_sync("n", {"r": None}), session.dispatch_sync("n", {"r": 5})
    assert [r.error.message if r.error else None for r in (none, number)] == [
        mismatch("n", "(root): expected string, got null (type)"),
        mismatch("n", "(root): expected string, got integer 5 (type)"),
    ]
    assert reported == [none, number]
    assert [session.dispatch_sync("plain", {"r": v}).value for v in (None, 5)] == [None, 5]


def test_worker_threads_check_too() -> None:
    session = Session(sync_dispatch="worker")
    session.on_tool("n", description="N.", schema=ARGS, output_schema=SCORE)(echo)
    assert session.dispatch_sync("n", {"r": 0.25}).value == 0.25
    error = session.dispatch_sync("n", {"r": -1}).error
    assert error is not None
    assert error.message == mismatch("n", "(root): must be >= 0, got -1 (minimum)")


def test_concurrent_calls_from_threads_each_get_their_own_verdict() -> None:
    session = Session()
    session.on_tool("n", description="N.", schema=ARGS, output_schema={"type": "integer"})(echo)
    verdicts: dict[int, bool] = {}

    def call(i: int) -> None:
        verdicts[i] = session.dispatch_sync("n", {"r": i if i % 2 else str(i)}).is_error

    threads = [threading.Thread(target=call, args=(i,)) for i in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert verdicts == {i: i % 2 == 0 for i in range(40)}


def test_errors_and_domain_errors_are_not_checked() -> None:
    session = Session()
    session.on_tool("t", description="T.", schema=ARGS, output_schema=COUNT)(echo)

    @session.on_tool("raises", description="R.", schema=NO_ARGS, output_schema=COUNT)
    def raises(args: Any) -> Any:
        raise PedelecError("NOT_FOUND", "No such item.")

    envelope = {"error": {"code": "NOPE", "message": "No."}}
    assert session.dispatch_sync("t", {"r": envelope}).to_json() == envelope
    assert session.dispatch_sync("raises", {}).to_json() == {
        "error": {"code": "NOT_FOUND", "message": "No such item."}
    }
    args_error = session.dispatch_sync("t", {"r": 1, "timeoutMs": 0}).error
    assert args_error is not None and args_error.code == "TOOL_ARGS_INVALID"


def test_a_named_or_fallback_handler_is_checked_like_the_inline_one() -> None:
    session = Session.from_manifest(
        {"tools": [{"name": "t", "description": "T.", "argsSchema": ARGS, "outputSchema": COUNT}]}
    )
    session.on_any_tool(lambda name, args, ctx: args["r"])
    assert session.dispatch_sync("t", {"r": {"count": 1}}).value == {"count": 1}
    assert session.dispatch_sync("t", {"r": {}}).is_error
    session.on_tool("t")(lambda args: {"count": "x"})
    error = session.dispatch_sync("t", {}).error
    assert error is not None
    assert error.message == mismatch("t", '/count: expected integer, got string "x" (type)')


def test_the_listing_shrinks_to_keep_the_error_within_max_result_bytes() -> None:
    session = Session(limits=Limits(max_result_bytes=1024, max_errors=50))
    items = {"type": "array", "items": {"type": "integer"}}
    session.on_tool("t", description="T.", schema=ARGS, output_schema=items)(echo)
    result = session.dispatch_sync("t", {"r": ["x" * 10] * 40})
    assert result.error is not None
    errors = result.error.details["errors"]  # type: ignore[index]
    assert len(errors) == 5  # 40 halved until the text fits
    assert len(result.to_text().encode()) <= 1024
    assert result.error.message == mismatch(
        "t",
        "; ".join(f'/{i}: expected integer, got string "xxxxxxxxxx" (type)' for i in range(5)),
    )


def test_a_long_string_is_not_a_mismatch_for_its_length() -> None:
    # The args' pattern bound (max_pattern_length) does not apply to a result's strings.
    session = Session(limits=Limits(max_result_bytes=4 * 1024 * 1024))
    node = {"type": "string", "pattern": "^a+$"}
    session.on_tool("t", description="T.", schema=ARGS, output_schema=node)(echo)
    assert session.dispatch_sync("t", {"r": "a" * 2_000_000}).error is None
    assert session.dispatch_sync("t", {"r": "a" * 2_000_000 + "b"}).is_error


# --- declaration ---------------------------------------------------------------------------


def declare_on_tool(output: Any) -> Session:
    session = Session()
    session.on_tool("t", description="T.", schema=NO_ARGS, output_schema=output)(echo)
    return session


def declare_define_tool(output: Any) -> Session:
    definition = define_tool(
        name="t", description="T.", schema=NO_ARGS, handler=echo, output_schema=output
    )
    return Session(tools=[definition])


def declare_tool(output: Any) -> Session:
    return Session(tools=[tool("t", description="T.", schema=NO_ARGS, output_schema=output)(echo)])


def declare_manifest(output: Any) -> Session:
    return Session.from_manifest(
        {
            "tools": [
                {"name": "t", "description": "T.", "argsSchema": NO_ARGS, "outputSchema": output}
            ]
        }
    )


def declare_typed(output: Any) -> Session:
    def t() -> int:
        """T."""
        return 1

    session = Session()
    session.tool(output_schema=output)(t)
    return session


DECLARE = [declare_on_tool, declare_define_tool, declare_tool, declare_manifest, declare_typed]


@pytest.mark.parametrize("declare", DECLARE, ids=lambda d: d.__name__)
@pytest.mark.parametrize(
    ("output", "message", "details"),
    [
        (
            {"type": "object", "additionalProperties": False},
            'Invalid output schema for tool "t" at /additionalProperties: "additionalProperties" '
            "is not supported in a Tool Args Schema object node (allowed: description, default, "
            "examples, properties, required); remove it (to reject undeclared arguments, use "
            "Session(reject_unknown_args=True)).",
            {"pointer": "/additionalProperties", "keyword": "additionalProperties"},
        ),
        (
            {"type": "null"},
            'Invalid output schema for tool "t" at /type: "type" must be one of "string", '
            '"number", "integer", "boolean", "array", "object", got string "null"; the subset has no '
            'null type; to let a value be missing, leave its property out of "required".',
            {"pointer": "/type", "keyword": "type"},
        ),
        (
            {"type": "array", "items": {"type": "integer", "minimum": 5, "maximum": 1}},
            'Invalid output schema for tool "t" at /items/minimum: "minimum" (5) is greater than '
            '"maximum" (1), so nothing can match; lower "minimum" or raise "maximum".',
            {"pointer": "/items/minimum", "keyword": "minimum"},
        ),
        (
            "integer",
            'Invalid output schema for tool "t" at the root: expected a schema node (an object '
            'with "type" or "oneOf"), got string "integer"; use e.g. {"type": "string"}.',
            {"pointer": "", "keyword": None},
        ),
    ],
)
def test_an_output_schema_is_checked_at_declaration_like_an_args_schema(
    declare: Any, output: Any, message: str, details: dict[str, Any]
) -> None:
    with pytest.raises(PedelecError) as caught:
        declare(output)
    assert (caught.value.code, caught.value.message, caught.value.details) == (
        "INVALID_INPUT",
        message,
        {**details, "tool": "t", "field": "output_schema"},
    )


@pytest.mark.parametrize("declare", DECLARE, ids=lambda d: d.__name__)
def test_an_output_schema_is_a_private_copy_in_the_spec(declare: Any) -> None:
    output: dict[str, Any] = {"type": "array", "items": {"type": "integer"}}
    session = declare(output)
    output["items"]["type"] = "string"
    spec = session.tool_spec("t")
    assert spec["outputSchema"] == {"type": "array", "items": {"type": "integer"}}
    spec["outputSchema"]["items"]["type"] = "boolean"
    assert session.tool_spec("t")["outputSchema"] == {"type": "array", "items": {"type": "integer"}}


def test_on_tool_without_schema_refuses_an_output_schema() -> None:
    session = declare_manifest(COUNT)
    with pytest.raises(PedelecError) as caught:
        session.on_tool("t", output_schema=COUNT)
    assert (caught.value.message, caught.value.details) == (
        'Tool "t": output_schema only applies when declaring the tool with schema= (a tool\'s '
        "results are checked whichever handler answers).",
        {"tool": "t", "field": "output_schema"},
    )


def test_manifest_round_trip_keeps_the_output_schema() -> None:
    session = Session()
    session.on_tool("a", description="A.", schema=NO_ARGS, output_schema=SCORE)(echo)
    session.on_tool("b", description="B.", schema=NO_ARGS)(echo)
    manifest = session.manifest()
    assert [t.get("outputSchema") for t in manifest["tools"]] == [SCORE, None]
    again = Session.from_manifest(manifest)
    assert again.manifest() == manifest
    again.on_tool("a")(lambda args: 3)
    error = again.dispatch_sync("a", {}).error
    assert error is not None and error.message == mismatch(
        "a", "(root): must be <= 1, got 3 (maximum)"
    )


# --- typed tools ----------------------------------------------------------------------------


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclasses.dataclass
class Point:
    """A point."""

    x: int
    color: Color = Color.RED


class Row(TypedDict):
    point: Point
    tags: list[str]
    note: NotRequired[str]


@dataclasses.dataclass
class Maybe:
    x: int | None = None


class LooseRow(TypedDict):
    note: NotRequired[str | None]


class Duck:
    def model_dump(self, mode: str = "python") -> dict[str, Any]:
        return {"v": 1}


POINT = {
    "type": "object",
    "properties": {
        "x": {"type": "integer"},
        "color": {"type": "string", "enum": ["red", "blue"], "default": "red"},
    },
    "required": ["x"],
    "description": "A point.",
}


class Plain(BaseModel):
    name: str
    size: int = Field(default=1, ge=0)


class Aliased(BaseModel):
    name: str = Field(alias="fullName")


class Nullable(BaseModel):
    name: str | None = None


class Hidden(BaseModel):
    name: str
    secret: str = Field(exclude=True)


def returning(annotation: Any) -> Any:
    def f() -> None:
        """F."""

    f.__annotations__ = {"return": annotation}
    return f


@pytest.mark.parametrize(
    ("annotation", "schema"),
    [
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (str, {"type": "string"}),
        (bool, {"type": "boolean"}),
        (list[str], {"type": "array", "items": {"type": "string"}}),
        (dict[str, Any], {"type": "object"}),
        (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
        (Color, {"type": "string", "enum": ["red", "blue"]}),
        (Point, POINT),
        (
            Row,
            {
                "type": "object",
                "properties": {
                    "point": POINT,
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "note": {"type": "string"},
                },
                "required": ["point", "tags"],
            },
        ),
        (
            str | list[int],
            {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "integer"}}]},
        ),
        # No schema: nothing returned, no annotation, or a type whose values the subset cannot
        # describe exactly (null, free-form values, tuples, a model known only by model_dump).
        (None, None),
        (Any, None),
        (int | None, None),
        (Point | None, None),
        (Maybe, None),
        (LooseRow, None),
        (list[Maybe], None),
        (tuple[int, ...], None),
        (dict[str, int], None),
        (dict[str, object], None),
        (Mapping[str, int], None),
        (list[dict[str, int]], None),
        (Annotated[dict[str, int], "note"], None),
        (dict[str, Any], {"type": "object"}),
        (Duck, None),
    ],
)
def test_a_typed_tool_infers_its_output_schema_from_the_return_annotation(
    annotation: Any, schema: dict[str, Any] | None
) -> None:
    fn = returning(annotation)
    session = Session()
    session.tool(fn)
    assert session.tool_spec("f").get("outputSchema") == schema
    assert tool(fn).output_schema == schema


def test_an_unannotated_return_has_no_output_schema() -> None:
    def f():  # type: ignore[no-untyped-def]
        """F."""
        return 1

    assert tool(f).output_schema is None


def test_typed_results_are_converted_then_checked() -> None:
    session = Session()
    reported: list[ToolResult] = []
    session.on_error(reported.append)

    @session.tool
    def place(x: int) -> Point:
        """Place a point."""
        return Point(x, Color.BLUE)

    @session.tool
    async def count(n: int) -> int:
        """Count."""
        return n if n >= 0 else "negative"  # type: ignore[return-value]

    @session.tool
    def lie() -> Point:
        """Lie about the type."""
        return {"x": "1"}  # type: ignore[return-value]

    assert session.dispatch_sync("place", {"x": 2}).value == {"x": 2, "color": "blue"}
    assert session.dispatch_sync("count", {"n": 3}).value == 3
    bad = [session.dispatch_sync("count", {"n": -1}), asyncio.run(session.dispatch("lie", {}))]
    assert [r.error.message if r.error else None for r in bad] == [
        mismatch("count", '(root): expected integer, got string "negative" (type)'),
        mismatch("lie", '/x: expected integer, got string "1" (type)'),
    ]
    assert reported == bad


def test_an_explicit_output_schema_replaces_the_inferred_one() -> None:
    @tool(output_schema={"type": "integer", "minimum": 0})
    def size() -> int:
        """Size."""
        return -1

    assert size.output_schema == {"type": "integer", "minimum": 0}
    error = Session(tools=[size]).dispatch_sync("size", {}).error
    assert error is not None
    assert error.message == mismatch("size", "(root): must be >= 0, got -1 (minimum)")


def test_a_return_annotation_no_json_fits_is_still_refused() -> None:
    with pytest.raises(PedelecError) as caught:
        Session().tool(returning(bytes))
    assert caught.value.details == {"tool": "f", "field": "return"}


def test_a_pydantic_model_return_gets_a_schema_only_when_model_dump_matches_it() -> None:
    @tool
    def plain() -> Plain:
        """Plain."""
        return Plain(name="a", size=2)

    assert plain.output_schema == {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "size": {"type": "integer", "minimum": 0, "default": 1},
        },
        "required": ["name"],
    }
    assert Session(tools=[plain]).dispatch_sync("plain", {}).value == {"name": "a", "size": 2}
    for model in (Aliased, Nullable, Hidden):
        assert tool(returning(model)).output_schema is None


def test_a_mismatch_on_a_very_long_path_still_fits_the_limit() -> None:
    key = "k" * 500
    session = Session(limits=Limits(max_result_bytes=1024))
    node = {"type": "object", "properties": {key: {"type": "integer"}}}
    session.on_tool("t", description="T.", schema=ARGS, output_schema=node)(echo)
    result = session.dispatch_sync("t", {"r": {key: "x"}})
    assert result.error is not None
    assert (result.error.message, result.error.details) == (
        'Tool "t" returned a result that does not match its output schema' + ENDING,
        {"tool": "t", "errors": []},
    )
    assert len(result.to_text().encode()) <= 1024
