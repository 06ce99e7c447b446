"""Redis Streams: a real redis-server (append-only file, fsync always), no mocks."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import redis
import redis.asyncio
from hypothesis import given
from hypothesis import strategies as st

from minagent import wire
from minagent.bench.corpus import FAMILIES, msgpack_bytes, transcript
from minagent.wire.stream import redis_asyncio
from minagent.wire.stream._redis_entries import decode_entries
from minagent.wire.stream.redis import Consumer, Publisher

from .redis_server import RedisServer
from .strategies import roles, wire_texts


def _corpus() -> list[wire.Message]:
    """Every corpus family (the rich one carries unknown blocks, keys and binary data)."""
    out: list[wire.Message] = []
    for family in FAMILIES:
        out += wire.msgpack.decode(msgpack_bytes(transcript(family, 100)))
    return out


def _drain(consumer: Consumer, want: int, deadline_s: float = 10) -> list[tuple[str, Any]]:
    """Read and ack until ``want`` messages arrived (claims may need an idle period to pass)."""
    got: list[tuple[str, Any]] = []
    end = time.monotonic() + deadline_s
    while len(got) < want and time.monotonic() < end:
        while batch := consumer.read():
            got += batch
            consumer.ack([entry_id for entry_id, _ in batch])
        time.sleep(0.02)
    return got


@pytest.mark.parametrize("fmt", ["msgpack", "json"])
def test_corpus_published_and_consumed_equal_in_order(redis_url: str, fmt: str) -> None:
    """The whole corpus comes back equal, in order, under the ids publish returned; none left."""
    client = redis.Redis.from_url(redis_url)
    corpus = _corpus() if fmt == "msgpack" else _corpus()[:300]  # rich holds binary: MsgPack only
    ids = Publisher(client, "in", format=fmt).publish(corpus)
    consumer = Consumer(client, "in", "g", "c1", batch=64)
    got = list(consumer)
    assert [eid for eid, _ in got] == ids
    assert [m for _, m in got] == corpus
    assert consumer.ack(ids) == len(corpus)
    assert client.xpending("in", "g")["pending"] == 0
    assert client.xlen("in:dead") == 0


def test_entry_fields_name_format_and_version(redis_url: str) -> None:
    """One entry per message, one field: format/version naming the codec's bytes, exactly."""
    client = redis.Redis.from_url(redis_url)
    msg = wire.Message(role="user", content="hi")
    Publisher(client, "in").publish(msg)
    Publisher(client, "in", format="json").publish([msg])
    entries = [fields for _, fields in client.xrange("in")]
    assert entries == [
        {b"msgpack/1": b"\x82\xa4role\xa4user\xa7content\xa2hi"},
        {b"json/1": b'{"role":"user","content":"hi"}'},
    ]


class CountingConnection(redis.Connection):
    """A real connection that counts how many times it writes to the socket."""

    writes = 0

    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        type(self).writes += 1
        super().send_packed_command(command, check_health)


def test_batch_publish_is_one_round_trip(redis_url: str) -> None:
    """250 messages: one socket write once the script is loaded, one EVALSHA running 250 XADD
    and one SET of the publish's record (INFO commandstats); the first publish on a server
    also sends the script whole (EVAL) after NOSCRIPT."""
    pool = redis.ConnectionPool.from_url(redis_url, connection_class=CountingConnection)
    client = redis.Redis(connection_pool=pool)
    client.script_flush()
    client.config_resetstat()
    publisher = Publisher(client, "in")
    batch = [wire.Message(role="user", content=str(i)) for i in range(250)]
    CountingConnection.writes = 0
    assert len(publisher.publish(batch)) == 250
    assert CountingConnection.writes == 2  # EVALSHA refused (NOSCRIPT), then EVAL
    stats = client.info("commandstats")
    assert (stats["cmdstat_evalsha"]["calls"], stats["cmdstat_eval"]["calls"]) == (1, 1)
    client.config_resetstat()
    CountingConnection.writes = 0
    ids = publisher.publish(batch)
    assert CountingConnection.writes == 1
    stats = client.info("commandstats")
    assert (stats["cmdstat_evalsha"]["calls"], stats["cmdstat_xadd"]["calls"]) == (1, 250)
    assert (stats["cmdstat_set"]["calls"], stats["cmdstat_get"]["calls"]) == (1, 1)
    assert "cmdstat_eval" not in stats and "cmdstat_multi" not in stats
    assert len(ids) == 250 and client.xlen("in") == 500


def _dead(client: redis.Redis, stream: str = "in:dead") -> list[dict[bytes, bytes]]:
    return [fields for _, fields in client.xrange(stream)]


def test_poison_entries_go_to_dead_letter_stream(redis_url: str) -> None:
    """Undecodable, wrong-shape, unknown format / version, foreign and oversized entries: each
    dead-lettered with our error text and path and the original id; the good ones arrive."""
    client = redis.Redis.from_url(redis_url)
    pub = Publisher(client, "in")
    good = [wire.Message(role="user", content=f"m{i}") for i in range(4)]
    bad_shape = wire.msgpack.encode([{"role": "user", "content": [{"type": "text", "text": 1}]}])
    poison = [
        {b"msgpack/1": b"\xc1"},
        {b"msgpack/1": bad_shape[1:]},  # the message alone, without the list header
        {b"yaml/1": b"x"},
        {b"json/2": b"{}"},
        {b"payload": b"hello"},
        {b"json/1": b'"' + b"x" * 200 + b'"'},
        {b"msgpack/1": b"\x80", b"json/1": b"{}"},
    ]
    ids = [pub.publish(good[0])[0]]
    poison_ids = [client.xadd("in", p).decode() for p in poison[:3]]  # type: ignore[arg-type]
    ids += pub.publish(good[1:3])
    poison_ids += [client.xadd("in", p).decode() for p in poison[3:]]  # type: ignore[arg-type]
    ids += pub.publish(good[3])
    consumer = Consumer(client, "in", "g", "c1", limits=wire.Limits(max_size=100))
    got = list(consumer)
    assert got == list(zip(ids, good, strict=True))
    errors = [
        "invalid MessagePack: MessagePack data is malformed: invalid opcode '\\xc1' (byte 0)"
        " (at $)",
        "Expected `str`, got `int` (at $.content[0].text)",
        "unknown format 'yaml' (expected one of msgpack, json)",
        "unknown protocol version '2' (expected '1')",
        "not a minagent entry: fields 'payload' (expected one field named <format>/<version>)",
        "JSON input of 202 bytes is over the limit max_size=100 (at $)",
        "not a minagent entry: fields 'msgpack/1', 'json/1' (expected one field named"
        " <format>/<version>)",
    ]
    dead = _dead(client)
    assert [d[b"error"].decode() for d in dead] == errors
    assert [d[b"path"] for d in dead] == [b"$", b"$.content[0].text", b"", b"", b"", b"$", b""]
    assert [d[b"id"].decode() for d in dead] == poison_ids
    assert dead[4] == {
        b"error": errors[4].encode(),
        b"error_type": b"DecodeError",
        b"path": b"",
        b"id": poison_ids[4].encode(),
        b"stream": b"in",
        b"group": b"g",
        b"consumer": b"c1",
        b"field:payload": b"hello",
    }
    assert [{k[6:]: v for k, v in d.items() if k.startswith(b"field:")} for d in dead] == poison
    assert client.xpending("in", "g")["pending"] == len(good)  # poison acked, the good await us


def test_neighbours_cannot_merge_into_one_message(redis_url: str) -> None:
    """Two entries invalid alone, whose joined bytes hold two valid messages, are both poison:
    never two messages attributed to the wrong entries."""
    client = redis.Redis.from_url(redis_url)
    first = b'{"role":"user","content":"x"},{"role":"user","content":"a'
    second = b'b"}'
    assert wire.json.decode(b"[" + first + b"," + second + b"]") == [
        wire.Message(role="user", content="x"),
        wire.Message(role="user", content="a,b"),
    ]
    ids = [client.xadd("in", {b"json/1": data}).decode() for data in (first, second)]  # type: ignore[dict-item]
    assert list(Consumer(client, "in", "g", "c1")) == []
    assert [d[b"id"].decode() for d in _dead(client)] == ids


def test_trimmed_pending_entries_are_dead_lettered(redis_url: str) -> None:
    """Entries trimmed from the stream while pending reach the dead-letter stream when claimed."""
    client = redis.Redis.from_url(redis_url)
    ids = Publisher(client, "in").publish(
        [wire.Message(role="user", content=str(i)) for i in range(5)]
    )
    first = Consumer(client, "in", "g", "c1")
    assert [eid for eid, _ in first.read()] == ids
    client.xtrim("in", maxlen=2, approximate=False)
    time.sleep(0.06)
    second = Consumer(client, "in", "g", "c2", claim_idle_ms=50)
    assert [eid for eid, _ in second.read()] == ids[3:]
    dead = _dead(client)
    assert [(d[b"id"].decode(), d[b"error"]) for d in dead] == [
        (eid, b"entry deleted from the stream before it was acknowledged") for eid in ids[:3]
    ]


def _resp3_options() -> dict[str, Any]:
    """RESP3, with redis-py's own reply shapes where this redis-py has the choice (the
    ``legacy_responses`` option of newer releases; 5.0, our lowest, has only its legacy ones)."""
    import inspect

    from redis.connection import AbstractConnection

    params = inspect.signature(AbstractConnection.__init__).parameters
    return {"protocol": 3, **({"legacy_responses": False} if "legacy_responses" in params else {})}


@pytest.mark.parametrize("options", [{"protocol": 2}, {"protocol": 3}, _resp3_options()])
def test_both_reply_protocols(redis_url: str, options: dict[str, Any]) -> None:
    """RESP2 lists and RESP3 maps: reading, claiming and dead-lettering work the same."""
    client = redis.Redis.from_url(redis_url, **options)
    ids = Publisher(client, "in").publish(
        [wire.Message(role="user", content=str(i)) for i in range(3)]
    )
    bad = client.xadd("in", {b"json/1": b"[1"}).decode()
    assert [eid for eid, _ in Consumer(client, "in", "g", "a")] == ids
    time.sleep(0.06)
    assert [eid for eid, _ in Consumer(client, "in", "g", "b", claim_idle_ms=50)] == ids
    assert [d[b"id"].decode() for d in _dead(client)] == [bad]


CHILD = """
import sys
import redis
from minagent.wire.stream.redis import Consumer

consumer = Consumer(redis.Redis.from_url(sys.argv[1]), "in", "g", "doomed", batch=50)
handled = []
for done, (entry_id, message) in enumerate(consumer, 1):
    handled.append(entry_id)
    if done % 25 == 0:  # acknowledge every 25 handled messages
        consumer.ack(handled)
        print(*handled, sep="\\n", flush=True)
        handled = []
    if done == int(sys.argv[2]):
        print("mid-batch", flush=True)
        sys.stdin.read()  # hold the rest of the batch until killed
"""


def test_killed_consumer_entries_claimed_by_another(redis_url: str) -> None:
    """A consumer SIGKILLed mid-batch: another claims its pending entries (XAUTOCLAIM) and
    finishes; the union of acknowledged entries is exactly what was published."""
    client = redis.Redis.from_url(redis_url)
    corpus = _corpus()[:200]
    ids = Publisher(client, "in").publish(corpus)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, redis_url, "75"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
    )
    assert child.stdout is not None
    child_acked = []
    for line in child.stdout:
        if line == b"mid-batch\n":
            break
        child_acked.append(line.decode().strip())
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert child_acked == ids[:75]
    pending = client.xpending_range("in", "g", "-", "+", 100)
    assert [(p["message_id"].decode(), p["consumer"]) for p in pending] == [
        (eid, b"doomed") for eid in ids[75:100]
    ]
    rescuer = Consumer(client, "in", "g", "rescuer", batch=50, claim_idle_ms=100)
    got = _drain(rescuer, 125)
    assert sorted((eid for eid, _ in got), key=ids.index) == ids[75:]  # each once
    assert dict(got) == dict(zip(ids[75:], corpus[75:], strict=True))
    assert set(child_acked) | {eid for eid, _ in got} == set(ids)
    assert client.xpending("in", "g")["pending"] == 0


def test_server_restart_loses_nothing_acknowledged(tmp_path: Path) -> None:
    """redis-server SIGKILLed and restarted mid-run (AOF, fsync always): every published entry
    and every acknowledgement survives; the pending entries the caller does not hold (the rest
    of the batch its iteration left) come back first, those it holds never twice."""
    server = RedisServer(tmp_path)
    server.start()
    try:
        client = redis.Redis.from_url(server.url)
        corpus = _corpus()
        pub = Publisher(client, "in")
        ids = pub.publish(corpus[:250])
        consumer = Consumer(client, "in", "g", "c1", batch=100)
        seen = [eid for _, (eid, _) in zip(range(150), consumer, strict=False)]
        assert consumer.ack(seen[:120]) == 120  # mid-batch: the rest of batch 2 stays pending
        server.kill()
        with pytest.raises(redis.ConnectionError):
            consumer.read()
        server.start()
        assert [eid.decode() for eid, _ in client.xrange("in")] == ids
        pending = client.xpending_range("in", "g", "-", "+", 1000)
        assert [p["message_id"].decode() for p in pending] == ids[120:200]
        ids += pub.publish(corpus[250:])
        got = list(consumer)  # first its own pending entries again, then the rest
        assert [eid for eid, _ in got] == ids[150:]  # never those the caller holds: 120-149
        assert [m for _, m in got] == corpus[150:]
        assert consumer.ack([eid for eid, _ in got]) == len(ids) - 150
        assert consumer.ack(seen[120:]) == 30
        assert client.xpending("in", "g")["pending"] == 0
    finally:
        server.stop()


def test_async_variant(redis_url: str) -> None:
    """redis.asyncio: the corpus equal and in order, a poison entry dead-lettered, a claim, a
    blocking read woken by a publish."""

    async def main() -> None:
        client = redis.asyncio.Redis.from_url(redis_url)
        corpus = _corpus()
        ids = await redis_asyncio.Publisher(client, "in").publish(corpus[:200])
        await client.xadd("in", {b"json/1": b"[1"})
        ids += await redis_asyncio.Publisher(client, "in", format="json").publish(corpus[200:300])
        consumer = redis_asyncio.Consumer(client, "in", "g", "a1", batch=64)
        got = [item async for item in consumer]
        assert [eid for eid, _ in got] == ids
        assert [m for _, m in got] == corpus[:300]
        assert await consumer.ack(ids[:250]) == 250
        dead = [f async for f in _async_range(client, "in:dead")]
        assert [d[b"error"] for d in dead] == [b"invalid JSON: Input data was truncated (at $)"]
        await asyncio.sleep(0.06)
        other = redis_asyncio.Consumer(client, "in", "g", "a2", claim_idle_ms=50)
        claimed = [item async for item in other]
        assert claimed == got[250:]
        assert await other.ack([eid for eid, _ in claimed]) == 50
        waiter = redis_asyncio.Consumer(client, "in", "g", "a3", block_ms=4000)
        task = asyncio.create_task(waiter.read())  # blocks in XREADGROUP until an entry comes
        await asyncio.sleep(0.1)
        late = wire.Message(role="user", content="late")
        late_ids = await redis_asyncio.Publisher(client, "in").publish(late)
        assert await task == [(late_ids[0], late)]
        await client.aclose()

    asyncio.run(main())


async def _async_range(client: redis.asyncio.Redis, stream: str) -> Any:
    for _, fields in await client.xrange(stream):
        yield fields


def test_text_client_refused_and_only_messages_published(redis_url: str) -> None:
    """A client decoding replies to text would corrupt MessagePack, and a dict is no message:
    both refused before anything is sent."""
    with pytest.raises(ValueError, match="decode_responses=False"):
        Publisher(redis.Redis.from_url(redis_url, decode_responses=True), "in")
    client = redis.Redis.from_url(redis_url)
    msg = wire.Message(role="user", content="x")
    with pytest.raises(TypeError) as err:
        Publisher(client, "in").publish([msg, {"role": "user", "content": "x"}])  # type: ignore[list-item]
    assert str(err.value) == "item 1: expected wire.Message or wire.ModelResponse, got dict"
    assert client.exists("in") == 0


def test_format_restriction_and_responses(redis_url: str) -> None:
    """A consumer reading MessagePack only dead-letters JSON entries; type=ModelResponse reads
    responses."""
    client = redis.Redis.from_url(redis_url)
    resp = wire.ModelResponse(message=wire.Message(role="assistant", content="4"), usage={})
    ids = Publisher(client, "in").publish([resp])
    json_id = Publisher(client, "in", format="json").publish(resp)[0]
    consumer = Consumer(client, "in", "g", "c1", format="msgpack", type=wire.ModelResponse)
    assert list(consumer) == [(ids[0], resp)]
    assert [(d[b"id"].decode(), d[b"error"]) for d in _dead(client)] == [
        (json_id, b"format 'json' refused: this consumer reads 'msgpack' only")
    ]


def test_importing_the_codec_does_not_import_redis() -> None:
    """minagent.wire and minagent.wire.stream stay importable without redis."""
    code = "import sys, minagent.wire, minagent.wire.stream; print('redis' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, check=True)
    assert out.stdout == b"False\n"


_CODECS = {"msgpack": wire.msgpack, "json": wire.json}
_message = st.builds(
    wire.Message,
    role=roles,
    content=wire_texts | st.lists(st.builds(wire.TextBlock, text=wire_texts), max_size=2),
)


@st.composite
def _raw_entries(draw: st.DrawFn) -> list[tuple[bytes, dict[bytes, bytes]]]:
    """Entries a stream may hold: good ones, random bytes, a message cut short, two messages
    in one entry, one message split across two neighbouring entries, two messages spread over
    two entries with the boundary moved."""
    payloads: list[tuple[str, bytes]] = []
    for _ in range(draw(st.integers(1, 6))):
        fmt = draw(st.sampled_from(sorted(_CODECS)))
        one, two = (_CODECS[fmt].encode(draw(_message)) for _ in range(2))
        kind = draw(st.sampled_from(["good", "good", "bytes", "cut", "two", "split", "shift"]))
        cut = draw(st.integers(0, len(one)))
        if kind == "good":
            payloads.append((fmt, one))
        elif kind == "bytes":
            payloads.append((fmt, draw(st.binary(max_size=12))))
        elif kind == "cut":
            payloads.append((fmt, one[:cut]))
        elif kind == "two":
            payloads.append((fmt, one + (b"," if fmt == "json" else b"") + two))
        elif kind == "split":
            payloads += [(fmt, one[:cut]), (fmt, one[cut:])]
        else:  # two messages over two entries, the boundary moved: joined, they still count 2
            sep = b"," if fmt == "json" else b""
            payloads += [(fmt, two + sep + one[:cut]), (fmt, one[cut:])]
    return [(f"{i}-0".encode(), {f"{f}/1".encode(): p}) for i, (f, p) in enumerate(payloads)]


@given(
    _raw_entries(),
    st.sampled_from([wire.Limits(), wire.Limits(max_size=40), wire.Limits(max_depth=3)]),
)
def test_batch_decode_agrees_with_decoding_each_entry(
    entries: list[tuple[bytes, dict[bytes, bytes]]], limits: wire.Limits
) -> None:
    """Decoding a batch gives exactly what decoding each entry alone gives: the same messages
    and the same errors, in order."""
    good, bad = [], []
    for eid, fields in entries:
        ((name, payload),) = fields.items()
        try:
            msg = _CODECS[name.decode()[:-2]].decode(payload, type=wire.Message, limits=limits)
            good.append((eid.decode(), msg))
        except wire.WireError as err:
            bad.append((eid.decode(), str(err)))
    out = decode_entries(entries, limits=limits)
    assert out.messages == good
    assert [(eid, str(err)) for eid, _, err in out.poison] == bad


@pytest.mark.parametrize(
    ("field", "error"),
    [
        (b"\xff\xfe/1", "unknown format '\ufffd\ufffd' (expected one of msgpack, json)"),
        (b"msgpack/1/2", "unknown protocol version '1/2' (expected '1')"),
        (b"json/", "unknown protocol version '' (expected '1')"),
    ],
    ids=["invalid-utf8-name", "two-slashes", "no-version"],
)
def test_odd_field_names_are_poison_with_our_error(field: bytes, error: str) -> None:
    """A field name that is not UTF-8 is read with replacement characters (never a
    UnicodeDecodeError); the format is what precedes the first slash, the version the rest."""
    out = decode_entries([(b"1-0", {field: b"\x80"})], limits=wire.Limits())
    assert out.messages == []
    assert [(eid, type(err), str(err)) for eid, _, err in out.poison] == [
        ("1-0", wire.DecodeError, error)
    ]


def _spy(monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], list[Any]]:
    """Record the codec calls (type, bytes) and header checks of `decode_entries`."""
    from minagent.wire.stream import _redis_entries

    calls: list[Any] = []
    headers: list[Any] = []
    real = dict(_redis_entries._DECODERS)
    for fmt, decode in real.items():

        def counting(data: bytes, *, type: Any, limits: wire.Limits, decode: Any = decode) -> Any:
            calls.append((type, len(data)))
            return decode(data, type=type, limits=limits)

        monkeypatch.setitem(_redis_entries._DECODERS, fmt, counting)
    check = _redis_entries._header_error

    def counting_header(fields: Any, accept: Any) -> Any:
        headers.append(fields)
        return check(fields, accept)

    monkeypatch.setattr(_redis_entries, "_header_error", counting_header)
    return calls, headers


@pytest.mark.parametrize("fmt", ["msgpack", "json"])
@pytest.mark.parametrize("tp", [wire.Message, wire.ModelResponse])
def test_good_entries_are_decoded_in_one_codec_call(
    monkeypatch: pytest.MonkeyPatch, fmt: str, tp: Any
) -> None:
    """Entries of one format, each exactly ``max_size`` bytes, are decoded by one codec call
    over the joined batch (as ``list[type]``), with no header check per entry."""
    message = wire.Message("user", "hello")
    obj = message if tp is wire.Message else wire.ModelResponse(message, stop_reason="end_turn")
    payload = _CODECS[fmt].encode(obj)
    entries = [(f"{i}-0".encode(), {f"{fmt}/1".encode(): payload}) for i in range(5)]
    calls, headers = _spy(monkeypatch)
    out = decode_entries(entries, type=tp, limits=wire.Limits(max_size=len(payload)))
    assert out.messages == [(f"{i}-0", obj) for i in range(5)] and out.poison == []
    framing = 5 if fmt == "msgpack" else 6  # array header / brackets and commas
    assert calls == [(list[tp], 5 * len(payload) + framing)]
    assert headers == []


def test_mixed_entries_are_decoded_in_one_call_per_format(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """JSON and MessagePack entries with a foreign one among them: one codec call per format
    (a header check per entry), the foreign entry set aside."""
    m = wire.Message("user", "hi")
    entries = [
        (b"1-0", {b"json/1": wire.json.encode(m)}),
        (b"2-0", {b"msgpack/1": wire.msgpack.encode(m)}),
        (b"3-0", {b"other": b"x"}),
        (b"4-0", {b"json/1": wire.json.encode(m)}),
    ]
    calls, headers = _spy(monkeypatch)
    out = decode_entries(entries, limits=wire.Limits())
    assert out.messages == [("1-0", m), ("2-0", m), ("4-0", m)]
    assert [eid for eid, _, _ in out.poison] == ["3-0"]
    assert [tp for tp, _ in calls] == [list[wire.Message], list[wire.Message]]
    assert len(headers) == 4


@pytest.mark.parametrize("fmt", ["msgpack", "json"])
def test_batch_depth_is_each_entrys_depth_exactly(
    monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    """An entry nested exactly ``max_depth`` deep arrives from the one batch call; one level
    deeper is poison with the error it gets alone (the batch adds exactly one level)."""
    codec = _CODECS[fmt]

    def entry(levels: int) -> bytes:
        value: Any = 1
        for _ in range(levels):
            value = [value]
        block = wire.ToolUseBlock(id="t", name="f", input={"v": value})
        return codec.encode(wire.Message("user", [block]))

    deepest = next(
        d for d in range(1, 40) if _decodes(codec, entry(3), wire.Limits(max_depth=d))
    )  # the depth of a message holding 3 levels of arrays
    limits = wire.Limits(max_depth=deepest)
    ok = [(b"1-0", {f"{fmt}/1".encode(): entry(3)}), (b"2-0", {f"{fmt}/1".encode(): entry(3)})]
    calls, _ = _spy(monkeypatch)
    assert len(decode_entries(ok, limits=limits).messages) == 2
    assert len(calls) == 1
    deep = [(b"1-0", {f"{fmt}/1".encode(): entry(3)}), (b"2-0", {f"{fmt}/1".encode(): entry(4)})]
    out = decode_entries(deep, limits=limits)
    assert [eid for eid, _ in out.messages] == ["1-0"]
    with pytest.raises(wire.WireError) as alone:
        codec.decode(entry(4), type=wire.Message, limits=limits)
    assert [(eid, str(err)) for eid, _, err in out.poison] == [("2-0", str(alone.value))]


def _decodes(codec: Any, data: bytes, limits: wire.Limits) -> bool:
    try:
        codec.decode(data, type=wire.Message, limits=limits)
    except wire.WireError:
        return False
    return True


def test_entry_helpers_refuse_with_our_texts_and_accept_what_they_should() -> None:
    """The entry helpers, without a server: the format and type refusals name what is allowed;
    a client that decodes replies is refused, one without a connection pool accepted; ids come
    as bytes or text; no entries give an empty batch; an entry deleted before it was read is
    poison."""
    from minagent.wire.stream import _redis_entries as re_

    with pytest.raises(ValueError) as fmt:
        re_.check_format("yaml")
    assert str(fmt.value) == "format must be one of msgpack, json, got 'yaml'"
    with pytest.raises(ValueError) as tp:
        decode_entries([], type=dict, limits=wire.Limits())
    assert str(tp.value) == "type must be wire.Message or wire.ModelResponse, got <class 'dict'>"
    with pytest.raises(ValueError) as client:
        re_.check_client(redis.Redis(decode_responses=True))
    assert str(client.value) == (
        "the Redis client must return bytes: create it with decode_responses=False"
    )
    assert re_.check_client(object()) is None
    assert re_.check_client(redis.Redis()) is None
    assert (re_.entry_id(b"1-0"), re_.entry_id("2-0")) == ("1-0", "2-0")
    empty = decode_entries([], limits=wire.Limits())
    assert (empty.messages, empty.poison) == ([], [])
    m = wire.Message("user", "hi")
    out = decode_entries([("1-0", {b"json/1": wire.json.encode(m)})], limits=wire.Limits())
    assert out.messages == [("1-0", m)]
    gone = decode_entries([(b"1-0", None), (b"2-0", {})], limits=wire.Limits())
    assert [(eid, str(err)) for eid, _, err in gone.poison] == [
        ("1-0", "entry deleted from the stream before it was acknowledged"),
        ("2-0", "entry deleted from the stream before it was acknowledged"),
    ]


def test_each_read_is_one_round_trip_with_its_pending_check(redis_url: str) -> None:
    """Reading 300 entries 100 at a time, then finding nothing: one socket write per read; the
    own pending entries are read once at start (XREADGROUP 0), then each read is one
    XREADGROUP > pipelined with one XPENDING (INFO commandstats); ack of nothing sends
    nothing and returns 0; ack of one id as a str acknowledges it."""
    pool = redis.ConnectionPool.from_url(redis_url, connection_class=CountingConnection)
    client = redis.Redis(connection_pool=pool)
    ids = Publisher(client, "in").publish([wire.Message("user", str(i)) for i in range(300)])
    consumer = Consumer(client, "in", "g", "c1", claim_idle_ms=None)
    client.config_resetstat()
    CountingConnection.writes = 0
    batches = [consumer.read() for _ in range(4)]
    assert [len(b) for b in batches] == [100, 100, 100, 0]
    assert CountingConnection.writes == 5  # the first read also reads its own pending list
    stats = client.info("commandstats")
    assert (stats["cmdstat_xreadgroup"]["calls"], stats["cmdstat_xpending"]["calls"]) == (5, 4)
    CountingConnection.writes = 0
    assert consumer.ack([]) == 0 and CountingConnection.writes == 0
    assert consumer.ack(ids[0]) == 1
    assert consumer.ack(ids) == 299


def test_the_claim_scan_runs_at_most_every_half_claim_idle(redis_url: str) -> None:
    """With claim_idle_ms=2000, once through the pending list the XAUTOCLAIM scan waits
    1 s: a read 0.5 s later does not scan, one 1.1 s later does (INFO commandstats)."""
    client = redis.Redis.from_url(redis_url)
    Publisher(client, "in").publish(wire.Message("user", "x"))
    consumer = Consumer(client, "in", "g", "c1", claim_idle_ms=2000)
    client.config_resetstat()
    scans = []
    for pause in (0, 0.5, 0.6):
        time.sleep(pause)
        consumer.read()
        scans.append(client.info("commandstats").get("cmdstat_xautoclaim", {}).get("calls", 0))
    assert scans == [1, 1, 2]


def test_publish_records_are_named_after_the_stream_and_key(redis_url: str) -> None:
    """A publish with key="k" is recorded under ``in:published:k`` holding its ids; one
    without a key under ``in:published:<32 hex digits>``, random per call; dead-lettering is
    recorded under ``in:dead:moved:<32 hex digits>`` (moved count, refusal)."""
    import re

    client = redis.Redis.from_url(redis_url)
    publisher = Publisher(client, "in")
    ids = publisher.publish([wire.Message("user", "a"), wire.Message("user", "b")], key="k")
    assert client.get("in:published:k") == " ".join(ids).encode()
    publisher.publish(wire.Message("user", "c"))
    publisher.publish(wire.Message("user", "d"))
    client.xadd("in", {b"json/1": b"["})
    list(Consumer(client, "in", "g", "c1"))
    keys = sorted(k.decode() for k in client.keys("*") if k not in (b"in", b"in:dead"))
    assert keys[-1] == "in:published:k"
    hexed = r"[0-9a-f]{32}"
    assert re.fullmatch(rf"in:dead:moved:{hexed}", keys[0])
    assert client.hgetall(keys[0]) == {b"moved": b"1", b"error": b""}
    assert all(re.fullmatch(rf"in:published:{hexed}", k) for k in keys[1:3])
    assert len(set(keys)) == 4


def test_consumer_options_make_the_stream_refuse_text_and_name_the_dead_letters(
    redis_url: str,
) -> None:
    """A consumer of a stream that does not exist yet makes it and the group (a read finds
    nothing, then what is published); ``dead_letter=`` names where poison goes; a client that
    decodes replies is refused like the publisher's."""
    client = redis.Redis.from_url(redis_url)
    consumer = Consumer(client, "fresh", "g", "c1", dead_letter="graveyard")
    assert consumer.read() == []
    assert client.xinfo_groups("fresh")[0]["name"] == b"g"
    ids = Publisher(client, "fresh").publish(wire.Message("user", "x"))
    bad = client.xadd("fresh", {b"json/1": b"["}).decode()
    assert [eid for eid, _ in consumer.read()] == ids
    assert [d[b"id"].decode() for d in _dead(client, "graveyard")] == [bad]
    assert client.exists("fresh:dead") == 0
    with pytest.raises(ValueError) as err:
        Consumer(redis.Redis.from_url(redis_url, decode_responses=True), "fresh", "g", "c2")
    assert str(err.value) == (
        "the Redis client must return bytes: create it with decode_responses=False"
    )


def test_a_consumer_restarted_under_its_name_reads_its_pending_entries_first(
    redis_url: str,
) -> None:
    """A new Consumer object under the name of one that read 5 entries and never acknowledged
    them returns those 5 first, then the 5 published since."""
    client = redis.Redis.from_url(redis_url)
    publisher = Publisher(client, "in")
    first = publisher.publish([wire.Message("user", str(i)) for i in range(5)])
    assert [eid for eid, _ in Consumer(client, "in", "g", "c1").read()] == first
    later = publisher.publish([wire.Message("user", str(i)) for i in range(5, 10)])
    again = Consumer(client, "in", "g", "c1")
    assert [eid for eid, _ in again.read()] == first
    assert [eid for eid, _ in again.read()] == later
