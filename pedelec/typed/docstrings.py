"""Docstrings: a summary and per-parameter descriptions, in Google, NumPy and reST styles."""

from __future__ import annotations

import inspect
import re
from typing import Final

#: Google-style section headers ("Args:"); the ones that document parameters or fields first.
_PARAM_SECTIONS: Final = frozenset(
    {
        "args",
        "arguments",
        "parameters",
        "params",
        "keyword args",
        "keyword arguments",
        "kwargs",
        "other parameters",
        "attributes",
        "fields",
        "keys",
    }
)


_OTHER_SECTIONS: Final = frozenset(
    {
        "returns",
        "return",
        "yields",
        "yield",
        "raises",
        "example",
        "examples",
        "note",
        "notes",
        "see also",
        "warning",
        "warnings",
        "references",
        "todo",
        "methods",
    }
)


_SECTIONS: Final = _PARAM_SECTIONS | _OTHER_SECTIONS


_HEADER: Final = re.compile(r"([A-Za-z][A-Za-z ]*?)\s*:")


_DASHES: Final = re.compile(r"\s*-{3,}\s*")


_GOOGLE_ENTRY: Final = re.compile(r"\*{0,2}(\w+)\s*(?:\(.*\))?\s*:(?:\s+(.*))?")


_NUMPY_ENTRY: Final = re.compile(r"(\*{0,2}\w+(?:\s*,\s*\*{0,2}\w+)*)\s*(?::.*)?")


_REST_FIELD: Final = re.compile(r":(?:param|parameter|arg|argument|key|keyword)\s+([^:]+?)\s*:(.*)")


def parse_docstring(doc: str | None) -> tuple[str | None, dict[str, str]]:
    """The first paragraph (lines joined by spaces) and the per-parameter descriptions.

    Reads Google (``Args:``), NumPy (``Parameters`` over a dashed line) and reST
    (``:param name:``) styles; the first description of a name wins.
    """
    if not doc:
        return None, {}
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or _starts_section(lines, index, stripped):
            break
        summary.append(stripped)
    params: dict[str, str] = {}
    index = 0
    # Cheap first-character tests guard the regexes: most lines are plain prose.
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        if stripped:
            indent = len(line) - len(line.lstrip())
            if stripped[0] == ":":
                field = _REST_FIELD.fullmatch(stripped)
                if field is not None:
                    index = _rest_field(lines, index, indent, field, params)
                    continue
            elif stripped[-1] == ":":
                if _section_name(stripped) in _PARAM_SECTIONS:
                    index = _google_section(lines, index + 1, indent, params)
                    continue
            elif _is_numpy_header(lines, index) and stripped.lower() in _PARAM_SECTIONS:
                index = _numpy_section(lines, index + 2, indent, params)
                continue
        index += 1
    return " ".join(summary) or None, params


def _section_name(stripped: str) -> str | None:
    """The lower-cased name of a Google-style header line (``"Args:"`` → ``"args"``)."""
    if stripped[-1] != ":" or len(stripped) > 40:
        return None
    header = _HEADER.fullmatch(stripped)
    return None if header is None else header.group(1).lower()


def _starts_section(lines: list[str], index: int, stripped: str) -> bool:
    if stripped[0] in ":>.-":
        return stripped.startswith((":", ">>>", ".. ")) or _DASHES.fullmatch(stripped) is not None
    if stripped[-1] == ":":
        return _section_name(stripped) in _SECTIONS
    return _is_numpy_header(lines, index)


def _is_numpy_header(lines: list[str], index: int) -> bool:
    following = lines[index + 1].lstrip() if index + 1 < len(lines) else ""
    return following.startswith("---") and _DASHES.fullmatch(following) is not None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _add(params: dict[str, str], names: list[str], parts: list[str]) -> None:
    text = " ".join(parts) if all(parts) else " ".join([p for p in parts if p])
    if text:
        for name in names:
            params.setdefault(name, text)


def _google_section(lines: list[str], index: int, header: int, params: dict[str, str]) -> int:
    # Each line is stripped once: this loop is most of reading a docstring.
    entry: int | None = None
    names: list[str] = []
    parts: list[str] = []
    fullmatch = _GOOGLE_ENTRY.fullmatch
    end = len(lines)
    while index < end:
        line = lines[index]
        stripped = line.strip()
        if stripped:
            indent = len(line) - len(line.lstrip())
            if indent <= header:
                break
            if entry is None:
                entry = indent
            if indent <= entry:
                if names:
                    _add(params, names, parts)
                # "name: text", the usual entry, read without the regex: what it would give.
                name, colon, text = stripped.partition(":")
                plain = colon and name.isidentifier() and name.isascii()
                if plain and (not text or text[0].isspace()):
                    names, parts = [name], [text.lstrip()]
                else:
                    match = fullmatch(stripped)
                    if match is None:
                        names, parts = [], [""]
                    else:
                        names, parts = [match.group(1)], [match.group(2) or ""]
            else:
                parts.append(stripped)
        index += 1
    _add(params, names, parts)
    return index


def _numpy_section(lines: list[str], index: int, header: int, params: dict[str, str]) -> int:
    names: list[str] = []
    parts: list[str] = []
    while index < len(lines):
        line = lines[index]
        if line.strip():
            indent = _indent(line)
            if indent < header or (indent == header and _is_numpy_header(lines, index)):
                break
            if indent == header:
                _add(params, names, parts)
                match = _NUMPY_ENTRY.fullmatch(line.strip())
                names = [n.strip().lstrip("*") for n in match.group(1).split(",")] if match else []
                parts = []
            else:
                parts.append(line.strip())
        index += 1
    _add(params, names, parts)
    return index


def _rest_field(
    lines: list[str], index: int, indent: int, field: re.Match[str], params: dict[str, str]
) -> int:
    names = [field.group(1).split()[-1].lstrip("*")]
    parts = [field.group(2).strip()]
    index += 1
    while index < len(lines):
        line = lines[index]
        if line.strip():
            if _indent(line) <= indent:
                break
            parts.append(line.strip())
        index += 1
    _add(params, names, parts)
    return index
