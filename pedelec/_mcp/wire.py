"""Duplicate keys in ``tools/call`` arguments, found in the raw JSON-RPC text ``serve`` receives.

The MCP SDK parses each message before any handler sees it, and its parser keeps the last of
two equal keys: ``{"amount": 1, "amount": 1000000}`` would reach the tool as a million. So the
transports hand every message through :func:`mark_duplicates` first (stdio: the line reader;
streamable HTTP: :func:`checked_asgi`, an ASGI wrapper over the request body). A ``tools/call``
whose arguments repeat a key gets a private mark in its ``params._meta``, and the ``tools/call``
handler answers it with ``TOOL_ARGS_INVALID`` instead of running the tool (:func:`duplicate_of`).
Every other message passes unchanged, byte for byte.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from pedelec.session import ToolResult

__all__ = ["checked_asgi", "duplicate_of", "duplicate_result", "mark_duplicates"]

# Unguessable, so a client cannot mark a call of another client's; a client that marks its own
# only refuses its own call.
_MARK: Final = f"pedelec/duplicate-key-{secrets.token_hex(8)}"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def _first_duplicate(value: Any, seen: dict[int, str]) -> tuple[list[str | int], str] | None:
    """The path of the first object (in document order) that repeated a key, and that key."""
    stack: list[tuple[list[str | int], Any]] = [([], value)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            if id(node) in seen:
                return path, seen[id(node)]
            stack.extend(([*path, k], v) for k, v in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend(([*path, i], v) for i, v in reversed(list(enumerate(node))))
    return None


def mark_duplicates(text: str | bytes) -> str | bytes:
    """``text`` itself, or, for a ``tools/call`` whose arguments repeat a key, the message with
    that key's place marked in ``params._meta`` (and the arguments as the SDK would keep them)."""
    # Cheap test first: nearly every message is not a tools/call.
    if isinstance(text, bytes) and b"tools/call" not in text:
        return text
    if isinstance(text, str) and "tools/call" not in text:
        return text
    seen: dict[int, str] = {}
    keep: list[dict[str, Any]] = []  # holds every object so no id() is reused while parsing

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(items)
        keep.append(obj)
        if len(obj) != len(items):
            counted: set[str] = set()
            for key, _ in items:
                if key in counted:
                    seen[id(obj)] = key
                    break
                counted.add(key)
        return obj

    try:
        message = json.loads(text, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        return text  # the SDK answers what is not JSON
    params = message.get("params") if isinstance(message, dict) else None
    if not seen or message.get("method") != "tools/call" or not isinstance(params, dict):
        return text
    found = _first_duplicate(params.get("arguments"), seen)
    if found is None:
        return text
    from pedelec._json import pointer

    path, key = found
    meta = params.get("_meta")
    params["_meta"] = {**(meta if isinstance(meta, dict) else {}), _MARK: [pointer(path), key]}
    marked = json.dumps(message, ensure_ascii=False)
    return marked.encode("utf-8") if isinstance(text, bytes) else marked


def duplicate_of(meta: Any) -> tuple[str, str] | None:
    """``(pointer, key)`` when :func:`mark_duplicates` marked this call's ``params._meta``."""
    found = meta.get(_MARK) if isinstance(meta, Mapping) else None
    if isinstance(found, list) and len(found) == 2 and all(isinstance(s, str) for s in found):
        return found[0], found[1]
    return None


def duplicate_result(tool: str, where: str, key: str) -> ToolResult:
    """The ``TOOL_ARGS_INVALID`` result the session gives for such arguments sent as text."""
    from pedelec._result import args_unparsable
    from pedelec.errors import TOOL_ARGS_INVALID, PedelecError

    place = where or "the root"
    error = PedelecError(
        TOOL_ARGS_INVALID,
        f'args are not valid JSON: duplicate key "{key}" in the object at {place}; '
        "send each key once.",
        {"pointer": where},
    )
    return args_unparsable(tool, "", error)


def checked_asgi(app: ASGIApp, max_body: int) -> ASGIApp:
    """``app`` with every POST body passed through :func:`mark_duplicates` first.

    Bodies over ``max_body`` bytes are passed on unread for the SDK to refuse.
    """

    async def checked(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await app(scope, receive, send)
            return
        body = bytearray()
        held: list[Message] = []
        while True:
            message = await receive()
            held.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if not message.get("more_body", False):
                raw = bytes(body)
                new = mark_duplicates(raw)
                if new is not raw:
                    held = [{"type": "http.request", "body": new, "more_body": False}]
                    scope = {**scope, "headers": _with_length(scope["headers"], len(new))}
                break
            if len(body) > max_body:
                break

        async def replay() -> Message:
            return held.pop(0) if held else await receive()

        await app(scope, replay, send)

    return checked


def _with_length(headers: list[tuple[bytes, bytes]], length: int) -> list[tuple[bytes, bytes]]:
    kept = [(k, v) for k, v in headers if k.lower() != b"content-length"]
    return [*kept, (b"content-length", str(length).encode("ascii"))]
