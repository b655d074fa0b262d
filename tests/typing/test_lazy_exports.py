"""The lazily loaded top-level names keep their types, and a misspelt one is a type error.

Checked by ``mypy --strict`` (``warn_unused_ignores``): ``pedelec.__getattr__`` is hidden from
type checkers, so they read each name from its real home and an unknown name is not ``Any``.
pytest runs the same code, so the names also resolve at runtime.
"""

from __future__ import annotations

from typing import assert_type

import pytest

import pedelec
from pedelec.limits import Limits
from pedelec.session import Session


def test_lazy_names_have_their_types() -> None:
    assert_type(pedelec.Session, type[Session])
    assert_type(pedelec.DEFAULT_LIMITS, Limits)
    assert pedelec.Session is Session


def test_a_misspelt_name_is_a_type_error() -> None:
    with pytest.raises(AttributeError):
        pedelec.Sesion  # type: ignore[attr-defined]  # noqa: B018
