"""Concurrency controls: ``sequential=True`` tools in a provider batch, ``max_concurrency``.

Order is proven by what handlers see of each other (events and a log), never by sleeping: a
call that must run alongside another waits for that other to have started, so a batch that ran
them one after the other would not answer them.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from pedelec import PedelecError, Session, ToolCallContext, define_tool, tool
from pedelec.adapters import anthropic as pedelec_anthropic, openai as pedelec_openai

N: Any = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
WAIT = 10  # seconds: a bound for a wait that must end far sooner, never part of a result


def openai_call(call_id: str, name: str, n: int) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": f'{{"n": {n}}}'},
    }


def anthropic_use(use_id: str, name: str, n: int) -> dict[str, Any]:
    return {"type": "tool_use", "id": use_id, "name": name, "input": {"n": n}}


class Board:
    """What the handlers of a batch saw: a log, and a 'started' event per call."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.log: list[str] = []
        self.started = {n: threading.Event() for n in range(1, 7)}

    def note(self, text: str) -> None:
        with self.lock:
            self.log.append(text)


def batch_session(board: Board, kind: str) -> Session:
    """``read`` (concurrent) and ``write`` (sequential): reads 1 and 2 (and 5 and 6) each wait
    until the other has started, which only a concurrent run lets happen."""
    session = Session()
    partner = {1: 2, 2: 1, 5: 6, 6: 5}

    if kind == "async":

        @session.on_tool("read", description="Read.", schema=N)
        async def read(args: dict[str, Any]) -> Any:
            n = args["n"]
            board.note(f"start {n}")
            board.started[n].set()
            other = partner.get(n)
            if other is not None:
                while not board.started[other].is_set():
                    await asyncio.sleep(0)
            board.note(f"end {n}")
            return n

        @session.on_tool("write", description="Write.", schema=N, sequential=True)
        async def write(args: dict[str, Any]) -> Any:
            board.note(f"write {args['n']}")
            await asyncio.sleep(0)
            return args["n"]

    else:

        @session.on_tool("read", description="Read.", schema=N)
        def read_sync(args: dict[str, Any]) -> Any:
            n = args["n"]
            board.note(f"start {n}")
            board.started[n].set()
            other = partner.get(n)
            if other is not None:
                assert board.started[other].wait(WAIT)
            board.note(f"end {n}")
            return n

        @session.on_tool("write", description="Write.", schema=N, sequential=True)
        def write_sync(args: dict[str, Any]) -> Any:
            board.note(f"write {args['n']}")
            return args["n"]

    return session


#: read 1 ∥ read 2, then write 3 alone, then write 4 alone, then read 5 ∥ read 6.
PLAN = [("read", 1), ("read", 2), ("write", 3), ("write", 4), ("read", 5), ("read", 6)]


def check_order(log: list[str]) -> None:
    assert sorted(log[:4]) == ["end 1", "end 2", "start 1", "start 2"]
    assert log[4:6] == ["write 3", "write 4"]
    assert sorted(log[6:]) == ["end 5", "end 6", "start 5", "start 6"]
    assert log.index("start 5") < log.index("end 6") and log.index("start 6") < log.index("end 5")


@pytest.mark.parametrize("kind", ["async", "threaded"])
def test_sequential_in_an_openai_batch(kind: str) -> None:
    board = Board()
    session = batch_session(board, kind)
    calls = [openai_call(f"c{i}", name, n) for i, (name, n) in enumerate(PLAN)]
    messages = asyncio.run(pedelec_openai.dispatch_tool_calls(session, calls))
    assert messages == [
        {"role": "tool", "tool_call_id": f"c{i}", "content": str(n)}
        for i, (_, n) in enumerate(PLAN)
    ]
    check_order(board.log)


@pytest.mark.parametrize("kind", ["async", "threaded"])
def test_sequential_in_an_anthropic_batch(kind: str) -> None:
    board = Board()
    session = batch_session(board, kind)
    uses = [anthropic_use(f"u{i}", name, n) for i, (name, n) in enumerate(PLAN)]
    blocks = pedelec_anthropic.dispatch_tool_uses_sync(session, uses)
    assert [(b["tool_use_id"], b["content"]) for b in blocks] == [
        (f"u{i}", str(n)) for i, (_, n) in enumerate(PLAN)
    ]
    check_order(board.log)


def test_without_a_sequential_tool_a_batch_runs_at_once() -> None:
    """Every call of the batch waits for the next one to start: only a concurrent run answers."""
    board = Board()
    session = Session()

    @session.on_tool("read", description="Read.", schema=N)
    async def read(args: dict[str, Any]) -> Any:
        n = args["n"]
        board.started[n].set()
        while not all(board.started[k].is_set() for k in range(1, 5)):
            await asyncio.sleep(0)
        return n

    calls = [openai_call(f"c{n}", "read", n) for n in range(1, 5)]
    messages = asyncio.run(pedelec_openai.dispatch_tool_calls(session, calls))
    assert [m["content"] for m in messages] == ["1", "2", "3", "4"]


@pytest.mark.parametrize("kind", ["async", "threaded"])
def test_a_timeout_releases_the_barrier(kind: str) -> None:
    release = threading.Event()
    seen: list[Any] = []
    writes: list[ToolCallContext] = []
    session = Session()
    if kind == "async":

        @session.on_tool("write", description="W.", schema=N, sequential=True, timeout_ms=50)
        async def write(args: dict[str, Any], ctx: ToolCallContext) -> Any:
            writes.append(ctx)
            await asyncio.Event().wait()  # only the deadline ends it

    else:

        @session.on_tool("write", description="W.", schema=N, sequential=True, timeout_ms=50)
        def write_sync(args: dict[str, Any], ctx: ToolCallContext) -> Any:
            writes.append(ctx)
            release.wait(WAIT)

    @session.on_tool("read", description="R.", schema=N)
    def read(args: dict[str, Any]) -> Any:
        seen.append((len(writes), writes[0].cancelled if writes else None, release.is_set()))
        return args["n"]

    calls = [openai_call("c1", "write", 1), openai_call("c2", "read", 2)]
    try:
        messages = pedelec_openai.dispatch_tool_calls_sync(session, calls)
    finally:
        release.set()
    assert messages == [
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": '{"error":{"code":"TOOL_TIMEOUT","message":"Tool \\"write\\" did not '
            'finish within 50 ms.","details":{"tool":"write","timeoutMs":50}}}',
        },
        {"role": "tool", "tool_call_id": "c2", "content": "2"},
    ]
    # The read ran once the write had timed out, while the write still held its thread.
    assert seen == [(1, True, False)]


def test_calls_that_carry_an_error_are_answered_in_place() -> None:
    session = Session()
    order: list[str] = []

    @session.on_tool("write", description="W.", schema=N, sequential=True)
    def write(args: dict[str, Any]) -> Any:
        order.append("write")
        return 1

    calls = [{"type": "function", "function": {"name": "write", "arguments": "{}"}}]
    calls.append(openai_call("c2", "write", 2))
    calls.append(openai_call("c3", "nope", 3))
    messages = pedelec_openai.dispatch_tool_calls_sync(session, calls)
    assert [m["tool_call_id"] for m in messages] == ["", "c2", "c3"]
    assert order == ["write"]


# --- declaring sequential tools -------------------------------------------------------------------


def declared_ways() -> list[tuple[str, Callable[[], Session]]]:
    def on_tool() -> Session:
        session = Session()
        session.on_tool("w", description="W.", schema=N, sequential=True)(lambda args: 1)
        return session

    def define() -> Session:
        return Session(tools=[define_tool(name="w", description="W.", schema=N, sequential=True)])

    def decorator() -> Session:
        @tool("w", schema=N, sequential=True)
        def w(args: dict[str, Any]) -> int:
            """W."""
            return 1

        return Session(tools=[w])

    def typed() -> Session:
        session = Session()

        @session.tool(name="w", sequential=True)
        def w(n: int) -> int:
            """W."""
            return n

        return session

    def typed_definition() -> Session:
        @tool(sequential=True)
        def w(n: int) -> int:
            """W."""
            return n

        return Session(tools=[w])

    def manifest() -> Session:
        return Session.from_manifest(
            {"tools": [{"name": "w", "description": "W.", "argsSchema": N, "sequential": True}]}
        )

    return [
        ("on_tool", on_tool),
        ("define_tool", define),
        ("@tool", decorator),
        ("session.tool", typed),
        ("typed @tool", typed_definition),
        ("manifest", manifest),
    ]


@pytest.mark.parametrize(("_way", "build"), declared_ways(), ids=[w for w, _ in declared_ways()])
def test_every_way_to_declare_a_sequential_tool(_way: str, build: Callable[[], Session]) -> None:
    session = build()
    spec = session.tool_spec("w")
    assert spec["sequential"] is True
    again = Session.from_manifest(session.manifest())
    assert again.tool_spec("w")["sequential"] is True


def test_a_tool_is_not_sequential_unless_declared_so() -> None:
    session = Session(tools=[define_tool(name="r", description="R.", schema=N)])
    assert "sequential" not in session.tool_spec("r")
    assert session.manifest()["tools"][0].keys() == {"name", "description", "argsSchema"}


@pytest.mark.parametrize("bad", [1, "yes", None])
def test_sequential_must_be_a_bool(bad: Any) -> None:
    with pytest.raises(PedelecError) as info:
        define_tool(name="w", description="W.", schema=N, sequential=bad)
    assert (info.value.code, info.value.message, info.value.details) == (
        "INVALID_INPUT",
        f'Tool "w": sequential must be True or False, got {type(bad).__name__}.',
        {"tool": "w", "field": "sequential"},
    )
    with pytest.raises(PedelecError) as info:
        Session.from_manifest(
            {"tools": [{"name": "w", "description": "W.", "argsSchema": N, "sequential": bad}]}
        )
    assert (
        info.value.message
        == f'Tool "w": sequential must be True or False, got {type(bad).__name__}.'
    )


# --- max_concurrency ----------------------------------------------------------------------------


class Meter:
    """Counts the handlers running at once and holds them at a gate."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running = 0
        self.peak = 0
        self.started = 0
        self.two = threading.Event()
        self.gate = threading.Event()

    def enter(self) -> None:
        with self.lock:
            self.running += 1
            self.started += 1
            self.peak = max(self.peak, self.running)
            if self.running == 2:
                self.two.set()

    def leave(self) -> None:
        with self.lock:
            self.running -= 1


def capped(meter: Meter, kind: str, **options: Any) -> Session:
    session = Session(max_concurrency=2, **options)
    if kind == "async":

        @session.on_tool("t", description="T.", schema=N)
        async def handler(args: dict[str, Any]) -> Any:
            meter.enter()
            try:
                while not meter.gate.is_set():
                    await asyncio.sleep(0.001)
            finally:
                meter.leave()
            return args["n"]

    else:

        @session.on_tool("t", description="T.", schema=N)
        def handler_sync(args: dict[str, Any]) -> Any:
            meter.enter()
            try:
                assert meter.gate.wait(WAIT)
            finally:
                meter.leave()
            return args["n"]

    return session


def settle_down() -> None:
    """Give calls that (wrongly) could start a chance to: only detection power depends on it."""
    time.sleep(0.05)


@pytest.mark.parametrize("kind", ["async", "threaded"])
def test_max_concurrency_in_asyncio_tasks(kind: str) -> None:
    meter = Meter()
    session = capped(meter, kind)

    async def main() -> list[Any]:
        calls = asyncio.gather(*(session.dispatch("t", {"n": n}) for n in range(6)))
        while not meter.two.is_set():
            await asyncio.sleep(0.001)
        for _ in range(50):
            await asyncio.sleep(0)
        await asyncio.to_thread(settle_down)
        assert (meter.running, meter.started) == (2, 2)
        meter.gate.set()
        return [result.value for result in await calls]

    assert asyncio.run(main()) == [0, 1, 2, 3, 4, 5]
    assert (meter.peak, meter.started, meter.running) == (2, 6, 0)
    assert session.status == "idle"


@pytest.mark.parametrize("kind", ["async", "sync"])
@pytest.mark.parametrize("options", [{}, {"sync_dispatch": "worker"}], ids=["inline", "worker"])
def test_max_concurrency_across_threads(kind: str, options: dict[str, Any]) -> None:
    meter = Meter()
    session = capped(meter, kind, **options)
    results: dict[int, Any] = {}

    def caller(n: int) -> None:
        results[n] = session.dispatch_sync("t", {"n": n}).value

    threads = [threading.Thread(target=caller, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    assert meter.two.wait(WAIT)
    settle_down()
    assert (meter.running, meter.started) == (2, 2)
    meter.gate.set()
    for thread in threads:
        thread.join(WAIT)
    assert results == {n: n for n in range(6)}
    assert (meter.peak, meter.started, meter.running) == (2, 6, 0)


def test_waiting_for_a_slot_counts_against_the_timeout() -> None:
    gate = threading.Event()
    ran: list[int] = []
    session = Session(max_concurrency=1)

    @session.on_tool("t", description="T.", schema=N, timeout_ms=50)
    def handler(args: dict[str, Any]) -> Any:
        ran.append(args["n"])
        if args["n"] == 1:
            gate.wait(WAIT)
        return args["n"]

    @session.on_tool("hold", description="Hold.", schema=N)
    async def hold(args: dict[str, Any]) -> Any:
        ran.append(args["n"])
        while not gate.is_set():
            await asyncio.sleep(0.001)
        return args["n"]

    async def main() -> list[Any]:
        first = asyncio.ensure_future(session.dispatch("hold", {"n": 0}))
        while not ran:
            await asyncio.sleep(0.001)
        late = await session.dispatch("t", {"n": 2})  # waits for the slot past its deadline
        gate.set()
        return [await first, late, await session.dispatch("t", {"n": 3})]

    held, late, after = asyncio.run(main())
    assert held.value == 0
    assert late.to_json() == {
        "error": {
            "code": "TOOL_TIMEOUT",
            "message": 'Tool "t" did not finish within 50 ms.',
            "details": {"tool": "t", "timeoutMs": 50},
        }
    }
    assert after.value == 3  # the slot the timed-out waiter never got is not lost
    assert ran == [0, 3]


async def full_house(session: Session, meter: Meter) -> tuple[list[Any], Any]:
    """Two calls holding both slots of a ``capped`` session, and a third one waiting."""
    holders = [asyncio.ensure_future(session.dispatch("t", {"n": n})) for n in range(2)]
    while not meter.two.is_set():
        await asyncio.sleep(0.001)
    return holders, asyncio.ensure_future(session.dispatch("t", {"n": 9}))


def test_a_cancelled_waiter_gives_no_slot_away() -> None:
    meter = Meter()
    session = capped(meter, "async")

    async def main() -> list[Any]:
        holders, waiter = await full_house(session, meter)
        await asyncio.sleep(0)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        meter.gate.set()
        done = [r.value for r in await asyncio.gather(*holders)]
        done.append((await session.dispatch("t", {"n": 3})).value)
        return done

    assert asyncio.run(main()) == [0, 1, 3]
    assert (meter.peak, meter.started) == (2, 3)


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "2"])
def test_max_concurrency_is_checked_at_construction(bad: Any) -> None:
    with pytest.raises(PedelecError) as info:
        Session(max_concurrency=bad)
    assert (info.value.code, info.value.message, info.value.details) == (
        "INVALID_INPUT",
        "max_concurrency must be a positive integer (the most handlers that run at once), "
        f"got {bad!r}.",
        {"field": "max_concurrency"},
    )


def test_max_concurrency_property() -> None:
    assert Session().max_concurrency is None
    assert Session(max_concurrency=3).max_concurrency == 3
    assert Session.from_manifest({"tools": []}, max_concurrency=4).max_concurrency == 4


def test_pydantic_ai_runs_a_sequential_tool_as_a_barrier() -> None:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from pedelec.adapters.pydantic_ai import toolset

    board = Board()
    session = batch_session(board, "async")
    flags: list[tuple[str, bool]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) > 1:
            return ModelResponse(parts=[TextPart("done")])
        flags.extend((tool.name, tool.sequential) for tool in info.function_tools)
        parts = [ToolCallPart(name, f'{{"n": {n}}}', tool_call_id=f"c{n}") for name, n in PLAN]
        return ModelResponse(parts=parts)

    agent = Agent(FunctionModel(model), toolsets=[toolset(session)])
    assert asyncio.run(agent.run("Go.")).output == "done"
    assert flags == [("read", False), ("write", True)]
    check_order(board.log)


def test_end_while_waiting_for_a_slot() -> None:
    meter = Meter()
    session = capped(meter, "async")

    async def main() -> list[Any]:
        holders, waiter = await full_house(session, meter)
        for _ in range(10):
            await asyncio.sleep(0)
        session.end()
        return [
            (r.error.code if r.error else r.value) for r in await asyncio.gather(*holders, waiter)
        ]

    assert asyncio.run(main()) == ["SESSION_ENDED", "SESSION_ENDED", "SESSION_ENDED"]
    assert meter.started == 2  # the waiter never ran its handler
