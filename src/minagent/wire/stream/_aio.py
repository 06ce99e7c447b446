"""asyncio helpers: frames and JSON Lines over ``StreamWriter`` / ``StreamReader``.

Senders encode a whole batch with one call and write it at once; receivers read chunks of up to
``chunk_size`` bytes and decode every complete frame or line in them as one batch (the read-loop
is `minagent.wire.stream._chunks.receive_batches`, shared with the file readers).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from ..limits import DEFAULT, Limits
from ..messages import Message
from ._chunks import DEFAULT_CHUNK_SIZE, ChunkDecoder, receive_batches
from ._errors import StreamIOError
from ._frames import FrameDecoder, encode_frames
from ._lines import LineDecoder, as_items, encode_lines

if TYPE_CHECKING:
    from asyncio import StreamReader, StreamWriter

__all__ = ["receive", "receive_lines", "send", "send_lines"]


async def _write(writer: StreamWriter, data: bytes, what: str) -> None:
    try:
        writer.write(data)
        await writer.drain()
    except OSError as err:
        raise StreamIOError.wrap(f"cannot send {what}", err) from err


async def _items(
    reader: StreamReader, decoder: ChunkDecoder, chunk_size: int, what: str
) -> AsyncIterator[Any]:
    async for batch in receive_batches(reader, decoder, chunk_size, what):
        for item in batch:
            yield item


async def send(writer: StreamWriter, obj: Any) -> None:
    """Write a Message or ModelResponse as one frame, or a list as one frame each; then drain.

    Raises `EncodeError` (with ``.frame``) before anything is written, and `StreamIOError` if
    the connection fails.
    """
    await _write(writer, encode_frames(obj), "frames")


def receive(
    reader: StreamReader,
    *,
    type: Any = Message,
    limits: Limits = DEFAULT,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> AsyncIterator[Any]:
    """Iterate the objects of the frames arriving on ``reader`` until the peer closes.

    Raises `FrameTooLargeError` (before reading the payload), `TruncatedError` with
    ``.missing`` if the stream ends inside a frame, `DecodeError` / `ValidationError` with
    ``.frame`` (after every good frame before it), and `StreamIOError` if the connection fails.
    """
    decoder = FrameDecoder(type=type, limits=limits)
    return _items(reader, decoder, chunk_size, "cannot receive frames")


async def send_lines(writer: StreamWriter, obj: Any) -> None:
    """Write a Message or ModelResponse, or a list of them, as JSON Lines; then drain."""
    await _write(writer, encode_lines(as_items(obj)), "JSON Lines")


def receive_lines(
    reader: StreamReader,
    *,
    type: Any = Message,
    limits: Limits = DEFAULT,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> AsyncIterator[Any]:
    """Iterate the objects of the JSON Lines arriving on ``reader`` until the peer closes.

    ``limits`` bounds each line (`minagent.wire.Limits`: ``max_line``, ``max_size``,
    ``max_depth``). Errors name the line, after every good line before it: `DecodeError` /
    `ValidationError`, `LineTooLongError`, and `TruncatedError` if the stream ends inside a line
    that is not a whole object; `StreamIOError` if the connection fails.
    """
    decoder = LineDecoder(type=type, limits=limits)
    return _items(reader, decoder, chunk_size, "cannot receive JSON Lines")
