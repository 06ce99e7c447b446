"""Messages through a real redis-server (Redis Streams): messages per second and bytes per message.

Three implementations move the same messages through one stream and one consumer group, in
batches of 100 (one pipelined round trip to publish a batch, one ``XREADGROUP`` and one ``XACK``
to consume it):

- ``msgpack``: `minagent.wire.stream.redis` with MessagePack entries (the default);
- ``json``: the same with JSON entries;
- ``reference``: the dataclass reference, ``json.dumps(m.to_wire())`` per entry on the way in and
  ``Message.from_wire(json.loads(...))`` per entry on the way out.

Figures per family: publish and consume rates (messages/s; medians of rounds that each run
every implementation once, order rotated), the payload bytes per message and the server's
memory per entry (``MEMORY USAGE`` of the stream over its length). Speed ratios against the
reference are taken within each round (the same load on a shared machine), then the median.
The server runs with the append-only file on and ``appendfsync everysec`` (Redis's default for
AOF).

Run: ``python bench/bench_redis.py`` (options: ``--messages``, ``--repeat``, ``--family``).
Under pytest (the test session) every implementation runs once on 100 messages and is checked.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis
from redis._parsers import _RESP2Parser
from redis.utils import HIREDIS_AVAILABLE

from minagent import types as ref
from minagent import wire
from minagent.bench.corpus import json_bytes, transcript
from minagent.wire.stream.redis import Consumer, Publisher

try:
    from tests.redis_server import RedisServer
except ImportError:  # run as a script, or bench/ collected alone
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.redis_server import RedisServer

FAMILIES = ("tool-heavy", "text-heavy", "multilingual")
IMPLEMENTATIONS = ("msgpack", "json", "reference")
BATCH = 100


def _ref_publish(client: redis.Redis, stream: str, messages: list[ref.Message]) -> None:
    for start in range(0, len(messages), BATCH):
        pipe = client.pipeline(transaction=True)
        for m in messages[start : start + BATCH]:
            pipe.xadd(stream, {b"data": json.dumps(m.to_wire(), ensure_ascii=False).encode()})
        pipe.execute()


def _ref_consume(client: redis.Redis, stream: str, n: int) -> list[ref.Message]:
    client.xgroup_create(stream, "g", id="0", mkstream=True)
    out: list[ref.Message] = []
    while len(out) < n:
        ((_, entries),) = client.xreadgroup("g", "c", {stream: ">"}, count=BATCH)
        out += [ref.Message.from_wire(json.loads(fields[b"data"])) for _, fields in entries]
        client.xack(stream, "g", *(eid for eid, _ in entries))
    return out


def _publish(client: redis.Redis, stream: str, messages: list[Any], fmt: str) -> None:
    publisher = Publisher(client, stream, format=fmt)
    for start in range(0, len(messages), BATCH):
        publisher.publish(messages[start : start + BATCH])


def _consume(client: redis.Redis, stream: str, n: int) -> list[Any]:
    consumer = Consumer(client, stream, "g", "c", batch=BATCH, claim_idle_ms=None)
    out: list[Any] = []
    while len(out) < n:
        batch = consumer.read()
        out += [m for _, m in batch]
        consumer.ack([eid for eid, _ in batch])
    return out


def run_once(client: redis.Redis, impl: str, messages: list[Any]) -> dict[str, Any]:
    """Publish then consume ``messages`` through a fresh stream; return times, sizes, results."""
    stream = f"bench:{impl}"
    client.delete(stream)
    t0 = time.perf_counter()
    if impl == "reference":
        _ref_publish(client, stream, messages)
    else:
        _publish(client, stream, messages, impl)
    t1 = time.perf_counter()
    payload = sum(len(v) for _, f in client.xrange(stream) for v in f.values())
    memory = int(client.memory_usage(stream, samples=0) or 0)
    t2 = time.perf_counter()
    got = (
        _ref_consume(client, stream, len(messages))
        if impl == "reference"
        else _consume(client, stream, len(messages))
    )
    t3 = time.perf_counter()
    client.delete(stream)
    n = len(messages)
    return {
        "publish": t1 - t0,
        "consume": t3 - t2,
        "payload": payload / n,
        "memory": memory / n,
        "received": got,
    }


def _inputs(family: str, n: int) -> dict[str, list[Any]]:
    t = transcript(family, n)
    assert t.reference is not None
    structs = wire.json.decode(json_bytes(t))
    return {"msgpack": structs, "json": structs, "reference": t.reference}


def measure(client: redis.Redis, family: str, n: int, repeat: int) -> dict[str, dict[str, float]]:
    """Median figures per implementation over ``repeat`` rounds, and paired speed ratios.

    Each round runs every implementation once, in an order rotated from round to round; the
    ratio against the reference is taken within each round (same load on the machine), then
    the median over rounds is reported (``publish_ratio``, ``consume_ratio``).
    """
    inputs = _inputs(family, n)
    rounds: dict[str, list[dict[str, Any]]] = {impl: [] for impl in IMPLEMENTATIONS}
    for r in range(repeat):
        shift = r % len(IMPLEMENTATIONS)
        for impl in IMPLEMENTATIONS[shift:] + IMPLEMENTATIONS[:shift]:
            result = run_once(client, impl, inputs[impl])
            assert result.pop("received") == inputs[impl]
            rounds[impl].append(result)
    base = rounds["reference"]
    out = {}
    for impl, rs in rounds.items():
        figures = {key: statistics.median(r[key] for r in rs) for key in rs[0]}
        for key in ("publish", "consume"):
            figures[f"{key}_ratio"] = statistics.median(
                b[key] / r[key] for b, r in zip(base, rs, strict=True)
            )
        out[impl] = figures
    return out


def report(family: str, n: int, figures: dict[str, dict[str, float]]) -> str:
    """A table: rates and sizes, with ratios against the reference."""
    base = figures["reference"]
    lines = [
        f"{family} x{n}:",
        f"  {'':10} {'publish msg/s':>14} {'consume msg/s':>14} {'payload B/msg':>14} "
        f"{'server B/msg':>13}",
    ]
    for impl, f in figures.items():
        pub, con = n / f["publish"], n / f["consume"]
        lines.append(
            f"  {impl:10} {pub:>14,.0f} {con:>14,.0f} {f['payload']:>14,.0f} {f['memory']:>13,.0f}"
        )
        if impl != "reference":
            lines.append(
                f"  {'  vs ref':10} {f['publish_ratio']:>13.2f}x {f['consume_ratio']:>13.2f}x "
                f"{f['payload'] / base['payload']:>13.2f}x {f['memory'] / base['memory']:>12.2f}x"
            )
    return "\n".join(lines)


def _with_server(body: Callable[[redis.Redis], None], python_parser: bool) -> None:
    kwargs: dict[str, Any] = {"parser_class": _RESP2Parser} if python_parser else {}
    with tempfile.TemporaryDirectory() as tmp:
        server = RedisServer(Path(tmp), fsync="everysec")
        server.start()
        try:
            with redis.Redis.from_url(server.url, **kwargs) as client:
                body(client)
        finally:
            server.stop()


def main(argv: list[str] | None = None) -> None:
    """Print the table for each family."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--messages", type=int, default=3000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--family", action="append", choices=FAMILIES)
    p.add_argument("--python-parser", action="store_true", help="redis-py's own reply parser")
    args = p.parse_args(argv)

    def body(client: redis.Redis) -> None:
        parser = "hiredis" if HIREDIS_AVAILABLE and not args.python_parser else "pure Python"
        server = client.info("server")["redis_version"]
        print(f"redis-server {server}, redis-py {redis.__version__}, reply parser: {parser}")
        print("speed ratios: the reference's time over ours within each round, median of")
        print(f"{args.repeat} rounds (higher is faster); size ratios: ours over the reference's.")
        for family in args.family or FAMILIES:
            print(
                report(family, args.messages, measure(client, family, args.messages, args.repeat))
            )

    _with_server(body, args.python_parser)


def test_redis_bench_runs(tmp_path: Path) -> None:
    """Each implementation moves 100 messages through redis-server and gets them back equal."""
    server = RedisServer(tmp_path, fsync="everysec")
    server.start()
    try:
        with redis.Redis.from_url(server.url) as client:
            figures = measure(client, "tool-heavy", 100, 1)
    finally:
        server.stop()
    assert sorted(figures) == sorted(IMPLEMENTATIONS)


if __name__ == "__main__":
    main()
