"""Messages through Redis Streams with ``redis.asyncio`` (the ``minagent[redis]`` extra).

::

    from redis.asyncio import Redis
    from minagent.wire.stream.redis_asyncio import Consumer, Publisher

    await Publisher(Redis(), "agent:in").publish(messages)
    consumer = Consumer(Redis(), "agent:in", "workers", "worker-1")
    async for entry_id, message in consumer:
        await handle(message)
        await consumer.ack([entry_id])

The same entries, at-least-once guarantees, lost-reply handling, claiming and dead letters as
the blocking `minagent.wire.stream.redis` (its docstring says what they are): both run the one
publisher and consumer of `minagent.wire.stream._redis_core`, this one awaiting each command.

The client must return bytes (``decode_responses=False``, redis-py's default).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any, TypeVar

import redis.asyncio

from ..errors import DeadLetterError
from . import _redis_core as _core
from . import _redis_entries as _e

__all__ = ["DEFAULT_CLAIM_IDLE_MS", "DEFAULT_DEDUPE_MS", "Consumer", "DeadLetterError", "Publisher"]

DEFAULT_CLAIM_IDLE_MS = _core.DEFAULT_CLAIM_IDLE_MS
DEFAULT_DEDUPE_MS = _core.DEFAULT_DEDUPE_MS

T = TypeVar("T")


async def _execute(client: redis.asyncio.Redis, step: _core.Step) -> Any:
    if isinstance(step, _core.Call):
        return await step.on(client)
    return await _core.pipeline(client, step).execute()


async def _run(client: redis.asyncio.Redis, steps: _core.Steps[T]) -> T:
    """Await each command the steps yield; return their result."""
    run = _core.Run(steps)
    while (step := run.next()) is not None:
        try:
            run.reply(await _execute(client, step))
        except Exception as err:  # thrown into the steps, which handle or re-raise it
            run.fail(err)
    return run.result


class Publisher(_core.PublisherCore[redis.asyncio.Redis]):
    """Append messages to a stream, one entry each; a list goes in one round trip."""

    async def publish(self, messages: _e.Publishable, *, key: str | None = None) -> list[str]:
        """Append one message or response, or a sequence of them in one round trip, once per
        ``key``; return the new entry ids (as `minagent.wire.stream.redis.Publisher`)."""
        return await _run(self.client, self._publish(messages, key))


class Consumer(_core.ConsumerCore[redis.asyncio.Redis]):
    """Read messages of a stream as one consumer of a group; ``async for (entry_id, message)``.

    As `minagent.wire.stream.redis.Consumer`, awaited; the group is created on the first read.
    The rest of a batch left by breaking out of ``async for`` is read again first once the
    iterator is closed: Python closes an abandoned async generator only when the event loop
    gets to it, so close it yourself (``contextlib.aclosing``) before reading on.
    """

    async def __aiter__(self) -> AsyncIterator[tuple[str, Any]]:
        while batch := await self.read():
            with contextlib.closing(self._hand_over(batch)) as items:
                for item in items:
                    yield item

    async def read(self) -> list[tuple[str, Any]]:
        """One batch of ``(entry_id, message)``: own pending entries, then claimed ones, then
        new ones; empty when there is nothing. Poison entries go to the dead-letter stream."""
        return await _run(self.client, self._read())

    async def ack(self, entry_ids: str | Sequence[str]) -> int:
        """Acknowledge handled entries; return how many were still pending."""
        return await _run(self.client, self._ack(entry_ids))
