"""Rules the port shares with the TypeScript SDK (``kaoruisaac/pedelec`` v0.1.23): per-call and
declared timeouts, manifests in both directions, and what a blank description is.

Each test names the upstream file and function whose rule it mirrors, or says where the port
differs on purpose.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Annotated, Any

import pytest

from pedelec._text import JS_WHITESPACE, RUST_WHITESPACE, is_blank, js_trim
from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.limits import MAX_TIMEOUT_MS, Limits
from pedelec.markers import Description
from pedelec.session import Session
from pedelec.tools import define_tool, tool

HERE = Path(__file__).resolve().parent
TRIM = json.loads((HERE / "trim" / "js_trim.json").read_text("utf-8"))
SHAPE_RAIN = json.loads((HERE / "upstream" / "shape-rain-schemas.json").read_text("utf-8"))
OBJ: Any = {"type": "object", "properties": {}}
AGAIN = "Correct the arguments and call the tool again."


def invalid(fn: Any, *args: Any, **kwargs: Any) -> PedelecError:
    with pytest.raises(PedelecError) as info:
        fn(*args, **kwargs)
    assert info.value.code == INVALID_INPUT
    return info.value


# --- timeouts declared by a tool -----------------------------------------------------------------


@pytest.mark.parametrize("given", [3000, 3000.0])
def test_declared_timeout_takes_an_integral_float(given: Any) -> None:
    """As the SDK's ``normalizeSkillsInput`` (sdk/src/index.ts), ``Number.isInteger``: 3000.0
    is an integer; it is stored, and written to manifests, as the int 3000."""
    defined = define_tool(name="t", description="T.", schema=OBJ, timeout_ms=given)

    @tool("u", schema=OBJ, timeout_ms=given)
    def decorated(args: Any) -> None:
        """U."""

    session = Session()

    @session.on_tool("v", description="V.", schema=OBJ, timeout_ms=given)
    def on_tool(args: Any) -> None: ...

    manifest = Session.from_manifest({"tools": [dict(defined.spec(), timeoutMs=given)]})
    for timeout in (
        defined.timeout_ms,
        decorated.timeout_ms,
        session.tool_spec("v")["timeoutMs"],
        manifest.tool_spec("t")["timeoutMs"],
    ):
        assert (type(timeout), timeout) == (int, 3000)
    assert json.dumps(manifest.manifest()["tools"][0]["timeoutMs"]) == "3000"


def test_declared_timeout_may_reach_the_maximum() -> None:
    defined = define_tool(name="t", description="T.", schema=OBJ, timeout_ms=MAX_TIMEOUT_MS)
    assert (defined.timeout_ms, MAX_TIMEOUT_MS) == (9_007_199_254_740_991, 2**53 - 1)


TOO_LONG = (
    'Tool "t": timeout_ms may be at most 9007199254740991 ms (pedelec.limits.MAX_TIMEOUT_MS, '
    "about 285 000 years), got {}."
)


@pytest.mark.parametrize(
    ("given", "shown"),
    [
        pytest.param(2**53, "9007199254740992", id="max-plus-one"),
        pytest.param(2**64, "18446744073709551616", id="u64-overflow"),
        pytest.param(1e16, "1e+16", id="float"),
        # Accepted before, and then every call raised OverflowError turning it into seconds.
        pytest.param(10**400, "1" + "0" * 38 + "…", id="ten-to-the-400"),
    ],
)
def test_declared_timeout_above_the_maximum_is_refused(given: Any, shown: str) -> None:
    err = invalid(define_tool, name="t", description="T.", schema=OBJ, timeout_ms=given)
    assert (err.message, err.details) == (
        TOO_LONG.format(shown),
        {"tool": "t", "field": "timeout_ms"},
    )


@pytest.mark.parametrize(
    ("given", "shown"),
    [(1.5, "1.5"), (-3000.0, "-3000.0"), (float("nan"), "nan"), (float("inf"), "inf")],
)
def test_declared_timeout_that_is_not_a_positive_integer(given: Any, shown: str) -> None:
    err = invalid(define_tool, name="t", description="T.", schema=OBJ, timeout_ms=given)
    assert err.message == (
        f'Tool "t": timeout_ms must be a positive integer of milliseconds, got {shown}.'
    )


def test_call_timeout_ceiling_is_bounded_by_the_maximum() -> None:
    assert Limits(max_call_timeout_ms=MAX_TIMEOUT_MS).max_call_timeout_ms == MAX_TIMEOUT_MS
    err = invalid(Limits, max_call_timeout_ms=MAX_TIMEOUT_MS + 1)
    assert (err.message, err.details) == (
        "Limits(max_call_timeout_ms=...) may be at most 9007199254740991 "
        "(pedelec.limits.MAX_TIMEOUT_MS), the longest timeout a tool may declare, got "
        "9007199254740992.",
        {"limit": "max_call_timeout_ms"},
    )


# --- per-call timeoutMs --------------------------------------------------------------------------


def timeout_session(**kwargs: Any) -> Session:
    session = Session(**kwargs)

    @session.on_tool("sync_", description="Sync.", schema=OBJ)
    def sync_(args: Any, ctx: Any) -> Any:
        return ctx.timeout_ms

    @session.on_tool("async_", description="Async.", schema=OBJ)
    async def async_(args: Any, ctx: Any) -> Any:
        await asyncio.sleep(0)  # suspends, so the deadline timer is armed
        return ctx.timeout_ms

    @session.on_tool("long_", description="Long.", schema=OBJ, timeout_ms=MAX_TIMEOUT_MS)
    def long_(args: Any, ctx: Any) -> Any:
        return ctx.timeout_ms

    return session


def test_longest_timeouts_run_in_every_runner() -> None:
    """The longest timeout an agent may ask for under the highest ceiling (and the longest a
    tool may declare) reaches every runner (inline, async, worker thread) without an
    OverflowError; no runner hands it to ``threading``, whose ``TIMEOUT_MAX`` is lower."""
    session = timeout_session(limits=Limits(max_call_timeout_ms=MAX_TIMEOUT_MS))
    args = {"timeoutMs": MAX_TIMEOUT_MS}
    assert session.dispatch_sync("sync_", args).to_json() == MAX_TIMEOUT_MS
    assert session.dispatch_sync("async_", args).to_json() == MAX_TIMEOUT_MS
    assert session.dispatch_sync("long_", {}).to_json() == MAX_TIMEOUT_MS

    async def awaited() -> list[Any]:
        return [
            (await session.dispatch(name, dict(args))).to_json()
            for name in ("sync_", "async_", "long_")
        ]

    assert asyncio.run(awaited()) == [MAX_TIMEOUT_MS] * 3


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        pytest.param(10**400, "1" + "0" * 38 + "…", id="ten-to-the-400"),
        pytest.param(10**5000, "<integer of 16610 bits>", id="too-long-for-str"),
        pytest.param(1e300, "1e+300", id="float"),
        pytest.param(2**64, "18446744073709551616", id="u64-overflow"),
    ],
)
def test_huge_call_timeouts_are_refused_not_raised(raw: Any, shown: str) -> None:
    session = timeout_session(limits=Limits(max_call_timeout_ms=MAX_TIMEOUT_MS))
    result = session.dispatch_sync("sync_", {"timeoutMs": raw})
    clause = (
        f"this call's timeout may be at most 9007199254740991 ms, got {shown}; ask for less or "
        "leave timeoutMs out to use the tool's own timeout"
    )
    assert result.to_json() == {
        "error": {
            "code": "TOOL_ARGS_INVALID",
            "message": f'Invalid arguments for tool "sync_": /timeoutMs: {clause} (timeoutMs). '
            f"{AGAIN}",
            "details": {
                "tool": "sync_",
                "errors": [{"path": "/timeoutMs", "keyword": "timeoutMs", "message": clause}],
            },
        }
    }


def test_declared_timeout_arg_is_the_calls_timeout() -> None:
    """Upstream's ``ToolRegistry::normalize_tool_call`` (desktop/crates/pedelec-core/src/lib.rs):
    a ``timeoutMs`` the schema declares stays in the args *and* sets the call's timeout (its
    test ``wait_for_counter`` passes ``{"timeoutMs": 25}`` and gets a 25 ms timeout)."""
    session = Session()
    schema: Any = {
        "type": "object",
        "properties": {"timeoutMs": {"type": "integer"}},
        "required": ["timeoutMs"],
    }

    @session.on_tool("wait_for_counter", description="Wait.", schema=schema, timeout_ms=5000)
    async def wait_for_counter(args: Any, ctx: Any) -> Any:
        await asyncio.sleep(1)
        return args

    result = asyncio.run(session.dispatch("wait_for_counter", {"timeoutMs": 25}))
    assert result.to_json() == {
        "error": {
            "code": "TOOL_TIMEOUT",
            "message": 'Tool "wait_for_counter" did not finish within 25 ms.',
            "details": {"tool": "wait_for_counter", "timeoutMs": 25},
        }
    }


def test_typed_tool_null_timeout_means_not_given() -> None:
    """A typed tool's optional ``timeoutMs`` sent as null is "not given" (the port's null rule
    for optional parameters), not a bad timeout: the tool's own timeout applies."""

    @tool
    def wait(timeoutMs: int | None = None) -> str:
        """Wait."""
        return f"{timeoutMs}"

    session = Session(tools=[wait])
    assert session.dispatch_sync("wait", {"timeoutMs": None}).to_json() == "None"
    assert session.dispatch_sync("wait", {"timeoutMs": 7}).to_json() == "7"


# --- manifests ----------------------------------------------------------------------------------


def test_unknown_manifest_keys_are_ignored_and_not_kept() -> None:
    """The SDK's ``normalizeSkillsInput`` (sdk/src/index.ts) copies only name, description,
    argsSchema and timeoutMs; the Core's ``RawToolRegistry``/``RawToolDefinition``
    (pedelec-core/src/lib.rs) are serde structs that ignore other fields."""
    session = Session.from_manifest(
        {
            "version": 2,
            "$schema": "https://example.com/manifest.json",
            "guidance": "G.",
            "tools": [
                {
                    "name": "t",
                    "icon": "T",
                    "description": "T.",
                    "argsSchema": OBJ,
                    "tags": {"readOnly": True},
                    "timeoutMs": 3000.0,
                }
            ],
        }
    )
    assert session.manifest() == {
        "guidance": "G.",
        "tools": [{"name": "t", "description": "T.", "argsSchema": OBJ, "timeoutMs": 3000}],
    }


def test_manifest_file_with_a_float_timeout(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_text(
        '{"guidance": "", "tools": [{"name": "t", "description": "T.", '
        '"argsSchema": {"type": "object"}, "timeoutMs": 3000.0}]}',
        "utf-8",
    )
    assert Session.from_manifest(path).tool_spec("t")["timeoutMs"] == 3000


def test_manifest_timeout_past_u64_is_refused() -> None:
    err = invalid(
        Session.from_manifest,
        {"tools": [{"name": "t", "description": "T.", "argsSchema": OBJ, "timeoutMs": 2**64}]},
    )
    assert (err.message, err.details) == (
        TOO_LONG.format("18446744073709551616"),
        {"tool": "t", "field": "timeout_ms"},
    )


def test_manifest_schemas_outside_the_subset_are_listed_in_one_error() -> None:
    """Upstream's Core compiles full JSON Schema 2020-12 (``validate_tool_args_schema_with_code``
    in pedelec-core/src/lib.rs), so its manifests may use keywords the subset refuses: every one
    of them, in every tool, is in one ``INVALID_INPUT`` that points to the converter."""
    manifest = {
        "guidance": "",
        "tools": [
            {
                "name": "a",
                "description": "A.",
                "argsSchema": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {"n": {"type": "integer", "exclusiveMinimum": 0}},
                },
            },
            {"name": "ok", "description": "Fine.", "argsSchema": OBJ},
            {
                "name": "b",
                "description": "B.",
                "argsSchema": {"type": "object", "properties": {"c": {"const": "x"}}},
            },
            {"name": 5, "description": "No name.", "argsSchema": {"type": "array"}},
        ],
    }
    err = invalid(Session.from_manifest, manifest)
    object_node = "Tool Args Schema object node (allowed: description, default, examples, "
    additional = (
        f'"additionalProperties" is not supported in a {object_node}properties, required); '
        "remove it (to reject undeclared arguments, use Session(reject_unknown_args=True))"
    )
    exclusive = (
        '"exclusiveMinimum" is not supported in a Tool Args Schema integer node (allowed: '
        'description, default, examples, enum, minimum, maximum); use "minimum" (inclusive) '
        "instead"
    )
    const = (
        '"const" is not supported in a Tool Args Schema; use "enum" with a single value on a '
        "string, number, integer or boolean node"
    )
    root = (
        'the root must be {"type": "object", ...}, got "type": "array"; a tool\'s arguments are '
        'always an object (a tool without arguments uses {"type": "object", "properties": {}})'
    )
    assert err.message == (
        "The manifest's schemas are outside the Tool Args Schema subset in 4 places; fix them as "
        "each line says, or convert each argsSchema with pedelec.schema.convert or "
        "`pedelec convert FILE`:\n"
        f'- tool "a" at /additionalProperties: {additional}.\n'
        f'- tool "a" at /properties/n/exclusiveMinimum: {exclusive}.\n'
        f'- tool "b" at /properties/c/const: {const}.\n'
        f"- tools[3] at /type: {root}."
    )
    assert err.details == {
        "problems": [
            {
                "tool": "a",
                "index": 0,
                "pointer": "/additionalProperties",
                "keyword": "additionalProperties",
                "message": additional,
            },
            {
                "tool": "a",
                "index": 0,
                "pointer": "/properties/n/exclusiveMinimum",
                "keyword": "exclusiveMinimum",
                "message": exclusive,
            },
            {
                "tool": "b",
                "index": 2,
                "pointer": "/properties/c/const",
                "keyword": "const",
                "message": const,
            },
            {"tool": None, "index": 3, "pointer": "/type", "keyword": "type", "message": root},
        ]
    }


def test_one_problem_is_still_the_manifest_error() -> None:
    err = invalid(
        Session.from_manifest,
        [{"name": "a", "description": "A.", "argsSchema": {"type": "object", "title": "A"}}],
    )
    assert err.message == (
        "The manifest's schemas are outside the Tool Args Schema subset in 1 place; fix it as "
        "each line says, or convert each argsSchema with pedelec.schema.convert or "
        "`pedelec convert FILE`:\n"
        '- tool "a" at /title: "title" is not supported in a Tool Args Schema object node '
        "(allowed: description, default, examples, properties, required); put the text in "
        '"description".'
    )


_TOOL_NAME = re.compile(r"^[a-zA-Z][a-zA-Z0-9_.-]*$")


def upstream_reads(manifest: Any) -> None:
    """Assert what upstream's readers require of a manifest, from their code.

    The SDK's ``normalizeSkillsInput`` (sdk/src/index.ts): ``guidance`` a string, ``tools`` an
    array of objects, ``name`` matching ``TOOL_NAME_PATTERN`` and unique, ``description`` a
    string non-empty after JavaScript's ``trim``, ``timeoutMs`` absent or a positive integer,
    ``argsSchema`` an object with ``type: "object"``. Then the Core's
    ``ToolRegistry::from_skills_input`` (pedelec-core/src/lib.rs): ``timeoutMs`` a ``u64``,
    ``description`` non-empty after Rust's ``trim``, ``argsSchema`` a valid JSON Schema. A
    timeout is also held to 2**53 - 1, so ``JSON.parse`` in the SDK reads it exactly.
    """
    import jsonschema

    assert isinstance(manifest["guidance"], str)
    tools = manifest["tools"]
    assert isinstance(tools, list)
    names = [entry["name"] for entry in tools]
    assert len(set(names)) == len(names)
    for entry in tools:
        assert isinstance(entry, dict)
        assert isinstance(entry["name"], str) and _TOOL_NAME.match(entry["name"])
        description = entry["description"]
        assert isinstance(description, str)
        assert description.strip(JS_WHITESPACE) and description.strip(RUST_WHITESPACE)
        if "timeoutMs" in entry:
            timeout = entry["timeoutMs"]
            assert type(timeout) is int and 0 < timeout <= 2**53 - 1
        schema = entry["argsSchema"]
        assert isinstance(schema, dict) and schema["type"] == "object"
        jsonschema.Draft202012Validator.check_schema(schema)
        # The SDK keeps only what JSON.stringify keeps: the schema survives a JSON round trip.
        assert json.loads(json.dumps(schema)) == schema


def typed_session() -> Session:
    session = Session(guidance="Shapes.")

    @session.tool(timeout_ms=1500.0)
    def place(
        x: int, label: str | None = None, tags: list[str] | None = None, *, note: str = "n"
    ) -> str:
        """Place a shape."""
        return label or ""

    @session.on_tool("zwnbsp", description="\ufeffx\u0085", schema=OBJ)
    def zwnbsp(args: Any) -> None: ...

    return session


def test_a_manifest_the_port_writes_is_one_upstream_reads() -> None:
    shapes = Session.from_manifest(
        {
            "guidance": "Rain.",
            "tools": [
                {"name": name, "description": f"{name}.", "argsSchema": schema}
                for name, schema in SHAPE_RAIN.items()
            ],
        }
    )
    edge = Session(
        tools=[define_tool(name="long", description="L.", schema=OBJ, timeout_ms=MAX_TIMEOUT_MS)]
    )
    for session in (shapes, typed_session(), edge, Session()):
        upstream_reads(session.manifest())


#: The solid SDK demo's skills (demo/solid-sdk-demo/src/App.tsx, ``createDemoSkills``) as the
#: SDK's ``normalizeSkillsInput`` writes them, plus the shape-rain demo's two tools.
UPSTREAM_MANIFEST: Any = {
    "guidance": "Use these tools when you need browser page context, selected text, or explicit "
    "input from the user. Do not guess page state.",
    "tools": [
        {
            "name": "get_current_page",
            "description": "Read the current browser page title and URL.",
            "argsSchema": {"type": "object", "properties": {}, "required": []},
            "timeoutMs": 60000,
        },
        {
            "name": "ask_user",
            "description": "Ask the user a question and wait for their text response.",
            "argsSchema": {
                "type": "object",
                "properties": {"question": {"type": "string"}},
                "required": ["question"],
            },
            "timeoutMs": 60000,
        },
        *[
            {"name": name, "description": "Spawn shapes.", "argsSchema": schema, "timeoutMs": 60000}
            for name, schema in SHAPE_RAIN.items()
        ],
    ],
}


def test_a_manifest_upstream_writes_is_one_the_port_reads() -> None:
    session = Session.from_manifest(json.loads(json.dumps(UPSTREAM_MANIFEST)))
    assert session.manifest() == UPSTREAM_MANIFEST
    upstream_reads(session.manifest())


# --- blank text: JavaScript's trim, and Rust's ---------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), TRIM["rows"])
def test_js_trim_matches_javascript(text: str, expected: str) -> None:
    """Rows written by ``node tests/trim/gen_js_trim.mjs``: ``text.trim()`` as V8 answers."""
    assert js_trim(text) == expected


def test_js_trim_table_is_complete() -> None:
    rows = dict(TRIM["rows"])
    # The table's full scan is the whole set trim() removes, and it holds every character
    # Python's str.isspace() calls whitespace, where the two could disagree.
    assert {t for t, trimmed in rows.items() if len(t) == 1 and trimmed == ""} == set(JS_WHITESPACE)
    assert {chr(c) for c in range(0x110000) if chr(c).isspace()} <= set(rows)


def test_rust_whitespace_is_javascripts_without_zwnbsp_with_nel() -> None:
    """Rust's ``str::trim`` uses Unicode ``White_Space``: JavaScript's set minus U+FEFF (not
    White_Space) plus U+0085 NEL (White_Space, not an ECMA-262 LineTerminator)."""
    assert set(RUST_WHITESPACE) == (set(JS_WHITESPACE) - {"\ufeff"}) | {"\x85"}


BLANK = (
    'Tool "t" needs a description (a non-empty string) that tells the agent when to use it; '
    "got an empty string."
)


@pytest.mark.parametrize(
    ("text", "blank"),
    [
        pytest.param("\ufeff", True, id="zwnbsp-trimmed-by-javascript"),
        pytest.param("\x85", True, id="nel-trimmed-by-rust"),
        pytest.param(" \u3000\u2028\t", True, id="both"),
        pytest.param("\x1c", False, id="separator-kept-by-both"),
        pytest.param("\ufeff\x85", False, id="each-keeps-one"),
        pytest.param("\u200b", False, id="zero-width-space"),
        pytest.param("\u180e", False, id="mongolian-vowel-separator"),
    ],
)
def test_description_blank_as_upstream(text: str, blank: bool) -> None:
    """SDK ``normalizeSkillsInput``: ``description.trim().length === 0`` is refused; Core
    ``from_skills_input``: ``description.trim().is_empty()`` is refused (Rust's trim)."""
    assert is_blank(text) is blank
    entry = {"name": "t", "description": text, "argsSchema": OBJ}
    if blank:
        err = invalid(define_tool, name="t", description=text, schema=OBJ)
        assert (err.message, err.details) == (BLANK, {"tool": "t", "field": "description"})
        assert invalid(Session, tools=[entry]).message == BLANK
    else:
        assert define_tool(name="t", description=text, schema=OBJ).description == text
        assert Session(tools=[entry]).tool_spec("t")["description"] == text


def test_typed_descriptions_blank_as_upstream() -> None:
    def zwnbsp(n: int) -> int:
        """\ufeff"""
        return n

    err = invalid(tool, zwnbsp)
    assert err.message == (
        'Tool "zwnbsp" has no description; give the function a docstring or pass description="..."'
    )

    def separator(n: int) -> int:
        return n

    assert tool(description="\x1c")(separator).description == "\x1c"
    err = invalid(Description, "\ufeff")
    assert (err.message, err.details) == (
        "Description: the description must be non-empty text, got '\\ufeff'.",
        {"marker": "Description"},
    )
    assert Description("\x1c").value == "\x1c"


def test_annotated_descriptions_blank_as_upstream() -> None:
    def blank(n: Annotated[int, "\ufeff"]) -> int:
        """Blank."""
        return n

    err = invalid(tool, blank)
    assert (err.message, err.details) == (
        'Parameter "n" of tool "blank": an empty string in Annotated[...] is not a description.',
        {"tool": "blank", "parameter": "n"},
    )

    def kept(n: Annotated[int, "\x1c"]) -> int:
        """Kept."""
        return n

    assert tool(kept).schema["properties"]["n"] == {"type": "integer", "description": "\x1c"}
