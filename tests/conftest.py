"""Shared test settings: one hypothesis profile sized for a 2-core CI machine."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "minagent",
    max_examples=int(os.environ.get("MINAGENT_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("minagent")
