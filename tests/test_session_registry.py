"""Registration: Session(tools=...), decorators, handler priority and removal, manifests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pedelec._context import ToolCallContext
from pedelec.errors import INVALID_INPUT, PedelecError
from pedelec.limits import Limits
from pedelec.session import Session
from pedelec.tools import define_tool, tool

OBJ: Any = {"type": "object", "properties": {"n": {"type": "integer"}}}
UPSTREAM = Path(__file__).resolve().parent / "upstream" / "shape-rain-schemas.json"


def invalid(fn: Any, *args: Any, **kwargs: Any) -> PedelecError:
    with pytest.raises(PedelecError) as info:
        fn(*args, **kwargs)
    assert info.value.code == INVALID_INPUT
    return info.value


def test_session_defaults() -> None:
    session = Session()
    assert session.guidance == ""
    assert len(session.session_id) == 32 and int(session.session_id, 16) >= 0
    assert Session().session_id != session.session_id
    assert session.status == "idle"
    assert session.tool_names() == []
    assert session.limits == Limits()
    assert repr(Session(session_id="s")) == "<pedelec Session 's' status='idle' tools=[]>"


@pytest.mark.parametrize(
    ("kwargs", "message", "details"),
    [
        ({"guidance": 3}, "guidance must be a string, got int.", {"field": "guidance"}),
        (
            {"session_id": ""},
            "session_id must be a non-empty string, got ''.",
            {"field": "session_id"},
        ),
        (
            {"session_id": 5},
            "session_id must be a non-empty string, got 5.",
            {"field": "session_id"},
        ),
        ({"limits": {}}, "limits must be a pedelec.Limits, got dict.", {"field": "limits"}),
        (
            {"tools": "abc"},
            "tools must be a list of tool definitions, got a single str.",
            {"field": "tools"},
        ),
        (
            {"tools": {"name": "t"}},
            "tools must be a list of tool definitions, got a single dict.",
            {"field": "tools"},
        ),
        (
            {"tools": [3]},
            'tools[0] must be a tool definition (define_tool, @tool) or a dict with "name", '
            '"description" and "argsSchema", got int.',
            {"index": 0},
        ),
        (
            {"tools": [{"name": "t", "description": "T."}]},
            'Tool "t" has no "argsSchema"; every tool needs one (a tool without arguments uses '
            '{"type": "object", "properties": {}}).',
            {"tool": "t", "index": 0, "field": "argsSchema"},
        ),
    ],
)
def test_session_arguments_are_checked(kwargs: dict[str, Any], message: str, details: Any) -> None:
    err = invalid(Session, **kwargs)
    assert (err.message, err.details) == (message, details)


def test_tools_from_definitions_and_dicts() -> None:
    defined = define_tool(name="a", description="A.", schema=OBJ, handler=lambda args: "a")
    session = Session(
        tools=[
            defined,
            {
                "name": "b",
                "description": "B.",
                "argsSchema": OBJ,
                "timeoutMs": 9,
                "handler": lambda args: "b",
            },
            {"name": "c", "description": "C.", "argsSchema": OBJ},
        ]
    )
    assert session.tool_names() == ["a", "b", "c"]
    assert session.dispatch_sync("a", {}).value == "a"
    assert session.dispatch_sync("b", {}).value == "b"
    assert session.dispatch_sync("c", {}).error.code == "TOOL_HANDLER_NOT_FOUND"  # type: ignore[union-attr]
    assert session.tool_spec("b") == {
        "name": "b",
        "description": "B.",
        "argsSchema": OBJ,
        "timeoutMs": 9,
    }


def test_one_definition_serves_many_sessions() -> None:
    definition = define_tool(name="t", description="T.", schema=OBJ, handler=lambda args: 1)
    first, second = Session(tools=[definition]), Session(tools=[definition])

    @second.on_tool("t")
    def override(args: Any) -> int:
        return 2

    assert (first.dispatch_sync("t", {}).value, second.dispatch_sync("t", {}).value) == (1, 2)
    assert first.off_tool("t", definition.handler)  # type: ignore[arg-type]
    assert second.dispatch_sync("t", {}).value == 2
    assert Session(tools=[definition]).dispatch_sync("t", {}).value == 1


@pytest.mark.parametrize("how", ["tools", "on_tool", "tool"])
def test_duplicate_names_are_rejected(how: str) -> None:
    session = Session(tools=[define_tool(name="t", description="T.", schema=OBJ)])
    message = (
        'Tool "t" is already declared in this session; tool names must be unique (to replace its '
        "handler, use @session.on_tool(name) without a schema)."
    )
    if how == "tools":
        err = invalid(Session, tools=[define_tool(name="t", description="T.", schema=OBJ)] * 2)
    elif how == "on_tool":
        err = invalid(session.on_tool, "t", description="Again.", schema=OBJ)
    else:

        def t(n: int) -> int:
            """T."""
            return n

        err = invalid(session.tool, t)
    assert (err.message, err.details) == (message, {"tool": "t", "field": "name"})


def test_on_tool_declares_with_docstring_description() -> None:
    session = Session()

    @session.on_tool("doc", schema=OBJ, timeout_ms=1500)
    def doc(args: Any) -> Any:
        """Say what the tool does.

        Implementation notes that the agent does not need.
        """
        return args

    assert session.tool_spec("doc") == {
        "name": "doc",
        "description": "Say what the tool does.",
        "argsSchema": OBJ,
        "timeoutMs": 1500,
    }
    assert doc({"n": 1}) == {"n": 1}  # returned unchanged


@pytest.mark.parametrize(
    ("call", "message", "details"),
    [
        (
            lambda s: s.on_tool("missing"),
            'Tool "missing" is not declared in this session, so an agent could never call this '
            "handler; declare it with schema= (and description=), in tools=, or in the manifest.",
            {"tool": "missing", "field": "schema"},
        ),
        (
            lambda s: s.on_tool("t", description="More."),
            'Tool "t": description, timeout_ms, title, annotations and sequential only apply when declaring '
            "the tool with schema=.",
            {"tool": "t", "field": "schema"},
        ),
        (
            lambda s: s.on_tool("t", timeout_ms=5),
            'Tool "t": description, timeout_ms, title, annotations and sequential only apply when declaring '
            "the tool with schema=.",
            {"tool": "t", "field": "schema"},
        ),
        (
            lambda s: s.on_tool("new", input=OBJ),
            'Tool "new": the "input" field is no longer supported; pass the argument schema as '
            "schema= instead.",
            {"tool": "new", "field": "input"},
        ),
        (
            lambda s: s.on_tool("new", description="N.", schema={"type": "object", "$defs": {}})(
                lambda args: 1
            ),
            'Invalid schema for tool "new" at /$defs: "$defs" is not supported in a Tool Args '
            "Schema object node (allowed: description, default, examples, properties, required); "
            "write the node in place instead (to reuse a node, assign it to a Python constant and "
            "use the constant wherever it is needed).",
            {"pointer": "/$defs", "keyword": "$defs", "tool": "new"},
        ),
        (
            lambda s: s.on_tool("new", schema=OBJ)(lambda args: 1),
            'Tool "new" needs a description (a non-empty string) that tells the agent when to use '
            "it; got NoneType.",
            {"tool": "new", "field": "description"},
        ),
        (
            lambda s: s.on_tool("t")(lambda: 1),
            'The handler of tool "t" must take (args) or (args, ctx); <lambda>() cannot.',
            {"tool": "t", "field": "handler"},
        ),
        (
            lambda s: s.on_tool("bad name"),
            'Tool name "bad name" is invalid; a name starts with a letter and continues with '
            "letters, digits, '_', '.' or '-' (e.g. \"update_counter\" or \"editor.replace\").",
            {"tool": "bad name", "field": "name"},
        ),
        (
            lambda s: s.on_any_tool(lambda args, ctx: 1),
            "The fallback handler must take (tool, args, ctx); <lambda>(args, ctx) cannot.",
            {"field": "handler"},
        ),
        (
            lambda s: s.on_status(3),
            "A callback must be callable, got int.",
            {"field": "callback"},
        ),
    ],
)
def test_registration_errors(call: Any, message: str, details: Any) -> None:
    session = Session(tools=[define_tool(name="t", description="T.", schema=OBJ)])
    err = invalid(call, session)
    assert (err.message, err.details) == (message, details)


def test_on_tool_rejects_other_unknown_keywords_like_python() -> None:
    with pytest.raises(TypeError) as info:
        Session().on_tool("t", shema=OBJ)  # type: ignore[call-overload]
    assert str(info.value) == "on_tool() got an unexpected keyword argument 'shema'"


# --- priority and removal -----------------------------------------------------------------


def make_session() -> tuple[Session, Any, Any, Any]:
    def inline(args: Any) -> str:
        return "inline"

    def named(args: Any, ctx: ToolCallContext) -> str:
        return "named"

    def fallback(tool: str, args: Any, ctx: ToolCallContext) -> str:
        return f"fallback:{tool}"

    session = Session(
        tools=[
            define_tool(name="t", description="T.", schema=OBJ, handler=inline),
            define_tool(name="bare", description="No handler.", schema=OBJ),
        ]
    )
    return session, inline, named, fallback


def answers(session: Session) -> tuple[Any, Any]:
    def one(name: str) -> Any:
        result = session.dispatch_sync(name, {})
        return result.error.code if result.error is not None else result.value

    return one("t"), one("bare")


def test_handler_priority_named_inline_fallback() -> None:
    session, inline, named, fallback = make_session()
    assert answers(session) == ("inline", "TOOL_HANDLER_NOT_FOUND")
    assert (session.has_handler("t"), session.has_handler("bare")) == (True, False)
    assert session.has_handler("unknown") is False
    assert session.on_any_tool(fallback) is fallback
    assert answers(session) == ("inline", "fallback:bare")
    assert session.has_handler("bare") is True
    assert session.on_tool("t")(named) is named
    assert answers(session) == ("named", "fallback:bare")
    # Removal only removes the current handler, one level at a time.
    assert session.off_tool("t", inline) is False  # the named handler is current
    assert session.off_tool("t", named) is True
    assert answers(session) == ("inline", "fallback:bare")
    assert session.off_tool("t", named) is False
    assert session.off_tool("t", inline) is True
    assert answers(session) == ("fallback:t", "fallback:bare")
    assert session.off_any_tool(inline) is False
    assert session.off_any_tool(fallback) is True
    assert session.off_any_tool(fallback) is False
    assert answers(session) == ("TOOL_HANDLER_NOT_FOUND", "TOOL_HANDLER_NOT_FOUND")
    assert session.off_tool("unknown", inline) is False


def test_a_new_named_handler_replaces_the_old_one() -> None:
    session, _, named, _ = make_session()
    session.on_tool("t")(named)

    @session.on_tool("t")
    def newer(args: Any) -> str:
        return "newer"

    assert answers(session)[0] == "newer"
    assert session.off_tool("t", named) is False
    assert session.off_tool("t", newer) is True
    assert answers(session)[0] == "inline"


def test_a_new_fallback_replaces_the_old_one() -> None:
    session, _, _, fallback = make_session()
    session.on_any_tool(fallback)

    @session.on_any_tool
    def other(tool: str, args: Any, ctx: ToolCallContext) -> str:
        return "other"

    assert answers(session)[1] == "other"
    assert session.off_any_tool(fallback) is False


def test_bound_methods_are_removed_by_equality() -> None:
    class Handlers:
        def t(self, args: Any) -> str:
            return "method"

    handlers = Handlers()
    session, *_ = make_session()
    session.on_tool("t")(handlers.t)
    assert answers(session)[0] == "method"
    assert session.off_tool("t", handlers.t) is True  # a new bound-method object, equal


def test_typed_session_tool() -> None:
    session = Session()

    @session.tool
    def greet(name: str) -> str:
        """Greet someone."""
        return f"Hello, {name}!"

    @session.tool(name="shout", description="Shout.", timeout_ms=10)
    async def loud(text: str, ctx: ToolCallContext) -> str:
        return f"{text.upper()} ({ctx.tool})"

    @session.tool("whisper")
    def quiet(text: str) -> str:
        """Whisper."""
        return text.lower()

    assert greet("Ada") == "Hello, Ada!"  # returned unchanged
    assert session.tool_names() == ["greet", "shout", "whisper"]
    assert session.dispatch_sync("greet", {"name": "Ada"}).value == "Hello, Ada!"
    assert session.dispatch_sync("shout", {"text": "hi"}).value == "HI (shout)"
    assert session.dispatch_sync("whisper", '{"text": "HI"}').value == "hi"
    assert session.tool_spec("shout") == {
        "name": "shout",
        "description": "Shout.",
        "argsSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
        "timeoutMs": 10,
        "outputSchema": {"type": "string"},  # from -> str
    }
    assert session.off_tool("greet", greet) is True
    assert session.dispatch_sync("greet", {"name": "x"}).error.code == "TOOL_HANDLER_NOT_FOUND"  # type: ignore[union-attr]


def test_typed_tool_treats_null_as_absent_for_optional_parameters() -> None:
    session = Session()

    @session.tool
    def search(query: str, limit: int | None = None, page: int = 1) -> Any:
        """Search."""
        return {"query": query, "limit": limit, "page": page}

    assert session.dispatch_sync("search", {"query": "x", "limit": None}).value == {
        "query": "x",
        "limit": None,
        "page": 1,
    }
    assert session.dispatch_sync("search", '{"query": "x", "limit": 5}').value == {
        "query": "x",
        "limit": 5,
        "page": 1,
    }
    refused = session.dispatch_sync("search", {"query": "x", "page": None})
    assert refused.error is not None
    assert refused.error.details["errors"] == [
        {"path": "/page", "keyword": "type", "message": "expected integer, got null"}
    ]


def test_module_level_tool_in_a_session() -> None:
    @tool
    def double(n: int) -> int:
        """Double n."""
        return n * 2

    session = Session(tools=[double])
    assert session.dispatch_sync("double", {"n": 4}).value == 8


def test_registration_while_dispatching_uses_the_handler_current_at_start() -> None:
    import threading

    started, release = threading.Event(), threading.Event()
    session = Session()

    @session.on_tool("t", description="T.", schema=OBJ)
    def first(args: Any) -> str:
        started.set()
        release.wait(5)
        return "first"

    results: list[Any] = []
    worker = threading.Thread(target=lambda: results.append(session.dispatch_sync("t", {}).value))
    worker.start()
    assert started.wait(5)
    session.on_tool("t")(lambda args: "second")
    session.on_tool("late", description="Late.", schema=OBJ)(lambda args: "late")
    release.set()
    worker.join(5)
    assert results == ["first"]
    assert session.dispatch_sync("t", {}).value == "second"
    assert session.dispatch_sync("late", {}).value == "late"


def test_session_limits_recompile_patterns() -> None:
    schema: Any = {"type": "object", "properties": {"s": {"type": "string", "pattern": "^a+$"}}}
    definition = define_tool(name="p", description="P.", schema=schema, handler=lambda args: "ok")
    default = Session(tools=[definition])
    strict = Session(tools=[definition], limits=Limits(max_pattern_length=3))
    assert default.dispatch_sync("p", {"s": "aaaa"}).value == "ok"
    result = strict.dispatch_sync("p", {"s": "aaaa"})
    assert result.error is not None
    assert result.error.details["errors"][0]["keyword"] == "pattern"


# --- reject_unknown_args and lenient_json_args ---------------------------------------------

NESTED: Any = {
    "type": "object",
    "properties": {
        "color": {"type": "string"},
        "card": {
            "type": "object",
            "properties": {
                "labels": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"name": {"type": "string"}}},
                }
            },
        },
        "pick": {
            "oneOf": [
                {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
                {
                    "type": "object",
                    "properties": {"index": {"type": "integer"}},
                    "required": ["index"],
                },
            ]
        },
        "tags": {"type": "array", "items": {"type": "string"}},
        "empty": {"type": "object"},
    },
}

AGAIN = "Correct the arguments and call the tool again."


@pytest.mark.parametrize(
    ("args", "errors"),
    [
        ({"color": "red", "card": {"labels": [{"name": "x"}]}}, None),
        ({"colour": "red"}, [("", 'unknown property "colour"; did you mean "color"?')]),
        (
            {"zzz": 1},
            [
                (
                    "",
                    'unknown property "zzz"; declared properties are "color", "card", "pick", "tags", "empty"',
                )
            ],
        ),
        (
            {"card": {"labels": [{"name": "a"}, {"nmae": "b"}], "x": 1}},
            [
                ("/card/labels/1", 'unknown property "nmae"; did you mean "name"?'),
                ("/card", 'unknown property "x"; declared properties are "labels"'),
            ],
        ),
        (
            {"pick": {"id": "a", "idx": 1}},
            [("/pick", 'unknown property "idx"; did you mean "id"?')],
        ),
        (
            {"empty": {"a": 1}},
            [("/empty", 'unknown property "a"; this object takes no properties')],
        ),
        ({"tags": ["a"], "colr": "b"}, [("", 'unknown property "colr"; did you mean "color"?')]),
    ],
)
def test_reject_unknown_args(args: dict[str, Any], errors: list[tuple[str, str]] | None) -> None:
    session = Session(reject_unknown_args=True)
    assert session.reject_unknown_args is True
    session.on_tool("t", description="T.", schema=NESTED)(lambda args: "ok")
    result = session.dispatch_sync("t", args)
    if errors is None:
        assert result.value == "ok"
        return
    listed = "; ".join(f"{p or '(root)'}: {m} (additionalProperties)" for p, m in errors)
    assert result.to_json() == {
        "error": {
            "code": "TOOL_ARGS_INVALID",
            "message": f'Invalid arguments for tool "t": {listed}. {AGAIN}',
            "details": {
                "tool": "t",
                "errors": [
                    {"path": p, "keyword": "additionalProperties", "message": m} for p, m in errors
                ],
            },
        }
    }
    # Without the option the same args are accepted: undeclared properties are allowed.
    session.reject_unknown_args = False
    assert session.dispatch_sync("t", args).value == "ok"


def test_reject_unknown_args_is_bounded() -> None:
    session = Session(reject_unknown_args=True, limits=Limits(max_errors=3))
    session.on_tool("t", description="T.", schema=NESTED)(lambda args: "ok")
    result = session.dispatch_sync("t", {f"junk{i}": i for i in range(50_000)})
    assert result.error is not None
    assert [e["message"] for e in result.error.details["errors"]] == [
        f'unknown property "junk{i}"; declared properties are "color", "card", "pick", "tags", '
        '"empty"'
        for i in range(3)
    ]
    odd = session.dispatch_sync("t", {1: "x"})  # a non-string key is validation's to report
    assert odd.error is not None
    assert [e["keyword"] for e in odd.error.details["errors"]] == ["type"]


def test_reject_unknown_args_reports_schema_errors_too() -> None:
    session = Session(reject_unknown_args=True)
    session.on_tool("t", description="T.", schema=NESTED)(lambda args: "ok")
    result = session.dispatch_sync("t", {"color": 1, "colr": "x"})
    assert result.error is not None
    assert [(e["path"], e["keyword"]) for e in result.error.details["errors"]] == [
        ("/color", "type"),
        ("", "additionalProperties"),
    ]


@pytest.mark.parametrize(
    ("lenient", "args", "expected"),
    [
        (True, {"tags": '["a", "b"]'}, {"tags": ["a", "b"]}),
        (True, {"card": '{"labels": []}'}, {"card": {"labels": []}}),
        (True, {"pick": '{"id": "x"}'}, {"pick": {"id": "x"}}),
        (True, {"color": '["not parsed"]'}, {"color": '["not parsed"]'}),
        (True, {"tags": '{"a": 1}'}, "TOOL_ARGS_INVALID"),  # parses, but not to an array
        (True, {"tags": "[not json"}, "TOOL_ARGS_INVALID"),
        (False, {"tags": '["a"]'}, "TOOL_ARGS_INVALID"),
    ],
)
def test_lenient_json_args(lenient: bool, args: dict[str, Any], expected: Any) -> None:
    session = Session()
    assert session.lenient_json_args is False
    session.lenient_json_args = lenient  # pedelec serve turns it on for an existing session
    assert Session(lenient_json_args=lenient).lenient_json_args is lenient
    session.on_tool("t", description="T.", schema=NESTED)(lambda args: args)
    result = session.dispatch_sync("t", args)
    if isinstance(expected, str):
        assert result.error is not None and result.error.code == expected
    else:
        assert result.value == expected


# --- manifests ---------------------------------------------------------------------------


def test_manifest_shape_and_fresh_copies() -> None:
    session = Session(
        tools=[
            define_tool(name="a", description="A.", schema=OBJ, handler=lambda args: 1),
            define_tool(name="b", description="B.", schema=OBJ, timeout_ms=5),
        ],
        guidance="Use the tools.",
    )
    manifest = session.manifest()
    assert manifest == {
        "guidance": "Use the tools.",
        "tools": [
            {"name": "a", "description": "A.", "argsSchema": OBJ},
            {"name": "b", "description": "B.", "argsSchema": OBJ, "timeoutMs": 5},
        ],
    }
    json.dumps(manifest)  # plain JSON, no handlers
    manifest["tools"][0]["argsSchema"]["properties"].clear()
    assert session.manifest()["tools"][0]["argsSchema"] == OBJ
    spec = session.tool_spec("a")
    spec["argsSchema"]["type"] = "string"
    assert session.tool_spec("a")["argsSchema"] == OBJ


def test_tool_spec_unknown_name() -> None:
    session = Session(tools=[define_tool(name="alpha", description="A.", schema=OBJ)])
    with pytest.raises(PedelecError) as info:
        session.tool_spec("alpah")
    assert info.value.to_dict() == {
        "code": "TOOL_NOT_FOUND",
        "message": 'Unknown tool "alpah". Did you mean "alpha"?',
        "details": {"tool": "alpah"},
    }


def test_manifest_round_trip(tmp_path: Path) -> None:
    session = Session(
        tools=[define_tool(name="a.b", description="A.", schema=OBJ, timeout_ms=7)], guidance="G."
    )
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(session.manifest()), encoding="utf-8")
    for source in (session.manifest(), str(path), path):
        rebuilt = Session.from_manifest(source)
        assert rebuilt.manifest() == session.manifest()
    rebuilt = Session.from_manifest(path, session_id="x", reject_unknown_args=True)
    assert rebuilt.session_id == "x"

    @rebuilt.on_tool("a.b")
    def handler(args: Any) -> str:
        return "attached"

    assert rebuilt.dispatch_sync("a.b", {"n": 1}).value == "attached"
    assert rebuilt.dispatch_sync("a.b", {"m": 1}).error.code == "TOOL_ARGS_INVALID"  # type: ignore[union-attr]


def test_from_manifest_accepts_a_bare_list() -> None:
    session = Session.from_manifest([{"name": "t", "description": "T.", "argsSchema": OBJ}])
    assert (session.tool_names(), session.guidance) == (["t"], "")


def test_from_manifest_with_the_upstream_schemas() -> None:
    schemas = json.loads(UPSTREAM.read_text(encoding="utf-8"))
    manifest = {
        "guidance": "Spawn shapes.",
        "tools": [{"name": n, "description": f"{n}.", "argsSchema": s} for n, s in schemas.items()],
    }
    session = Session.from_manifest(manifest)
    assert session.tool_names() == ["spawn_basic_shapes", "spawn_closed_polygons"]
    assert session.manifest() == manifest
    session.on_any_tool(lambda tool, args, ctx: len(args["items"]))
    ok = session.dispatch_sync("spawn_basic_shapes", {"items": [{"shape": "star", "size": 18}]})
    assert ok.value == 1
    bad = session.dispatch_sync("spawn_basic_shapes", {"items": [{"shape": "blob", "count": 99}]})
    assert bad.error is not None
    assert [e["path"] for e in bad.error.details["errors"]] == ["/items/0/shape", "/items/0/count"]


def test_from_manifest_rejects_keys_outside_the_subset() -> None:
    """One error for the whole manifest, every break listed (see test_upstream_parity)."""
    schemas = json.loads(UPSTREAM.read_text(encoding="utf-8"))
    old = dict(schemas["spawn_closed_polygons"], additionalProperties=False)
    err = invalid(
        Session.from_manifest,
        {"tools": [{"name": "spawn_closed_polygons", "description": "Spawn.", "argsSchema": old}]},
    )
    assert err.details == {
        "problems": [
            {
                "tool": "spawn_closed_polygons",
                "index": 0,
                "pointer": "/additionalProperties",
                "keyword": "additionalProperties",
                "message": '"additionalProperties" is not supported in a Tool Args Schema object '
                "node (allowed: description, default, examples, properties, required); remove it "
                "(to reject undeclared arguments, use Session(reject_unknown_args=True))",
            }
        ]
    }


@pytest.mark.parametrize(
    ("manifest", "message", "details"),
    [
        ({"tools": {}}, 'The manifest\'s "tools" must be an array, got dict.', {"field": "tools"}),
        (
            5,
            'A manifest must be an object with a "tools" array (or a path to such a JSON file), '
            "got int.",
            {"field": "manifest"},
        ),
        (
            {"guidance": 1, "tools": []},
            "guidance must be a string, got int.",
            {"field": "guidance"},
        ),
        (
            {"tools": [{"name": "t", "description": "T.", "input": OBJ}]},
            'Tool "t": the "input" field is no longer supported; pass the argument schema as '
            '"argsSchema" instead.',
            {"tool": "t", "field": "input"},
        ),
    ],
)
def test_from_manifest_errors(manifest: Any, message: str, details: Any) -> None:
    err = invalid(Session.from_manifest, manifest)
    assert (err.message, err.details) == (message, details)


def test_from_manifest_file_errors(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    err = invalid(Session.from_manifest, missing)
    assert err.message == f"Cannot read the manifest {str(missing)!r}: No such file or directory."
    assert err.details == {"path": str(missing)}
    broken = tmp_path / "broken.json"
    broken.write_text('{"tools": [}', encoding="utf-8")
    err = invalid(Session.from_manifest, broken)
    assert err.message == (
        f"Cannot load the manifest {str(broken)!r}: it is not valid JSON: expected a value at "
        '/tools/0 (line 1, column 12), found "}"; fix the JSON syntax.'
    )
    assert err.details == {"path": str(broken), "pointer": "/tools/0", "line": 1, "column": 12}


def test_lenient_types_reads_each_top_level_node_kind() -> None:
    from pedelec._args import lenient_types

    properties = {
        "a": {"type": "array", "items": {"type": "string"}},
        "o": {"type": "object"},
        "s": {"type": "string"},
        "n": {"type": "integer"},
        "ai": {"oneOf": [{"type": "array", "items": {"type": "string"}}, {"type": "integer"}]},
        "ao": {"oneOf": [{"type": "object"}, {"type": "array", "items": {"type": "string"}}]},
        "si": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
    }
    assert lenient_types(properties) == {
        "a": (list,),
        "o": (dict,),
        "ai": (list,),
        "ao": (list, dict),
    }
