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


def join_array(parts: Sequence[Any], json: bool, count: int | None = None) -> bytes:
    """Frame already-encoded elements as one array in the format (``count`` elements in all,
    when a part may hold several)."""
    if json:
        if not parts:
            return b"[]"
        framed: list[Any] = [b","] * (2 * len(parts) + 1)
        framed[0], framed[-1] = b"[", b"]"
        framed[1:-1:2] = parts
        return b"".join(framed)  # one copy
    n = len(parts) if count is None else count
    if n < 16:
        header = bytes([0x90 | n])
    elif n < 0x10000:
        header = b"\xdc" + struct.pack(">H", n)
    else:
        header = b"\xdd" + struct.pack(">I", n)
    return b"".join([header, *parts])  # one copy (a second, of a large buffer, costs page faults)


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
    """Encode ``items`` in chunks of `CHUNK` (one strict call each); a chunk the strict encoder
    refuses is encoded element by element, lowering only the elements it refuses."""
    parts: list[Any] = []
    n = len(items)
    for start in range(0, n, CHUNK):
        chunk = items[start : start + CHUNK]
        try:
            parts.extend(_elements(encode(list(chunk)), len(chunk), json))
            continue
        except needs_lossless:
            pass
        for i, item in enumerate(chunk, start):
            try:
                parts.append(encode(item))
            except needs_lossless:
                parts.append(encode(lowered(item, i)))
    return join_array(parts, json, n)


def _elements(array: bytes, count: int, json: bool) -> list[Any]:
    """The encoded elements of an encoded array, as one part (``join_array`` frames them again).

    The result is a single part holding all ``count`` elements, separators included, so that
    joining parts with the format's separator gives a well-formed array.
    """
    if count == 0:
        return []
    view = memoryview(array)  # no copy: join_array copies once, at the end
    if json:
        return [view[1:-1]]
    header = 1 if count < 16 else 3 if count < 0x10000 else 5
    return [view[header:]]
