"""Lazy messages: find each message's bytes at decode, decode only what is read.

``wire.json.decode_lazy(data)`` / ``wire.msgpack.decode_lazy(data)`` return `LazyMessages`, a
sequence of `LazyMessage`. The decode is one msgspec scan of the array into ``msgspec.Raw``
(tokenising only: the syntax is checked, no string is built). Then, per message and on first use:

- the *routing fields* (``role``, ``tool_call_id``, ``is_error``, the tool calls' ids and names)
  are read by a small head decoder that skips everything else. The first routing read decodes the
  heads of the whole sequence in one msgspec call;
- the *content* (``content``, ``extra``, ``text``, ``tool_calls``, ``message``) is decoded by the
  eager codec itself (`minagent.wire.json.decode`), chunk by chunk, so it gives the same objects
  and raises the same errors, with paths under the message's index (``$[3].content[0].type``);
- encoding writes a message whose content was never handed out as its original bytes, byte for
  byte (same format, not canonical); any other message is encoded normally, and across formats
  (JSON in, MessagePack out) every message is transcoded through the typed objects.

What a lazy decode checks, and does not check, is in docs/lazy.md.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from itertools import compress, count, repeat
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any, Literal, overload

import msgspec
from msgspec import UNSET, Raw, Struct, UnsetType

from . import _stack
from ._fallback import join_array
from ._malformed import MALFORMED
from .blocks import ContentBlock, ToolUseBlock
from .errors import DecodeError, WireError
from .extra import Extra
from .limits import DEFAULT, Limits
from .messages import Message, Role

if TYPE_CHECKING:
    from ._codec import Codec

__all__ = ["LazyMessage", "LazyMessages", "Validate"]

Validate = Literal[False, "shape", True]
"""How much a lazy decode checks up front: nothing beyond syntax (``False``), the routing fields
of every message (``"shape"``), or everything the eager decoder checks (``True``)."""

_INDEX = re.compile(r"^\$\[(\d+)\]")
_MAX_CHUNK = 4096
_FIRST_CHUNK = 32
_WHOLE = 1 << 16
"""Inputs up to this many bytes are decoded whole when their first message is read."""
_DROP_FROM = 256
"""Average bytes per message from which short heads drop their contents once the tool calls
are read: kept alive, the text would double what a routed decode holds (text-heavy: 1,037 B
per message instead of 308 B); below, dropping costs more time than it saves memory."""


class _BlockHead(Struct, gc=False):
    """What routing reads of a block: its type and, for ``tool_use``, the call's id and name."""

    type: Any
    id: Any = UNSET
    name: Any = UNSET


class _Head(Struct, gc=False, omit_defaults=True):
    """What routing reads of a message with long content: ``content`` is kept raw (never
    decoded), every key routing does not read is skipped."""

    role: Role
    content: Raw = Raw(b"\xc1")  # absent; 0xC1 starts no JSON value and no MessagePack one
    tool_call_id: str | UnsetType = UNSET
    is_error: bool | UnsetType = UNSET


class _ShortHead(Struct, gc=False):
    """What routing reads of a message with short content, in the same pass: text is cheaper
    to decode than to skip twice."""

    role: Role
    content: str | list[_BlockHead] = ""
    tool_call_id: str | UnsetType = UNSET
    is_error: bool | UnsetType = UNSET


AnyHead = _Head | _ShortHead

LONG = 4096
"""Average bytes per message from which routing skips the text of every message (`_Head`)."""

_HIGH = bytes(range(0x80, 0x100))
_SAMPLES, _SAMPLE = 4, 512


def _decodes_text(data: bytes, n: int) -> bool:
    """Whether routing should decode the messages' heads with their text (`_ShortHead`, one
    pass) rather than skip it (`_Head`, then a second pass over the block lists).

    Decoding text costs little more than skipping it while it is ASCII (or mostly: MessagePack
    headers and binary data are bytes >= 0x80 too), and much more when it is mostly non-ASCII
    (UTF-8 of CJK text becomes a wide str). Measured on the corpus: decoding wins at 0-24% of
    bytes >= 0x80 on every family, and loses 2-3x at 75% (multilingual). Judged on up to four
    evenly spread windows of 512 bytes (`_mostly_ascii`); long messages (`LONG`) are skipped
    whatever their script."""
    if n == 0 or len(data) >= LONG * n:
        return False
    return _mostly_ascii(data)


def _mostly_ascii(data: bytes) -> bool:
    """Whether at most half of the sampled bytes of ``data`` are >= 0x80 (see `_decodes_text`)."""
    if data.isascii():  # word at a time: cheaper than sampling
        return True
    size = len(data)
    if size <= _SAMPLES * _SAMPLE:
        sample = data
    else:
        step = (size - _SAMPLE) // (_SAMPLES - 1)
        sample = b"".join([data[at : at + _SAMPLE] for at in range(0, size - _SAMPLE + 1, step)])
    return 2 * len(sample.translate(None, _HIGH)) > len(sample)


_CONTENT = attrgetter("content")
_TYPE = attrgetter("type")
_IS_STR = str.__instancecheck__
_FIRST = itemgetter(0)
_VIEW: Any = memoryview
_LISTS = bytes(1 if b == ord("L") else 0 for b in range(256))
_NO_CALLS: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
Calls = tuple[tuple[str, ...], tuple[str, ...]]


class _Decoders:
    """The scanners and head decoders of one format (built once per codec)."""

    def __init__(self, codec: Codec) -> None:
        module: Any = codec.module
        self.json = codec.text
        from . import json, msgpack  # here: they import this module

        self.full: Any = json.decode if self.json else msgpack.decode
        """The eager decoder of the format (its public function: every check it makes)."""
        self.raws = module.Decoder(list[Raw])
        self.one = module.Decoder(Raw)
        self.head = {short: module.Decoder(_ShortHead if short else _Head) for short in (0, 1)}
        self.heads = {
            short: module.Decoder(list[_ShortHead] if short else list[_Head]) for short in (0, 1)
        }
        self.blocks = module.Decoder(list[_BlockHead])
        self.block_lists = module.Decoder(list[list[_BlockHead]])
        kinds = bytearray(b"O" * 256)
        kinds[0xC1] = ord("A")
        if self.json:
            kinds[0x22], kinds[0x5B] = ord("S"), ord("L")
        else:
            for b in (*range(0xA0, 0xC0), 0xD9, 0xDA, 0xDB):
                kinds[b] = ord("S")
            for b in (*range(0x90, 0xA0), 0xDC, 0xDD):
                kinds[b] = ord("L")
        self.kinds = bytes(kinds)
        """A `bytes.translate` table: a content's first byte to its kind, ``L`` (array), ``S``
        (text), ``A`` (absent) or ``O`` (anything else)."""


_DECODERS: dict[str, _Decoders] = {}


def _decoders(codec: Codec) -> _Decoders:
    found = _DECODERS.get(codec.name)
    if found is None:
        found = _DECODERS[codec.name] = _Decoders(codec)
    return found


def _moved(err: WireError, index: int, places: tuple[str, list[int]] | None) -> WireError:
    """``err`` (raised for a chunk starting at message ``index``) with its path in the source:
    under ``$[i]`` for an array; for messages one per line or frame, on that line or frame
    (``places``: which, and the number of each message's), the path inside it."""
    path = err.path or "$"
    match = _INDEX.match(path)
    if match is not None:
        index += int(match.group(1))
        path = "$" + path[match.end() :]
    line, frame = err.line, err.frame
    if places is None:
        path = f"$[{index}]" + path[1:]
    elif places[0] == "line":
        line = places[1][index]
    else:
        frame = places[1][index]
    moved = type(err)(err.message, path=path, line=line, frame=frame)
    moved.__cause__ = err.__cause__
    return moved


class _Source:
    """The decoded state shared by the messages of one lazy decode."""

    __slots__ = (
        "_raws",
        "calls",
        "chunk",
        "codec",
        "data",
        "given",
        "heads",
        "limits",
        "lock",
        "messages",
        "n",
        "places",
        "short",
        "verbatim",
    )

    def __init__(
        self, codec: Codec, data: bytes, raws: list[Raw] | None, limits: Limits, n: int = 0
    ) -> None:
        self.codec = codec
        self.data = data
        self._raws = raws
        self.limits = limits
        self.n = n = len(raws) if raws is not None else n
        """The number of messages."""
        self.short = 0
        """Whether the heads were (or will be) decoded with their text (`_decodes_text`)."""
        self.verbatim: bool | None = None
        """Whether ``data`` is exactly what encoding the untouched messages writes (None: not
        known yet; the first `untouched` finds out, `_is_framing`)."""
        self.messages: list[Message | None] = [None] * n
        self.given = bytearray(n)  # 1 once a message's decoded objects were handed out
        self.heads: list[AnyHead | None] | None = None
        self.calls: list[Calls | None] | None = None
        self.chunk = _FIRST_CHUNK
        self.lock = threading.RLock()
        """Held while messages are decoded, so that threads sharing this decode never decode
        one message twice (each message object is handed out once, and never replaced)."""
        self.places: tuple[str, list[int]] | None = None
        """For messages one per line or frame: ``"line"`` or ``"frame"``, and the number of each
        message's (lines 1-based, frames 0-based, as the stream errors count them)."""

    @property
    def raws(self) -> list[Raw]:
        """Each message's bytes (found by a scan of ``data`` on first use, if the decode did
        not need one)."""
        raws = self._raws
        if raws is None:
            with self.lock:
                raws = self._raws
                if raws is None:
                    raws = self._raws = _scan(_decoders(self.codec).raws, self.data, self.limits)
        return raws

    def untouched(self) -> bytes:
        """What encoding every message untouched, in this format, writes."""
        verbatim = self.verbatim
        if verbatim is None:
            verbatim = self.verbatim = self._is_framing()
        if verbatim:
            return self.data
        return join_array(self.raws, self.codec.text)

    def _is_framing(self) -> bool:
        """Whether ``data`` is exactly `join_array` of the messages' bytes. With the scan's
        `Raw` spans, by length: the input holds them, the array's header (MessagePack) or its
        brackets and commas (JSON) and nothing else only if it is that long. Without (a JSON
        array read in one pass), by `_compact`."""
        raws = self._raws
        if raws is None:
            return _compact(self.data, self.heads)  # type: ignore[arg-type]
        n = len(raws)
        framing = len(join_array([], self.codec.text, n)) + (n - 1 if self.codec.text and n else 0)
        return len(self.data) == framing + sum(map(len, raws))

    # --- full decode --------------------------------------------------------------------------

    def message(self, i: int) -> Message:
        """Message ``i``, decoded by the eager codec (with the messages after it, in a chunk)."""
        found = self.messages[i]
        if found is None:
            with self.lock:  # another thread may be decoding it right now
                if self.messages[i] is None:
                    self._decode_from(i)
            found = self.messages[i]
            assert found is not None
        return found

    def _decode_from(self, i: int) -> None:
        """Decode message ``i`` and the undecoded ones after it, in a chunk (hold `lock`)."""
        messages = self.messages
        stop = min(len(messages), i + self.chunk)
        for j in range(i + 1, stop):
            if messages[j] is not None:
                stop = j
                break
        self.chunk = min(self.chunk * 2, _MAX_CHUNK)
        codec, json = self.codec, self.codec.text
        # A small input read from its first message is decoded whole, from its own bytes: no
        # scan, no copy, one call (as eager would); the chunks are for large inputs.
        whole = i == 0 and len(self.data) <= _WHOLE and messages.count(None) == len(messages)
        while True:
            if whole:
                framed, stop = self.data, len(messages)
            else:
                framed = join_array(self.raws[i:stop], json)
            try:
                decoded = _decoders(codec).full(framed, type=list[Message], limits=self.limits)
                break
            except WireError as err:
                whole = False
                match = _INDEX.match(err.path or "$")
                bad = int(match.group(1)) if match is not None else None
                if bad == 0 or (bad is None and stop == i + 1):
                    raise _moved(err, i, self.places) from None
                stop = i + (bad if bad is not None else 1)  # decode the good run before it
        messages[i:stop] = decoded  # all None: `stop` is the first decoded one, under the lock

    def decode_all(self) -> None:
        """Decode every message not decoded yet, in order (raising at the first bad one)."""
        i, n = 0, len(self.messages)
        with self.lock:
            self.chunk = _MAX_CHUNK
            while i < n:
                if self.messages[i] is None:
                    self._decode_from(i)
                i += 1

    # --- routing fields -------------------------------------------------------------------------

    def head(self, i: int) -> AnyHead | None:
        """Message ``i``'s head, or None when only the full decode can read it."""
        heads = self.heads
        if heads is None:
            heads = self._load_heads()
        return heads[i]

    @_stack.runs_roomy_unsized
    def _load_heads(self) -> list[AnyHead | None]:
        with self.lock:
            heads = self.heads
            if heads is None:
                heads = self._read_heads()
            if self.calls is None and self.short:
                self.calls = self._short_calls(heads)
                if len(self.data) >= _DROP_FROM * self.n:
                    for head in filter(None, heads):  # routing reads nothing else of them
                        head.content = ""
            elif self.calls is None:
                self.calls = self._raw_calls(heads)
            self.heads = heads  # last: a reader seeing heads finds calls too
            return heads

    def _read_heads(self) -> list[AnyHead | None]:
        self.short = short = int(_decodes_text(self.data, self.n))
        dec = _decoders(self.codec)
        heads: list[AnyHead | None]
        try:
            heads = dec.heads[short].decode(self.data)
        except (*MALFORMED, RecursionError):
            heads = []
            one = dec.head[short]
            for raw in self.raws:
                try:
                    heads.append(one.decode(raw))
                except (*MALFORMED, RecursionError):
                    heads.append(None)  # only the full decode can read it (or say why not)
        return heads

    @staticmethod
    def _short_calls(heads: list[AnyHead | None]) -> list[Calls | None]:
        """The calls of every message, from short heads (whose blocks are decoded already)."""
        n = len(heads)
        out: list[Calls | None] = [_NO_CALLS] * n
        if None in heads:  # identity first; a Struct compared with None is not equal at once
            for i, head in enumerate(heads):
                if head is None:
                    out[i] = None
                elif type(head.content) is list:
                    out[i] = _calls(head.content)
            return out
        contents = list(map(_CONTENT, heads))
        for i in compress(range(n), map(list.__instancecheck__, contents)):
            out[i] = _calls(contents[i])
        return out

    def calls_of(self, i: int) -> Calls:
        """The ids and names of message ``i``'s tool calls."""
        calls = self.calls
        if calls is None:
            self._load_heads()
            calls = self.calls
            assert calls is not None
        found = calls[i]
        if found is None:
            tool_calls = self.message(i).tool_calls
            found = calls[i] = (
                tuple(b.id for b in tool_calls),
                tuple(b.name for b in tool_calls),
            )
        return found

    @_stack.runs_roomy_unsized
    def _raw_calls(self, heads: list[AnyHead | None]) -> list[Calls | None]:
        """The calls of every message whose content is raw, from one decode of all block lists."""
        dec = _decoders(self.codec)
        n = len(heads)
        out: list[Calls | None] = [_NO_CALLS] * n
        present: Sequence[int] = range(n)
        if None in heads:  # identity first; a Struct compared with None is not equal at once
            present = [i for i in range(n) if heads[i] is not None]
            for i in range(n):
                if heads[i] is None:
                    out[i] = None
        # One byte per message, its content's first byte mapped to L(ist), S(tr), A(bsent), O(ther)
        kinds = bytes(map(_FIRST, map(_VIEW, map(_CONTENT, filter(None, heads))))).translate(
            dec.kinds
        )
        if b"O" in kinds:  # neither text nor blocks: the full decode says what is wrong
            for i, kind in zip(present, kinds, strict=True):
                if kind == 0x4F:
                    out[i] = None
        lists = list(compress(present, kinds.translate(_LISTS)))
        if not lists:
            return out
        contents = [heads[i].content for i in lists]  # type: ignore[union-attr]
        try:
            blocks: list[list[_BlockHead]] = dec.block_lists.decode(join_array(contents, dec.json))
        except (*MALFORMED, RecursionError):
            blocks = []
            for content in contents:
                try:
                    blocks.append(dec.blocks.decode(content))
                except (*MALFORMED, RecursionError):
                    blocks.append([_BlockHead(type=None)])  # unreadable: the full decode says why
        for i, found in zip(lists, blocks, strict=True):
            out[i] = _calls(found)
        return out


def _calls(blocks: list[_BlockHead]) -> Calls | None:
    """The ids and names of the ``tool_use`` blocks, or None if a block is not readable here
    (a plain loop: twice as fast on the corpus as mapping over the tags first; the lists are
    made at the first call, most block lists having none)."""
    ids: list[str] | None = None
    names: list[str] = []
    for block in blocks:
        tag = block.type
        if tag == "tool_use":
            id_, name = block.id, block.name
            if type(id_) is not str or type(name) is not str:
                return None
            if ids is None:
                ids, names = [id_], [name]
            else:
                ids.append(id_)
                names.append(name)
        elif type(tag) is not str:
            return None
    return _NO_CALLS if ids is None else (tuple(ids), tuple(names))


class LazyMessage(Struct, gc=False, eq=False, repr_omit_defaults=False):
    """One message of a lazy decode: its bytes, decoded only as far as it is read.

    Routing fields (`role`, `tool_call_id`, `is_error`, `tool_call_ids`, `tool_names`) are cheap
    and hand out immutable values. Reading `content`, `extra`, `tool_calls` or `message` decodes
    the message fully through the eager codec (same objects, same errors) and marks it
    *touched*: from then on it is encoded from those objects, since they may have been changed.
    An untouched message is encoded as its original bytes (in its own format, not canonical).
    Built by `LazyMessages`, never directly.
    """

    _src: _Source
    _i: int

    # --- routing ------------------------------------------------------------------------------

    # Each reads the shared list directly; TypeError / AttributeError mean "not decoded yet" or
    # "only the full decode can read this message", and take the slow path.

    def _slow_head(self) -> Any:
        head = self._src.head(self._i)
        return self._src.message(self._i) if head is None else head

    @property
    def role(self) -> Role:
        """Who speaks (checked against the four roles, as the eager decoder does)."""
        try:
            return self._src.heads[self._i].role  # type: ignore[index,union-attr]
        except (TypeError, AttributeError):
            return self._slow_head().role  # type: ignore[no-any-return]

    @property
    def tool_call_id(self) -> str | UnsetType:
        """For tool results: the id of the call this answers; ``UNSET`` when absent."""
        try:
            return self._src.heads[self._i].tool_call_id  # type: ignore[index,union-attr]
        except (TypeError, AttributeError):
            return self._slow_head().tool_call_id  # type: ignore[no-any-return]

    @property
    def is_error(self) -> bool | UnsetType:
        """For tool results: whether the tool failed; ``UNSET`` when absent."""
        try:
            return self._src.heads[self._i].is_error  # type: ignore[index,union-attr]
        except (TypeError, AttributeError):
            return self._slow_head().is_error  # type: ignore[no-any-return]

    @property
    def tool_call_ids(self) -> tuple[str, ...]:
        """The ids of the message's ``tool_use`` blocks, in order."""
        try:
            return self._src.calls[self._i][0]  # type: ignore[index]
        except TypeError:
            return self._src.calls_of(self._i)[0]

    @property
    def tool_names(self) -> tuple[str, ...]:
        """The tool names of the message's ``tool_use`` blocks, in order."""
        try:
            return self._src.calls[self._i][1]  # type: ignore[index]
        except TypeError:
            return self._src.calls_of(self._i)[1]

    # --- full decode --------------------------------------------------------------------------

    @property
    def message(self) -> Message:
        """The message fully decoded (cached; the same object each time). Marks it touched."""
        src, i = self._src, self._i
        found = src.messages[i]
        if found is None:
            found = src.message(i)
        src.given[i] = 1
        return found

    @property
    def content(self) -> str | list[ContentBlock]:
        """The text, or the content blocks in order (full decode; marks the message touched)."""
        src, i = self._src, self._i
        found = src.messages[i]
        if found is None:
            found = src.message(i)
        src.given[i] = 1
        return found.content

    @property
    def extra(self) -> Extra | UnsetType:
        """Keys the protocol does not name (full decode; marks the message touched)."""
        return self.message.extra

    @property
    def text(self) -> str:
        """The message's text, as `Message.text` (full decode; an immutable str: not touched)."""
        return self._src.message(self._i).text

    @property
    def tool_calls(self) -> list[ToolUseBlock]:
        """The ``tool_use`` blocks, as `Message.tool_calls` (full decode; marks it touched)."""
        return self.message.tool_calls

    # --- bytes --------------------------------------------------------------------------------

    @property
    def raw(self) -> bytes:
        """The message's original bytes, exactly as received."""
        return bytes(self._src.raws[self._i])

    @property
    def format(self) -> str:
        """``"JSON"`` or ``"MessagePack"``: the format of `raw`."""
        return self._src.codec.name

    @property
    def index(self) -> int:
        """The message's position in its decoded input: the ``$[i]`` of its error paths (for
        messages one per line or frame, errors name the line or frame instead)."""
        return self._i

    @property
    def touched(self) -> bool:
        """Whether decoded objects were handed out (then it is encoded from them)."""
        return bool(self._src.given[self._i])

    def part(self, codec: Codec, canonical: bool) -> Any:
        """What an encoder of ``codec`` writes for this message: its raw bytes or its Message."""
        src = self._src
        if canonical or codec is not src.codec or src.given[self._i]:
            return src.message(self._i)
        return src.raws[self._i]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyMessage):
            other = other._src.message(other._i)
        if not isinstance(other, Message):
            return NotImplemented
        return self._src.message(self._i) == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LazyMessage({self._src.codec.name}, index={self._i}, {len(self.raw)} bytes)"


class LazyMessages(Sequence[LazyMessage | Message]):
    """The messages of one lazy decode, in order; items are `LazyMessage` unless replaced.

    Assigning ``msgs[i] = Message(...)`` (or a `LazyMessage`) replaces an item; encoding then
    writes the replacement normally and the untouched items as their original bytes.
    """

    __slots__ = ("_items", "_replaced", "_src")

    def __init__(self, source: _Source) -> None:
        self._src = source
        self._items: list[LazyMessage | Message] | None = None
        self._replaced = False

    def _all(self) -> list[LazyMessage | Message]:
        items = self._items
        if items is None:
            src = self._src
            with src.lock:  # built once: a replacement made in one list is never lost
                items = self._items
                if items is None:
                    items = list(map(LazyMessage, repeat(src, src.n), count()))
                    self._items = items
        return items

    @property
    def format(self) -> str:
        """``"JSON"`` or ``"MessagePack"``: the format the messages were decoded from."""
        return self._src.codec.name

    def __len__(self) -> int:
        return self._src.n

    @overload
    def __getitem__(self, index: int) -> LazyMessage | Message: ...

    @overload
    def __getitem__(self, index: slice) -> list[LazyMessage | Message]: ...

    def __getitem__(self, index: int | slice) -> Any:
        return self._all()[index]

    def __iter__(self) -> Iterator[LazyMessage | Message]:
        return iter(self._all())

    def __setitem__(self, index: int, value: LazyMessage | Message) -> None:
        if not isinstance(value, (LazyMessage, Message)):
            raise TypeError(f"expected a Message or LazyMessage, got {type(value).__name__}")
        if type(index) is not int:
            raise TypeError("LazyMessages items are replaced one index at a time")
        self._all()[index] = value
        self._replaced = True

    def messages(self) -> list[Message]:
        """Every item fully decoded, as the eager decoder returns it (raises where it raises).
        Marks every lazy item touched."""
        self._src.decode_all()
        return [item.message if isinstance(item, LazyMessage) else item for item in self._all()]

    def parts(self, codec: Codec, canonical: bool) -> list[Any]:
        """What an encoder of ``codec`` writes, item by item (raw bytes where untouched)."""
        src = self._src
        if not self._replaced and not canonical and codec is src.codec and 1 not in src.given:
            return src.raws
        return [
            item.part(codec, canonical) if type(item) is LazyMessage else item
            for item in self._all()
        ]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (LazyMessages, list)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LazyMessages({self._src.codec.name}, {len(self)} messages)"


def _as_bytes(data: Any) -> bytes:
    if isinstance(data, str):
        return data.encode("utf-8", "surrogatepass")
    if type(data) is bytes:
        return data
    try:
        return bytes(data)
    except TypeError as err:
        raise TypeError(f"data must be bytes, bytearray or memoryview: {err}") from None


def _check_args(codec: Codec, validate: Validate, size: int, limits: Limits) -> None:
    if validate not in (False, "shape", True):
        raise ValueError(f"validate must be False, 'shape' or True; got {validate!r}")
    if size > limits.max_size:
        raise DecodeError(
            f"{codec.name} input of {size} bytes is over the limit max_size={limits.max_size}",
            path="$",
        )


@_stack.runs_roomy
def decode(
    codec: Codec,
    data: Any,
    validate: Validate,
    limits: Limits = DEFAULT,
    lines: bool = False,
    first_line: int = 1,
) -> LazyMessages:
    """Scan ``data`` (an array of messages in ``codec``'s format, or JSON Lines numbered from
    ``first_line``) into `LazyMessages`."""
    data = _as_bytes(data)
    _check_args(codec, validate, len(data), limits)
    if lines:
        if codec.name != "JSON":
            raise ValueError("lines=True reads JSON Lines; MessagePack has no lines")
        parts = data.split(b"\n")
        keep = [i for i, part in enumerate(parts) if part.strip(_BLANK)]
        if len(keep) != len(parts):
            parts = [parts[i] for i in keep]
        return from_parts(codec, parts, validate, limits, ("line", [first_line + i for i in keep]))
    if validate is True:
        messages = _decoders(codec).full(data, type=list[Message], limits=limits)
    else:
        found = _one_pass(codec, data, limits)
        if found is not None:
            if validate == "shape":
                _check_shape(found)
            return LazyMessages(found)
    try:
        raws = _scan(_decoders(codec).raws, data, limits)
    except msgspec.ValidationError:
        _decoders(codec).full(data, type=list[Message], limits=limits)  # the eager error
        raise AssertionError("the eager decoder accepted what the scan refused") from None
    except MALFORMED as err:
        raise codec.decode_error(err, data) from None
    except RecursionError:
        raise _too_deep(codec, limits, "$") from None
    source = _Source(codec, data, raws, limits)
    if validate is True:
        source.messages = messages
    elif validate == "shape":
        _check_shape(source)
    return LazyMessages(source)


def _one_pass(codec: Codec, data: bytes, limits: Limits) -> _Source | None:
    """A MessagePack array of messages read in one pass: the heads of every message, which
    checks the syntax as the scan would; the scan of each message's bytes waits until they
    are needed (not for routing, nor for writing everything back untouched: MessagePack has
    no whitespace, so that is the input itself when its array header is the shortest). JSON
    goes to `_json_one_pass`. None when this does not apply (not an array header) or fails
    (then the scan path decides, and reports exactly what it reports)."""
    if not data:
        return None
    if codec.text:
        return _json_one_pass(codec, data, limits)
    first = data[0]
    if 0x90 <= first <= 0x9F:
        n, header = first & 0x0F, 1
    elif first == 0xDC and len(data) >= 3:
        n, header = int.from_bytes(data[1:3], "big"), 3
    elif first == 0xDD and len(data) >= 5:
        n, header = int.from_bytes(data[1:5], "big"), 5
    else:
        return None
    short = int(_decodes_text(data, n))
    try:
        heads = _decoders(codec).heads[short].decode(data)
    except (*MALFORMED, RecursionError, TypeError):  # TypeError: msgspec < 0.23, odd map keys
        return None
    source = _Source(codec, data, None, limits, len(heads))
    source.short, source.heads = short, heads
    source.verbatim = data[:header] == join_array([], False, n)
    return source


def _json_one_pass(codec: Codec, data: bytes, limits: Limits) -> _Source | None:
    """A JSON array of messages whose heads skip their text (mostly non-ASCII input: see
    `_decodes_text`) read in one pass, as `_one_pass` reads MessagePack: the heads check the
    syntax as the scan would, and the scan waits until a message's own bytes are needed.
    Writing everything back untouched needs no scan either when `_compact` finds the input
    is the compact framing of its messages (then it is the input itself). None when the
    heads would decode the text (then the scan runs first, and the text is decoded with the
    heads on the first routing read) or do not decode (the scan path says why)."""
    if _mostly_ascii(data):
        return None
    try:
        heads = _decoders(codec).heads[0].decode(data)
    except (*MALFORMED, RecursionError):
        return None
    if _decodes_text(data, len(heads)):
        return None
    source = _Source(codec, data, None, limits, len(heads))
    source.heads = heads
    return source


def _compact(data: bytes, heads: list[_Head]) -> bool:
    """Whether the JSON ``data`` is exactly ``[m0,m1,...]``: its messages (decoded into
    ``heads``) with no space around or between them, what `join_array` of their bytes writes.

    msgspec writing the heads gives the shortest JSON of what they hold (the ``content`` bytes
    as they came, ``role``, ``tool_call_id``, ``is_error``; every string at its shortest, as
    msgspec writes every code point), and the array its brackets and commas; the input holds
    at least as much, in any key order, and anything else it holds (spaces, other keys,
    escapes, a key twice) only adds bytes. So an input exactly as long has nothing else: no
    space between its messages either. One that is longer is not recognised (False): the scan
    frames its messages then, as it would without this check."""
    return len(_HEADS_JSON.encode(heads)) == len(data)


_HEADS_JSON = msgspec.json.Encoder()


@_stack.runs_roomy_unsized
def from_parts(
    codec: Codec,
    parts: list[bytes],
    validate: Validate,
    limits: Limits,
    places: tuple[str, list[int]],
) -> LazyMessages:
    """`LazyMessages` of messages given one per part: the lines of JSON Lines or the payloads
    of frames, ``places`` naming them (``("line", numbers)`` or ``("frame", numbers)``) in
    errors. Each part must hold exactly one value; the syntax of all is checked by one scan."""
    _check_args(codec, validate, sum(map(len, parts)), limits)
    data = join_array(parts, codec.text)
    try:
        raws = _scan(_decoders(codec).raws, data, limits)
    except (*MALFORMED, RecursionError):
        raws = []
    if len(raws) != len(parts):
        _refuse_part(codec, parts, places, limits)
    source = _Source(codec, data, raws, limits)
    source.places = places
    if validate is True:
        source.decode_all()
    elif validate == "shape":
        _check_shape(source)
    return LazyMessages(source)


_BLANK = b" \t\r"


def _scan(scanner: Any, data: bytes, limits: Limits) -> Any:
    """``scanner.decode(data)``, with the same room to nest as the eager decoder: up to CPython
    3.11 msgspec's recursion guard counts the caller's frames too, so a refusal is retried with
    the limit raised by ``max_depth`` levels (RecursionError if still too deep)."""
    try:
        return scanner.decode(data)
    except RecursionError:
        from ._codec import _with_headroom  # here: the codec imports this module

        return _with_headroom(limits.max_depth + 64, scanner.decode, data)


def _too_deep(codec: Codec, limits: Limits, path: str) -> DecodeError:
    return DecodeError(
        f"invalid {codec.name}: nesting deeper than max_depth={limits.max_depth} "
        "or the interpreter's recursion limit",
        path=path,
    )


def _refuse_part(
    codec: Codec, parts: list[bytes], places: tuple[str, list[int]], limits: Limits
) -> None:
    """Raise for the first part that is not exactly one value (the scan of all of them failed,
    or found more values than parts)."""
    one = _decoders(codec).one
    for raw, number in zip(parts, places[1], strict=True):
        where: dict[str, Any] = {places[0]: number}
        try:
            _scan(one, raw, limits)
        except MALFORMED as err:
            raise codec.decode_error(err, raw).located(**where) from None
        except RecursionError:
            raise _too_deep(codec, limits, "$").located(**where) from None
    raise AssertionError("every part holds one value, yet their scan refused them")


@_stack.runs_roomy_unsized
def read_parts(
    codec: Codec, parts: list[bytes], places: tuple[str, list[int]], limits: Limits
) -> tuple[list[LazyMessage], WireError | None]:
    """Lazy messages of ``parts`` (see `from_parts`) up to the first part that is not one value,
    and that part's error (None if all are good): what a stream reader hands out."""
    try:
        return list(from_parts(codec, parts, False, limits, places)), None  # type: ignore[arg-type]
    except DecodeError as err:
        number = err.line if places[0] == "line" else err.frame
        bad = places[1].index(number) if number in places[1] else 0
        good = from_parts(codec, parts[:bad], False, limits, (places[0], places[1][:bad]))
        return list(good), err  # type: ignore[arg-type]


def lines_span(
    buf: bytes | bytearray, end: int, first_line: int, limits: Limits
) -> tuple[list[LazyMessage], int, int, WireError | None]:
    """Lazy messages of the complete JSON Lines ``buf[:end]`` (``end`` just past a newline, the
    first line numbered ``first_line``): the messages before the first line that is not one
    JSON value, the bytes and lines used (through that line), and its error."""
    from ._codec import JSON

    lines = bytes(buf[:end]).split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    keep = [i for i, line in enumerate(lines) if line.strip(_BLANK)]
    parts = [lines[i] for i in keep]
    items, err = read_parts(JSON, parts, ("line", [first_line + i for i in keep]), limits)
    if err is None:
        return items, end, len(lines), None
    used_lines = (err.line or first_line) - first_line + 1
    return items, sum(map(len, lines[:used_lines])) + used_lines, used_lines, err


def frames_span(
    buf: bytes | bytearray, spans: list[tuple[int, int]], first_frame: int, limits: Limits
) -> tuple[list[LazyMessage], int, WireError | None]:
    """Lazy messages of the MessagePack frame payloads at ``spans`` of ``buf`` (the first one
    frame ``first_frame``): the messages before the first payload that is not one value, the
    bytes used (through that frame) and its error."""
    from ._codec import MSGPACK

    parts = [bytes(buf[a:b]) for a, b in spans]
    numbers = list(range(first_frame, first_frame + len(parts)))
    items, err = read_parts(MSGPACK, parts, ("frame", numbers), limits)
    if err is None:
        return items, spans[-1][1] if spans else 0, None
    return items, spans[(err.frame or first_frame) - first_frame][1], err


def _check_shape(source: _Source) -> None:
    """Read every routing field now; a message whose head is not readable is decoded fully,
    which raises the eager decoder's error if there is one."""
    for i in range(source.n):
        if source.head(i) is None:
            source.message(i)
        source.calls_of(i)


def encode(codec: Codec, obj: Any, canonical: bool) -> bytes:
    """Encode a `LazyMessage`, `LazyMessages` or list holding lazy messages with ``codec``."""
    if type(obj) is LazyMessage:
        part = obj.part(codec, canonical)
        if type(part) is Raw:
            return bytes(part)
        return codec.encode(part, canonical)
    if type(obj) is LazyMessages:
        src = obj._src
        if not obj._replaced and not canonical and codec is src.codec and 1 not in src.given:
            return src.untouched()  # the input's messages (no NaN in bytes a decoder accepted)
        parts = obj.parts(codec, canonical)
    else:
        parts = [m.part(codec, canonical) if type(m) is LazyMessage else m for m in obj]
    return codec.encode(parts, canonical)


def holds_lazy(obj: Any) -> bool:
    """Whether ``obj`` is lazy or a list holding a lazy message (for the encoders)."""
    if type(obj) is LazyMessages or type(obj) is LazyMessage:
        return True
    return type(obj) is list and any(type(m) is LazyMessage for m in obj)


def _register() -> None:
    from ._codec import _LAZY_TYPES  # the codec writes these types through `encode` above

    _LAZY_TYPES.update((LazyMessage, LazyMessages))


_register()
