"""Redis Streams under faults: replies lost on the way (a real TCP proxy on loopback drops
them), a dead-letter stream that refuses writes, claims that must wait for min-idle.

Each test says what "nothing lost, nothing duplicated without the caller being told" means for
its fault, and checks it with exact ids and counts against a real redis-server.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
import redis.asyncio
import redis.asyncio.retry
from redis.backoff import NoBackoff
from redis.retry import Retry

from minagent import wire
from minagent.wire.errors import DeadLetterError
from minagent.wire.stream import redis_asyncio
from minagent.wire.stream.redis import Consumer, Publisher

from .redis_proxy import LossyProxy
from .redis_server import RedisServer

READ_NEW = (b"XREADGROUP", b"\r\n>\r\n")  # a read of new entries, not of the own history


@pytest.fixture
def proxy(redis_server: RedisServer, redis_url: str) -> Iterator[LossyProxy]:
    """A lossy proxy in front of the (emptied) session server."""
    lossy = LossyProxy(redis_server.port)
    yield lossy
    lossy.close()


def _messages(n: int, tag: str = "m") -> list[wire.Message]:
    return [wire.Message(role="user", content=f"{tag}{i}") for i in range(n)]


def _retrying(proxy: LossyProxy) -> redis.Redis:
    """A client through ``proxy`` that re-sends a request after a ConnectionError, up to 10
    times: what ``Redis(host, port)`` does by default since redis-py 6 (``from_url`` does not
    retry; redis-py 5 retries single commands only when told to, as here)."""
    return redis.Redis(
        host="127.0.0.1",
        port=proxy.port,
        retry=Retry(NoBackoff(), 10),
        retry_on_error=[redis.ConnectionError],
    )


def _pipelines_resend(proxy: LossyProxy, client: redis.Redis) -> bool:
    """Whether this redis-py re-sends a pipeline whose reply was lost (6 and later do; 5 raises
    the ConnectionError): measured through the proxy with a pipelined PING."""
    proxy.drop_reply(b"PING")
    pipe = client.pipeline(transaction=False)
    pipe.ping()
    try:
        pipe.execute()
    except redis.ConnectionError:
        return False
    finally:
        proxy.dropped.clear()
    return True


def _no_retry(proxy: LossyProxy) -> redis.Redis:
    """A client through ``proxy`` that raises the first ConnectionError instead of retrying."""
    return redis.Redis(host="127.0.0.1", port=proxy.port, retry=Retry(NoBackoff(), 0))


def _consume_all(consumer: Consumer, told: list[Exception] | None = None) -> list[tuple[str, Any]]:
    """Read and ack until a read comes back empty (as iterating does); a ConnectionError the
    client did not retry is met by reading again, as a caller would (and kept in ``told``)."""
    got: list[tuple[str, Any]] = []
    while True:
        try:
            batch = consumer.read()
        except redis.ConnectionError as err:
            if told is None:
                raise
            told.append(err)
            continue
        if not batch:
            return got
        got += batch
        consumer.ack([eid for eid, _ in batch])


@pytest.mark.parametrize("retry", ["redis-py retries", "no retry"])
@pytest.mark.parametrize("lost", [1, 3])
def test_a_lost_read_reply_loses_and_duplicates_nothing(
    redis_url: str, proxy: LossyProxy, retry: str, lost: int
) -> None:
    """1,000 entries read 100 at a time through a proxy that drops the reply to ``lost`` reads
    of new entries (the server delivered them into the consumer's pending list): every entry
    arrives exactly once, none stays pending, without claiming (claim_idle_ms=None), while the
    caller still holds the first 200 unacknowledged. With redis-py's default Retry the re-sent
    read is silent; without retries the caller sees the ConnectionError and reads again."""
    direct = redis.Redis.from_url(redis_url)
    ids = Publisher(direct, "in").publish(_messages(1000))
    client = _retrying(proxy) if retry == "redis-py retries" else _no_retry(proxy)
    consumer = Consumer(client, "in", "g", "c1", claim_idle_ms=None)
    got = consumer.read() + consumer.read()  # held, unacknowledged, until the end
    for _ in range(lost):
        proxy.drop_reply(*READ_NEW)
    told: list[Exception] = []
    got += _consume_all(consumer, told)
    assert len(proxy.dropped) == lost and proxy.armed == 0
    silent = retry == "redis-py retries" and _pipelines_resend(proxy, client)
    assert len(told) == (0 if silent else lost)
    assert (
        sorted((eid for eid, _ in got), key=ids.index) == ids
    )  # each entry once: none lost, none twice
    assert dict(got) == dict(zip(ids, _messages(1000), strict=True))
    assert direct.xpending("in", "g")["pending"] == 200
    assert consumer.ack(ids[:200]) == 200
    assert direct.xpending("in", "g")["pending"] == 0


@pytest.mark.parametrize("retry", ["redis-py retries", "no retry"])
def test_a_lost_reply_to_the_last_read_is_handed_over_before_reads_come_back_empty(
    redis_url: str, proxy: LossyProxy, retry: str
) -> None:
    """150 entries, 100 a read: the reply delivering the last 50 is dropped, and the re-sent
    read finds nothing new; that read (or, when the caller was told, the next one) still
    returns those 50, so iterating until a read comes back empty gets every entry once."""
    direct = redis.Redis.from_url(redis_url)
    ids = Publisher(direct, "in").publish(_messages(150))
    client = _retrying(proxy) if retry == "redis-py retries" else _no_retry(proxy)
    consumer = Consumer(client, "in", "g", "c1", claim_idle_ms=None)
    got = consumer.read()
    proxy.drop_reply(*READ_NEW)
    got += _consume_all(consumer, [])
    assert len(proxy.dropped) == 1
    assert [eid for eid, _ in got] == ids
    assert consumer.ack(ids[:100]) == 100  # the rest were acknowledged as they came
    assert direct.xpending("in", "g")["pending"] == 0


def test_a_lost_claim_reply_loses_and_duplicates_nothing(redis_url: str, proxy: LossyProxy) -> None:
    """Entries a dead consumer left pending, claimed by a rescuer whose XAUTOCLAIM reply is
    dropped once (redis-py re-sends it): the rescuer still hands each entry over exactly once."""
    direct = redis.Redis.from_url(redis_url)
    ids = Publisher(direct, "in").publish(_messages(300))
    dead = Consumer(direct, "in", "g", "dead", batch=300)
    assert len(dead.read()) == 300  # then it dies holding them
    time.sleep(0.06)
    rescuer = Consumer(_retrying(proxy), "in", "g", "r", batch=100, claim_idle_ms=50)
    proxy.drop_reply(b"XAUTOCLAIM")
    got = _consume_all(rescuer, [])
    assert len(proxy.dropped) == 1
    assert sorted((eid for eid, _ in got), key=ids.index) == ids
    assert direct.xpending("in", "g")["pending"] == 0


def _entries(client: redis.Redis, stream: str = "in") -> list[tuple[str, dict[bytes, bytes]]]:
    return [(eid.decode(), fields) for eid, fields in client.xrange(stream)]


PUBLISH = b"msgpack/1"  # in the one request of a publish, whatever carries it


def test_a_lost_publish_reply_stores_the_batch_once(redis_url: str, proxy: LossyProxy) -> None:
    """The reply to a publish of 10 messages is dropped after the server stored them; redis-py
    re-sends the request: the stream holds the 10 entries once, and publish returns their ids."""
    direct = redis.Redis.from_url(redis_url)
    publisher = Publisher(_retrying(proxy), "in")
    proxy.drop_reply(PUBLISH)
    ids = publisher.publish(_messages(10))
    assert len(proxy.dropped) == 1
    stored = _entries(direct)
    assert [eid for eid, _ in stored] == ids
    assert [
        wire.msgpack.decode(f[b"msgpack/1"], type=wire.Message) for _, f in stored
    ] == _messages(10)
    assert publisher.publish(_messages(2, "n")) != ids  # a new publish is a new batch
    assert direct.xlen("in") == 12


def test_a_publish_retried_by_the_caller_with_its_key_is_stored_once(
    redis_url: str, proxy: LossyProxy
) -> None:
    """Without client retries a lost reply raises ConnectionError (the caller is told); the
    caller's retry with the same key stores nothing twice and returns the first ids; the same
    key on another stream, or another key, is a new batch."""
    direct = redis.Redis.from_url(redis_url)
    publisher = Publisher(_no_retry(proxy), "in")
    proxy.drop_reply(PUBLISH)
    with pytest.raises(redis.ConnectionError):
        publisher.publish(_messages(10), key="batch-7")
    ids = publisher.publish(_messages(10), key="batch-7")
    assert [eid for eid, _ in _entries(direct)] == ids
    assert publisher.publish(_messages(10), key="batch-7") == ids
    assert direct.xlen("in") == 10
    assert len(publisher.publish(_messages(1), key="batch-8")) == 1
    assert len(Publisher(direct, "other").publish(_messages(1), key="batch-7")) == 1
    assert (direct.xlen("in"), direct.xlen("other")) == (11, 1)


def test_publish_keys_expire_and_are_refused_when_empty(redis_url: str) -> None:
    """The record of a published key lives ``dedupe_ms`` (PTTL within it), then the key
    publishes again; an empty key or a dedupe time below 1 ms is refused before sending."""
    client = redis.Redis.from_url(redis_url)
    publisher = Publisher(client, "in", dedupe_ms=200)
    first = publisher.publish(_messages(2), key="k")
    (record,) = [k for k in client.keys("*") if k not in (b"in",)]
    assert 0 < client.pttl(record) <= 200
    time.sleep(0.25)
    assert publisher.publish(_messages(2), key="k") != first
    assert client.xlen("in") == 4
    for key in ("", 7, b"k"):
        with pytest.raises(ValueError) as bad_key:
            publisher.publish(_messages(1), key=key)  # type: ignore[arg-type]
        assert str(bad_key.value) == f"key must be a non-empty str, got {key!r}"
    for ms in (0, -5, True, 1.5, "600"):
        with pytest.raises(ValueError) as bad_ms:
            Publisher(client, "in", dedupe_ms=ms)  # type: ignore[arg-type]
        assert str(bad_ms.value) == f"dedupe_ms must be a positive int (milliseconds), got {ms!r}"
    assert Publisher(client, "in", dedupe_ms=1).dedupe_ms == 1
    assert client.xlen("in") == 4


def test_maxlen_trims_approximately_on_every_append(redis_url: str) -> None:
    """``maxlen=10``: 1,000 messages published in one call leave between 10 and 10 + one node
    (stream-node-max-entries, 100) entries, the newest ones; without maxlen all 1,000 stay."""
    client = redis.Redis.from_url(redis_url)
    node = int(client.config_get("stream-node-max-entries")["stream-node-max-entries"])
    ids = Publisher(client, "in", maxlen=10).publish(_messages(1000))
    kept = [eid for eid, _ in _entries(client)]
    assert 10 <= len(kept) <= 10 + node
    assert kept == ids[-len(kept) :]
    assert len(Publisher(client, "all").publish(_messages(1000))) == client.xlen("all") == 1000


def _poison_between_good(client: redis.Redis) -> tuple[list[str], str]:
    pub = Publisher(client, "in")
    good = pub.publish(_messages(1, "a"))
    bad = client.xadd("in", {b"msgpack/1": b"\xc1"}).decode()
    good += pub.publish(_messages(1, "b"))
    return good, bad


def test_a_dead_letter_stream_that_refuses_writes_loses_nothing(redis_url: str) -> None:
    """``in:dead`` holds a string: read() raises DeadLetterError (exact text, entry id, key);
    the poison entry and the good ones around it all stay pending, nothing is acknowledged.
    Once the key is fixed, the next read returns both good entries and dead-letters the poison
    entry once."""
    client = redis.Redis.from_url(redis_url)
    client.set("in:dead", "x")
    good, bad = _poison_between_good(client)
    consumer = Consumer(client, "in", "g", "c1")
    with pytest.raises(DeadLetterError) as info:
        consumer.read()
    err = info.value
    assert str(err) == (
        f"cannot move poison entry {bad} of stream 'in' to the dead-letter stream 'in:dead': "
        "WRONGTYPE Operation against a key holding the wrong kind of value; it stays pending, "
        "unacknowledged, and so do the entries read with it"
    )
    assert (err.entry_id, err.dead_letter) == (bad, "in:dead")
    pending = client.xpending_range("in", "g", "-", "+", 10)
    assert [p["message_id"].decode() for p in pending] == [good[0], bad, good[1]]
    with pytest.raises(DeadLetterError):
        consumer.read()  # still refused: the same three entries, still pending
    assert client.xpending("in", "g")["pending"] == 3
    client.delete("in:dead")
    got = consumer.read()
    assert [eid for eid, _ in got] == good
    assert [m for _, m in got] == _messages(1, "a") + _messages(1, "b")
    assert [f[b"id"].decode() for _, f in _entries(client, "in:dead")] == [bad]
    assert consumer.ack(good) == 2
    assert consumer.read() == [] and client.xpending("in", "g")["pending"] == 0


def test_a_lost_dead_letter_reply_writes_one_dead_letter(redis_url: str, proxy: LossyProxy) -> None:
    """The reply to moving a poison entry aside is dropped and redis-py re-sends it: the
    dead-letter stream holds that entry once, and the good entries arrive once."""
    direct = redis.Redis.from_url(redis_url)
    good, bad = _poison_between_good(direct)
    consumer = Consumer(_retrying(proxy), "in", "g", "c1")
    proxy.drop_reply(b"error_type")
    got = _consume_all(consumer)
    assert len(proxy.dropped) == 1
    assert [eid for eid, _ in got] == good
    assert [f[b"id"].decode() for _, f in _entries(direct, "in:dead")] == [bad]
    assert direct.xpending("in", "g")["pending"] == 0


def test_entries_of_thousands_of_fields_are_dead_lettered_whole(redis_url: str) -> None:
    """Foreign entries of 1,000, 1,001 and 5,000 fields (more than one Lua call can pass to
    XADD): each dead-lettered with every field byte for byte, one by one up to
    MAX_DEAD_FIELDS, packed as MessagePack [name, value] pairs beyond; the good entry after
    them arrives and nothing stays pending."""
    import msgspec

    from minagent.wire.stream._redis_entries import MAX_DEAD_FIELDS

    assert MAX_DEAD_FIELDS == 1000
    client = redis.Redis.from_url(redis_url)
    sizes = (1000, 1001, 5000)
    originals = [{b"f%d" % i: b"v%d" % i for i in range(n)} for n in sizes]
    bad = [client.xadd("in", fields).decode() for fields in originals]  # type: ignore[arg-type]
    good = Publisher(client, "in").publish(_messages(1))
    consumer = Consumer(client, "in", "g", "c1")
    assert [(eid, m) for eid, m in consumer.read()] == list(zip(good, _messages(1), strict=True))
    dead = _entries(client, "in:dead")
    assert [f[b"id"].decode() for _, f in dead] == bad
    first = dead[0][1]
    assert {k[6:]: v for k, v in first.items() if k.startswith(b"field:")} == originals[0]
    assert len(first) == 7 + 1000
    for (_, fields), original in zip(dead[1:], originals[1:], strict=True):
        assert sorted(fields) == sorted(
            [b"error", b"error_type", b"path", b"id", b"stream", b"group", b"consumer", b"fields"]
        )
        assert msgspec.msgpack.decode(fields[b"fields"]) == [[k, v] for k, v in original.items()]
    assert consumer.ack(good) == 1 and client.xpending("in", "g")["pending"] == 0


def test_claims_wait_for_min_idle(redis_url: str) -> None:
    """A second consumer never takes entries a live consumer read less than ``claim_idle_ms``
    ago: they stay under the first consumer's name; once idle that long they move."""
    client = redis.Redis.from_url(redis_url)
    ids = Publisher(client, "in").publish(_messages(5))
    first = Consumer(client, "in", "g", "first")
    assert [eid for eid, _ in first.read()] == ids
    second = Consumer(client, "in", "g", "second", claim_idle_ms=1000)
    assert second.read() == []
    owners = {p["consumer"] for p in client.xpending_range("in", "g", "-", "+", 10)}
    assert owners == {b"first"}
    time.sleep(1.05)
    assert [eid for eid, _ in second.read()] == ids
    owners = {p["consumer"] for p in client.xpending_range("in", "g", "-", "+", 10)}
    assert owners == {b"second"}


def test_entries_left_by_an_early_break_are_read_again_first(redis_url: str) -> None:
    """A caller that stops iterating mid-batch (break) never took the rest of the batch: the
    next iteration returns exactly those first, then new entries; nothing waits for a claim."""
    client = redis.Redis.from_url(redis_url)
    ids = Publisher(client, "in").publish(_messages(10))
    consumer = Consumer(client, "in", "g", "c1", batch=5, claim_idle_ms=None)
    taken = []
    for eid, _ in consumer:
        taken.append(eid)
        if len(taken) == 2:
            break
    assert taken == ids[:2]
    rest = [eid for eid, _ in consumer]
    assert rest == ids[2:]
    assert consumer.ack(ids) == 10
    assert client.xpending("in", "g")["pending"] == 0


def test_entries_held_past_claim_idle_are_not_handed_over_twice(redis_url: str) -> None:
    """A caller holding entries longer than ``claim_idle_ms``: the consumer's own claim scan
    takes them back under its name, but never hands them to its caller a second time; a new
    entry still arrives."""
    client = redis.Redis.from_url(redis_url)
    ids = Publisher(client, "in").publish(_messages(3))
    consumer = Consumer(client, "in", "g", "c1", claim_idle_ms=50)
    assert [eid for eid, _ in consumer.read()] == ids
    time.sleep(0.08)
    assert consumer.read() == []
    late = Publisher(client, "in").publish(_messages(1, "late"))
    assert [eid for eid, _ in consumer.read()] == late
    assert consumer.ack(ids + late) == 4


def test_async_lost_replies_lose_and_duplicate_nothing(redis_url: str, proxy: LossyProxy) -> None:
    """redis.asyncio through the lossy proxy: a dropped publish reply stores the batch once, a
    dropped read reply loses and duplicates nothing, a refused dead-letter write raises
    DeadLetterError and acknowledges nothing."""

    async def main() -> None:
        client = redis.asyncio.Redis(
            host="127.0.0.1",
            port=proxy.port,
            retry=redis.asyncio.retry.Retry(NoBackoff(), 10),
            retry_on_error=[redis.ConnectionError],
        )
        direct = redis.asyncio.Redis.from_url(redis_url)
        proxy.drop_reply(PUBLISH)
        ids = await redis_asyncio.Publisher(client, "in").publish(_messages(300))
        assert await direct.xlen("in") == 300
        keyed = redis_asyncio.Publisher(direct, "keyed")
        first = await keyed.publish(_messages(2), key="k")
        assert await keyed.publish(_messages(2), key="k") == first
        assert await direct.xlen("keyed") == 2
        consumer = redis_asyncio.Consumer(client, "in", "g", "a", claim_idle_ms=None)
        got = await consumer.read()
        await consumer.ack([eid for eid, _ in got])
        proxy.drop_reply(*READ_NEW)
        while True:
            try:
                batch = await consumer.read()
            except redis.ConnectionError:  # redis-py 5 does not re-send pipelines
                continue
            if not batch:
                break
            got += batch
            await consumer.ack([eid for eid, _ in batch])
        assert len(proxy.dropped) == 2
        assert sorted((eid for eid, _ in got), key=ids.index) == ids
        await direct.set("in:dead", "x")
        bad = (await direct.xadd("in", {b"json/1": b"["})).decode()
        with pytest.raises(DeadLetterError) as info:
            await consumer.read()
        assert info.value.entry_id == bad
        assert (await direct.xpending("in", "g"))["pending"] == 1
        await client.aclose()
        await direct.aclose()

    asyncio.run(main())


def test_async_break_then_aclose_gives_the_rest_of_the_batch_first(redis_url: str) -> None:
    """redis.asyncio: breaking out of ``async for`` inside ``contextlib.aclosing`` after two
    entries of a batch of five: iterating again returns the other eight, in order, once."""
    import contextlib

    async def main() -> None:
        client = redis.asyncio.Redis.from_url(redis_url)
        ids = await redis_asyncio.Publisher(client, "in").publish(_messages(10))
        consumer = redis_asyncio.Consumer(client, "in", "g", "a", batch=5, claim_idle_ms=None)
        taken = []
        async with contextlib.aclosing(consumer.__aiter__()) as entries:
            async for eid, _ in entries:
                taken.append(eid)
                if len(taken) == 2:
                    break
        rest = [eid async for eid, _ in consumer]
        assert (taken, rest) == (ids[:2], ids[2:])
        await client.aclose()

    asyncio.run(main())
