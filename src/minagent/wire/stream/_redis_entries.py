"""Redis Streams entries without a Redis client: encoding, batch decoding, dead letters.

Shared by `minagent.wire.stream.redis` (sync) and `minagent.wire.stream.redis_asyncio`; nothing
here imports ``redis``, so the codec stays importable without it.

An entry holds one message in one field: its name says the format and the wire protocol version
(``msgpack/1`` or ``json/1``), its value is the message encoded with the codec. One field, not
three (format, version, data): redis-py parses every field of every entry in Python, so each
extra field costs as much as a fast decode.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec

from .. import json as _json
from .. import msgpack as _msgpack
from ..errors import DecodeError, WireError
from ..limits import Limits
from ..messages import Message, ModelResponse

__all__ = [
    "DEFAULT_CLAIM_IDLE_MS",
    "FORMATS",
    "MAX_DEAD_FIELDS",
    "PROTOCOL_VERSION",
    "Batch",
    "Publishable",
    "check_client",
    "check_format",
    "dead_letter_fields",
    "decode_entries",
    "encode_payloads",
    "entry_id",
    "field_name",
    "pending_count",
    "stream_entries",
]

DEFAULT_CLAIM_IDLE_MS = 30_000
"""How long an entry stays pending with a consumer before another one may claim it."""


def check_client(client: Any) -> None:
    """Refuse a client that decodes replies to text: MessagePack payloads are binary."""
    kwargs = getattr(getattr(client, "connection_pool", None), "connection_kwargs", {})
    if kwargs.get("decode_responses"):
        raise ValueError(
            "the Redis client must return bytes: create it with decode_responses=False"
        )


PROTOCOL_VERSION = "1"
"""The wire protocol version this codec writes and reads (docs/PROTOCOL.md)."""

_ENCODERS = {"msgpack": _msgpack.encode, "json": _json.encode}
_DECODERS = {"msgpack": _msgpack.decode, "json": _json.decode}
FORMATS = tuple(_ENCODERS)
"""The formats an entry may name."""

_RAW_SCAN: dict[str, Any] = {
    "msgpack": msgspec.msgpack.Decoder(list[msgspec.Raw]),
    "json": msgspec.json.Decoder(list[msgspec.Raw]),
}


def field_name(format: str) -> bytes:
    """The entry field for ``format``: ``b"msgpack/1"`` or ``b"json/1"``."""
    return f"{format}/{PROTOCOL_VERSION}".encode()


_FIELDS = {field_name(fmt): fmt for fmt in FORMATS}


def check_format(format: str) -> str:
    """Return ``format`` if the codec knows it; raise ValueError otherwise."""
    if format not in _ENCODERS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {format!r}")
    return format


Publishable = Message | ModelResponse | Sequence[Message | ModelResponse]
"""What `Publisher.publish` takes: one message or response, or a sequence of them."""


def encode_payloads(messages: Publishable, format: str) -> list[bytes]:
    """The entry values (one entry each, under the field `field_name` names) for a message, a
    response, or a sequence of them.

    Raises TypeError for anything else (a dict would encode, then poison every consumer).
    """
    items = [messages] if isinstance(messages, (Message, ModelResponse)) else list(messages)
    bad = [i for i, item in enumerate(items) if not isinstance(item, (Message, ModelResponse))]
    if bad:
        got = type(items[bad[0]]).__name__
        raise TypeError(f"item {bad[0]}: expected wire.Message or wire.ModelResponse, got {got}")
    return list(map(_ENCODERS[format], items))


def entry_id(value: bytes | str) -> str:
    """An entry id as text, whichever way the client returned it."""
    return value.decode("ascii") if isinstance(value, bytes) else value


def stream_entries(response: Any) -> list[tuple[Any, dict[bytes, bytes]]]:
    """The entries of the single stream in an ``XREADGROUP`` reply (RESP2 list or RESP3 dict)."""
    if not response:
        return []
    if isinstance(response, Mapping):
        (entries,) = response.values()
        if entries and isinstance(entries[0], list):  # redis-py's RESP3 shape nests one level
            (entries,) = entries
        return list(entries)
    ((_, entries),) = response
    return list(entries)


def pending_count(summary: Mapping[str, Any], name: str) -> int:
    """How many entries consumer ``name`` holds, from an ``XPENDING <stream> <group>`` summary
    as redis-py parses it (RESP2 and RESP3 alike): ``consumers`` lists ``{"name", "pending"}``."""
    want = name.encode()
    return sum(int(c["pending"]) for c in summary["consumers"] if c["name"] == want)


@dataclasses.dataclass
class Batch:
    """One read's outcome: messages to hand over, and poison entries to move aside."""

    messages: list[tuple[str, Any]]
    """``(entry_id, message)`` in stream order."""
    poison: list[tuple[str, Mapping[bytes, bytes], WireError]]
    """``(entry_id, fields, error)`` for every entry that could not be decoded."""


def _header_error(fields: Mapping[bytes, bytes], accept: str | None) -> WireError | None:
    if not fields:
        return DecodeError("entry deleted from the stream before it was acknowledged")
    names = [key.decode("utf-8", "replace") for key in fields]
    fmt, slash, version = names[0].partition("/")
    if len(names) != 1 or not slash:
        return DecodeError(
            f"not a minagent entry: fields {', '.join(map(repr, names))}"
            " (expected one field named <format>/<version>)"
        )
    if fmt not in _DECODERS:
        return DecodeError(f"unknown format {fmt!r} (expected one of {', '.join(FORMATS)})")
    if accept is not None and fmt != accept:
        return DecodeError(f"format {fmt!r} refused: this consumer reads {accept!r} only")
    if version != PROTOCOL_VERSION:
        return DecodeError(f"unknown protocol version {version!r} (expected {PROTOCOL_VERSION!r})")
    return None


def _decode_batch(payloads: Sequence[bytes], fmt: str, type_: Any, limits: Limits) -> list[Any]:
    """Decode many payloads with one codec call; raise WireError if any entry is not alone fine.

    The payloads are joined into one array (MessagePack: an array header then the payloads; JSON:
    brackets and commas). A cheap scan into raw elements first proves that every payload is
    exactly one value, so no payload can borrow bytes from its neighbour; the typed decode then
    runs once. Each entry is nested one level deeper than when alone, hence ``max_depth + 1``.
    """
    if max(map(len, payloads)) > limits.max_size:
        raise DecodeError("an entry is larger than limits.max_size")
    if fmt == "msgpack":
        n = len(payloads)
        buf = b"".join((b"\xdd" + n.to_bytes(4, "big"), *payloads))
    else:
        buf = b"[" + b",".join(payloads) + b"]"
    try:
        raws = _RAW_SCAN[fmt].decode(buf)
    except msgspec.DecodeError as err:
        raise DecodeError("an entry is not one well-formed value") from err
    if list(map(len, raws)) != list(map(len, payloads)):
        raise DecodeError("an entry is not exactly one value")
    wide = dataclasses.replace(limits, max_size=len(buf), max_depth=limits.max_depth + 1)
    out: list[Any] = _DECODERS[fmt](buf, type=list[type_], limits=wide)
    return out


def decode_entries(
    entries: Iterable[tuple[Any, Mapping[bytes, bytes] | None]],
    *,
    type: Any = Message,
    accept: str | None = None,
    limits: Limits,
) -> Batch:
    """Decode raw stream entries into messages, setting poison entries aside with our error.

    Entries of one format are decoded together with one codec call; if that call fails, each of
    them is decoded alone, so a poison entry is reported with its own path and the good ones
    around it still arrive. ``limits`` apply to every entry on its own.
    """
    if type not in (Message, ModelResponse):
        raise ValueError(f"type must be wire.Message or wire.ModelResponse, got {type!r}")
    pairs = list(entries)
    if not pairs:
        return Batch([], [])
    ids = [e.decode("ascii") if isinstance(e, bytes) else e for e, _ in pairs]
    all_fields = [f or {} for _, f in pairs]
    # The common case: every entry is one field of the same format, decoded in one call.
    key = next(iter(all_fields[0]), b"")
    fmt = _FIELDS.get(key)
    if fmt is not None and accept in (None, fmt) and sum(map(len, all_fields)) == len(pairs):
        payloads = list(map(operator.methodcaller("get", key), all_fields))
        if None not in payloads:
            try:
                got = _decode_batch(payloads, fmt, type, limits)
                return Batch(list(zip(ids, got, strict=True)), [])
            except WireError:
                pass
    rows = list(zip(ids, all_fields, strict=True))
    decoded: dict[int, Any] = {}
    errors: dict[int, WireError] = {}
    groups: dict[str, list[int]] = {}
    for i, (_, fields) in enumerate(rows):
        err = _header_error(fields, accept)
        if err is None:
            groups.setdefault(next(iter(fields)).decode(), []).append(i)
        else:
            errors[i] = err
    for name, idx in groups.items():
        fmt = name.partition("/")[0]
        payloads = [next(iter(rows[i][1].values())) for i in idx]
        try:
            decoded.update(zip(idx, _decode_batch(payloads, fmt, type, limits), strict=True))
        except WireError:
            for i, payload in zip(idx, payloads, strict=True):
                try:
                    decoded[i] = _DECODERS[fmt](payload, type=type, limits=limits)
                except WireError as err:
                    errors[i] = err
    return Batch(
        messages=[(rows[i][0], decoded[i]) for i in sorted(decoded)],
        poison=[(rows[i][0], rows[i][1], errors[i]) for i in sorted(errors)],
    )


def dead_letter_fields(
    eid: str, fields: Mapping[bytes, bytes], err: WireError, *, stream: str, group: str, name: str
) -> dict[bytes, bytes]:
    """The dead-letter entry for a poison entry: why, where from, and the original fields.

    ``error`` is the text of our error (with its path), ``error_type`` its class, ``path`` the
    JSON path alone (empty when none), ``id`` the original entry id; the original fields follow
    with their names prefixed by ``field:``. An entry of more than `MAX_DEAD_FIELDS` fields
    keeps them all, byte for byte, in one field ``fields``: a MessagePack array of ``[name,
    value]`` pairs (binary), in order (the dead letter is written by a Lua script, and a Lua
    call takes a few thousand arguments at most).
    """
    head = {
        b"error": str(err).encode(),
        b"error_type": type(err).__name__.encode(),
        b"path": (err.path or "").encode(),
        b"id": eid.encode(),
        b"stream": stream.encode(),
        b"group": group.encode(),
        b"consumer": name.encode(),
    }
    if len(fields) > MAX_DEAD_FIELDS:
        head[b"fields"] = msgspec.msgpack.encode([[key, value] for key, value in fields.items()])
    else:
        head.update({b"field:" + key: value for key, value in fields.items()})
    return head


MAX_DEAD_FIELDS = 1000
"""Most original fields a dead letter lists one by one (``field:<name>``); beyond, they are
packed into one ``fields`` value."""
