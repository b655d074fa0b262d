"""A linear-time matcher for schema patterns, with ECMA-262 (``u`` flag) semantics.

Python's ``re`` backtracks, so a pattern such as ``^\\d*\\d*\\d*\\d*$`` costs it a polynomial
number of steps on a string of digits ending in a letter. This matcher simulates the
pattern's Thompson automaton instead (a Pike VM that keeps each state once per position), so
a search costs at most ``len(text)`` times the number of states. It answers only whether the
pattern occurs in the text, like ``re.search(...) is not None``.

It reads the tree of the project's own parser (:mod:`pedelec.schema.patterns.tree`) and the
ECMA-262 character sets of :mod:`pedelec.schema.patterns.charsets`. Lookarounds become
position predicates, computed before the search by a scan of their own (backwards for a
lookahead). A backreference is kept only where the group it names captures one character out
of a few, so the few possible captures ride along with each state; :func:`supported` words
why any other pattern cannot be matched this way.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Sequence
from typing import Any

from pedelec.schema.patterns.charsets import Intervals, ecma_set, union
from pedelec.schema.patterns.parse import Invalid, TooComplex, Unportable, parse, quote
from pedelec.schema.patterns.tree import (
    UNBOUNDED,
    Alt,
    Anchor,
    Backref,
    CharSet,
    Group,
    Look,
    Node,
    Repeat,
    Seq,
    walk,
)

__all__ = ["Matcher", "compile", "supported"]

_Caps = tuple[str | None, ...]  # the capture of each group a backreference names
_Thread = tuple[int, _Caps]
# a program without backreferences keeps instruction numbers; one with them keeps threads
_States = frozenset[Any]
_Context = tuple[bool, ...]  # at start, at end, word before, word after, lookaround verdicts

_MAX_STATES = 2_000  # about a second of stepping on a 1 024-code-point string
_MAX_CAPTURES = 256  # product over backreferenced groups of (captures it can hold + 1)
_MAX_CACHED = 4_096
_WORD = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")

# instructions; a CHAR's target is always the next instruction
_OP_CHAR, _OP_MATCH, _OP_SPLIT, _OP_JUMP, _OP_ASSERT, _OP_CLEAR, _OP_BACKREF = range(7)
# assertions; lookaround k (an index into the program's own lookarounds) is 4 + 2k, negated 5 + 2k
_AT_START, _AT_END, _AT_WORD_EDGE, _AT_NOT_WORD_EDGE = range(4)


class _Unsupported(Exception):
    """The pattern uses something this matcher cannot run in linear time."""


def supported(pattern: str, tree: Seq | Alt | None = None) -> str | None:
    """Say why ``pattern`` cannot be run by this matcher, or ``None`` when it can.

    Args:
        pattern: The pattern text.
        tree: The parse tree of ``pattern`` when the caller has one already.

    Returns:
        ``None``, or one sentence (no trailing period) naming the construct and the fix.

    Example:
        >>> supported(r"^\\d*\\d*$") is None
        True
    """
    try:
        Matcher(pattern, tree)
    except ValueError as exc:
        return str(exc)
    return None


def compile(pattern: str, tree: Seq | Alt | None = None) -> Matcher:
    """Build the matcher of ``pattern``; raises ``ValueError`` with :func:`supported`'s reason.

    Example:
        >>> compile(r"^(?:\\w+\\s?)+$").search("two words")
        True
    """
    return Matcher(pattern, tree)


class Matcher:
    """One pattern, ready to search texts in time linear in their length."""

    __slots__ = ("_looks", "_main", "pattern")

    def __init__(self, pattern: str, tree: Seq | Alt | None = None) -> None:
        self.pattern = pattern
        shown = quote(pattern)
        if tree is None:
            try:
                tree = parse(pattern)
            except (Unportable, Invalid, TooComplex):
                raise ValueError(
                    f"pattern {shown} is not a portable ECMA-262 pattern; "
                    "fix what pattern_problem reports for it"
                ) from None
        try:
            builder = _Builder(pattern, tree)
        except _Unsupported as exc:
            raise ValueError(f"pattern {shown} {exc}") from None
        self._main = builder.main
        self._looks = builder.looks

    def search(self, text: str) -> bool:
        """Whether the pattern matches somewhere in ``text`` (``re.search`` semantics)."""
        verdicts: list[list[bool]] = []
        for look in self._looks:  # inner lookarounds come first
            verdicts.append(_scan(look, text, verdicts))
        program = self._main
        contexts = program.contexts(text, verdicts)
        states, hit = program.start(contexts[0] if contexts else _NO_CONTEXT)
        if hit:
            return True
        cache = program.cache
        step = program.step
        if contexts is None:
            for ch in text:
                key = (states, ch, _NO_CONTEXT)
                found = cache.get(key)
                if found is None:
                    found = step(key)
                states, hit = found
                if hit:
                    return True
            return False
        for i, ch in enumerate(text, 1):
            key = (states, ch, contexts[i])
            found = cache.get(key)
            if found is None:
                found = step(key)
            states, hit = found
            if hit:
                return True
        return False


_NO_CONTEXT: _Context = (False, False, False, False)


class _Program:
    """A flat instruction list and its state-set transitions, cached as they are met."""

    __slots__ = (
        "accepting",
        "arg",
        "arg2",
        "cache",
        "captures",
        "empty",
        "looks",
        "op",
        "tests",
        "uses",
    )

    def __init__(self) -> None:
        self.op: list[int] = []
        self.arg: list[int] = []
        self.arg2: list[int] = []
        self.tests: list[Callable[[int], bool] | None] = []
        self.captures: list[tuple[int, ...]] = []  # slots a CHAR captures into, or CLEAR clears
        self.looks: list[int] = []  # the matcher's lookaround numbers this program reads
        self.uses = [False, False, False]  # start, end, word edges
        self.empty: _Caps = ()
        self.cache: dict[tuple[_States, str, _Context], tuple[_States, bool]] = {}
        # without backreferences: the instructions that accept a character, so that a step
        # starts with one set intersection
        self.accepting: dict[str, frozenset[int]] = {}

    def emit(
        self,
        op: int,
        arg: int = 0,
        arg2: int = 0,
        test: Callable[[int], bool] | None = None,
        captures: tuple[int, ...] = (),
    ) -> int:
        if len(self.op) >= _MAX_STATES:
            raise _Unsupported(
                f"needs more than {_MAX_STATES:,} matcher states, each counted repeat written "
                "out as copies of its body; use smaller counts, fewer nested counted repeats "
                "or fewer alternatives"
            )
        self.op.append(op)
        self.arg.append(arg)
        self.arg2.append(arg2)
        self.tests.append(test)
        self.captures.append(captures)
        return len(self.op) - 1

    def contexts(self, text: str, verdicts: Sequence[list[bool]]) -> list[_Context] | None:
        """What the assertions of this program read at each position of ``text``, if any."""
        start, end, word = self.uses
        if not (start or end or word or self.looks):
            return None
        n = len(text)
        words = [ch in _WORD for ch in text] if word else [False] * n
        words.append(False)
        mine = [verdicts[k] for k in self.looks]
        out: list[_Context] = []
        before = False
        for i in range(n + 1):
            after = words[i]
            out.append((start and i == 0, end and i == n, before, after, *(v[i] for v in mine)))
            before = after
        return out

    def start(self, context: _Context) -> tuple[_States, bool]:
        if not self.empty:
            return self._reach([0], context)
        return self.closure([(0, self.empty)], context)

    def _reach(self, seeds: list[int], context: _Context) -> tuple[frozenset[int], bool]:
        """``closure`` for a program without backreferences, on bare instruction numbers."""
        op, arg, arg2 = self.op, self.arg, self.arg2
        seen: set[int] = set()
        out: list[int] = []
        hit = False
        stack = seeds[::-1]
        pop, push, mark = stack.pop, stack.append, seen.add
        while stack:
            pc = pop()
            if pc in seen:
                continue
            mark(pc)
            kind = op[pc]
            if kind == _OP_CHAR:
                out.append(pc)
            elif kind == _OP_SPLIT:
                push(arg2[pc])
                push(arg[pc])
            elif kind == _OP_JUMP:
                push(arg[pc])
            elif kind == _OP_ASSERT:
                if _holds(arg[pc], context):
                    push(pc + 1)
            else:
                hit = True
        return frozenset(out), hit

    def _accepting(self, ch: str) -> frozenset[int]:
        found = self.accepting.get(ch)
        if found is None:
            code = ord(ch)
            found = frozenset(
                pc
                for pc, test in enumerate(self.tests)
                if test is not None and self.op[pc] == _OP_CHAR and test(code)
            )
            if len(self.accepting) >= _MAX_CACHED:
                self.accepting.clear()
            self.accepting[ch] = found
        return found

    def step(self, key: tuple[_States, str, _Context]) -> tuple[_States, bool]:
        """The states after reading one character, with the start state added again."""
        if not self.empty:
            states, ch, context = key
            seeds = [pc + 1 for pc in states & self._accepting(ch)]
            seeds.append(0)
            found = self._reach(seeds, context)
        else:
            found = self._step_threads(key)
        if len(self.cache) >= _MAX_CACHED:
            self.cache.clear()
        self.cache[key] = found
        return found

    def _step_threads(self, key: tuple[_States, str, _Context]) -> tuple[_States, bool]:
        """``step`` for a program with backreferences: each state carries its captures."""
        states, ch, context = key
        code = ord(ch)
        op, tests, captures, slots = self.op, self.tests, self.captures, self.arg
        seeds: list[_Thread] = []
        for pc, caps in states:
            kind = op[pc]
            if kind == _OP_CHAR:
                test = tests[pc]
                assert test is not None
                if test(code):
                    into = captures[pc]
                    if into:
                        held = list(caps)
                        for slot in into:
                            held[slot] = ch
                        caps = tuple(held)
                    seeds.append((pc + 1, caps))
            elif kind == _OP_BACKREF and caps[slots[pc]] == ch:
                seeds.append((pc + 1, caps))
        seeds.append((0, self.empty))
        return self.closure(seeds, context)

    def closure(self, seeds: list[_Thread], context: _Context) -> tuple[_States, bool]:
        """Follow every path that reads nothing; keep the states that read or accept."""
        op, arg, arg2 = self.op, self.arg, self.arg2
        out: set[_Thread] = set()
        seen: set[_Thread] = set()
        hit = False
        stack = seeds[::-1]
        while stack:
            thread = stack.pop()
            if thread in seen:
                continue
            seen.add(thread)
            pc, caps = thread
            kind = op[pc]
            if kind == _OP_CHAR:
                out.add(thread)
            elif kind == _OP_SPLIT:
                stack.append((arg2[pc], caps))
                stack.append((arg[pc], caps))
            elif kind == _OP_JUMP:
                stack.append((arg[pc], caps))
            elif kind == _OP_ASSERT:
                if _holds(arg[pc], context):
                    stack.append((pc + 1, caps))
            elif kind == _OP_CLEAR:
                held = list(caps)
                for slot in self.captures[pc]:
                    held[slot] = None
                stack.append((pc + 1, tuple(held)))
            elif kind == _OP_BACKREF:
                if caps[arg[pc]] is None:  # an unset group matches the empty string
                    stack.append((pc + 1, caps))
                else:
                    out.add(thread)
            else:
                hit = True
        return frozenset(out), hit


def _holds(assertion: int, context: _Context) -> bool:
    if assertion == _AT_WORD_EDGE:
        return context[2] != context[3]
    if assertion == _AT_NOT_WORD_EDGE:
        return context[2] == context[3]
    if assertion < 4:
        return context[assertion]
    verdict = context[2 + assertion // 2]
    return not verdict if assertion % 2 else verdict


class _Look:
    """One lookaround: its program and which way it scans."""

    __slots__ = ("ahead", "program")

    def __init__(self, program: _Program, ahead: bool) -> None:
        self.program = program
        self.ahead = ahead


def _scan(look: _Look, text: str, verdicts: Sequence[list[bool]]) -> list[bool]:
    """At each position of ``text``, whether the lookaround's body matches there.

    A lookahead's body is compiled reversed and scanned from the end, so a match found at
    position i is one that starts at i; a lookbehind's body scans forwards and finds the
    matches that end at i. Nested lookarounds come earlier in ``verdicts``.
    """
    program = look.program
    n = len(text)
    contexts = program.contexts(text, verdicts)
    order: Iterable[int] = range(n, -1, -1) if look.ahead else range(n + 1)
    out = [False] * (n + 1)
    states: _States = frozenset()
    cache = program.cache
    for i in order:
        context = contexts[i] if contexts is not None else _NO_CONTEXT
        if i == (n if look.ahead else 0):
            states, hit = program.start(context)
        else:
            key = (states, text[i] if look.ahead else text[i - 1], context)
            found = cache.get(key)
            states, hit = found if found is not None else program.step(key)
        out[i] = hit
    return out


_Emission = Generator[tuple[Node, tuple[int, ...]], None, None]
_ASSERTS = {"^": _AT_START, "$": _AT_END, "b": _AT_WORD_EDGE, "B": _AT_NOT_WORD_EDGE}
_USES = {"^": 0, "$": 1, "b": 2, "B": 2}


class _Builder:
    """Writes the programs of one pattern: the main one and one per lookaround."""

    def __init__(self, pattern: str, tree: Seq | Alt) -> None:
        self.text = pattern
        self.looks: list[_Look] = []
        self.look_of: dict[int, int] = {}
        self.tests: dict[tuple[bool, tuple[object, ...]], Callable[[int], bool]] = {}
        self.slots = _backreferenced(pattern, tree)
        self.main = self._program(tree, forward=True)

    def _program(self, root: Node, *, forward: bool) -> _Program:
        program = _Program()
        program.empty = (None,) * len(self.slots)
        self._write(program, root, forward)
        program.emit(_OP_MATCH)
        return program

    def _write(self, program: _Program, root: Node, forward: bool) -> None:
        """Emit ``root``; each node's generator yields the kids it wants emitted in place."""
        stack = [self._node(program, root, forward, ())]
        while stack:
            try:
                kid, into = next(stack[-1])
            except StopIteration:
                stack.pop()
                continue
            stack.append(self._node(program, kid, forward, into))

    def _node(
        self, program: _Program, node: Node, forward: bool, into: tuple[int, ...]
    ) -> _Emission:
        if isinstance(node, CharSet):
            program.emit(_OP_CHAR, test=self._test(node), captures=into)
        elif isinstance(node, Seq):
            for kid in node.parts if forward else reversed(node.parts):
                yield kid, into
        elif isinstance(node, Alt):
            jumps = []
            last = len(node.options) - 1
            for index, option in enumerate(node.options):
                if index == last:
                    yield option, into
                    break
                split = program.emit(_OP_SPLIT, len(program.op) + 1)
                yield option, into
                jumps.append(program.emit(_OP_JUMP))
                program.arg2[split] = len(program.op)
            for jump in jumps:
                program.arg[jump] = len(program.op)
        elif isinstance(node, Backref):
            program.emit(_OP_BACKREF, self.slots[node.index])
        elif isinstance(node, Group):
            slot = self.slots.get(node.index) if node.index else None
            yield node.body, (into if slot is None else (*into, slot))
        elif isinstance(node, Anchor):
            program.uses[_USES[node.kind]] = True
            program.emit(_OP_ASSERT, _ASSERTS[node.kind])
        elif isinstance(node, Look):
            number = self._lookaround(node)
            if number not in program.looks:
                program.looks.append(number)
            local = program.looks.index(number)
            program.emit(_OP_ASSERT, 4 + 2 * local + node.negated)
        else:
            assert isinstance(node, Repeat)
            yield from self._repeat(program, node, into)

    def _repeat(self, program: _Program, node: Repeat, into: tuple[int, ...]) -> _Emission:
        """Write ``{lo,hi}`` out as copies; every iteration first forgets its captures."""
        body = node.body
        inner = self._slots_below(body)
        for _ in range(node.lo):
            if inner:
                program.emit(_OP_CLEAR, captures=inner)
            yield body, into
        if node.hi == UNBOUNDED:
            loop = program.emit(_OP_SPLIT, len(program.op) + 1)
            if inner:
                program.emit(_OP_CLEAR, captures=inner)
            yield body, into
            program.emit(_OP_JUMP, loop)
            program.arg2[loop] = len(program.op)
            return
        splits = []
        for _ in range(node.hi - node.lo):
            splits.append(program.emit(_OP_SPLIT, len(program.op) + 1))
            if inner:
                program.emit(_OP_CLEAR, captures=inner)
            yield body, into
        for split in splits:
            program.arg2[split] = len(program.op)

    def _slots_below(self, node: Node) -> tuple[int, ...]:
        if not self.slots:
            return ()
        return tuple(
            self.slots[kid.index]
            for kid in walk(node)
            if isinstance(kid, Group) and kid.index in self.slots
        )

    def _lookaround(self, node: Look) -> int:
        """The number of the lookaround ``node``, its program written on first sight."""
        number = self.look_of.get(id(node))
        if number is None:
            program = self._program(node.body, forward=not node.ahead)
            number = self.look_of[id(node)] = len(self.looks)
            self.looks.append(_Look(program, node.ahead))
        return number

    def _test(self, node: CharSet) -> Callable[[int], bool]:
        recipe = (node.negated, node.items)
        test = self.tests.get(recipe)
        if test is None:
            test = self.tests[recipe] = _membership(ecma_set(node.negated, node.items))
        return test


def _backreferenced(text: str, tree: Seq | Alt) -> dict[int, int]:
    """Slot of each group a backreference names; refuse what the states cannot carry."""
    refs = [node for node in walk(tree) if isinstance(node, Backref)]
    if not refs:
        return {}
    inside_look: set[int] = set()
    for look in (node for node in walk(tree) if isinstance(node, Look)):
        inside_look.update(id(node) for node in walk(look.body))
    slots: dict[int, int] = {}
    product = 1
    for ref in refs:
        group = ref.group
        shown = quote(text[ref.start : ref.end])
        if id(ref) in inside_look or id(group) in inside_look:
            raise _Unsupported(
                f"uses the backreference {shown} with a lookaround around it or around its "
                "group, which cannot be matched in time linear in the string; remove the "
                "backreference or move it and its group out of the lookaround"
            )
        values = _single_characters(group.body)
        if values is None:
            raise _Unsupported(
                f"uses the backreference {shown} to the group "
                f"{quote(text[group.start : group.end])}, which can capture more than one "
                "character, so it cannot be matched in time linear in the string; remove the "
                "backreference or let the group capture exactly one character"
            )
        if ref.index not in slots:
            slots[ref.index] = len(slots)
            product *= values + 1
        if product > _MAX_CAPTURES:
            raise _Unsupported(
                f"uses the backreference {shown} to the group "
                f"{quote(text[group.start : group.end])}, and the groups its "
                f"backreferences name can capture more than {_MAX_CAPTURES - 1} different "
                "characters between them, so it cannot be matched in time linear in the "
                "string; remove the backreference or narrow the characters its group can "
                "capture"
            )
    for node in walk(tree):
        if not isinstance(node, Repeat) or node.hi == node.lo or _min_width(node.body):
            continue
        for kid in walk(node.body):
            if isinstance(kid, Group) and kid.index in slots:
                raise _Unsupported(
                    f"uses a backreference to the group {quote(text[kid.start : kid.end])} "
                    f"inside the repeat {quote(text[node.start : node.end])}, which can "
                    "repeat the empty string, so it cannot be matched in time linear in the "
                    "string; remove the backreference or make the repeated part match at "
                    "least one character"
                )
    return slots


def _min_width(root: Node) -> int:
    """The fewest characters ``root`` can match (a backreference can match none)."""
    width: dict[int, int] = {}
    for node in reversed(walk(root)):  # every node after the nodes below it
        if isinstance(node, CharSet):
            found = 1
        elif isinstance(node, Seq):
            found = sum(width[id(kid)] for kid in node.parts)
        elif isinstance(node, Alt):
            found = min(width[id(kid)] for kid in node.options)
        elif isinstance(node, Group):
            found = width[id(node.body)]
        elif isinstance(node, Repeat):
            found = min(width[id(node.body)] * node.lo, 1 << 32)
        else:  # anchors, lookarounds, backreferences
            found = 0
        width[id(node)] = found
    return width[id(root)]


def _single_characters(root: Node) -> int | None:
    """How many characters a group can capture when it always captures exactly one, else None."""
    chars: list[Intervals] = []
    widths: dict[int, int | None] = {}
    for node in reversed(walk(root)):
        kids = [widths[id(kid)] for kid in node.kids()]
        width: int | None
        if isinstance(node, CharSet):
            chars.append(ecma_set(node.negated, node.items))
            width = 1
        elif isinstance(node, Anchor):
            width = 0
        elif isinstance(node, Seq):
            width = None if None in kids else sum(w for w in kids if w is not None)
        elif isinstance(node, Alt):
            width = kids[0] if len(set(kids)) == 1 else None
        elif isinstance(node, Group):
            width = kids[0]
        else:  # repeats, lookarounds and backreferences
            width = None
        widths[id(node)] = width
    if widths[id(root)] != 1:
        return None
    return sum(hi - lo + 1 for lo, hi in union(chars))


def _membership(chars: Intervals) -> Callable[[int], bool]:
    """A fast test for ``chars``: a set for a few code points, else a bisect over ranges."""
    if sum(hi - lo + 1 for lo, hi in chars) <= 64:
        members = frozenset(code for lo, hi in chars for code in range(lo, hi + 1))
        return members.__contains__
    from bisect import bisect_right  # here, so that importing the package loads nothing more

    starts = [lo for lo, _ in chars]
    ends = [hi for _, hi in chars]

    def test(code: int) -> bool:
        k = bisect_right(starts, code) - 1
        return k >= 0 and code <= ends[k]

    return test
