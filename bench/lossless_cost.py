"""What the lossless machinery costs, as ratios measured side by side (forward compatibility).

For each reference family at 300 messages it times, interleaved, medians of several repetitions:

- *plain*: a bare msgspec Struct codec of the same wire shape (no ``extra`` fields, no fallback),
  decoding and encoding the same bytes: what the protocol would cost without losslessness;
- *ours*: ``minagent.wire`` on the same, all-known transcript (the fast path);
- *odd*: ``minagent.wire`` on the same transcript where about 1 message in 100 carries an unknown
  block or an unknown key (alternately).

Run: ``python bench/lossless_cost.py [--repeat N]``. Prints ours/plain (fast path cost, target
<= 1.0 within noise) and odd/ours (target <= 2.0 for decode).
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import timeit
from collections.abc import Callable
from typing import Any, Literal

import msgspec

from minagent import wire
from minagent.bench import corpus


class _Text(msgspec.Struct, tag_field="type", tag="text", gc=False):
    text: str


class _ToolUse(msgspec.Struct, tag_field="type", tag="tool_use", gc=False):
    id: str
    name: str
    input: dict[str, Any]


class _Plain(msgspec.Struct, gc=False):
    role: Literal["system", "user", "assistant", "tool"]
    content: str | list[_Text | _ToolUse] = ""
    tool_call_id: str | msgspec.UnsetType = msgspec.UNSET


def _with_unknowns(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every 100th message (from the 50th) gets an unknown block or an unknown key."""
    out = copy.deepcopy(messages)
    for n, i in enumerate(range(50, len(out), 100)):
        msg = out[i]
        if n % 2:
            msg["id"] = f"msg_{i}"
        else:
            blocks = msg["content"] if isinstance(msg["content"], list) else []
            if isinstance(msg["content"], str) and msg["content"]:
                blocks = [{"type": "text", "text": msg["content"]}]
            blocks.append({"type": "server_tool_use", "id": f"srv_{i}", "name": "web_search",
                           "input": {"query": "x"}})  # fmt: skip
            msg["content"] = blocks
    return out


def _time(cases: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(repeat):
        for name, fn in cases.items():
            samples[name].append(min(timeit.repeat(fn, number=20, repeat=3)) / 20)
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> None:
    """Print the ratios for each reference family."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9, help="interleaved repetitions")
    args = parser.parse_args()
    print("family        fmt      op      ours/plain  odd/ours")
    for family in ("tool-heavy", "text-heavy", "multilingual"):
        t = corpus.transcript(family, 300)
        known = json.dumps(t.wire, ensure_ascii=False).encode()
        odd = json.dumps(_with_unknowns(t.wire), ensure_ascii=False).encode()
        for fmt, plain_mod in (("json", msgspec.json), ("msgpack", msgspec.msgpack)):
            codec = wire.json if fmt == "json" else wire.msgpack
            known_b = known if fmt == "json" else wire.msgpack.encode(wire.json.decode(known))
            odd_b = odd if fmt == "json" else wire.msgpack.encode(wire.json.decode(odd))
            plain_dec = plain_mod.Decoder(list[_Plain])
            plain_enc = plain_mod.Encoder()
            plain_obj = plain_dec.decode(known_b)
            ours_obj, odd_obj = codec.decode(known_b), codec.decode(odd_b)

            def run(fn: Callable[..., object], arg: object) -> Callable[[], object]:
                return lambda: fn(arg)

            m = _time(
                {
                    "dec_plain": run(plain_dec.decode, known_b),
                    "dec_ours": run(codec.decode, known_b),
                    "dec_odd": run(codec.decode, odd_b),
                    "enc_plain": run(plain_enc.encode, plain_obj),
                    "enc_ours": run(codec.encode, ours_obj),
                    "enc_odd": run(codec.encode, odd_obj),
                },
                args.repeat,
            )
            for op in ("dec", "enc"):
                ours, plain, odd_t = m[f"{op}_ours"], m[f"{op}_plain"], m[f"{op}_odd"]
                print(f"{family:13s} {fmt:8s} {op:6s} {ours / plain:10.2f}  {odd_t / ours:8.2f}")


if __name__ == "__main__":
    main()
