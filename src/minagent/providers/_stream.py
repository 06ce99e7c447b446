"""The stream core every provider stream module is built on.

A provider stream is read in two layers, each written once here:

- `Parser`: byte chunks in, typed events out. A *framing* (`SSEParser`, or Gemini's JSON-array
  scanner) cuts the bytes into raw events; the provider's ``_decode`` step turns one raw event
  into its typed event (or ``None`` for a marker such as ``data: [DONE]``) and says when the
  stream has ended. Raw events after the end are refused.
- `Accumulator`: events in, the final `ModelResponse` out. ``feed`` parses and applies, ``close``
  ends the stream and checks it is complete, ``response`` gives the response so far at any time.
  ``body`` gives the provider's own non-streamed body built so far (a plain dict, what the
  provider would have answered without streaming). The provider supplies ``_apply`` (one
  event), ``_complete`` (is the stream whole?), ``body`` and ``_decode`` (its adapter's).

Failures are `StreamError` (``.frame`` = the event index) and never lose what came before: when a
chunk holds good events and then a bad one, the parser returns the good ones in the error's
``.received`` and the accumulator applies them before it re-raises (*error replay*), so
``accumulator.response()`` still gives everything received.

Events the provider module does not know are kept whole as `UnknownEvent` (with the provider
they came from and their index) and listed in ``accumulator.unknown``, never dropped silently.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar

import msgspec

from ..wire._stack import runs_roomy_unsized
from ..wire.errors import WireError
from ..wire.limits import DEFAULT, Limits
from ..wire.messages import ModelResponse
from ._base import StreamError
from ._sse import SSEEvent, SSEParser

__all__ = ["Accumulator", "Parser", "UnknownEvent", "decode_event", "fail", "want"]


class UnknownEvent(msgspec.Struct, frozen=True, gc=False):
    """An event of a type the provider module does not know, kept whole with its provenance."""

    type: str
    """The event's ``type``."""
    data: dict[str, Any]
    """The whole event object, as received."""
    provider: str = ""
    """The provider stream it came from (``"anthropic"``, ``"openai_responses"``, ...)."""
    index: int = -1
    """0-based position of the event in its stream."""


def fail(message: str, frame: int, received: list[Any] | None = None) -> StreamError:
    """A `StreamError` for event ``frame`` (raise it)."""
    err = StreamError(message, frame=frame)
    if received is not None:
        err.received = received
    return err


_ANY = msgspec.json.Decoder(dict[str, Any])


def decode_event(data: bytes, index: int, what: str, decoder: Any = _ANY) -> Any:
    """Decode one event's JSON ``data`` with a msgspec ``decoder`` (default: a JSON object).

    Anything wrong (bad JSON or UTF-8, not an object, nesting too deep) is a `StreamError` naming
    event ``index`` and ``what`` it is (``event 'message_start'``).
    """
    try:
        return decoder.decode(data)
    except msgspec.ValidationError as err:
        raise fail(f"{what}: {_shape(err)}", index) from None
    except msgspec.DecodeError as err:
        raise fail(f"{what}: invalid JSON: {err}", index) from None
    except RecursionError:
        raise fail(f"{what}: invalid JSON: nesting too deep", index) from None
    except UnicodeError as err:  # msgspec < 0.20 raises it for invalid UTF-8 in a string
        reason = getattr(err, "reason", err)  # a bare UnicodeError has no reason
        raise fail(f"{what}: invalid JSON: invalid UTF-8: {reason}", index) from None


def _shape(err: msgspec.ValidationError) -> str:
    text = str(err)
    return "not a JSON object" if text.startswith("Expected `object`, got") else text


_KINDS = {dict: "an object", list: "an array", str: "a string", int: "an integer"}


def want(value: Any, kind: type, what: str, frame: int) -> Any:
    """``value`` if its type is ``kind`` (``bool`` never passes for ``int``), else `StreamError`
    saying ``what`` it is and what it should be."""
    if type(value) is not kind:
        got = "null" if value is None else type(value).__name__
        raise fail(f"{what} must be {_KINDS.get(kind, kind.__name__)}, not {got}", frame)
    return value


class Parser:
    """Byte chunks in, a provider's typed events out (see the module docstring).

    Subclasses set ``provider`` and ``end`` (what ends the stream, for messages) and implement
    ``_decode``; ``_framing`` picks the framing (SSE unless overridden).
    """

    __slots__ = ("_frames", "ended")

    provider: ClassVar[str] = ""
    end: ClassVar[str] = "the end"

    def __init__(self, limits: Limits = DEFAULT) -> None:
        self._frames = self._framing(limits)
        self.ended: int | None = None
        """The index of the event that ended the stream, once it came."""

    def _framing(self, limits: Limits) -> Any:
        return SSEParser(limits)

    def _decode(self, raw: SSEEvent) -> Any:
        """One raw event to its typed event, or ``None`` (nothing to yield); set ``self.ended``
        at the event that ends the stream."""
        raise NotImplementedError

    @runs_roomy_unsized
    def feed(self, chunk: bytes | bytearray | memoryview) -> list[Any]:
        """Add ``chunk``; return the events it completed. Raises `StreamError` whose
        ``.received`` holds the events of this chunk decoded before the failure."""
        return self._feed(chunk)

    @runs_roomy_unsized
    def close(self) -> list[Any]:
        """End the stream: the events its last bytes completed; `StreamError` if it stopped
        inside an event."""
        return self._close()

    def _feed(self, chunk: bytes | bytearray | memoryview) -> list[Any]:
        """`feed` where the stack was already found roomy (the accumulator's own `feed`)."""
        return self._decode_all(self._frames.feed, chunk)

    def _close(self) -> list[Any]:
        """`close` where the stack was already found roomy."""
        return self._decode_all(self._frames.close)

    def _decode_all(self, frame: Callable[..., list[SSEEvent]], *args: Any) -> list[Any]:
        """Decode the raw events ``frame(*args)`` gives; when framing fails, decode those it
        completed first and re-raise with them in ``.received``."""
        failure: StreamError | None = None
        try:
            raws = frame(*args)
        except StreamError as err:
            raws, failure = err.received, err
        out: list[Any] = []
        for raw in raws:
            if self.ended is not None:
                raise fail(
                    f"data after the end of the stream ({self.end} at event {self.ended})",
                    raw.index,
                    out,
                )
            try:
                event = self._decode(raw)
            except StreamError as err:
                err.received = out
                raise
            if event is not None:
                out.append(event)
        if failure is not None:
            failure.received = out
            raise failure
        return out


class Accumulator:
    """A `Parser` and the state its events build; see the module docstring.

    Subclasses set ``provider`` and ``end``, create their parser in ``_parser`` and implement
    ``_apply``, ``_complete`` and ``_response``.
    """

    __slots__ = ("_ended", "_fed", "_limit", "_parser", "events", "unknown")

    provider: ClassVar[str] = ""
    end: ClassVar[str] = "the end"

    def __init__(self, parser: Parser, limits: Limits = DEFAULT) -> None:
        self._parser = parser
        self._limit = limits.max_size
        self._fed = 0
        self._ended: int | None = None
        self.events = 0
        """How many events were applied."""
        self.unknown: list[UnknownEvent] = []
        """Events of types this module does not know, in order, kept whole (not applied)."""

    @runs_roomy_unsized
    def feed(
        self,
        chunk: bytes | bytearray | memoryview,
        each: Callable[[Any], None] | None = None,
    ) -> list[Any]:
        """Parse ``chunk`` and apply the events it completed; returns them. On a `StreamError`
        the events before the bad one are applied first (see the module docstring).

        ``each`` (optional) is called with every event right after it is applied, before the
        next one is (a stream translator reads the state event by event)."""
        self._fed += len(chunk)
        if self._fed > self._limit:
            raise fail(
                f"the stream is longer than the limit of {self._limit} bytes (Limits.max_size)",
                self.events,
            )
        return self._take(each, self._parser._feed, chunk)

    @runs_roomy_unsized
    def close(
        self, each: Callable[[Any], None] | None = None, *, snapshot: bool = False
    ) -> ModelResponse:
        """End the stream and return the final response; `StreamError` if it is incomplete
        (``each``: as for `feed`; ``snapshot``: the response as the last `snapshot` gives it,
        for a reader that took snapshots before)."""
        self._take(each, self._parser._close)
        missing = self._complete()
        if missing:
            raise fail(f"the stream ended {missing}", self.events)
        return self._so_far(True) if snapshot else self.response()

    def _take(
        self, each: Callable[[Any], None] | None, parse: Callable[..., list[Any]], *args: Any
    ) -> list[Any]:
        """Apply the events ``parse(*args)`` gives (calling ``each`` after each one); when it
        fails, first the events it decoded before the failure (error replay), then re-raise."""
        try:
            events = parse(*args)
        except StreamError as err:
            for event in err.received:
                if not self.apply(event) and each is not None:
                    each(event)
            raise
        apply = self.apply
        if each is None:
            for event in events:
                apply(event)
        else:
            for event in events:
                if not apply(event):  # (True: a sink took the event, see `apply`)
                    each(event)
        return events

    def apply(self, event: Any) -> bool | None:
        """Apply one event (as the parser yields them). A provider module may hand the piece a
        delta carries to a sink its reader set (a stream translator's live block) and return
        True: the reader then need not see that event."""
        index = self.events
        if self._ended is not None:
            raise fail(
                f"an event after the end of the stream ({self.end} at event {self._ended})",
                index,
            )
        self.events += 1
        if type(event) is UnknownEvent:
            self.unknown.append(event)
        self._apply(event, index)

    def _mark_end(self, index: int) -> None:
        """Mark event ``index`` as the one that ended the stream (for ``_apply``)."""
        self._ended = index

    def response(self) -> ModelResponse:
        """The response accumulated so far, as the provider's adapter decodes `body`."""
        try:
            return self._decode(self.body())
        except StreamError:
            raise
        except WireError as err:
            raise fail(f"the accumulated response is malformed: {err}", self.events) from None
        except RecursionError:
            raise fail("the accumulated response is nested too deep", self.events) from None

    @runs_roomy_unsized
    def snapshot(self, last: bool = False) -> ModelResponse:
        """The response so far for a reader that asks again and again (a stream translator):
        equal to `response`; a provider module may keep what it decoded for the next call, so
        the blocks of successive snapshots may be the same objects (read them, do not change
        them). ``last``: no snapshot follows (nothing is worth keeping)."""
        return self._so_far(last)

    def _so_far(self, last: bool = False) -> ModelResponse:
        """`snapshot` where the stack was already found roomy (inside `feed` or `close`)."""
        return self.response()

    def _apply(self, event: Any, index: int) -> None:
        raise NotImplementedError

    def _complete(self) -> str:
        """``""`` when the stream is whole, else what is missing (``before message_stop``)."""
        raise NotImplementedError

    def body(self) -> dict[str, Any]:
        """The provider's non-streamed response body accumulated so far, as a new dict."""
        raise NotImplementedError

    def _decode(self, body: dict[str, Any]) -> ModelResponse:
        raise NotImplementedError


def accumulate_with(acc: Accumulator, chunks: Iterable[bytes | bytearray | memoryview]) -> Any:
    """Feed every chunk to ``acc`` and close it: the final `ModelResponse`."""
    for chunk in chunks:
        acc.feed(chunk)
    return acc.close()
