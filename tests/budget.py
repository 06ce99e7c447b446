"""How many examples the property tests draw: one number for the whole run.

``MINAGENT_EXAMPLES`` sets it (25 by default: the quick run a developer repeats, `nox -s tests`).
`nox -s properties`, part of the README's test command, runs only the property tests with 300;
`nox -s lowest` with 10, `nox -s mutation` with 10. Tests that need more or fewer than the profile's
count state it relative to the standard budget of 60 with `scaled`, so that every run keeps
their proportions."""

from __future__ import annotations

import os

STANDARD = 60
"""The budget the explicit counts in the tests are written for."""

EXAMPLES = int(os.environ.get("MINAGENT_EXAMPLES", "25"))
"""Examples per property test in this run (the hypothesis profile's ``max_examples``)."""


def scaled(count: int, *, floor: int = 5) -> int:
    """``count`` examples at the `STANDARD` budget, scaled to this run's `EXAMPLES` (at least
    ``floor``)."""
    return max(floor, count * EXAMPLES // STANDARD)
