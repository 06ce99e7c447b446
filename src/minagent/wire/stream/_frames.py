"""Framed MessagePack: each frame is a 4-byte big-endian unsigned length, then one object.

Batches go through msgspec whole. Encoding a list is one msgspec call for the list, one
tokenising pass that splits it into its elements (MessagePack strings are skipped by length,
not scanned) and one join that puts a header before each element. Decoding takes every complete
frame of a chunk, puts a MessagePack array header before their payloads and decodes the batch in
one call through the shared codec (lossless path and error paths included; ``$[i]`` becomes
frame ``i``). The only Python work per frame is reading its header.
"""

from __future__ import annotations

import dataclasses
import re
import struct
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO

import msgspec

from .. import msgpack as _msgpack
from .._codec import MSGPACK as _CODEC
from ..errors import EncodeError, WireError
from ..limits import DEFAULT, Limits
from ..messages import Message
from ._chunks import DEFAULT_CHUNK_SIZE, ChunkDecoder, Taken, read_batches
from ._errors import FrameTooLargeError, StreamIOError, TruncatedError
from ._lines import as_items, item_decoder

__all__ = [
    "HEADER_SIZE",
    "FrameDecoder",
    "encode_frames",
    "read_frames",
    "write_frame",
]

HEADER_SIZE = 4
"""Bytes of the length header before each frame."""

_MAX_LENGTH = 2**32 - 1
_HEADER = struct.Struct(">I")
_ARRAY32 = struct.Struct(">BI")
_RAW_LIST = msgspec.msgpack.Decoder(list[msgspec.Raw])
_INDEXED = re.compile(r"\$\[(\d+)\](.*)", re.DOTALL)


def _split_path(err: WireError) -> tuple[int | None, WireError]:
    """``$[i].rest`` -> (i, the same error with path ``$.rest``); (None, err) otherwise."""
    match = _INDEXED.fullmatch(err.path or "")
    if match is None:
        return None, err
    moved = type(err)(err.message, path="$" + match.group(2), line=err.line, frame=err.frame)
    moved.__cause__ = err.__cause__
    return int(match.group(1)), moved


def encode_frames(obj: Any) -> bytes:
    """Encode a Message or ModelResponse as one frame, or a list of them as one frame each.

    Raises `EncodeError` naming the ``.frame`` (index in the list) and ``.path`` of a value
    MessagePack cannot hold, or a frame longer than 2**32 - 1 bytes.
    """
    items = as_items(obj)
    if not items:
        return b""
    try:
        array = _CODEC.encode(items, False)
    except WireError as err:
        index, moved = _split_path(err)
        raise (moved.located(frame=index) if index is not None else err) from None
    raws = _RAW_LIST.decode(array)
    lengths = list(map(len, raws))
    if max(lengths) > _MAX_LENGTH:
        index = next(i for i, n in enumerate(lengths) if n > _MAX_LENGTH)
        raise EncodeError(f"a frame holds at most {_MAX_LENGTH} bytes", frame=index)
    parts: list[Any] = [b""] * (2 * len(raws))
    parts[0::2] = map(_HEADER.pack, lengths)
    parts[1::2] = raws
    return b"".join(parts)


def write_frame(binary_file: BinaryIO, obj: Any) -> int:
    """Write a Message or ModelResponse as one frame (a list: one frame each) to a binary file.

    Returns the number of bytes written. Raises `EncodeError` as `encode_frames` does and
    `StreamIOError` if the write fails.
    """
    data = encode_frames(obj)
    try:
        binary_file.write(data)
    except OSError as err:
        raise StreamIOError.wrap("writing frames", err) from err
    return len(data)


class FrameDecoder(ChunkDecoder):
    """Incremental frame decoder: ``feed(data)`` any chunks, get the complete objects.

    A header announcing more than ``limits.max_frame`` (or ``max_size``) bytes raises
    `FrameTooLargeError` before any of the payload is read (the decoder stays failed). A frame
    that does not decode raises `DecodeError` / `ValidationError` with its ``.frame`` index,
    after the frames before it have been returned (the error comes on the next call); the frames
    after it can still be read. ``finish()`` raises `TruncatedError` if the stream ended inside
    a frame.
    """

    def __init__(self, *, type: Any = Message, limits: Limits = DEFAULT) -> None:
        super().__init__()
        item_decoder(type)
        self._type = type
        self._list_type = list[type]
        self._limits = limits
        self.max_frame = limits.frame_limit
        """Longest payload accepted, in bytes: ``min(limits.max_frame, limits.max_size)``."""
        # A batch holds many frames, each within max_frame: only the batch's size is unlimited.
        self._batch_limits = dataclasses.replace(limits, max_size=sys.maxsize)
        self._frames = 0

    @property
    def frames(self) -> int:
        """Number of frames consumed so far (the index of the next frame)."""
        return self._frames

    def _take(self) -> Taken:
        buf = self._buf
        size = len(buf)
        spans: list[tuple[int, int]] = []
        pos = 0
        limit = self.max_frame
        unpack = _HEADER.unpack_from
        while size - pos >= HEADER_SIZE:
            (length,) = unpack(buf, pos)
            if length > limit:
                too_large = self._too_large(length, pos, len(spans))
                items, used, err = self._decode(buf, spans)
                return items, used, err or too_large, err is None
            end = pos + HEADER_SIZE + length
            if end > size:
                break
            spans.append((pos + HEADER_SIZE, end))
            pos = end
        items, used, err = self._decode(buf, spans)
        return items, used, err, False

    def _too_large(self, length: int, pos: int, index: int) -> FrameTooLargeError:
        offset = self._offset + pos
        return FrameTooLargeError(
            f"frame of {length} bytes exceeds the limit of {self.max_frame} bytes "
            f"(header at byte offset {offset}); refused before reading it",
            frame=self._frames + index,
            size=length,
            limit=self.max_frame,
            offset=offset,
        )

    def _decode(
        self, buf: bytearray, spans: list[tuple[int, int]]
    ) -> tuple[list[Any], int, WireError | None]:
        """Decode the payloads at ``spans``: the objects, the bytes used (up to the end of the
        last good frame, or of the first bad one) and the bad frame's error."""
        if len(spans) < 2:  # nothing to batch (and a bad frame is not decoded twice)
            return self._decode_each(buf, spans) if spans else ([], 0, None)
        with memoryview(buf) as view:
            views = [view[a:b] for a, b in spans]
            batch = b"".join([_ARRAY32.pack(0xDD, len(spans)), *views])
            for v in views:
                v.release()
        try:
            items: list[Any] = _msgpack.decode(
                batch, type=self._list_type, limits=self._batch_limits
            )
        except WireError:
            return self._decode_each(buf, spans)
        self._frames += len(items)
        return items, spans[-1][1], None

    def _decode_each(
        self, buf: bytearray, spans: list[tuple[int, int]]
    ) -> tuple[list[Any], int, WireError | None]:
        """Decode frame by frame up to the first bad one."""
        items: list[Any] = []
        for a, b in spans:
            index = self._frames
            self._frames += 1
            try:
                item = _msgpack.decode(bytes(buf[a:b]), type=self._type, limits=self._limits)
            except WireError as err:
                return items, b, err.located(frame=index)
            items.append(item)
        return items, spans[-1][1], None

    def _end(self) -> list[Any]:
        have = len(self._buf)
        if have < HEADER_SIZE:
            missing = HEADER_SIZE - have
            what = f"inside the header of frame {self._frames}: at least {missing} bytes missing"
        else:
            (length,) = _HEADER.unpack_from(self._buf, 0)
            missing = HEADER_SIZE + length - have
            what = f"inside frame {self._frames} of {length} bytes: {missing} of its bytes missing"
        raise TruncatedError(
            f"stream ended {what} (frame starts at byte offset {self._offset})",
            frame=self._frames,
            missing=missing,
            offset=self._offset,
        )


def read_frames(
    binary_file: BinaryIO,
    *,
    type: Any = Message,
    limits: Limits = DEFAULT,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> Iterator[Any]:
    """Iterate the objects of the frames in a binary file, in order, until end of file.

    Raises `FrameTooLargeError`, `TruncatedError`, `DecodeError` / `ValidationError` (each with
    ``.frame``, after every good frame before it), and `StreamIOError` if a read fails.
    """
    decoder = FrameDecoder(type=type, limits=limits)
    for batch in read_batches(binary_file.read, decoder, chunk_size, "reading frames"):
        yield from batch
