"""Result bounds (DESIGN §10): a result whose JSON text is over ``Limits.max_result_bytes`` is a
``TOOL_RESULT_TOO_LARGE`` error result, reported to ``on_error``, whose own text fits."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pedelec import TOOL_RESULT_TOO_LARGE, Limits, PedelecError, Session, ToolResult
from pedelec.limits import DEFAULT_MAX_RESULT_BYTES

OBJ: dict[str, Any] = {"type": "object"}
LIMIT = 2000


def _session(value: Any, limit: int = LIMIT, name: str = "big") -> tuple[Session, list[ToolResult]]:
    session = Session(limits=Limits(max_result_bytes=limit))
    reported: list[ToolResult] = []
    session.on_error(reported.append)
    session.on_tool(name, description="Big.", schema=OBJ)(lambda args: value)
    return session, reported


def _too_large(size: int, limit: int = LIMIT) -> tuple[str, str, dict[str, Any]]:
    return (
        "TOOL_RESULT_TOO_LARGE",
        f'Tool "big" returned a result of {size} bytes of JSON text, over the limit of {limit} '
        "bytes (Limits.max_result_bytes); return less, such as one page, a summary or an id to "
        "fetch the rest by.",
        {"tool": "big", "bytes": size, "limit": limit},
    )


def test_the_default_is_upstreams_message_cap() -> None:
    assert DEFAULT_MAX_RESULT_BYTES == 1024 * 1024
    assert Limits().max_result_bytes == 1_048_576
    assert TOOL_RESULT_TOO_LARGE == "TOOL_RESULT_TOO_LARGE"


@pytest.mark.parametrize(
    ("value", "size"),
    [
        ("x" * 1998, None),  # "x…x" is exactly 2000 bytes
        ("x" * 1999, 2001),
        ("é" * 999, None),  # 2 bytes each: 1998 + 2 quotes
        ("é" * 1000, 2002),
        ("\x01" * 400, 2402),  # each written as \u0001
        ({"k": "x" * 1990}, None),  # {"k":"…"} is 1990 + 8 bytes
        ({"k": "x" * 1993}, 2001),
        ([{"k": "x" * 1990}], None),
        ([{"k": "x" * 1991}], 2001),
        ({"error": {"code": "MINE", "message": "m" * 3000}}, 3038),
    ],
)
def test_results_are_measured_in_utf8_bytes_of_json_text(value: Any, size: int | None) -> None:
    session, reported = _session(value)
    result = session.dispatch_sync("big", {})
    if size is None:
        assert (result.error, result.value, reported) == (None, value, [])
        assert len(result.to_text().encode()) <= LIMIT
        return
    assert result.error is not None
    assert (result.value, result.error.code, result.error.message, result.error.details) == (
        None,
        *_too_large(size),
    )
    assert reported == [result]
    assert len(result.to_text().encode()) <= LIMIT


def test_async_handlers_are_bounded_too() -> None:
    session = Session(limits=Limits(max_result_bytes=1024))

    @session.on_tool("big", description="Big.", schema=OBJ)
    async def big(args: Any) -> list[int]:
        return list(range(1000))

    result = asyncio.run(session.dispatch("big", {}))
    assert result.error is not None
    assert (result.error.code, result.error.details) == (
        "TOOL_RESULT_TOO_LARGE",
        {"tool": "big", "bytes": 3891, "limit": 1024},
    )


def test_the_error_fits_even_with_a_very_long_tool_name() -> None:
    name = "t" * 900
    session, reported = _session("x" * 5000, limit=1024, name=name)
    result = session.dispatch_sync(name, {})
    assert result.error is not None
    assert (result.error.code, result.error.message, result.error.details) == (
        "TOOL_RESULT_TOO_LARGE",
        "The tool returned a result of 5002 bytes of JSON text, over the limit of 1024 bytes "
        "(Limits.max_result_bytes); return less, such as one page, a summary or an id to fetch "
        "the rest by.",
        {"bytes": 5002, "limit": 1024},
    )
    assert len(result.to_text().encode()) <= 1024
    assert reported == [result]


@pytest.mark.parametrize("limit", [1023, 0, -1])
def test_the_limit_has_room_for_its_own_error(limit: int) -> None:
    with pytest.raises(PedelecError) as caught:
        Limits(max_result_bytes=limit)
    message = (
        "Limits(max_result_bytes=...) must be at least 1024, room for the error that says a "
        f"result was too large, got {limit}."
        if limit > 0
        else f"Limits(max_result_bytes=...) must be a positive integer, got {limit!r}."
    )
    assert (caught.value.code, caught.value.message, caught.value.details) == (
        "INVALID_INPUT",
        message,
        {"limit": "max_result_bytes"},
    )
