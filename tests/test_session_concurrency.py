"""Many calls at once on one session: threads, asyncio tasks, both, and registration meanwhile."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from typing import Any

import pytest

from pedelec._context import ToolCallContext
from pedelec.session import Session, ToolResult

NUMBER: Any = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def mixed_session() -> Session:
    session = Session()

    @session.on_tool("double", description="Double n.", schema=NUMBER)
    def double(args: dict[str, Any], ctx: ToolCallContext) -> Any:
        args["n"] *= 2  # mutating its own copy must not disturb other calls
        return {"n": args["n"], "id": ctx.tool_request_id}

    @session.on_tool("fail", description="Fail.", schema=NUMBER)
    def fail(args: dict[str, Any]) -> Any:
        raise ValueError(f"n={args['n']}")

    @session.on_tool("junk", description="Junk.", schema=NUMBER)
    def junk(args: dict[str, Any]) -> Any:
        return {args["n"]}

    return session


def expected(name: str, n: Any) -> tuple[str, Any]:
    """(code or "ok", value) a call of ``mixed_session`` must give."""
    if not isinstance(n, int):
        return "TOOL_ARGS_INVALID", None
    if name == "double":
        return "ok", n * 2
    if name == "fail":
        return "TOOL_HANDLER_ERROR", f'Tool "fail" failed: ValueError: n={n}'
    return "SUBMIT_TOOL_RESULT_FAILED", None


def check(result: ToolResult, name: str, n: Any) -> str:
    code, value = expected(name, n)
    if code == "ok":
        assert result.error is None
        assert result.value == {"n": value, "id": result.tool_request_id}
    else:
        assert result.error is not None and result.error.code == code
        if value is not None:
            assert result.error.message == value
    return code


def plan(i: int) -> tuple[str, Any]:
    name = ("double", "double", "fail", "junk")[i % 4]
    return name, (str(i) if i % 7 == 0 else i)


def test_threads_8_x_2000() -> None:
    session = mixed_session()
    statuses: list[str] = []
    session.on_status(statuses.append)
    tallies: list[Counter[str]] = []
    errors: list[BaseException] = []

    def worker(offset: int) -> None:
        tally: Counter[str] = Counter()
        try:
            for i in range(offset, offset + 2000):
                name, n = plan(i)
                tally[check(session.dispatch_sync(name, {"n": n}), name, n)] += 1
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        tallies.append(tally)

    threads = [threading.Thread(target=worker, args=(t * 2000,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    total = sum(tallies, Counter())
    assert total == Counter(check_code(i) for i in range(16_000))
    assert sum(total.values()) == 16_000
    assert session.status == "idle"
    assert statuses[-1] == "idle"


def check_code(i: int) -> str:
    return expected(*plan(i))[0]


@pytest.mark.asyncio
async def test_asyncio_10_000_concurrent_calls() -> None:
    session = Session()
    peak = 0
    running = 0

    @session.on_tool("double", description="Double n.", schema=NUMBER)
    async def double(args: dict[str, Any]) -> int:
        nonlocal peak, running
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0)
        running -= 1
        return int(args["n"]) * 2

    statuses: list[str] = []
    session.on_status(statuses.append)
    results = await asyncio.gather(*(session.dispatch("double", {"n": i}) for i in range(10_000)))
    assert [r.value for r in results] == [i * 2 for i in range(10_000)]
    assert all(r.error is None for r in results)
    assert len({r.tool_request_id for r in results}) == 10_000
    assert peak == 10_000  # every call was in flight at once
    assert statuses == ["waiting_tool_result", "idle"]
    assert session.status == "idle"


@pytest.mark.asyncio
async def test_asyncio_concurrent_mixed_outcomes_with_threaded_handlers() -> None:
    session = mixed_session()
    calls = [plan(i) for i in range(2000)]
    results = await asyncio.gather(*(session.dispatch(name, {"n": n}) for name, n in calls))
    codes = Counter(check(r, name, n) for r, (name, n) in zip(results, calls, strict=True))
    assert codes == Counter(check_code(i) for i in range(2000))
    assert session.status == "idle"
    session.end()


def test_threads_and_a_loop_at_once_while_tools_are_registered() -> None:
    session = mixed_session()
    stop = threading.Event()
    failures: list[BaseException] = []

    def sync_caller(offset: int) -> None:
        try:
            for i in range(offset, offset + 500):
                name, n = plan(i)
                check(session.dispatch_sync(name, {"n": n}), name, n)
        except BaseException as exc:  # pragma: no cover - reported below
            failures.append(exc)

    def registrar() -> None:
        i = 0
        while not stop.is_set():
            session.on_tool(f"extra{i}", description="Extra.", schema=NUMBER)(
                lambda args: args["n"]
            )
            i += 1

    async def async_caller() -> None:
        for batch in range(5):
            calls = [plan(batch * 100 + i) for i in range(100)]
            results = await asyncio.gather(*(session.dispatch(name, {"n": n}) for name, n in calls))
            for result, (name, n) in zip(results, calls, strict=True):
                check(result, name, n)

    threads = [threading.Thread(target=sync_caller, args=(k * 500,)) for k in range(4)]
    adder = threading.Thread(target=registrar)
    adder.start()
    for t in threads:
        t.start()
    asyncio.run(async_caller())
    for t in threads:
        t.join(60)
    stop.set()
    adder.join(10)
    assert failures == []
    assert session.status == "idle"
    extras = [n for n in session.tool_names() if n.startswith("extra")]
    assert extras and all(session.dispatch_sync(n, {"n": 3}).value == 3 for n in extras[:20])
    session.end()
