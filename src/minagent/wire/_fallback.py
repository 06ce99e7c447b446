"""Transcripts that hold unknown data: decode and encode them paying only for the odd messages.

The fast path handles a whole list in one msgspec call. When that call stops at element ``k``
(an unknown block or key), `decode_list` goes on in chunks: the elements are located once
(msgspec scanning them into ``Raw``, tokenising only), each chunk of up to `CHUNK` elements is
decoded strictly in one call, and a chunk that stops at an element is decoded up to it, the odd
element goes through the lossless builder, and the rest of the chunk is tried again. Known
messages therefore cost one strict decode plus at most one wasted chunk per odd message.

`encode_list` writes each element with the strict encoder and lowers (spreads `Extra` keys back
into dicts) only the elements that the encoder refuses.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

__all__ = ["CHUNK", "decode_list", "encode_list", "first_index", "join_array"]

CHUNK = 32
"""Elements decoded per strict call on the lossless path: small enough that a wasted attempt is
cheap, large enough that per-call overhead is negligible."""

_INDEX = re.compile(r" - at `\$\[(\d+)\]")


def first_index(err: msgspec.ValidationError) -> int | None:
    """The list index msgspec's error points into (``$[12]...`` -> 12), or None."""
    match = _INDEX.search(str(err))
    return int(match.group(1)) if match else None


def join_array(parts: Sequence[Any], json: bool) -> bytes:
    """Frame already-encoded elements as one array in the format."""
    if json:
        return b"[" + b",".join(parts) + b"]"
    n = len(parts)
    if n < 16:
        header = bytes([0x90 | n])
    elif n < 0x10000:
        header = b"\xdc" + struct.pack(">H", n)
    else:
        header = b"\xdd" + struct.pack(">I", n)
    return header + b"".join(parts)


def decode_list(
    raws: Sequence[Any],
    decode_chunk: Callable[[bytes, int, int], list[Any]],
    decode_odd: Callable[[int], Any],
    json: bool,
    first_bad: int | None = None,
) -> list[Any]:
    """Decode ``raws`` (the elements' raw bytes) strictly in chunks, odd elements one by one.

    ``decode_chunk(framed, start, stop)`` decodes the framed array of elements ``start`` to
    ``stop`` strictly (raising msgspec.ValidationError at the first odd element);
    ``decode_odd(i)`` decodes element ``i`` through the lossless builder.
    ``first_bad``, when known from a failed fast attempt, saves one wasted chunk.
    """
    out: list[Any] = []
    start, n = 0, len(raws)
    size = CHUNK  # adapts: halves after a miss, doubles after a hit (dense odd lists)
    while start < n:
        end = min(start + size, n)
        bad: int | None
        if first_bad is not None and start <= first_bad < end:
            bad, first_bad = first_bad, None
        else:
            try:
                out.extend(decode_chunk(join_array(raws[start:end], json), start, end))
                start = end
                size = min(size * 2, CHUNK)
                continue
            except msgspec.ValidationError as err:
                index = first_index(err)
                bad = start + index if index is not None else None
        if bad is None:  # no index in the message: fall back to one element at a time
            bad = start
        if bad > start:
            out.extend(decode_chunk(join_array(raws[start:bad], json), start, bad))
        out.append(decode_odd(bad))
        size = max(1, min(size, 2 * (bad - start)))
        start = bad + 1
    return out


def encode_list(
    items: Sequence[Any],
    encode: Callable[[Any], bytes],
    lowered: Callable[[Any, int], Any],
    needs_lossless: type[BaseException],
    json: bool,
) -> bytes:
    """Encode ``items`` one by one, lowering only those the strict encoder refuses."""
    parts = []
    for i, item in enumerate(items):
        try:
            parts.append(encode(item))
        except needs_lossless:
            parts.append(encode(lowered(item, i)))
    return join_array(parts, json)
