"""The ``pedelec`` argument parser: one subcommand per command, each with its help and examples."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Final

from pedelec import __version__
from pedelec._logs import LOG_LEVELS
from pedelec._mcp.server import DEFAULT_HOST, DEFAULT_NAME, DEFAULT_PORT
from pedelec.cli import _commands
from pedelec.cli._commands import FORMATS, MCP_INSTALL
from pedelec.cli._http import MAX_WORKERS
from pedelec.cli._lint import PROVIDERS

__all__ = ["build_parser"]

_TARGET_HELP: Final = (
    "path/to/file.py:attr or package.module:attr, where attr is a pedelec Session "
    "or a function that takes no arguments and returns one"
)


def _about(text: str, examples: Sequence[str]) -> str:
    import textwrap

    paragraphs = [textwrap.fill(p, 78) for p in text.split("\n\n")]
    label = "example:" if len(examples) == 1 else "examples:"
    return "\n\n".join([*paragraphs, "\n".join([label, *(f"  {e}" for e in examples)])])


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``pedelec`` command line; each subcommand sets ``run`` to its command."""

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
        name: str,
        summary: str,
        about: str,
        examples: Sequence[str],
        run: Callable[..., int],
        first: tuple[str, str, str] = ("target", "TARGET", _TARGET_HELP),
    ) -> argparse.ArgumentParser:
        sub = commands.add_parser(
            name,
            help=summary,
            description=_about(about, examples),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        sub.add_argument(first[0], metavar=first[1], help=first[2])
        sub.add_argument(
            "--log-level",
            choices=LOG_LEVELS,
            default="warning",
            help="what the pedelec logger writes to stderr (default warning; one line a "
            "record, a handler's exception as its type and message)",
        )
        sub.add_argument(
            "--traceback",
            action="store_true",
            help="show Python tracebacks (of a failure, and in log records)",
        )
        sub.set_defaults(run=run)
        return sub

    command(
        "tools",
        "list the tools: name and first line of description",
        "List the session's tools, one per line: the name and the first line of its description.",
        ["pedelec tools examples/counter.py:session"],
        _commands.tools,
    )
    spec = command(
        "tool-spec",
        "print one tool's spec as JSON",
        "Print one line of JSON, the TypeScript SDK's pedelec-cli envelope: "
        '{"ok":true,"result":{"argsSchema","description","name","timeoutMs"}} (the default '
        'timeoutMs filled in), or {"ok":false,"error":{...}} for an unknown tool. Exits 0.',
        ["pedelec tool-spec examples/counter.py:session update_counter"],
        _commands.tool_spec,
    )
    spec.add_argument("name", metavar="NAME", nargs="?", help="the tool's name")
    spec.add_argument("extra", nargs="*", help=argparse.SUPPRESS)
    call = command(
        "tool-call",
        "call a tool with JSON arguments",
        "Call a tool the way an agent would and print one line of JSON, the TypeScript SDK's "
        'pedelec-cli envelope: {"ok":true,"result":...} when a handler answered (its answer '
        'may be an error, {"error":{...}}), {"ok":false,"error":{...}} when the call was not '
        "delivered (unknown tool, arguments that are not JSON or not valid, a timeout, a "
        "usage error). Exits 0 in every case; the envelope says what happened.",
        [
            "pedelec tool-call examples/counter.py:session update_counter '{\"delta\": 3}'",
            "echo '{\"delta\": -1}' | pedelec tool-call examples/counter.py:session "
            "update_counter -",
        ],
        _commands.tool_call,
    )
    call.add_argument("name", metavar="NAME", nargs="?", help="the tool's name")
    call.add_argument(
        "args",
        metavar="ARGS",
        nargs="?",
        help="the arguments as JSON text (required); - reads them from stdin",
    )
    call.add_argument("extra", nargs="*", help=argparse.SUPPRESS)
    manifest = command(
        "manifest",
        "print the tools as a manifest or a provider's tool list",
        "Print the session's tools as JSON: the pedelec manifest (the TypeScript SDK's "
        "tools.json shape, with guidance), or the tool list that OpenAI Chat Completions, "
        "the OpenAI Responses API, Anthropic or MCP expects.",
        ["pedelec manifest examples/counter.py:session --format anthropic"],
        _commands.manifest,
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
        _commands.check,
    )
    check.add_argument("--strict", action="store_true", help="exit 1 on warnings too")
    check.add_argument(
        "--provider",
        choices=PROVIDERS,
        default=None,
        help="lint that provider's rules: names, strict-mode blockers (openai, anthropic), "
        "property names (gemini), dotted names (mcp)",
    )
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
            "pedelec serve examples/counter.py:session --name counter --version 1.2.0 "
            "--heartbeat 10",
            "pedelec serve examples/counter.py:session --transport http --host 0.0.0.0 "
            "--workers 4 --allow-host tools.example.com",
        ],
        _commands.serve,
    )
    serve.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="stdio (default) or http: streamable HTTP at http://HOST:PORT/mcp",
    )
    serve.add_argument("--host", default=DEFAULT_HOST, help=f"HTTP host (default {DEFAULT_HOST})")
    serve.add_argument(
        "--port",
        default=str(DEFAULT_PORT),
        help=f"HTTP port (default {DEFAULT_PORT}; 0 picks a free one)",
    )
    serve.add_argument(
        "--name", default=DEFAULT_NAME, help=f"the server's name (default {DEFAULT_NAME})"
    )
    serve.add_argument(
        "--version",
        dest="server_version",
        metavar="VERSION",
        help=f"the server's version (default pedelec's, {__version__})",
    )
    serve.add_argument(
        "--heartbeat",
        metavar="SECONDS",
        help="while a call whose client asked for progress runs, send a progress "
        "notification whenever its handler reported none for SECONDS, so the client's "
        "idle timeout does not end it (default: no heartbeat)",
    )
    serve.add_argument(
        "--stateless",
        action="store_true",
        help="HTTP: every request stands alone (no MCP session), so any process behind a "
        "load balancer can answer it",
    )
    serve.add_argument(
        "--workers",
        metavar="N",
        default="1",
        help=f"HTTP: run N worker processes on the one port (1 to {MAX_WORKERS}; default 1); "
        "more than one implies --stateless",
    )
    serve.add_argument(
        "--allow-host",
        dest="allow_hosts",
        metavar="HOST",
        action="append",
        help="HTTP: accept this Host header (host, host:port or host:* for any port; "
        "repeatable; * accepts any). Default: 127.0.0.1:*, localhost:* and [::1]:* when "
        "--host is loopback, any otherwise",
    )
    serve.add_argument(
        "--allow-origin",
        dest="allow_origins",
        metavar="ORIGIN",
        action="append",
        help="HTTP: accept this Origin header (e.g. https://app.example.com; repeatable). "
        "Default: http:// and https:// of each allowed host",
    )
    command(
        "convert",
        "turn a JSON Schema into the closest Tool Args Schema, listing every change",
        "Read a JSON Schema (2020-12 or draft-07, as pydantic's model_json_schema() writes it, an "
        "OpenAPI requestBody schema, or a TypeScript SDK manifest's argsSchema) from FILE ('-' "
        'reads stdin) and print {"schema": the closest Tool Args Schema, "changes": every '
        "change, each with its JSON pointer into FILE, what was there, what it became and why}. "
        "A schema with nothing close in the subset (a recursive $ref, a non-object root) is one "
        "error listing every problem with its pointer, exit 1.",
        [
            "pedelec convert model-schema.json",
            "python -c 'print(Model.model_json_schema())' | pedelec convert -",
        ],
        _commands.convert,
        first=("file", "FILE", "the JSON Schema file, or - for stdin"),
    )
    return parser
