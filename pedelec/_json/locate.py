"""Where a problem is: JSON pointers, line and column, and the scanner that finds the first
problem in a JSON text.

``explain`` runs only after the fast parser refused a text (or its value nests too deeply). It
walks the text in order, keeping the pointer of where it is, and stops at the first problem, so
every message can say where. It never recurses: any depth is fine, in time linear in the text.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Final

from pedelec._json.render import quote, render
from pedelec.errors import TOOL_ARGS_INVALID, PedelecError

if TYPE_CHECKING:
    from json import JSONDecodeError

__all__ = ["INVALID", "SPACE", "Problem", "explain", "line_column", "nests_deeper", "pointer"]

Path = tuple[str | int, ...]
#: A strict scanner: ``scan(text, pos)`` is the JSON value at ``pos`` and the position after it.
Scan = Callable[[str, int], tuple[Any, int]]

SPACE: Final = re.compile(r"[ \t\n\r]*")
# Bound once: the scanner skips space after every token.
_skip_space: Final = SPACE.match
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_WORD: Final = re.compile(r'[^\s,:\[\]{}"]{1,21}')
_LITERALS: Final = ("true", "false", "null")
_NOT_NUMBERS: Final = ("NaN", "Infinity", "-Infinity")
_PYTHON_WORDS: Final = {"True": "true", "False": "false", "None": "null"}
INVALID: Final = "args are not valid JSON"
_SYNTAX_FIX: Final = "fix the JSON syntax"


def pointer(parts: Iterable[str | int]) -> str:
    """Return the RFC 6901 JSON pointer of a path given as keys and indexes.

    Args:
        parts: Object keys (``str``) and array indexes (``int``) from the root down.

    Returns:
        ``""`` for the root, else ``"/"`` before every part, with ``~`` written ``~0`` and ``/``
        written ``~1``.

    Example:
        >>> pointer(("card", "a/b", 0))
        '/card/a~1b/0'
    """
    out = []
    for part in parts:
        if isinstance(part, str):
            if "~" in part:
                part = part.replace("~", "~0")
            if "/" in part:
                part = part.replace("/", "~1")
            out.append(part)
        else:
            out.append(f"{part:d}")
    return "/" + "/".join(out) if out else ""


def line_column(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column (in characters) of ``pos``; JSON only breaks lines at ``\\n``."""
    return text.count("\n", 0, pos) + 1, pos - text.rfind("\n", 0, pos)


def _shorten(ptr: str, limit: int = 120) -> str:
    """A pointer cut in the middle for a message (``details`` keeps the whole pointer)."""
    if len(ptr) <= limit:
        return ptr
    half = (limit - 1) // 2
    return ptr[:half] + "…" + ptr[-half:]


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Problem:
    """The first problem ``explain`` finds: ``head + where + tail; fix.`` after ``prefix``."""

    __slots__ = ("extra", "fix", "head", "path", "pos", "prefix", "tail")

    def __init__(
        self,
        head: str,
        tail: str,
        path: Path | None,
        pos: int,
        fix: str = _SYNTAX_FIX,
        prefix: str = INVALID,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.head = head
        self.tail = tail
        self.path = path
        self.pos = pos
        self.fix = fix
        self.prefix = prefix
        self.extra = extra

    def error(self, text: str) -> PedelecError:
        """The ``TOOL_ARGS_INVALID`` error for this problem in ``text``, located."""
        line, column = line_column(text, self.pos)
        ptr = pointer(self.path or ())
        where = f"(line {line}, column {column})"
        if self.path is not None:
            where = f"{_shorten(ptr) if ptr else 'the root'} {where}"
        details: dict[str, Any] = {"pointer": ptr, "line": line, "column": column}
        if self.extra:
            details.update(self.extra)
        return PedelecError(
            TOOL_ARGS_INVALID, f"{self.prefix}: {self.head}{where}{self.tail}; {self.fix}.", details
        )


def _found(text: str, pos: int) -> str:
    """What the text holds at ``pos``, for "expected X, found Y" (escaped: it may be invisible)."""
    if pos >= len(text):
        return "the end of the text"
    match = _WORD.match(text, pos)
    return quote(match.group() if match else text[pos], ascii=True)


def _value_fix(text: str, pos: int, *, key: bool = False) -> str:
    """A fix for "expected a value" (or a key) that fits what the agent probably wrote."""
    if pos >= len(text):
        return "send the complete JSON text"
    match = _WORD.match(text, pos)
    word = match.group() if match else text[pos]
    if word.startswith("'"):
        return "use double quotes for strings"
    if word.startswith("\ufeff"):
        return "remove the byte order mark"
    if word in ("]", "}") and text[:pos].rstrip(" \t\n\r").endswith(","):
        return "remove the trailing comma"
    if key:
        return "put every key in double quotes"
    if word in _PYTHON_WORDS:
        return f"write {_PYTHON_WORDS[word]} instead of {word}"
    return _SYNTAX_FIX


def _string_problem(exc: JSONDecodeError, path: Path, text: str) -> Problem:
    """Translate the ``json`` string scanner's error into a ``Problem``."""
    message = exc.msg
    pos = exc.pos
    if message.startswith("Unterminated"):
        return Problem("unterminated string at ", "", path, pos, "close it with a double quote")
    if message.startswith("Invalid control"):
        return Problem(
            f"unescaped control character {quote(text[pos], ascii=True)} in the string at ",
            "",
            path,
            pos,
            "escape it, e.g. \\n for a line break",
        )
    if message.startswith("Invalid \\u"):
        pos = text.rfind("\\", 0, pos + 1)  # at the backslash, as for other escapes
        return Problem(
            "invalid \\u escape in the string at ",
            "",
            path,
            pos,
            "write \\u and four hex digits",
        )
    return Problem(
        f"invalid escape {quote(text[pos : pos + 2], ascii=True)} in the string at ",
        "",
        path,
        pos,
        "escape a backslash as \\\\",
    )


def nests_deeper(value: Any, most: int) -> bool:
    """Whether the parsed ``value`` nests containers more than ``most`` levels deep."""
    level = [value] if type(value) is dict or type(value) is list else []
    depth = 0
    while level:
        depth += 1
        if depth > most:
            return True
        below = []
        for container in level:
            for item in container.values() if type(container) is dict else container:
                if type(item) is dict or type(item) is list:
                    below.append(item)
        level = below
    return False


def explain(text: str, most_depth: int, scan: Scan) -> Problem | None:
    """Find the first problem in ``text``, in text order, with its pointer and position.

    Args:
        text: The JSON text.
        most_depth: Most nesting of containers allowed (``sys.maxsize`` for no limit).
        scan: The strict C scanner the fast parser uses; a container it accepts holds no
            problem (unless it nests too deeply), so it is skipped at C speed.

    Returns:
        The first problem, or ``None`` when the text is strict JSON within ``most_depth``.
    """
    return _Scanner(text, most_depth, scan).run()


#: One state of ``_Scanner``: it moves on and returns the next state, or ``None`` to stop.
_State = Callable[[], "_State | None"]


class _Scanner:
    """A strict JSON scanner written for errors, one method per state.

    ``value`` expects a value, ``after_value`` a "," or a closing bracket, ``key`` an object
    key and its ":". ``frames`` holds, per open container, its keys so far (``None`` for an
    array); ``path`` the pointer parts of where the scan is. A state that finds a problem
    stores it in ``problem`` and returns ``None``.
    """

    __slots__ = (
        "decode_error",
        "end",
        "frames",
        "most_depth",
        "path",
        "pos",
        "problem",
        "scan",
        "scanstring",
        "text",
        "unscanned",
    )

    def __init__(self, text: str, most_depth: int, scan: Scan) -> None:
        from json import JSONDecodeError
        from json.decoder import scanstring  # type: ignore[attr-defined]

        self.decode_error = JSONDecodeError
        self.scanstring: Callable[[str, int, bool], tuple[str, int]] = scanstring
        self.text = text
        self.end = len(text)
        self.most_depth = most_depth
        self.scan = scan
        self.path: list[str | int] = []
        self.frames: list[set[str] | None] = []
        # Containers nested in more than this many frames are not given to ``scan``.
        self.unscanned = sys.maxsize
        self.pos: int = SPACE.match(text, 0).end()  # type: ignore[union-attr]
        self.problem: Problem | None = None

    def run(self) -> Problem | None:
        state: _State | None = self.value
        while state is not None:
            state = state()
        return self.problem

    def fail(
        self,
        head: str,
        tail: str,
        fix: str = _SYNTAX_FIX,
        prefix: str = INVALID,
        extra: dict[str, Any] | None = None,
    ) -> _State | None:
        """Note a problem at the current position and path; ``None``: the scan stops."""
        self.problem = Problem(head, tail, tuple(self.path), self.pos, fix, prefix, extra)
        return None

    # --- expecting a value ----------------------------------------------------------------

    def value(self) -> _State | None:
        text, pos = self.text, self.pos
        char = text[pos] if pos < self.end else ""
        if char in ("{", "["):
            return self.container(char)
        if char == '"':
            try:
                self.pos = self.scanstring(text, pos + 1, True)[1]
            except self.decode_error as exc:
                self.problem = _string_problem(exc, tuple(self.path), text)
                return None
            return self.after_value
        if text.startswith(_LITERALS, pos):
            self.pos = pos + (4 if text.startswith(("true", "null"), pos) else 5)
            return self.after_value
        if text.startswith(_NOT_NUMBERS, pos):
            word = next(w for w in _NOT_NUMBERS if text.startswith(w, pos))
            return self.fail(f"{word} at ", " is not a JSON number", "send a finite number or null")
        return self.number()

    def number(self) -> _State | None:
        text, pos = self.text, self.pos
        match = _NUMBER.match(text, pos)
        if match is None:
            return self.fail(
                "expected a value at ", f", found {_found(text, pos)}", _value_fix(text, pos)
            )
        number = match.group()
        if match.group(1) or match.group(2):
            value = float(number)
            if value - value != 0.0:
                return self.fail(
                    f"the number {_clip(number, 24)} at ",
                    " is too large for a 64-bit float",
                    "send a smaller number",
                    "args contain a number out of range",
                )
        else:
            digits = len(number) - (number[0] == "-")
            most_digits = sys.get_int_max_str_digits()
            if most_digits and digits > most_digits:
                return self.fail(
                    "the integer at ",
                    f" has {digits} digits, more than the limit of {most_digits}",
                    "send it as a string",
                    "args contain a number out of range",
                )
        self.pos = match.end()
        return self.after_value

    def container(self, char: str) -> _State | None:
        depth = len(self.frames)
        if depth >= self.most_depth:
            return self.fail(
                f"the {'object' if char == '{' else 'array'} at ",
                f" is nested {depth + 1} levels deep, more than the limit of {self.most_depth}",
                "send flatter args",
                "args are nested too deeply",
                {"maxDepth": self.most_depth},
            )
        if depth <= self.unscanned and self.skipped():
            return self.after_value
        is_object = char == "{"
        pos = _skip_space(self.text, self.pos + 1).end()  # type: ignore[union-attr]
        if pos < self.end and self.text[pos] == ("}" if is_object else "]"):
            self.pos = pos + 1
            return self.after_value
        self.pos = pos
        if is_object:
            self.frames.append(set())
            return self.key
        self.frames.append(None)
        self.path.append(0)
        return self.value

    def skipped(self) -> bool:
        """Skip the container at ``pos`` if ``scan`` accepts it and it nests shallowly enough."""
        text, pos = self.text, self.pos
        try:
            value, after = self.scan(text, pos)
        except RecursionError:
            # The containers inside this one nest as deep as the scanner can go; scanning each
            # again would cost its whole recursion per level.
            self.unscanned = len(self.frames)
            return False
        except (ValueError, StopIteration):
            return False
        room = self.most_depth - len(self.frames)
        if (
            self.most_depth == sys.maxsize
            or text.count("{", pos, after) + text.count("[", pos, after) <= room
            or not nests_deeper(value, room)
        ):
            self.pos = after
            return True
        return False

    # --- after a value --------------------------------------------------------------------

    def after_value(self) -> _State | None:
        text = self.text
        pos = self.pos = _skip_space(self.text, self.pos).end()  # type: ignore[union-attr]
        if not self.frames:
            if pos < self.end:
                self.problem = Problem(
                    f"found {_found(text, pos)} after the end of the JSON value ",
                    "",
                    None,
                    pos,
                    "send exactly one JSON value",
                )
            return None
        char = text[pos] if pos < self.end else ""
        if self.frames[-1] is None:
            if char == ",":
                self.path[-1] = int(self.path[-1]) + 1
                self.pos = _skip_space(self.text, pos + 1).end()  # type: ignore[union-attr]
                return self.value
            if char == "]":
                return self.close()
            return self.fail(
                'expected "," or "]" after the item at ', f", found {_found(text, pos)}"
            )
        if char == "}":
            return self.close()
        if char != ",":
            return self.fail(
                'expected "," or "}" after the value at ', f", found {_found(text, pos)}"
            )
        self.path.pop()
        self.pos = _skip_space(self.text, pos + 1).end()  # type: ignore[union-attr]
        return self.key

    def close(self) -> _State:
        self.path.pop()
        self.frames.pop()
        self.pos += 1
        if len(self.frames) <= self.unscanned:
            self.unscanned = sys.maxsize
        return self.after_value

    # --- an object key, then ":" ----------------------------------------------------------

    def key(self) -> _State | None:
        text, pos = self.text, self.pos
        if pos >= self.end or text[pos] != '"':
            return self.fail(
                "expected a key in double quotes in the object at ",
                f", found {_found(text, pos)}",
                _value_fix(text, pos, key=True),
            )
        try:
            key, after = self.scanstring(text, pos + 1, True)
        except self.decode_error as exc:
            self.problem = _string_problem(exc, tuple(self.path), text)
            return None
        keys = self.frames[-1]
        assert keys is not None
        if key in keys:
            return self.fail(
                f"duplicate key {render(key)} in the object at ", "", "send each key once"
            )
        keys.add(key)
        pos = self.pos = _skip_space(self.text, after).end()  # type: ignore[union-attr]
        if pos >= self.end or text[pos] != ":":
            return self.fail(
                f'expected ":" after the key {render(key)} in the object at ',
                f", found {_found(text, pos)}",
            )
        self.path.append(key)
        self.pos = _skip_space(self.text, pos + 1).end()  # type: ignore[union-attr]
        return self.value
