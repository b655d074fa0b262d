"""A compiled validator for one checked schema node, and the errors it reports.

A validator is two generated functions (see ``_codegen``): ``is_valid(value) -> bool``, which
returns at the first failure and allocates nothing on the success path, and
``collect(value, path, out)``, which walks the same checks in the same order and records every
failure (a third, ``copy``, validates a session's dict args and copies them in one walk).

Code is generated only once it pays: a new validator answers ``is_valid`` with the one
interpreter (``interpret.accepts``, held equal to the generated code by the tests) until it has
spent ``INTERPRET_NS`` in it, about what generating one function costs, and then generates its
functions on their next use. A tool called a few times never pays for code; a tool called often
pays for it once, after interpreted calls worth about one generation (rent-or-buy: what the
stage spends is the budget plus the one call that crosses it). ``errors`` generates its function
on first use, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from time import perf_counter_ns
from typing import Any, Final, final

from pedelec._json import pointer
from pedelec.limits import DEFAULT_MAX_ERRORS, DEFAULT_MAX_PATTERN_LENGTH
from pedelec.schema._runtime import Errors, Full
from pedelec.schema.interpret import accepts

__all__ = ["INTERPRET_NS", "ArgError", "Validator", "compile_node"]

#: Interpreted ``is_valid`` time (ns) after which a validator generates its code: a generated
#: function costs about 0.3-2 ms to write and compile, and runs 6-11x faster than the walk.
INTERPRET_NS: Final = 1_000_000

_Path = tuple[str | int, ...]


@final
class ArgError:
    """One way in which a value fails its schema (immutable).

    Attributes:
        parts: Where in the value, as keys and indexes from the root down (``()`` for the
            value itself), e.g. ``("card", "labels", 1)``.
        path: The same place as a JSON pointer (``""`` for the value itself), e.g.
            ``"/card/labels/1"``.
        keyword: The schema keyword that failed, e.g. ``"uniqueItems"``.
        message: What was expected and what arrived, e.g. ``"duplicate of item 0"``.

    An error equals another with the same pointer, keyword and message, and the tuple
    ``(path, keyword, message)``.

    Example:
        >>> err = ArgError(("card", "labels", 1), "uniqueItems", "duplicate of item 0")
        >>> str(err)
        '/card/labels/1: duplicate of item 0 (uniqueItems)'
        >>> err.path, err.to_dict()["keyword"]
        ('/card/labels/1', 'uniqueItems')
    """

    # Read-only properties over private slots: immutable, and cheap to build in bulk.
    __slots__ = ("_keyword", "_message", "_parts")

    def __init__(self, parts: tuple[str | int, ...], keyword: str, message: str) -> None:
        if type(parts) is not tuple:
            raise TypeError(f"ArgError parts must be a tuple of keys and indexes, got {parts!r}")
        self._parts = parts
        self._keyword = keyword
        self._message = message

    @property
    def parts(self) -> tuple[str | int, ...]:
        return self._parts

    @property
    def path(self) -> str:
        return pointer(self._parts)

    @property
    def keyword(self) -> str:
        return self._keyword

    @property
    def message(self) -> str:
        return self._message

    def _key(self) -> tuple[str, str, str]:
        return (pointer(self._parts), self._keyword, self._message)

    def to_dict(self) -> dict[str, str]:
        """Return ``{"path", "keyword", "message"}``."""
        return {"path": pointer(self._parts), "keyword": self._keyword, "message": self._message}

    def __eq__(self, other: object) -> bool:
        if type(other) is ArgError:
            return self._key() == other._key()
        if isinstance(other, tuple):
            return self._key() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> tuple[Any, ...]:
        return (ArgError, (self._parts, self._keyword, self._message))

    def __str__(self) -> str:
        return f"{pointer(self._parts) or '(root)'}: {self._message} ({self._keyword})"

    def __repr__(self) -> str:
        return (
            f"ArgError(parts={self._parts!r}, keyword={self._keyword!r}, message={self._message!r})"
        )


def _arg_errors(items: list[tuple[_Path, str, str]]) -> list[ArgError]:
    """``ArgError``s from the collector's items, whose parts are tuples already, unchecked."""
    new = object.__new__
    errors = []
    for parts, keyword, message in items:
        error = new(ArgError)
        error._parts = parts
        error._keyword = keyword
        error._message = message
        errors.append(error)
    return errors


@final
class Validator:
    """A compiled validator for one Tool Args Schema.

    Build one with ``pedelec.compile_schema(schema)``; validators are cached and thread-safe.

    Attributes:
        schema: The checked, cloned schema this validator was compiled from (do not mutate it).

    Example:
        >>> from pedelec import compile_schema
        >>> v = compile_schema({"type": "object", "properties": {"n": {"type": "integer"}}})
        >>> v.is_valid({"n": 1}), v.is_valid({"n": True})
        (True, False)
        >>> [str(e) for e in v.errors({"n": "1"})]
        ['/n: expected integer, got string "1" (type)']
    """

    # ``is_valid``, ``_collect`` and ``_copy`` are methods of the class until their generated
    # functions exist; each function is then stored in the instance's ``__dict__``, where it
    # shadows the method, so the hot path calls it directly. A validator that stored its own
    # bound methods instead would be a reference cycle, freed only by the garbage collector's
    # full collections (rare with a cache of thousands of validators alive): evicted validators
    # and their code would pile up until one ran. Without a cycle, one is freed at once.
    __slots__ = (
        "__dict__",
        "_collect_fn",
        "_copy_fn",
        "_fast",
        "_pattern_limit",
        "_spent",
        "_subs",
        "schema",
    )

    schema: dict[str, Any]

    def __init__(self, schema: dict[str, Any], pattern_limit: int) -> None:
        self.schema = schema
        self._pattern_limit = pattern_limit
        # No code is generated here: a session with many tools pays only for the ones an
        # agent calls often, and only once (see the module's docstring).
        self._fast: Callable[[Any], bool] | None = None
        self._collect_fn: Callable[[Any, _Path, Errors], None] | None = None
        self._copy_fn: Callable[[Any, int, int], Any] | None = None
        self._spent = 0  # ns spent interpreting is_valid
        self._subs: dict[int, Validator] | None = None

    def is_valid(self, value: Any) -> bool:
        """Return whether ``value`` is valid: true exactly when ``errors(value) == []``.

        Until the validator has spent ``INTERPRET_NS`` interpreting, this method answers with
        the interpreter; after that the generated function takes its place on the instance.
        """
        if self._spent >= INTERPRET_NS:  # called through a reference taken before the switch
            return self._bool_function()(value)
        start = perf_counter_ns()
        try:
            valid = accepts(self.schema, value, max_pattern_length=self._pattern_limit)
        except Exception:  # a hostile non-JSON object raised while being examined
            valid = False
        # Threads may race on the sum; a lost update only delays the switch a little.
        self._spent += perf_counter_ns() - start
        if self._spent >= INTERPRET_NS:
            self._generate()
        return valid

    #: The interpreted stage by a name the generated function never shadows (for the tests
    #: that check both stages, and the benchmarks).
    _interpreted = is_valid

    def _copy(self, value: Any, depth: int, room: int) -> Any:
        """``(copy, count)`` of a valid value, else ``False`` (see ``_codegen._CopyGen``): the
        session's way to validate and isolate dict args. While ``is_valid`` is interpreted it
        declines every value: the session then takes its general path (clone, then
        ``is_valid``), which gives the same result."""
        if self._spent < INTERPRET_NS:
            return False
        return self._copy_function()(value, depth, room)

    def _collect(self, value: Any, path: _Path, out: Errors) -> None:
        self._collect_function()(value, path, out)

    def _generate(self) -> None:
        """End the interpreted stage: ``is_valid`` and the copier are generated on next use."""
        self._spent = INTERPRET_NS
        made = self.__dict__
        if self._fast is not None:
            made["is_valid"] = self._fast
        if self._copy_fn is not None:
            made["_copy"] = self._copy_fn

    def _sub(self, node: dict[str, Any], pattern_limit: int) -> Validator:
        """The validator of a sub-node that gets functions of its own (a ``oneOf`` branch, a
        node nested too deeply to inline): one per node, shared by all three functions, so a
        branch's ``is_valid`` is generated once, not once per function that calls it."""
        subs = self._subs
        if subs is None:
            subs = self._subs = {}
        # Keyed by identity: the node lives inside this validator's schema, as long as it does.
        sub = subs.get(id(node))
        if sub is None:
            sub = subs[id(node)] = Validator(node, pattern_limit)
        return sub

    def _bool_function(self) -> Callable[[Any], bool]:
        fast = self._fast
        if fast is None:
            from pedelec.schema._codegen import function

            # Two threads may both generate it; both functions are equivalent.
            fast = self._fast = function(self.schema, "bool", self._pattern_limit, self._sub)
            self._generate()  # generated code, once there, ends the interpreted stage
        return fast

    def _collect_function(self) -> Callable[[Any, _Path, Errors], None]:
        collect = self._collect_fn
        if collect is None:
            from pedelec.schema._codegen import function

            collect = self._collect_fn = function(
                self.schema, "err", self._pattern_limit, self._sub
            )
            self.__dict__["_collect"] = collect
        return collect

    def _copy_function(self) -> Callable[[Any, int, int], Any]:
        copy = self._copy_fn
        if copy is None:
            from pedelec.schema._codegen import function

            copy = self._copy_fn = function(self.schema, "copy", self._pattern_limit, self._sub)
            self._generate()
        return copy

    def errors(self, value: Any, max_errors: int | None = None) -> list[ArgError]:
        """Return every way ``value`` fails the schema, in schema order, at most ``max_errors``.

        Order: a node's own checks first (type, then its keywords: lengths and bounds, then
        ``enum``, then ``pattern``), then for an object each property in the order
        ``properties`` declares them, then undeclared properties; for an array the items by
        index, then ``uniqueItems``.
        ``max_errors`` defaults to 50.
        """
        # No is_valid() first: callers ask for errors when they already know the value is
        # invalid, and the collecting walk finds nothing exactly when the value is valid.
        out = Errors(DEFAULT_MAX_ERRORS if max_errors is None else max(1, max_errors))
        try:
            self._collect(value, (), out)
        except Full:
            pass
        except Exception as exc:  # a hostile non-JSON object raised while being examined
            out.items.append(((), "type", f"value could not be examined: {type(exc).__name__}"))
        return _arg_errors(out.items)

    def iter_errors(self, value: Any) -> Iterator[ArgError]:
        """Iterate over ``errors(value)``."""
        return iter(self.errors(value))

    def __repr__(self) -> str:
        return f"<pedelec Validator for {self.schema.get('type', 'oneOf')} schema>"


def compile_node(
    node: dict[str, Any], *, max_pattern_length: int = DEFAULT_MAX_PATTERN_LENGTH
) -> Validator:
    """Make a ``Validator`` for an already checked schema node (any kind); no check, no cache.

    Callers outside ``pedelec.schema`` want ``pedelec.compile_schema``, which checks and caches.
    """
    return Validator(node, max_pattern_length)
