"""What msgspec raises for malformed input, across the versions we support (0.19 and later)."""

from __future__ import annotations

import msgspec

__all__ = ["MALFORMED"]

MALFORMED = (msgspec.DecodeError, UnicodeError)
"""msgspec before 0.23 lets the standard library's UnicodeDecodeError out for invalid UTF-8, and
every version a UnicodeEncodeError for a ``str`` input holding a lone surrogate, which has no
UTF-8 form (catch `msgspec.ValidationError`, a DecodeError subclass, before this where it
matters)."""
