"""JSON Lines for `minagent.wire.json`: ``encode_lines``, ``decode_lines``, ``iter_lines``.

The implementation lives in `minagent.wire.stream` (with the session log and frames that use
it); see there for how batches are decoded.
"""

from __future__ import annotations

from .stream._lines import decode_lines, encode_lines, iter_line_batches, iter_lines

__all__ = ["decode_lines", "encode_lines", "iter_line_batches", "iter_lines"]
