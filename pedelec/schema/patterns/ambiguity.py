"""Whether a pattern can backtrack catastrophically, and which part of it to blame.

The check reads the pattern as written, not the tree ``re`` builds: Python folds
``(\\d|\\w)`` into the class ``[\\d\\w]``, but a JavaScript engine backtracks over both
branches. The pattern becomes a position automaton (Glushkov) whose edges count derivations,
so ``(a*)*`` keeps its two ways from ``a`` back to ``a`` and ``(?:(?:|)a)+`` its two ways
through the empty alternation. A pattern is rejected when a loop of that automaton can read
the same text along two different paths (exponential degree of ambiguity), found with the
usual product construction. A bounded repeat counts as a loop when it iterates a lot (nested
maxima multiplying past ``_LARGE_REPEAT``), contains a loop or sits in one, so ``(a+){2}`` is
read like ``(a+)+`` while ``(a|a){2}`` is left alone. Patterns that are only polynomially
ambiguous, such as ``\\d+\\d+``, are accepted.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

from pedelec.schema.patterns import tree as syntax
from pedelec.schema.patterns.charsets import Intervals, either_set, overlaps, union
from pedelec.schema.patterns.parse import TooComplex
from pedelec.schema.patterns.tree import UNBOUNDED, Item

__all__ = ["runs_linearly_in_re"]

_Recipe = tuple[bool, tuple[Item, ...]]  # (negated, items) of one character set
_H = TypeVar("_H", bound=Hashable)

_MAX_WORK = 150_000
_LARGE_REPEAT = 8

_CHAR, _SEQ, _ALT, _GROUP, _LOOK, _REPEAT, _EMPTY = range(7)


class _Node:
    """A node of the pattern as the analysis reads it, with the facts it works out.

    A mirror of the parse tree with one kind number per node, a backreference replaced by a
    copy of its group (it can match what the group matches) and anchors read as ``_EMPTY``.
    """

    __slots__ = (
        "big",
        "cyclic",
        "end",
        "first",
        "hi",
        "kids",
        "kind",
        "last",
        "lo",
        "null",
        "pos",
        "recipe",
        "start",
        "weight",
    )

    def __init__(
        self,
        kind: int,
        start: int,
        end: int,
        kids: list[_Node] | None = None,
        recipe: _Recipe | None = None,
        lo: int = 0,
        hi: int = 0,
    ) -> None:
        self.kind = kind
        self.start = start
        self.end = end
        self.kids: list[_Node] = kids if kids is not None else []
        self.recipe = recipe
        self.lo = lo
        self.hi = hi
        self.pos = -1
        self.null = 0
        self.weight = 1  # the most iterations of bounded repeats nested below, multiplied
        self.big = False  # an unbounded or large repeat is here or below (lookarounds apart)
        self.cyclic = False  # a repeat the analysis reads as a loop
        self.first: dict[int, int] = {}
        self.last: dict[int, int] = {}


_KINDS: dict[type[syntax.Node], int] = {
    syntax.CharSet: _CHAR,
    syntax.Seq: _SEQ,
    syntax.Alt: _ALT,
    syntax.Group: _GROUP,
    syntax.Look: _LOOK,
    syntax.Repeat: _REPEAT,
    syntax.Anchor: _EMPTY,
}


def _mirror(root: syntax.Node) -> _Node:
    """The analysis tree of a parse tree; iterative, as deep trees are allowed."""
    built: list[_Node] = []
    todo: list[tuple[syntax.Node, int, int, bool]] = [(root, root.start, root.end, False)]
    while todo:
        node, start, end, ready = todo.pop()
        if isinstance(node, syntax.Backref):
            # a fresh copy of the group each time, spanning the backreference's text
            todo.append((node.group, node.start, node.end, False))
            continue
        kids = node.kids()
        if not ready:
            todo.append((node, start, end, True))
            todo.extend((kid, kid.start, kid.end, False) for kid in reversed(kids))
            continue
        made = built[len(built) - len(kids) :]
        del built[len(built) - len(kids) :]
        recipe = (node.negated, node.items) if isinstance(node, syntax.CharSet) else None
        lo, hi = (node.lo, node.hi) if isinstance(node, syntax.Repeat) else (0, 0)
        built.append(_Node(_KINDS[type(node)], start, end, made, recipe, lo, hi))
    return built[0]


def _postorder(root: _Node) -> list[_Node]:
    out: list[_Node] = []
    stack: list[tuple[_Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            out.append(node)
            continue
        stack.append((node, True))
        stack.extend((kid, False) for kid in reversed(node.kids))
    return out


def _iterates(node: _Node) -> bool:
    return node.kind == _REPEAT and (node.hi == UNBOUNDED or node.hi >= 2)


def _is_dead(node: _Node) -> bool:
    return node.kind == _REPEAT and node.hi == 0


# --- the analysis ---------------------------------------------------------------------------


class _Analysis:
    """The position automaton of one pattern, and the ambiguity tests on its loops.

    Every count below is a number of derivations capped at 2, because two ways to read the
    same text are what a backtracking engine pays for: ``null`` counts the ways a node matches
    the empty string, ``first``/``last`` map each position to the ways a match can start/end
    there, and an edge counts the ways to go from one position straight to the next. Counts
    follow Python's engine, the more generous of the two (ECMA-262 refuses an empty iteration
    once the minimum is met; Python runs one more before its guard applies).
    """

    def __init__(self, root: _Node) -> None:
        self.work = 0
        self.labels: list[int] = []  # position -> label; equal character sets share a label
        self.recipes: list[_Recipe] = []
        self.sets: dict[int, Intervals] = {}
        self.overlap_memo: dict[tuple[int, int], bool] = {}
        self.label_of: dict[_Recipe, int] = {}
        for node in _postorder(root):
            self._summarise(node)
            self._size(node)
        stack = [(root, False)]
        while stack:
            node, inside = stack.pop()
            if _is_dead(node):
                continue  # never runs, so it can never backtrack
            node.cyclic = _iterates(node) and (node.big or inside)
            inside = node.kind != _LOOK and (inside or node.cyclic)
            stack.extend((kid, inside) for kid in node.kids)

    @staticmethod
    def _size(node: _Node) -> None:
        """A bounded repeat counts as a loop when it, or what it sits in, iterates a lot.

        ``(a|a){2}`` costs a backtracking engine four tries, but ``(a|a){99}``, and ``(a+){2}``
        (a bounded repeat around an unbounded one), cost as much as a real loop.
        """
        if node.kind == _LOOK or _is_dead(node):
            return
        node.weight = max((kid.weight for kid in node.kids), default=1)
        node.big = any(kid.big for kid in node.kids)
        if _iterates(node):
            if node.hi == UNBOUNDED:
                node.big = True
            else:
                node.weight = min(node.weight * node.hi, _LARGE_REPEAT + 1)
                node.big = node.big or node.weight > _LARGE_REPEAT

    def spend(self, amount: int) -> None:
        self.work += amount
        if self.work > _MAX_WORK:
            raise TooComplex

    def _summarise(self, node: _Node) -> None:
        kind = node.kind
        kids = node.kids
        if kind == _CHAR:
            assert node.recipe is not None
            node.pos = len(self.labels)
            label = self.label_of.setdefault(node.recipe, len(self.label_of))
            if label == len(self.recipes):
                self.recipes.append(node.recipe)
            self.labels.append(label)
            node.first = node.last = {node.pos: 1}
        elif kind in (_EMPTY, _LOOK) or _is_dead(node):
            node.null = 1
        elif kind == _SEQ:
            null = 1
            for kid in kids:
                null = min(2, null * kid.null)
            node.null = null
            node.first = self._ends(kids, at_start=True)
            node.last = self._ends(kids, at_start=False)
        elif kind == _ALT:
            node.null = min(2, sum(kid.null for kid in kids))
            node.first = self._merge([kid.first for kid in kids])
            node.last = self._merge([kid.last for kid in kids])
        elif kind == _GROUP:
            kid = kids[0]
            node.null, node.first, node.last = kid.null, kid.first, kid.last
        else:  # a _REPEAT that can run
            kid = kids[0]
            empty = kid.null
            if not _iterates(node):  # X? or X{1}
                node.null = min(2, empty + (node.lo == 0))
                node.first, node.last = kid.first, kid.last
            else:
                # Python's engine guards against empty iterations only after the first
                # optional one, so a nullable body adds ways: an empty iteration may come
                # before the first character (minimum of at least one) and after the last
                node.null = min(2, 1 + empty if node.lo == 0 else empty * (1 + empty))
                node.first = _scaled(kid.first, 1 + empty if node.lo >= 1 else 1)
                node.last = _scaled(kid.last, 1 + empty)

    def _ends(self, kids: list[_Node], *, at_start: bool) -> dict[int, int]:
        """Where a sequence's match can start (``at_start``) or end: skip nullable kids."""
        ends: dict[int, int] = {}
        ways = 1
        for kid in kids if at_start else reversed(kids):
            here = kid.first if at_start else kid.last
            self.spend(len(here))
            for p, count in here.items():
                ends[p] = min(2, ends.get(p, 0) + ways * count)
            ways = min(2, ways * kid.null)
            if not ways:
                break
        return ends

    def _merge(self, parts: list[dict[int, int]]) -> dict[int, int]:
        merged: dict[int, int] = {}
        for part in parts:
            self.spend(len(part))
            merged.update(part)  # the kids of an alternation own disjoint positions
        return merged

    def edges(
        self, root: _Node, flat: frozenset[int] = frozenset(), *, inside: bool = False
    ) -> dict[tuple[int, int], int]:
        """Follow edges, with derivation counts, that can lie on a cycle below ``root``.

        Loops whose id is in ``flat`` are read as if they ran at most once; ``inside`` reads
        ``root`` as if it sat in a loop, so that all its edges count.
        """
        edges: dict[tuple[int, int], int] = {}

        def link(sources: dict[int, int], targets: dict[int, int], ways: int = 1) -> None:
            self.spend(len(sources) * len(targets))
            for p, before in sources.items():
                for q, after in targets.items():
                    edges[p, q] = min(2, edges.get((p, q), 0) + before * after * ways)

        stack: list[tuple[_Node, bool]] = [(root, inside)]
        while stack:
            node, in_loop = stack.pop()
            self.spend(1)
            kind = node.kind
            if kind == _LOOK:  # a lookaround runs on its own; outer loops never re-enter it
                stack.append((node.kids[0], False))
            elif kind == _REPEAT:
                if _is_dead(node):
                    continue
                kid = node.kids[0]
                looping = node.cyclic and id(node) not in flat
                if looping:
                    # an empty iteration can sit between two others only up to the minimum
                    link(kid.last, kid.first, 1 + kid.null if node.lo >= 2 else 1)
                stack.append((kid, in_loop or looping))
            elif kind == _SEQ:
                if in_loop:
                    before: dict[int, int] = {}
                    for kid in node.kids:
                        link(before, kid.first)
                        before = _scaled(before, kid.null)
                        for p, count in kid.last.items():
                            before[p] = min(2, before.get(p, 0) + count)
                stack.extend((kid, in_loop) for kid in node.kids)
            else:
                stack.extend((kid, in_loop) for kid in node.kids)
        return edges

    def chars(self, label: int) -> Intervals:
        """The code points of a label, resolved on first use (most never are)."""
        found = self.sets.get(label)
        if found is None:
            found = self.sets[label] = either_set(*self.recipes[label])
        return found

    def overlap(self, a: int, b: int) -> bool:
        """Whether labels ``a`` and ``b`` share a character."""
        key = (a, b) if a <= b else (b, a)
        found = self.overlap_memo.get(key)
        if found is None:
            found = self.overlap_memo[key] = overlaps(self.chars(a), self.chars(b))
        return found

    def disjoint(self, targets: list[tuple[int, int]]) -> bool:
        """Whether ``targets`` (position, ways) are each reached one way, on disjoint sets."""
        if any(count > 1 for _, count in targets):
            return False
        spans = sorted(span for q, _ in targets for span in self.chars(self.labels[q]))
        self.spend(len(spans))
        return all(spans[i][1] < spans[i + 1][0] for i in range(len(spans) - 1))

    def branches(self, edges: dict[tuple[int, int], int]) -> bool:
        """Whether some position has two ways on that can read the same character."""
        succ = _successors(edges)
        for targets in succ.values():
            if any(count > 1 and self.chars(self.labels[q]) for q, count in targets):
                return True
            if len(targets) < 2:
                continue
            spans = sorted((lo, hi, q) for q, _ in targets for lo, hi in self.chars(self.labels[q]))
            self.spend(len(spans))
            top, owner = -1, -1
            for lo, hi, q in spans:
                if lo <= top and owner != q:
                    return True
                if hi > top:
                    top, owner = hi, q
        return False

    def exponential(self, edges: dict[tuple[int, int], int]) -> bool:
        """Whether a cycle can read the same text along two different paths.

        Walks the product automaton from every pair (p, p), keeping pairs ordered because
        the product is symmetric, and looks for a strongly connected part of it that holds
        both such a pair and a step where the two paths differ.
        """
        if not self.branches(edges):
            return False
        succ = _successors(edges)
        component = _components(list(succ), lambda p: (q for q, _ in succ.get(p, ())))
        for (p, q), count in edges.items():
            if count > 1 and component[p] == component[q] and self.chars(self.labels[q]):
                return True  # two ways along one edge of a cycle: no product needed
        # the ways on from each position that stay in its component, grouped by label so
        # that labels which share no character are skipped as a whole
        ways: dict[int, list[tuple[int, list[tuple[int, int]]]]] = {}
        for p, targets in succ.items():
            grouped: dict[int, list[tuple[int, int]]] = {}
            for q, count in targets:
                if component[q] == component[p]:
                    grouped.setdefault(self.labels[q], []).append((q, count))
            ways[p] = list(grouped.items())
        pairs: dict[tuple[int, int], list[tuple[int, int]]] = {}
        distinct: list[tuple[tuple[int, int], tuple[int, int]]] = []
        todo = [(p, p) for p in succ]
        seen = set(todo)
        while todo:
            pair = todo.pop()
            p, p2 = pair
            outs: list[tuple[int, int]] = []
            for label, targets in ways.get(p, ()):
                for label2, targets2 in ways.get(p2, ()):
                    self.spend(1)
                    if not self.overlap(label, label2):
                        continue
                    self.spend(len(targets) * len(targets2))
                    for r, count in targets:
                        for r2, _ in targets2:
                            step = (r, r2) if r <= r2 else (r2, r)
                            outs.append(step)
                            if p != p2 or r != r2 or count > 1:
                                distinct.append((pair, step))
                            if step not in seen:
                                seen.add(step)
                                todo.append(step)
            pairs[pair] = outs
        if not distinct:
            return False
        product = _components(list(pairs), lambda pair: pairs.get(pair, ()))
        looped = {product[p, p] for p in succ}
        return any(product[a] == product[b] and product[a] in looped for a, b in distinct)


def _scaled(ways: dict[int, int], factor: int) -> dict[int, int]:
    if factor == 1:
        return ways
    return {p: min(2, count * factor) for p, count in ways.items() if factor}


def _successors(edges: dict[tuple[int, int], int]) -> dict[int, list[tuple[int, int]]]:
    succ: dict[int, list[tuple[int, int]]] = {}
    for (p, q), count in edges.items():
        succ.setdefault(p, []).append((q, count))
    return succ


def _components(nodes: list[_H], succ: Callable[[_H], Iterable[_H]]) -> dict[_H, int]:
    """Strongly connected components (iterative Tarjan): node -> component number."""
    index: dict[_H, int] = {}
    low: dict[_H, int] = {}
    component: dict[_H, int] = {}
    stack: list[_H] = []
    on_stack: set[_H] = set()
    counter = 0
    for root in nodes:
        if root in index:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(succ(root)))]
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(succ(child))))
                    advanced = True
                    break
                if child in on_stack and index[child] < low[node]:
                    low[node] = index[child]
            if advanced:
                continue
            work.pop()
            if work and low[node] < low[work[-1][0]]:
                low[work[-1][0]] = low[node]
            if low[node] == index[node]:
                number = len(component)
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component[member] = number
                    if member == node:
                        break
    return component


# --- linear under Python's re -----------------------------------------------------------------

_MAX_UNANCHORED_WIDTH = 256


def runs_linearly_in_re(tree: syntax.Seq | syntax.Alt) -> bool:
    """Whether ``re.search`` of the pattern provably takes time linear in the string.

    The proof, conservative by design (a pattern it cannot prove goes to the linear matcher):

    1. No lookaround (each would rescan from every position it is tried at), and no
       backreference to a group inside a repeat (ECMA-262 resets such captures per
       iteration, Python does not). Other backreferences are read as a copy of their group.
    2. No iterating repeat whose body can match the empty string.
    3. The position automaton, every iterating repeat read as a loop, is deterministic with
       unique derivations: the first positions, and the successors of every position, read
       pairwise disjoint character sets, each reached one way. Then at most one path of the
       backtracking engine reads any given prefix from a start, every other path dies on its
       first character, and one attempt costs the length it reads times the pattern's size.
    4. Attempts from different starts cost linear time in total: every option of the pattern
       starts with ``^`` (an attempt away from the start fails at once), or a match reads at
       most 256 characters, or no character a match can read after its first one can also
       start a match (attempts then read disjoint stretches of the string).
    """
    inside_repeat: set[int] = set()
    for node in syntax.walk(tree):
        if isinstance(node, syntax.Look):
            return False
        if isinstance(node, syntax.Repeat):
            inside_repeat.update(id(kid) for kid in syntax.walk(node.body))
    for node in syntax.walk(tree):
        if isinstance(node, syntax.Backref) and id(node.group) in inside_repeat:
            return False
    try:
        root = _mirror(tree)
        analysis = _Analysis(root)
        for loop in _postorder(root):
            if _iterates(loop) and not _is_dead(loop):
                if loop.kids[0].null:
                    return False
                loop.cyclic = True
        edges = analysis.edges(root, inside=True)
        succ = _successors(edges)
        if not all(analysis.disjoint(list(targets)) for targets in succ.values()):
            return False
        if not analysis.disjoint(list(root.first.items())):
            return False
        if _anchored(tree) or _max_width(root) <= _MAX_UNANCHORED_WIDTH:
            return True
        starts = union(analysis.chars(analysis.labels[p]) for p in root.first)
        later = {q for _, q in edges}
        return not any(overlaps(starts, analysis.chars(analysis.labels[q])) for q in later)
    except TooComplex:
        return False


def _anchored(tree: syntax.Seq | syntax.Alt) -> bool:
    """Whether every way through the pattern starts with ``^``."""
    todo: list[syntax.Node] = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, syntax.Alt):
            todo.extend(node.options)
        elif isinstance(node, syntax.Seq) and node.parts:
            todo.append(node.parts[0])
        elif isinstance(node, syntax.Group):
            todo.append(node.body)
        elif not (isinstance(node, syntax.Anchor) and node.kind == "^"):
            return False
    return True


def _max_width(root: _Node) -> float:
    """The most characters a match can read (infinite when a repeat is unbounded)."""
    width: dict[int, float] = {}
    for node in _postorder(root):
        kids = [width[id(kid)] for kid in node.kids]
        if node.kind == _CHAR:
            found: float = 1
        elif node.kind == _SEQ:
            found = sum(kids)
        elif node.kind == _ALT:
            found = max(kids)
        elif node.kind == _GROUP:
            found = kids[0]
        elif node.kind == _REPEAT:
            found = kids[0] * (float("inf") if node.hi == UNBOUNDED else node.hi) if kids[0] else 0
        else:
            found = 0
        width[id(node)] = found
    return width[id(root)]
