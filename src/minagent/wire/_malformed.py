"""What msgspec raises for malformed input, across the versions we support (0.19 and later)."""

from __future__ import annotations

import msgspec

__all__ = ["MALFORMED"]

MALFORMED = (msgspec.DecodeError, UnicodeDecodeError)
"""msgspec before 0.23 lets the standard library's UnicodeDecodeError out for invalid UTF-8
(catch `msgspec.ValidationError`, a DecodeError subclass, before this where it matters)."""
