"""Messages through Redis Streams, at-least-once (the ``minagent[redis]`` extra).

::

    from redis import Redis
    from minagent.wire.stream.redis import Consumer, Publisher

    Publisher(Redis(), "agent:in").publish(messages)  # one entry per message, one round trip
    consumer = Consumer(Redis(), "agent:in", "workers", "worker-1")
    for entry_id, message in consumer:
        handle(message)
        consumer.ack([entry_id])  # only now is it done

- One entry per message, one field: its name says the format and the wire protocol version
  (``msgpack/1``, the default, or ``json/1``), its value is the message as the codec writes it.
- At-least-once: an entry is pending until the caller acknowledges it. Entries a dead consumer
  left pending are claimed by another consumer of the group once idle for ``claim_idle_ms``
  (``XAUTOCLAIM``); a restarted consumer with the same name first re-reads its own pending ones.
  Duplicates are therefore possible: deduplicate on the entry id.
- Poison entries (bytes that do not decode, an unknown format or version, an entry beyond
  ``limits``, an entry trimmed away before it was acknowledged) move to a dead-letter stream
  (``<stream>:dead``) with our error text and the original id, and are acknowledged on the main
  stream in the same transaction.

The client must return bytes (``decode_responses=False``, redis-py's default). The asyncio
variant with the same API is `minagent.wire.stream.redis_asyncio`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

import redis

from ..limits import DEFAULT, Limits
from ..messages import Message, ModelResponse
from . import _redis_entries as _e

__all__ = ["DEFAULT_CLAIM_IDLE_MS", "Consumer", "Publisher"]

DEFAULT_CLAIM_IDLE_MS = _e.DEFAULT_CLAIM_IDLE_MS


class Publisher:
    """Append messages to a stream, one entry each; a list goes in one round trip."""

    def __init__(
        self,
        client: redis.Redis,
        stream: str,
        *,
        format: str = "msgpack",
        maxlen: int | None = None,
    ) -> None:
        """``maxlen`` trims the stream approximately (``MAXLEN ~``) on every append; entries
        trimmed before a consumer acknowledged them reach the dead-letter stream."""
        _e.check_client(client)
        self.client = client
        self.stream = stream
        self.format = _e.check_format(format)
        self.maxlen = maxlen

    def publish(self, messages: _e.Publishable) -> list[str]:
        """Append a `Message` / `ModelResponse` or a sequence of them; return the new entry ids.

        A list is sent as one ``MULTI`` / ``EXEC`` transaction in one round trip: either every
        entry is added or none is. Encoding happens first, so an `EncodeError` (or a TypeError
        for anything but messages and responses) adds nothing.
        """
        entries = _e.encode_entries(messages, self.format)
        if not entries:
            return []
        pipe = self.client.pipeline(transaction=True)
        for fields in entries:
            pipe.xadd(self.stream, fields, maxlen=self.maxlen, approximate=True)  # type: ignore[arg-type]
        return [_e.entry_id(eid) for eid in pipe.execute()]


class Consumer:
    """Read messages of a stream as one consumer of a group; iterate ``(entry_id, message)``.

    Iteration ends when a read finds nothing (after waiting up to ``block_ms`` if given);
    iterate again to go on. Call `ack` once a message is handled.
    """

    def __init__(
        self,
        client: redis.Redis,
        stream: str,
        group: str,
        name: str,
        *,
        format: str | None = None,
        type: type[Message] | type[ModelResponse] = Message,
        batch: int = 100,
        block_ms: int | None = None,
        claim_idle_ms: int | None = DEFAULT_CLAIM_IDLE_MS,
        limits: Limits = DEFAULT,
        dead_letter: str | None = None,
        create: bool = True,
    ) -> None:
        """``format`` restricts the formats accepted (default: both); ``type`` is `Message` or
        `ModelResponse`; ``claim_idle_ms=None`` never claims others' entries; ``dead_letter``
        defaults to ``<stream>:dead``; ``create`` makes the group (from the stream's start) and
        the stream if missing."""
        _e.check_client(client)
        self.client = client
        self.stream = stream
        self.group = group
        self.name = name
        self.accept = None if format is None else _e.check_format(format)
        self.type = type
        self.batch = batch
        self.block_ms = block_ms
        self.claim_idle_ms = claim_idle_ms
        self.limits = limits
        self.dead_letter = f"{stream}:dead" if dead_letter is None else dead_letter
        self._history: str | None = "0"
        self._cursor = "0-0"
        self._next_claim = 0.0
        if create:
            try:
                client.xgroup_create(stream, group, id="0", mkstream=True)
            except redis.ResponseError as err:
                if "BUSYGROUP" not in str(err):
                    raise

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        while batch := self.read():
            yield from batch

    def read(self) -> list[tuple[str, Any]]:
        """One batch of ``(entry_id, message)``: first this consumer's own pending entries, then
        entries idle past ``claim_idle_ms`` elsewhere in the group, then new ones. Empty when
        there is nothing. Poison entries are moved to the dead-letter stream on the way."""
        try:
            while True:
                entries = self._fetch()
                if not entries:
                    return []
                out = _e.decode_entries(
                    entries, type=self.type, accept=self.accept, limits=self.limits
                )
                if out.poison:
                    self._bury(out.poison)
                if out.messages:
                    return out.messages
        except (redis.ConnectionError, redis.TimeoutError):
            self._history = "0"  # a reply may be lost: re-read our own pending entries first
            raise

    def ack(self, entry_ids: str | Sequence[str]) -> int:
        """Acknowledge handled entries; return how many were still pending."""
        ids = [entry_ids] if isinstance(entry_ids, str) else list(entry_ids)
        return int(self.client.xack(self.stream, self.group, *ids)) if ids else 0

    def _fetch(self) -> list[Any]:
        if self._history is not None:
            entries = _e.stream_entries(
                self.client.xreadgroup(
                    self.group, self.name, {self.stream: self._history}, count=self.batch
                )
            )
            if entries:
                self._history = _e.entry_id(entries[-1][0])
                return entries
            self._history = None
        if self.claim_idle_ms is not None and time.monotonic() >= self._next_claim:
            cursor, claimed, deleted = self.client.xautoclaim(
                self.stream,
                self.group,
                self.name,
                min_idle_time=self.claim_idle_ms,
                start_id=self._cursor,
                count=self.batch,
            )[:3]
            self._cursor = _e.entry_id(cursor)
            if self._cursor == "0-0":
                self._next_claim = time.monotonic() + self.claim_idle_ms / 2000
            if claimed or deleted:
                return [*claimed, *((eid, None) for eid in deleted)]
        return _e.stream_entries(
            self.client.xreadgroup(
                self.group, self.name, {self.stream: ">"}, count=self.batch, block=self.block_ms
            )
        )

    def _bury(self, poison: list[Any]) -> None:
        pipe = self.client.pipeline(transaction=True)
        for eid, fields, err in poison:
            dead = _e.dead_letter_fields(
                eid, fields, err, stream=self.stream, group=self.group, name=self.name
            )
            pipe.xadd(self.dead_letter, dead)  # type: ignore[arg-type]
        pipe.xack(self.stream, self.group, *(eid for eid, _, _ in poison))
        pipe.execute()
