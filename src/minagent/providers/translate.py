"""Stream translation: one provider's event stream in, another's out, as the bytes arrive.

    from minagent.providers import translate_stream
    for data in translate_stream(upstream_chunks, source="anthropic", target="openai_chat"):
        client.write(data)

or, chunk by chunk, `StreamTranslator` (``feed(chunk) -> bytes``, ``close() -> bytes``).

How (docs/streaming.md has the full story): the source's own `StreamAccumulator` applies each
event (so bad bytes raise its `StreamError` with the event index, and the response so far is
always at hand); a *reader* per source turns the events into the neutral deltas of `_delta`;
a *writer* per target (``_emit_<target>``) turns those into the target's events. Text is sent
piece by piece as it arrives; every other block is sent whole once the source completes it, as
the target adapter's ``encode_response`` writes it (so the adapters' policy applies unchanged:
content the target cannot hold raises `UnsupportedError`, or is dropped and listed with
``unsupported="drop"``; metadata is listed in ``dropped``). At the end the writer sends what is
left from the target's non-streamed body of the whole response: the stop reason, usage and
every response-level key. Hence the guarantee: the target stream, accumulated with the target's
own accumulator, decodes to what ``target.decode_response(target.encode_response(source
accumulated))`` gives (docs/streaming.md states it exactly).

When source and target are the same format the stream is checked (by the source accumulator)
and passed through byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import Any

import msgspec
from msgspec import UNSET

from ..wire.blocks import TextBlock, ThinkingBlock
from ..wire.errors import WireError
from ..wire.extra import Extra
from ..wire.limits import DEFAULT, Limits
from ..wire.messages import Message, ModelResponse
from ._base import SOURCE, Dropped, UnsupportedError, UnsupportedPolicy
from ._delta import Writer
from ._emit_anthropic import AnthropicWriter
from ._emit_chat import ChatWriter
from ._emit_gemini import GeminiWriter
from ._emit_responses import ResponsesWriter
from ._registry import ADAPTERS, get
from ._stream import fail

__all__ = ["WRITERS", "StreamTranslator", "stream_body", "translate_stream"]

WRITERS: dict[str, type[Writer]] = {
    "anthropic": AnthropicWriter,
    "openai_chat": ChatWriter,
    "openai_responses": ResponsesWriter,
    "gemini": GeminiWriter,
}
"""The writer of each target format."""

_json = msgspec.json.Decoder(dict).decode


class StreamTranslator:
    """Translates one stream incrementally: ``feed(chunk)`` returns the target bytes the chunk
    completed (possibly ``b""``), ``close()`` the rest once the source has ended.

    ``unsupported`` and ``dropped`` work as for ``encode_response``: after `close`, ``dropped``
    lists exactly what the non-streamed translation lists. ``fields`` (``id=``, ``model=``,
    ``created=``) fill in what the source response lacks, as for ``encode_response``; they (and
    any other keyword) go to every ``encode_response`` call of the target adapter as they are (a
    same-format stream passes through unchanged: fields and policy have nothing to do). ``sse``
    (Gemini source only): ``False`` for Gemini's default JSON-array framing (``[{...},{...}]``
    without ``alt=sse``); the Gemini target writes ``alt=sse`` events (a same-format stream passes
    through as it came). Errors:
    `StreamError` (``.frame``: the source event index) for a bad or cut source stream,
    `UnsupportedError` for content the target cannot hold (under ``unsupported="error"``), as
    soon as the block holding it is complete.
    """

    __slots__ = (
        "_acc",
        "_adapter",
        "_blocks_of",
        "_done",
        "_each",
        "_end",
        "_fields",
        "_live",
        "_policy",
        "_send",
        "_started",
        "_state",
        "_tag",
        "_thinks",
        "_writer",
        "dropped",
        "source",
        "target",
    )

    def __init__(
        self,
        source: str,
        target: str,
        *,
        unsupported: UnsupportedPolicy = "error",
        dropped: list[Dropped] | None = None,
        limits: Limits = DEFAULT,
        sse: bool = True,
        **fields: Any,
    ) -> None:
        for role, name in (("source", source), ("target", target)):
            if name not in ADAPTERS:
                raise ValueError(
                    f"unknown {role} format {name!r}; one of: {', '.join(sorted(ADAPTERS))}"
                )
        if unsupported not in ("error", "drop"):
            raise ValueError(f"unsupported must be 'error' or 'drop', not {unsupported!r}")
        self.source = source
        self.target = target
        self.dropped: list[Dropped] = [] if dropped is None else dropped
        """What the target cannot hold, listed (filled by `close`)."""
        self._policy: UnsupportedPolicy = unsupported
        self._fields = fields
        self._adapter = _encoder(target)
        self._blocks_of = _blocks_encoder(target)
        if source == "gemini":
            self._acc: Any = _accumulator(source)(sse=sse, limits=limits)
        elif not sse:
            raise ValueError(f"sse=False is for a Gemini source only, not {source!r}")
        else:
            self._acc = _accumulator(source)(limits=limits)
        self._writer: Writer | None = None if source == target else WRITERS[target]()
        self._each = None if self._writer is None else _READERS[source](self)
        self._started = False
        self._live = False  # a text or thinking block is being sent piece by piece
        self._send: Callable[[str], None] = _nothing  # the writer's text or thinking
        self._end: Callable[[], None] = _nothing_more  # and its close_text or close_thinking
        self._thinks: bool | None = None  # the writer sends thinking piece by piece (asked once)
        self._tag: Any = UNSET  # the source's provenance tag
        self._done = 0  # neutral content blocks sent so far
        self._state: dict[str, Any] = {}  # the reader's own state

    # --- public ---------------------------------------------------------------------------------

    def feed(self, chunk: bytes | bytearray | memoryview) -> bytes:
        """Add source bytes; return the target bytes they complete. On an error, the bytes the
        events before it produced are kept for `pending`."""
        if not isinstance(chunk, (bytes, bytearray, memoryview)):
            raise TypeError(f"a stream chunk must be bytes, not {type(chunk).__name__}")
        self._acc.feed(chunk, self._each)
        if self._writer is None:
            return bytes(chunk)
        return self._writer.take()

    def close(self) -> bytes:
        """End the source stream; return the rest of the target stream. Raises `StreamError`
        when the source stream is incomplete."""
        if self._writer is None:
            self._acc.close(self._each)
            return b""
        response = self._acc.close(self._each, snapshot=True)
        self._begin()
        fields = dict(self._fields)
        if "created" not in fields and self._state.get("created") is not None:
            # the creation time the header carried, should the adapter have chosen one (a
            # source without any): the stream's start and end then agree
            fields["created"] = self._state["created"]
        body = self._encode(response, self.dropped, fields)
        if self._done == 0 and not self._live and self._started:
            # nothing sent yet: the blocks are the final body's own (no second encoding)
            self._done = len(_content(response))
            self._writer.blocks(body)
        else:
            self._flush(response, len(_content(response)))
        self._writer.finish(body)
        return self._writer.take()

    def pending(self) -> bytes:
        """After `feed` or `close` raised: the target bytes that the source events before the
        failure produced (all valid events; a gateway sends them, then reports the error)."""
        return b"" if self._writer is None else self._writer.take()

    # --- what readers call ----------------------------------------------------------------------

    def _begin(self) -> None:
        """The response starts (once): the header is the target body of the response so far
        (its top-level keys only, from the target module's ``stream_header`` where it has one)."""
        if self._started:
            return
        self._started = True
        assert self._writer is not None
        so_far = self._acc._so_far()
        self._tag = _tag(so_far.message)
        header_of = _header_function(self.target)
        if header_of is not None:  # the target's own top-level keys, without a whole encode
            header = header_of(so_far, self._fields)
        else:
            shell = msgspec.structs.replace(so_far, message=Message(role="assistant", content=[]))
            header = self._encode(shell, [], self._fields)
        for key in ("created", "created_at"):
            if type(header.get(key)) is int:
                self._state["created"] = header[key]
        self._writer.begin(header)

    def _open_text(self) -> None:
        assert self._writer is not None
        self._begin()
        self._live = True
        self._send, self._end = self._writer.text, self._writer.close_text
        self._writer.open_text()

    def _open_thinking(self) -> bool:
        """Start sending a thinking block piece by piece if the target can (else False: the
        block goes whole when complete)."""
        assert self._writer is not None
        if not self._can_think():
            return False
        self._live = True
        self._send, self._end = self._writer.thinking, self._writer.close_thinking
        self._writer.open_thinking()
        return True

    def _can_think(self) -> bool:
        """Whether the writer sends thinking piece by piece (asked once, `Writer.can_think`)."""
        assert self._writer is not None
        self._begin()
        if self._thinks is None and type(self._writer).can_think is Writer.can_think:
            self._thinks = False  # the base writer's answer, whatever the body: no probe
        if self._thinks is None:
            probe = ModelResponse(
                message=Message(
                    role="assistant", content=[ThinkingBlock(thinking="x")], extra=self._tag
                ),
                id="x",
                model="x",
                created=0,
            )
            try:
                self._thinks = self._writer.can_think(self._encode(probe, [], {}))
            except UnsupportedError:
                self._thinks = False
        return self._thinks

    def _close_live(self) -> None:
        """Close the block being sent piece by piece, if any."""
        if self._live:
            self._live = False
            self._done += 1
            self._end()

    def _flush(self, response: ModelResponse | None = None, upto: int | None = None) -> None:
        """Send neutral blocks ``[sent, upto)`` of the response so far whole (``upto``: all)."""
        assert self._writer is not None
        self._close_live()
        self._begin()
        if upto is not None and upto <= self._done:
            return  # nothing new: no need to decode the response so far
        if response is None:
            response = self._acc._so_far()
        content = _content(response)
        end = len(content) if upto is None else min(upto, len(content))
        if end <= self._done:
            return
        part = ModelResponse(
            message=Message(
                role="assistant", content=content[self._done : end], extra=_tag(response.message)
            ),
            stop_reason=response.stop_reason,
            id=response.id,
            model=response.model,
            created=response.created,
            extra=_tag(response),
        )
        self._done = end
        try:
            data = self._blocks_of(part, unsupported=self._policy, dropped=[], **self._fields)
            body = _json(data)
        except UnsupportedError:
            # the same refusal with its path in the whole response (the blocks' own paths count
            # from the first sent here): what the non-streamed translation raises
            self._encode(response, [], self._fields)
            raise
        self._writer.blocks(body)

    def _encode(self, response: ModelResponse, dropped: list[Dropped], fields: Any) -> Any:
        return _json(self._adapter(response, unsupported=self._policy, dropped=dropped, **fields))


def stream_body(target: str, body: dict[str, Any]) -> dict[str, Any]:
    """``body`` (a ``target`` non-streamed response body) in the shape a ``target`` stream
    accumulates to: what the stream guarantee compares against (docs/streaming.md).

    - ``openai_chat``: a chunk stream cannot leave keys out, so every choice has ``logprobs``
      and every message ``content`` and ``refusal`` (``null`` when absent), as the SDK's and
      our accumulators build them;
    - ``gemini``: a stream ends at a ``finishReason`` (``STOP`` when the body leaves it out,
      which decodes to the same stop reason), and its text parts merge as the accumulator
      merges consecutive chunks (empty text parts add nothing);
    - ``anthropic``, ``openai_responses``: unchanged.

    A new dict; ``body`` is not changed.
    """
    if target == "openai_chat":
        choices = []
        for choice in body.get("choices") or ():
            choice = dict(choice)
            choice.setdefault("logprobs", None)
            message = choice.get("message")
            if type(message) is dict:
                message = dict(message)
                message.setdefault("content", None)
                message.setdefault("refusal", None)
                choice["message"] = message
            choices.append(choice)
        return dict(body, choices=choices)
    if target == "gemini":
        from .gemini_stream import _Candidate

        candidates = body.get("candidates")
        if type(candidates) is not list or not candidates or type(candidates[0]) is not dict:
            return dict(body)
        merged = _Candidate()
        merged.merge(candidates[0])
        first = merged.body()
        first.setdefault("finishReason", "STOP")
        return dict(body, candidates=[first, *candidates[1:]])
    return dict(body)


_ENCODERS: dict[str, Callable[..., bytes]] = {}
_ACCUMULATORS: dict[str, type] = {}


def _encoder(target: str) -> Callable[..., bytes]:
    """The ``target`` adapter module's own ``encode_response`` (looked up once: the registry's
    `Adapter.encode_response` imports the module on every call)."""
    encode = _ENCODERS.get(target)
    if encode is None:
        encode = _ENCODERS[target] = get(target).module.encode_response
    return encode


_BLOCKS: dict[str, Callable[..., bytes]] = {}


def _blocks_encoder(target: str) -> Callable[..., bytes]:
    """The ``target`` adapter module's ``stream_blocks`` if it has one (``encode_response``'s
    keywords; the body with only what `Writer.blocks` reads: no top-level keys or usage to
    build for every block), else its ``encode_response`` (looked up once)."""
    encode = _BLOCKS.get(target)
    if encode is None:
        module = get(target).module
        encode = _BLOCKS[target] = getattr(module, "stream_blocks", module.encode_response)
    return encode


_HEADERS: dict[str, Callable[[ModelResponse, dict[str, Any]], dict[str, Any]] | None] = {}


def _header_function(target: str) -> Callable[[ModelResponse, dict[str, Any]], Any] | None:
    """The ``target`` adapter module's ``stream_header(response, fields)``, if it has one: the
    top-level keys its ``encode_response`` writes, which is all a header needs (looked up
    once; without one, the header is the body of the response with no content)."""
    if target not in _HEADERS:
        _HEADERS[target] = getattr(get(target).module, "stream_header", None)
    return _HEADERS[target]


def _accumulator(source: str) -> type:
    """The ``source`` stream module's `StreamAccumulator` class (looked up once)."""
    cls = _ACCUMULATORS.get(source)
    if cls is None:
        cls = _ACCUMULATORS[source] = get(source).StreamAccumulator
    return cls


def _nothing(piece: str) -> None:
    raise AssertionError("no block is open")


def _nothing_more() -> None:
    raise AssertionError("no block is open")


def _tag(owner: Any) -> Any:
    """Only the provenance tag of ``owner.extra`` (`SOURCE`): whose blocks these are."""
    extra = owner.extra
    if extra is UNSET or SOURCE not in extra:
        return UNSET
    return Extra({SOURCE: extra[SOURCE]})


def _content(response: ModelResponse) -> list[Any]:
    content = response.message.content
    if type(content) is str:
        return [TextBlock(text=content)] if content else []
    return list(content)


# --- readers: source events -> neutral deltas ----------------------------------------------------


_ANTHROPIC_EVENTS: tuple[type, ...] = ()


def _anthropic_events() -> tuple[type, ...]:
    """The Anthropic event classes the reader tells apart (imported on first use, then kept)."""
    global _ANTHROPIC_EVENTS
    from . import anthropic_stream as s

    _ANTHROPIC_EVENTS = (
        s.ContentBlockDelta,
        s.ContentBlockStart,
        s.ContentBlockStop,
        s.MessageStart,
        s.TextDelta,
        s.ThinkingDelta,
    )
    return _ANTHROPIC_EVENTS


def _anthropic(t: StreamTranslator) -> Callable[[Any], None]:
    """The Anthropic reader for ``t`` (the event classes bound once)."""
    delta_cls, start_cls, stop_cls, begin_cls, text_cls, thinking_cls = (
        _ANTHROPIC_EVENTS or _anthropic_events()
    )

    def read(event: Any) -> None:
        cls = type(event)
        if cls is delta_cls:
            if t._live:
                delta = event.delta
                if type(delta) is text_cls:
                    t._send(delta.text)
                elif type(delta) is thinking_cls:
                    t._send(delta.thinking)
        elif cls is start_cls:
            block = event.content_block
            kind = block.get("type")
            if kind == "text" and block.keys() <= {"type", "text"}:
                t._flush(upto=event.index)
                t._open_text()
                if block.get("text"):
                    t._send(block["text"])
                t._acc.sink = t._send  # its pieces go straight on (no `read` per piece)
            elif kind == "thinking" and block.keys() <= {"type", "thinking", "signature"}:
                t._flush(upto=event.index)
                if t._open_thinking():
                    if block.get("thinking"):
                        t._send(block["thinking"])
                    t._acc.sink = t._send
        elif cls is stop_cls:
            if t._live:
                t._close_live()
            else:
                t._flush(upto=event.index + 1)
        elif cls is begin_cls:
            t._begin()

    return read


_REASONING = frozenset({"reasoning_content", "reasoning"})
"""Delta keys the Chat adapter reads as thinking (a block before the text)."""


def _read_chat(t: StreamTranslator, chunk: Any) -> None:
    """Chat: the message's blocks are [thinking, content parts, text, tool calls] whatever the
    order of the chunks; text goes live, what comes before it is sent when the text starts,
    the tool calls at the end."""
    t._begin()
    ahead = type(chunk.unknown) is not type(None) and any(
        at == 0 and any(type(delta.get(k)) is str and delta[k] for k in _REASONING)
        for at, _, delta, _ in chunk.unknown.choices
    )
    for part in chunk.choices:
        if part.index != 0:
            continue
        content = part.delta.content
        ahead = ahead or (type(content) is list and bool(content))
        if ahead and t._live:
            raise fail(
                "thinking or content parts after the text started: they come before the text"
                " in the message, and the text was already translated",
                t._acc.events - 1,
            )
        if type(content) is str and content:
            if not t._live:
                if ahead or t._state.get("ahead"):
                    blocks = _content(t._acc.response())  # the text is the last text block
                    at = max(i for i, b in enumerate(blocks) if type(b) is TextBlock)
                    t._flush(upto=at)  # everything before the text
                t._open_text()
            t._send(content)
    if ahead:
        t._state["ahead"] = True


def _read_responses(t: StreamTranslator, event: Any) -> None:
    kind, data = event.type, event.data
    state = t._state
    if kind == "response.output_text.delta":
        if t._live and state.get("at") == (data.get("output_index"), data.get("content_index")):
            t._send(data["delta"])
            state["sent"].append(data["delta"])
    elif kind == "response.output_text.done":
        if t._live and state.get("at") == (data.get("output_index"), data.get("content_index")):
            _catch_up(t, "".join(state["sent"]), data["text"], event.index)
    elif kind == "response.content_part.added":
        part = data.get("part")
        if (
            type(part) is dict
            and part.get("type") == "output_text"
            and not part.get("text")
            and not part.get("annotations")
            and state.get("message") == data.get("output_index")
        ):
            t._open_text()
            state["at"] = (data.get("output_index"), data.get("content_index"))
            state["sent"] = []
    elif kind == "response.content_part.done":
        t._close_live()
    elif kind == "response.output_item.added":
        item = data.get("item") or {}
        plain = item.get("type") == "message" and not item.get("content")
        state["message"] = data.get("output_index") if plain else None
    elif kind == "response.output_item.done":
        t._close_live()
        state["message"] = None
        t._flush()
    elif kind == "response.created":
        t._begin()


def _catch_up(t: StreamTranslator, sent: str, whole: str, frame: int) -> None:
    """A ``.done`` event gave the ``whole`` text of a block sent live as ``sent``: send what
    the deltas left out; a text that does not continue what was sent cannot be taken back."""
    if whole == sent:
        return
    if not whole.startswith(sent):
        raise fail(
            "the done event's text does not continue the text of its deltas, which were"
            " already translated",
            frame,
        )
    t._send(whole[len(sent) :])


def _read_gemini(t: StreamTranslator, chunk: Any) -> None:
    state = t._state
    t._begin()
    candidates = chunk.data.get("candidates")
    if type(candidates) is not list or not candidates or type(candidates[0]) is not dict:
        return
    first = candidates[0]
    if first.get("index", 0) != 0:
        return
    parts = (
        (first.get("content") or {}).get("parts") if type(first.get("content")) is dict else None
    )
    if type(parts) is not list:
        return
    for part in parts:
        # the accumulator's merge rule (gemini_stream._Candidate._add): which part grows
        text = part.get("text") if type(part) is dict else None
        last = state.get("last")  # (thought, signed) of the last text part, or None
        if type(text) is not str or part.keys() - _TEXT_KEYS:
            _gemini_part(t, state, None)
            continue
        signature = part.get("thoughtSignature")
        if last is not None and not last[1] and last[0] is part.get("thought"):
            if t._live:
                t._send(text)
            if signature is not None:
                state["last"] = (last[0], True)
        elif text or signature is not None:
            _gemini_part(t, state, (part.get("thought"), signature is not None))
            if t._live:
                t._send(text)


_TEXT_KEYS = frozenset({"text", "thought", "thoughtSignature"})


def _gemini_part(t: StreamTranslator, state: dict[str, Any], kind: Any) -> None:
    """A new part starts: the part before it is complete. A text part (a thought too, where the
    target can take thinking piece by piece) goes live, after the whole parts still waiting;
    other parts wait for that or for the end (one decode of the response so far per live
    part, not one per part: a stream of many small parts stays linear)."""
    count = state.get("parts", 0)
    state["parts"] = count + 1
    state["last"] = kind
    t._close_live()
    if kind is None or not (kind[0] is None or (kind[0] is True and t._can_think())):
        return
    t._flush(upto=count)
    if kind[0] is None:
        t._open_text()
    else:
        t._open_thinking()


_READERS: dict[str, Callable[[StreamTranslator], Callable[[Any], None]]] = {
    "anthropic": _anthropic,
    "openai_chat": lambda t: partial(_read_chat, t),
    "openai_responses": lambda t: partial(_read_responses, t),
    "gemini": lambda t: partial(_read_gemini, t),
}
"""Per source: the reader of a translator (called with each source event once applied)."""


def translate_stream(
    chunks: Iterable[bytes], source: str, target: str, **options: Any
) -> Iterator[bytes]:
    """Translate a ``source`` provider stream (byte chunks, split anywhere) into the ``target``
    provider's stream, yielding the target's bytes as the source's arrive (no empty chunks).
    On a failure (`StreamError`, `UnsupportedError`, ...) the target bytes of the source events
    before it are yielded first, then the error is raised.

    ``options``: ``unsupported`` (``"error"`` or ``"drop"``), ``dropped`` (a list to fill),
    ``limits``, ``sse`` (``False``: a Gemini source in the JSON-array framing), and the fields
    ``id`` / ``model`` / ``created``; see `StreamTranslator`.
    """
    translator = StreamTranslator(source, target, **options)
    try:
        for chunk in chunks:
            data = translator.feed(chunk)
            if data:
                yield data
        data = translator.close()
    except WireError:
        data = translator.pending()  # what the events before the failure produced, then it
        if data:
            yield data
        raise
    if data:
        yield data
