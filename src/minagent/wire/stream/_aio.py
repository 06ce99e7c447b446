"""asyncio helpers: frames and JSON Lines over ``StreamWriter`` / ``StreamReader``.

Senders encode a whole batch with one call and write it at once; receivers read chunks of up to
``chunk_size`` bytes and decode every complete frame or line in them as one batch.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from ..limits import DEFAULT, Limits
from ..messages import Message
from ._errors import StreamIOError
from ._frames import DEFAULT_CHUNK, FrameDecoder, encode_frames
from ._lines import DEFAULT_MAX_LINE, LineDecoder, as_items, encode_lines

if TYPE_CHECKING:
    from asyncio import StreamReader, StreamWriter

__all__ = ["receive", "receive_lines", "send", "send_lines"]


async def _write(writer: StreamWriter, data: bytes, what: str) -> None:
    try:
        writer.write(data)
        await writer.drain()
    except OSError as err:
        raise StreamIOError.wrap(f"cannot send {what}", err) from err


async def send(writer: StreamWriter, obj: Any) -> None:
    """Write a Message or ModelResponse as one frame, or a list as one frame each; then drain.

    Raises `EncodeError` (with ``.frame``) before anything is written, and `StreamIOError` if
    the connection fails.
    """
    await _write(writer, encode_frames(obj), "frames")


async def receive(
    reader: StreamReader,
    *,
    type: Any = Message,
    max_frame: int | None = None,
    limits: Limits = DEFAULT,
    chunk_size: int = DEFAULT_CHUNK,
) -> AsyncIterator[Any]:
    """Iterate the objects of the frames arriving on ``reader`` until the peer closes.

    Raises `FrameTooLargeError` (before reading the payload), `TruncatedError` with
    ``.missing`` if the stream ends inside a frame, `DecodeError` / `ValidationError` with
    ``.frame``, and `StreamIOError` if the connection fails.
    """
    decoder = FrameDecoder(type=type, max_frame=max_frame, limits=limits)
    while True:
        try:
            data = await reader.read(chunk_size)
        except OSError as err:
            raise StreamIOError.wrap("cannot receive frames", err, decoder.offset) from err
        if not data:
            break
        for item in decoder.feed(data):
            yield item
    while True:
        rest = decoder.finish()
        if not rest:
            break
        for item in rest:
            yield item


async def send_lines(writer: StreamWriter, obj: Any) -> None:
    """Write a Message or ModelResponse, or a list of them, as JSON Lines; then drain."""
    await _write(writer, encode_lines(as_items(obj)), "JSON Lines")


async def receive_lines(
    reader: StreamReader,
    *,
    type: Any = Message,
    max_line: int = DEFAULT_MAX_LINE,
    chunk_size: int = DEFAULT_CHUNK,
) -> AsyncIterator[Any]:
    """Iterate the objects of the JSON Lines arriving on ``reader`` until the peer closes.

    Errors name the line: `DecodeError` / `ValidationError`, `LineTooLongError`, and
    `TruncatedError` if the stream ends inside a line that is not a whole object;
    `StreamIOError` if the connection fails.
    """
    decoder = LineDecoder(type=type, max_line=max_line)
    while True:
        try:
            data = await reader.read(chunk_size)
        except OSError as err:
            raise StreamIOError.wrap("cannot receive JSON Lines", err, decoder.offset) from err
        if not data:
            break
        for item in decoder.feed(data):
            yield item
    for item in decoder.finish():
        yield item
