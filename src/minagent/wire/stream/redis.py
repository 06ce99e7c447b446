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
  stream by the same script, only once the dead letter is written (`DeadLetterError` if the
  server refuses it: nothing is acknowledged, nothing lost).
- A reply lost on the way, and re-sent by redis-py's ``Retry``, neither loses nor duplicates
  anything: docs/redis.md says exactly what is guaranteed.

The client must return bytes (``decode_responses=False``, redis-py's default). The asyncio
variant with the same API is `minagent.wire.stream.redis_asyncio`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

import redis

from ..errors import DeadLetterError
from . import _redis_core as _core
from . import _redis_entries as _e

__all__ = ["DEFAULT_CLAIM_IDLE_MS", "DEFAULT_DEDUPE_MS", "Consumer", "DeadLetterError", "Publisher"]

DEFAULT_CLAIM_IDLE_MS = _core.DEFAULT_CLAIM_IDLE_MS
DEFAULT_DEDUPE_MS = _core.DEFAULT_DEDUPE_MS

T = TypeVar("T")


def _execute(client: redis.Redis, step: _core.Step) -> Any:
    if isinstance(step, _core.Call):
        return step.on(client)
    return _core.pipeline(client, step).execute()


def _run(client: redis.Redis, steps: _core.Steps[T]) -> T:
    """Execute each command the steps yield, blocking; return their result."""
    run = _core.Run(steps)
    while (step := run.next()) is not None:
        try:
            run.reply(_execute(client, step))
        except Exception as err:  # thrown into the steps, which handle or re-raise it
            run.fail(err)
    return run.result


class Publisher(_core.PublisherCore[redis.Redis]):
    """Append messages to a stream, one entry each; a list goes in one round trip."""

    def publish(self, messages: _e.Publishable, *, key: str | None = None) -> list[str]:
        """Append a `Message` / `ModelResponse` or a sequence of them; return the new entry ids.

        A list is sent as one Lua script in one round trip, which adds the entries and records
        ``key`` with their ids for ``dedupe_ms``: a publish re-sent with a recorded key (by
        redis-py after a lost reply, or by the caller) adds nothing and returns the first
        ids. Without ``key``, a random one guards this call's own re-sends; pass your own to
        retry safely after a ``redis.ConnectionError``. Encoding happens first, so an
        `EncodeError` (or a TypeError for anything but messages and responses, a ValueError
        for an empty key) adds nothing.
        """
        return _run(self.client, self._publish(messages, key))


class Consumer(_core.ConsumerCore[redis.Redis]):
    """Read messages of a stream as one consumer of a group; iterate ``(entry_id, message)``.

    Iteration ends when a read finds nothing (after waiting up to ``block_ms`` if given);
    iterate again to go on; entries of a batch left when the caller stops iterating early are
    read again first. Call `ack` once a message is handled. The group is created (unless
    ``create=False``) when the consumer is.
    """

    def _start(self) -> None:
        _run(self.client, self._create_group())

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        while batch := self.read():
            yield from self._hand_over(batch)

    def read(self) -> list[tuple[str, Any]]:
        """One batch of ``(entry_id, message)``: first this consumer's own pending entries, then
        entries idle past ``claim_idle_ms`` elsewhere in the group, then new ones. Empty when
        there is nothing. Poison entries are moved to the dead-letter stream on the way
        (`DeadLetterError` if the server refuses: then nothing of this read is acknowledged or
        returned, and the next read tries the same entries again)."""
        return _run(self.client, self._read())

    def ack(self, entry_ids: str | Sequence[str]) -> int:
        """Acknowledge handled entries; return how many were still pending. Acknowledge
        through the consumer (not with ``XACK`` yourself): it counts what its caller holds
        to notice lost replies."""
        return _run(self.client, self._ack(entry_ids))
