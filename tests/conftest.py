"""Test-suite wide settings: hypothesis profiles and the opt-in ``slow`` marker.

Property tests must be reproducible in CI and never fail on timing (the suite makes no timing
assertions), so the default profile is derandomized (the same examples on every run) and has no
deadline. ``PEDELEC_SLOW=1`` switches to a long, randomized fuzz profile and also runs the tests
marked ``slow``.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

SLOW = os.environ.get("PEDELEC_SLOW") == "1"

settings.register_profile(
    "default",
    derandomize=True,
    deadline=None,
    max_examples=200,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "slow",
    deadline=None,
    max_examples=5_000,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("slow" if SLOW else "default")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip ``@pytest.mark.slow`` tests unless ``PEDELEC_SLOW=1``."""
    if SLOW:
        return
    skip_slow = pytest.mark.skip(reason="slow test; run with PEDELEC_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip_slow)
