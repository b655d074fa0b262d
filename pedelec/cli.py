"""The ``pedelec`` command: inspect, call, check and serve a session's tools.

Every command takes a TARGET, ``path/to/file.py:attr`` or ``package.module:attr``, where ``attr``
is a :class:`~pedelec.Session` or a zero-argument function returning one::

    pedelec tools examples/counter.py:session
    pedelec tool-spec examples/counter.py:session update_counter
    pedelec tool-call examples/counter.py:session update_counter '{"delta": 3}'
    pedelec manifest examples/counter.py:session --format openai
    pedelec check examples/counter.py:session --strict
    pedelec serve examples/counter.py:session --transport http --port 8000

Exit codes: 0 success; 1 the tool call returned an error, ``check`` found problems, or the
target's own code failed while loading; 2 the command line is wrong (bad TARGET, arguments that
are not JSON, an unknown tool, a missing extra). Failures print one line on stderr, never a
traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Final, TextIO

from pedelec import __version__
from pedelec._target import TargetError, load_target
from pedelec.adapters._names import name_map
from pedelec.errors import PedelecError

if TYPE_CHECKING:
    from pedelec.session import Session

__all__ = ["main"]

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_USAGE: Final = 2

MCP_INSTALL: Final = "pip install 'pedelec[mcp]'"

FORMATS: Final = ("pedelec", "openai", "openai-responses", "anthropic", "mcp")

_TARGET_HELP: Final = (
    "path/to/file.py:attr or package.module:attr, where attr is a pedelec Session "
    "or a function that takes no arguments and returns one"
)


class _Fail(Exception):
    """Stop the command: print ``message`` on stderr and exit with ``code``."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def _dumps(value: Any) -> str:
    import json

    return json.dumps(value, indent=2, ensure_ascii=False)


def _load(target: str) -> Session:
    # stdout carries the command's JSON (or, under serve, the MCP protocol): whatever the
    # target prints while loading goes to stderr instead.
    try:
        with contextlib.redirect_stdout(sys.stderr):
            return load_target(target)
    except TargetError as exc:
        raise _Fail(str(exc), EXIT_USAGE if exc.usage else EXIT_FAILED) from exc


def _spec(session: Session, name: str) -> dict[str, Any]:
    try:
        return session.tool_spec(name)
    except PedelecError as exc:  # TOOL_NOT_FOUND, with the session's "did you mean" hint
        raise _Fail(exc.message, EXIT_USAGE) from exc


# --- tools, tool-spec, tool-call, manifest ------------------------------------------------------


def _cmd_tools(ns: argparse.Namespace, out: TextIO) -> int:
    session = _load(ns.target)
    specs = session.manifest()["tools"]
    width = max((len(spec["name"]) for spec in specs), default=0)
    for spec in specs:
        lines = spec["description"].strip().splitlines()
        first = lines[0].strip() if lines else ""
        print(f"{spec['name']:<{width}}  {first}".rstrip(), file=out)
    return EXIT_OK


def _cmd_tool_spec(ns: argparse.Namespace, out: TextIO) -> int:
    session = _load(ns.target)
    print(_dumps(_spec(session, ns.name)), file=out)
    return EXIT_OK


def _read_args(text: str) -> Any:
    from pedelec._json import parse_json_args

    if text == "-":
        text = sys.stdin.read()
    try:
        return parse_json_args(text)
    except PedelecError as exc:
        raise _Fail(exc.message, EXIT_USAGE) from exc


def _cmd_tool_call(ns: argparse.Namespace, out: TextIO) -> int:
    args = _read_args(ns.args)
    session = _load(ns.target)
    _spec(session, ns.name)
    with contextlib.redirect_stdout(sys.stderr):  # a handler's prints must not break the JSON
        result = session.dispatch_sync(ns.name, args)
    if result.error is not None:
        print(_dumps({"ok": False, "error": result.error.to_dict()}), file=out)
        return EXIT_FAILED
    print(_dumps({"ok": True, "result": result.value}), file=out)
    return EXIT_OK


def _export(session: Session, fmt: str) -> Any:
    if fmt == "openai":
        from pedelec.adapters.openai import chat_tools

        return chat_tools(session)
    if fmt == "openai-responses":
        from pedelec.adapters.openai import responses_tools

        return responses_tools(session)
    if fmt == "anthropic":
        from pedelec.adapters.anthropic import tools as anthropic_tools

        return anthropic_tools(session)
    if fmt == "mcp":
        from pedelec.adapters.mcp import tools as mcp_tools

        return mcp_tools(session)
    return session.manifest()


def _cmd_manifest(ns: argparse.Namespace, out: TextIO) -> int:
    session = _load(ns.target)
    try:
        exported = _export(session, ns.format)
    except PedelecError as exc:
        raise _Fail(str(exc), EXIT_FAILED) from exc
    print(_dumps(exported), file=out)
    return EXIT_OK


# --- check --------------------------------------------------------------------------------------


class _Finding:
    __slots__ = ("message", "pointer", "severity", "tool")

    def __init__(self, severity: str, tool: str, pointer: str | None, message: str) -> None:
        self.severity = severity
        self.tool = tool
        self.pointer = pointer
        self.message = message

    def __str__(self) -> str:
        where = self.tool if self.pointer is None else f"{self.tool} {self.pointer or '(root)'}"
        return f"{self.severity}: {where}: {self.message}"


def _nodes(schema: dict[str, Any]) -> Iterator[tuple[tuple[str | int, ...], dict[str, Any]]]:
    """Every node of a checked schema with its path, parents before children."""
    stack: list[tuple[tuple[str | int, ...], dict[str, Any]]] = [((), schema)]
    while stack:
        path, node = stack.pop()
        yield path, node
        children: list[tuple[tuple[str | int, ...], dict[str, Any]]] = []
        for key, sub in node.get("properties", {}).items():
            children.append(((*path, "properties", key), sub))
        if "items" in node:
            children.append(((*path, "items"), node["items"]))
        for i, sub in enumerate(node.get("oneOf", ())):
            children.append(((*path, "oneOf", i), sub))
        stack.extend(reversed(children))


_NO_WITNESS: Final[Any] = object()


class _Overlap:
    """Finds a value that two checked schema nodes both accept, or gives up.

    Only values that both compiled validators accept are reported, so a warning is never wrong;
    some overlaps (e.g. between two patterns) are beyond it and go unreported.
    """

    def __init__(self) -> None:
        from pedelec.schema.validator import Validator

        self._validators: dict[int, tuple[dict[str, Any], Validator]] = {}

    def _valid(self, node: dict[str, Any], value: Any) -> bool:
        from pedelec.schema.validator import compile_node

        entry = self._validators.get(id(node))
        if entry is None:
            entry = (node, compile_node(node))
            self._validators[id(node)] = entry
        return entry[1].is_valid(value)

    def witness(self, a: dict[str, Any], b: dict[str, Any], depth: int = 0) -> Any:
        if depth > 16:
            return _NO_WITNESS
        for candidate in self._samples(a, b, depth):
            if self._valid(a, candidate) and self._valid(b, candidate):
                return candidate
        if a is not b:
            for candidate in self._samples(b, a, depth):
                if self._valid(a, candidate) and self._valid(b, candidate):
                    return candidate
        return _NO_WITNESS

    def _samples(self, node: dict[str, Any], other: dict[str, Any], depth: int) -> Iterator[Any]:
        if "oneOf" in node:
            for branch in node["oneOf"]:
                yield from self._samples(branch, other, depth)
            return
        yield from node.get("enum", ())
        if "default" in node:
            yield node["default"]
        yield from node.get("examples", ())
        kind = node.get("type")
        if kind == "boolean":
            yield from (False, True)
        elif kind in ("integer", "number"):
            yield from self._numbers(node, other)
        elif kind == "string":
            lengths = {node.get("minLength", 0), other.get("minLength", 0)}
            for n in sorted(lengths):
                yield "a" * n
        elif kind == "array":
            yield from self._arrays(node, other, depth)
        elif kind == "object":
            yield from self._objects(node, other, depth)

    @staticmethod
    def _numbers(node: dict[str, Any], other: dict[str, Any]) -> Iterator[Any]:
        import math

        lows = [n["minimum"] for n in (node, other) if "minimum" in n]
        highs = [n["maximum"] for n in (node, other) if "maximum" in n]
        lo = max(lows) if lows else None
        hi = min(highs) if highs else None
        if lo is not None:
            yield math.ceil(lo)
            yield lo
        if hi is not None:
            yield math.floor(hi)
            yield hi
        yield 0
        if lo is not None and hi is not None:
            yield (lo + hi) / 2

    def _arrays(self, node: dict[str, Any], other: dict[str, Any], depth: int) -> Iterator[Any]:
        size = max(node.get("minItems", 0), other.get("minItems", 0))
        if size == 0:
            yield []
            return
        other_items = other.get("items", node["items"])
        item = self.witness(node["items"], other_items, depth + 1)
        if item is not _NO_WITNESS:
            yield [item] * size

    def _objects(self, node: dict[str, Any], other: dict[str, Any], depth: int) -> Iterator[Any]:
        yield {}
        required = list(dict.fromkeys([*node.get("required", ()), *other.get("required", ())]))
        value: dict[str, Any] = {}
        for name in required:
            subs = [n["properties"][name] for n in (node, other) if name in n.get("properties", {})]
            if not subs:
                return
            found = self.witness(subs[0], subs[-1], depth + 1)
            if found is _NO_WITNESS:
                return
            value[name] = found
        yield value


def _lint_schema(tool: str, schema: dict[str, Any], overlap: _Overlap) -> Iterator[_Finding]:
    from pedelec._json import pointer, short_repr

    for path, node in _nodes(schema):
        where = pointer(path)
        kind = node.get("type")
        if kind == "array" and "maxItems" not in node:
            yield _Finding(
                "warning", tool, where, "array has no maxItems, so an agent may send any number"
            )
        if kind == "string" and "pattern" in node and "maxLength" not in node:
            yield _Finding(
                "warning",
                tool,
                where,
                "string has a pattern but no maxLength, so the agent may send any length (the "
                "pattern runs on up to Limits.max_pattern_length characters; longer strings fail)",
            )
        for name, sub in node.get("properties", {}).items():
            if "description" not in sub:
                yield _Finding(
                    "warning",
                    tool,
                    pointer((*path, "properties", name)),
                    "property has no description to tell the model what to send",
                )
        branches = node.get("oneOf", ())
        for i in range(len(branches)):
            for j in range(i + 1, len(branches)):
                both = overlap.witness(branches[i], branches[j])
                if both is not _NO_WITNESS:
                    yield _Finding(
                        "warning",
                        tool,
                        where,
                        f"oneOf branches {i} and {j} both accept {short_repr(both)}, so that "
                        "value matches no branch (oneOf needs exactly one)",
                    )


def _has_handler(session: Session, name: str) -> bool:
    return session.has_handler(name)


def _cmd_check(ns: argparse.Namespace, out: TextIO) -> int:
    try:
        with contextlib.redirect_stdout(sys.stderr):
            session = load_target(ns.target)
    except TargetError as exc:
        if exc.usage or exc.error is None:
            raise _Fail(str(exc), EXIT_USAGE if exc.usage else EXIT_FAILED) from exc
        print(f"error: {_describe_load_error(exc.error)}", file=out)
        print("1 error", file=out)
        return EXIT_FAILED
    findings: list[_Finding] = []
    overlap = _Overlap()
    specs = session.manifest()["tools"]
    for spec in specs:
        findings.extend(_lint_schema(spec["name"], spec["argsSchema"], overlap))
        if not _has_handler(session, spec["name"]):
            findings.append(_Finding("warning", spec["name"], None, "tool has no handler"))
    try:
        # OpenAI and Anthropic share one name rule; MCP takes every pedelec name.
        name_map(session.tool_names(), "OpenAI/Anthropic")
    except PedelecError as exc:
        details = exc.details if isinstance(exc.details, dict) else {}
        tool = details.get("tool") or ", ".join(details.get("tools", ()))
        findings.append(_Finding("warning", tool, None, exc.message))
    for finding in findings:
        print(finding, file=out)
    errors = sum(f.severity == "error" for f in findings)
    warnings = len(findings) - errors
    print(
        f"{_plural(len(specs), 'tool')} checked: {_plural(errors, 'error')}, "
        f"{_plural(warnings, 'warning')}",
        file=out,
    )
    if errors or (warnings and ns.strict):
        return EXIT_FAILED
    return EXIT_OK


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _describe_load_error(error: PedelecError) -> str:
    text = str(error)
    details = error.details if isinstance(error.details, dict) else {}
    extra = []
    tool = details.get("tool")
    if isinstance(tool, str) and f'"{tool}"' not in error.message:
        extra.append(f'tool "{tool}"')
    where = details.get("pointer")
    if isinstance(where, str) and where and where not in error.message:
        extra.append(f"at {where}")
    return f"{text} ({', '.join(extra)})" if extra else text


# --- serve --------------------------------------------------------------------------------------


def _cmd_serve(ns: argparse.Namespace, out: TextIO) -> int:
    from pedelec import _serve

    if not _serve.mcp_available():
        raise _Fail(f"pedelec serve needs the MCP SDK; install it with: {MCP_INSTALL}", EXIT_USAGE)
    session = _load(ns.target)
    session.lenient_json_args = True
    # Ctrl-C is how a server is stopped, not a failure.
    with contextlib.suppress(KeyboardInterrupt):
        _serve.serve(session, transport=ns.transport, host=ns.host, port=ns.port)
    return EXIT_OK


# --- parser -------------------------------------------------------------------------------------


def _about(text: str, examples: Sequence[str]) -> str:
    import textwrap

    paragraphs = [textwrap.fill(p, 78) for p in text.split("\n\n")]
    label = "example:" if len(examples) == 1 else "examples:"
    return "\n\n".join([*paragraphs, "\n".join([label, *(f"  {e}" for e in examples)])])


def _parser() -> argparse.ArgumentParser:
    def wide(prog: str) -> argparse.HelpFormatter:
        return argparse.HelpFormatter(prog, max_help_position=24)

    parser = argparse.ArgumentParser(
        prog="pedelec",
        description="Inspect, call, check and serve the tools of a pedelec session.",
        epilog="TARGET is " + _TARGET_HELP + ". Run 'pedelec COMMAND --help' for details.",
        formatter_class=wide,
    )
    parser.add_argument("--version", action="version", version=f"pedelec {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def command(
        name: str, summary: str, about: str, examples: Sequence[str], run: Callable[..., int]
    ) -> argparse.ArgumentParser:
        sub = commands.add_parser(
            name,
            help=summary,
            description=_about(about, examples),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        sub.add_argument("target", metavar="TARGET", help=_TARGET_HELP)
        sub.set_defaults(run=run)
        return sub

    command(
        "tools",
        "list the tools: name and first line of description",
        "List the session's tools, one per line: the name and the first line of its description.",
        ["pedelec tools examples/counter.py:session"],
        _cmd_tools,
    )
    spec = command(
        "tool-spec",
        "print one tool's spec as JSON",
        "Print one tool's spec as JSON: name, description, argsSchema and timeoutMs (when "
        "the tool sets one).",
        ["pedelec tool-spec examples/counter.py:session update_counter"],
        _cmd_tool_spec,
    )
    spec.add_argument("name", metavar="NAME", help="the tool's name")
    call = command(
        "tool-call",
        "call a tool with JSON arguments",
        'Call a tool the way an agent would and print {"ok": true, "result": ...} or '
        '{"ok": false, "error": {...}}. Exits 0 when the call succeeded and 1 when it '
        "returned an error.",
        [
            "pedelec tool-call examples/counter.py:session update_counter '{\"delta\": 3}'",
            "echo '{\"delta\": -1}' | pedelec tool-call examples/counter.py:session "
            "update_counter -",
        ],
        _cmd_tool_call,
    )
    call.add_argument("name", metavar="NAME", help="the tool's name")
    call.add_argument(
        "args",
        metavar="ARGS",
        nargs="?",
        default="{}",
        help="the arguments as a JSON object (default {}); - reads them from stdin",
    )
    manifest = command(
        "manifest",
        "print the tools as a manifest or a provider's tool list",
        "Print the session's tools as JSON: the pedelec manifest (the TypeScript SDK's "
        "tools.json shape, with guidance), or the tool list that OpenAI Chat Completions, "
        "the OpenAI Responses API, Anthropic or MCP expects.",
        ["pedelec manifest examples/counter.py:session --format anthropic"],
        _cmd_manifest,
    )
    manifest.add_argument(
        "--format",
        choices=FORMATS,
        default="pedelec",
        help="pedelec (default), openai (Chat Completions), openai-responses, anthropic or mcp",
    )
    check = command(
        "check",
        "load the session and lint its tools",
        "Load the session (schema errors are shown with their tool and JSON pointer) and lint "
        "its tools: arrays without maxItems, strings with a pattern but no maxLength, "
        "properties without a description, oneOf branches that accept the same value, tools "
        "without a handler, and names OpenAI and Anthropic cannot take.\n\n"
        "Exits 1 on errors; warnings exit 0 unless --strict.",
        ["pedelec check examples/counter.py:session --strict"],
        _cmd_check,
    )
    check.add_argument("--strict", action="store_true", help="exit 1 on warnings too")
    serve = command(
        "serve",
        "serve the tools over MCP (stdio or streamable HTTP)",
        "Serve the session's tools to an MCP client (Claude Desktop, Claude Code, Cursor...). "
        f"Needs the MCP SDK: {MCP_INSTALL}.\n\n"
        "Arguments that should be arrays or objects but arrive as JSON text are parsed "
        "(lenient JSON args), as some MCP clients send them that way.",
        [
            "pedelec serve examples/counter.py:session",
            "pedelec serve examples/counter.py:session --transport http --port 8000",
        ],
        _cmd_serve,
    )
    serve.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="stdio (default) or http: streamable HTTP at http://HOST:PORT/mcp",
    )
    serve.add_argument("--host", default="127.0.0.1", help="HTTP host (default 127.0.0.1)")
    serve.add_argument(
        "--port", type=int, default=8000, help="HTTP port (default 8000; 0 picks a free one)"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``pedelec`` command line and return its exit code.

    Args:
        argv: The arguments after the program name; ``None`` reads ``sys.argv[1:]``.

    Returns:
        0 on success, 1 when the call or check failed, 2 for a wrong command line.

    Example:
        >>> main(["tool-call", "examples/counter.py:session", "update_counter", '{"delta": 3}'])
        0
    """
    parser = _parser()
    try:
        ns = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        code: int = ns.run(ns, sys.stdout)
    except _Fail as exc:
        print(f"pedelec: error: {exc}", file=sys.stderr)
        return exc.code
    except BrokenPipeError:
        # The reader left early (`pedelec manifest ... | head`): stop quietly, and point stdout
        # at /dev/null so the interpreter's final flush does not complain either.
        import os

        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED
    return code
