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
from ._errors import FrameTooLargeError, StreamIOError, TruncatedError
from ._lines import as_items, item_decoder

__all__ = [
    "DEFAULT_MAX_FRAME",
    "HEADER_SIZE",
    "FrameDecoder",
    "encode_frames",
    "read_frames",
    "write_frame",
]

HEADER_SIZE = 4
"""Bytes of the length header before each frame."""

DEFAULT_MAX_FRAME = DEFAULT.max_frame
"""Longest frame payload a reader accepts unless told otherwise (`minagent.wire.Limits`)."""

DEFAULT_CHUNK = 64 * 1024
"""Bytes read per call by the sync and asyncio readers."""

_MAX_LENGTH = 2**32 - 1
_HEADER = struct.Struct(">I")
_ARRAY32 = struct.Struct(">BI")
_RAW_LIST = msgspec.msgpack.Decoder(list[msgspec.Raw])
_INDEXED = re.compile(r"\$\[(\d+)\](.*)", re.DOTALL)


def _in_frame(err: WireError) -> WireError:
    """An error at ``$[i].rest`` of the encoded list, as frame ``i`` at ``$.rest``."""
    match = _INDEXED.fullmatch(err.path or "")
    if match is None:
        return err
    return err.located(path="$" + match.group(2), frame=int(match.group(1)))


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
        moved = _in_frame(err)
        raise moved from moved.__cause__
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


class FrameDecoder:
    """Incremental frame decoder: ``feed(data)`` any chunks, get the complete objects.

    A header announcing more than ``max_frame`` bytes raises `FrameTooLargeError` before any of
    the payload is buffered (the decoder stays failed). A frame that does not decode raises
    `DecodeError` / `ValidationError` with its ``.frame`` index; the frames before it in the same
    feed are returned first (the error comes on the next call), and the frames after it can
    still be read. ``finish()`` raises `TruncatedError` if the stream ended inside a frame.
    """

    def __init__(
        self, *, type: Any = Message, max_frame: int | None = None, limits: Limits = DEFAULT
    ) -> None:
        item_decoder(type)
        self._type = type
        self._list_type = list[type]
        self.max_frame = limits.max_frame if max_frame is None else max_frame
        """Longest payload accepted, in bytes (default: ``limits.max_frame``)."""
        self._limits = limits
        # A batch holds many frames, each within max_frame: only the batch's size is unlimited.
        self._batch_limits = dataclasses.replace(limits, max_size=sys.maxsize)
        self._buf = bytearray()
        self._offset = 0
        self._frames = 0
        self._error: WireError | None = None
        self._failed: WireError | None = None

    @property
    def frames(self) -> int:
        """Number of frames consumed so far (the index of the next frame)."""
        return self._frames

    @property
    def offset(self) -> int:
        """Byte offset in the stream of the next frame's header."""
        return self._offset

    @property
    def pending(self) -> int:
        """Bytes buffered for the next, incomplete frame."""
        return len(self._buf)

    def _raise_pending(self) -> None:
        if self._error is not None:
            err, self._error = self._error, None
            raise err
        if self._failed is not None:
            raise self._failed

    def feed(self, data: bytes | bytearray | memoryview = b"") -> list[Any]:
        """Add bytes; return the objects of every frame they complete, in order."""
        self._raise_pending()
        buf = self._buf
        buf += data
        size = len(buf)
        spans: list[tuple[int, int]] = []
        pos = 0
        limit = self.max_frame
        unpack = _HEADER.unpack_from
        too_large = None
        while size - pos >= HEADER_SIZE:
            (length,) = unpack(buf, pos)
            if length > limit:
                too_large = self._too_large(length, pos, len(spans))
                break
            end = pos + HEADER_SIZE + length
            if end > size:
                break
            spans.append((pos + HEADER_SIZE, end))
            pos = end
        items: list[Any] = []
        if spans:
            items, used = self._decode(buf, spans)
            if used < len(spans):  # a bad frame: keep the frames after it for the next call
                pos, too_large = spans[used][1], None
                self._frames += 1
            self._frames += used
            del buf[:pos]
            self._offset += pos
        if too_large is not None:
            self._failed = too_large
        if not items:
            self._raise_pending()
        return items

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

    def _decode(self, buf: bytearray, spans: list[tuple[int, int]]) -> tuple[list[Any], int]:
        """Decode the payloads at ``spans``: the objects, and how many frames they are."""
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
            items = self._decode_each(buf, spans)
        return items, len(items)

    def _decode_each(self, buf: bytearray, spans: list[tuple[int, int]]) -> list[Any]:
        """Decode frame by frame up to the first bad one; its error is raised next."""
        items = []
        for index, (a, b) in enumerate(spans):
            try:
                item = _msgpack.decode(bytes(buf[a:b]), type=self._type, limits=self._limits)
            except WireError as err:
                self._error = err.located(frame=self._frames + index)
                break
            items.append(item)
        return items

    def finish(self) -> list[Any]:
        """End of stream: the objects of frames still buffered (after an error), then raise
        `TruncatedError` if the stream ended inside a frame."""
        items = self.feed()
        if items:
            return items
        have = len(self._buf)
        if not have:
            return []
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
    max_frame: int | None = None,
    limits: Limits = DEFAULT,
    chunk_size: int = DEFAULT_CHUNK,
) -> Iterator[Any]:
    """Iterate the objects of the frames in a binary file, in order, until end of file.

    Raises `FrameTooLargeError`, `TruncatedError`, `DecodeError` / `ValidationError` (each with
    ``.frame``), and `StreamIOError` if a read fails.
    """
    decoder = FrameDecoder(type=type, max_frame=max_frame, limits=limits)
    read = binary_file.read
    while True:
        try:
            data = read(chunk_size)
        except OSError as err:
            raise StreamIOError.wrap("reading frames", err, decoder.offset) from err
        if not data:
            break
        yield from decoder.feed(data)
    while True:
        rest = decoder.finish()
        if not rest:
            break
        yield from rest
