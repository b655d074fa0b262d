"""Render pedelec's ``Example:`` docstring sections as code in the API reference.

pedelec's docstrings follow the Google style with an ``Example:`` section holding doctest
lines. Griffe only treats ``Examples:`` (plural) as a section whose ``>>>`` lines are code; it
renders ``Example:`` as an admonition of plain Markdown, where doctest output such as
``['/n: ...']`` reads as a broken link. This extension renames the heading when the docs are
built, so the docstrings stay as they are.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_HEADING = re.compile(r"^(\s*)Example:[ \t]*$", re.MULTILINE)


class ExampleSections(griffe.Extension):
    """Treat ``Example:`` like ``Examples:`` in every docstring."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        docstring = obj.docstring
        if docstring is not None and "Example:" in docstring.value:
            docstring.value = _HEADING.sub(r"\1Examples:", docstring.value)
