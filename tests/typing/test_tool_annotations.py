"""``ToolAnnotations`` catches a misspelt or non-bool hint statically, as declaration does at run time.

Checked by ``mypy --strict`` with ``warn_unused_ignores``: the lines that must be type errors
carry ``# type: ignore[<code>]``, so an ignore that stopped being needed fails mypy.
"""

from __future__ import annotations

from typing import Any

import pytest

from pedelec import PedelecError, ToolAnnotations, define_tool

GOOD: ToolAnnotations = {"readOnlyHint": True, "openWorldHint": False}
MISSPELT: ToolAnnotations = {"destructivehint": True}  # type: ignore[typeddict-unknown-key]
NOT_BOOL: ToolAnnotations = {"idempotentHint": "yes"}  # type: ignore[typeddict-item]


def _declare(annotations: Any) -> None:
    define_tool(name="t", description="T.", schema={"type": "object"}, annotations=annotations)


def test_well_typed_annotations_declare() -> None:
    _declare(GOOD)


@pytest.mark.parametrize("annotations", [MISSPELT, NOT_BOOL])
def test_ill_typed_annotations_are_refused(annotations: Any) -> None:
    with pytest.raises(PedelecError):
        _declare(annotations)
