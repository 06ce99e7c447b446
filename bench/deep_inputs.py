"""Tool inputs nested past the typed levels: our decode against msgspec's schema-less decode.

300 assistant messages, each with one tool call whose input nests ``--levels`` objects and
arrays (default 12, past `minagent.wire.blocks.TYPED_LEVELS`, where msgspec hands the value to
the codec's hook). Timed side by side, interleaved, median of ``--repeat`` repetitions; prints
ours / schema-less for JSON and MessagePack (how much the typed, lossless decode costs over a
decode that checks nothing).

Run: ``python bench/deep_inputs.py [--repeat N] [--levels N]``.
"""

from __future__ import annotations

import argparse
import statistics
import timeit
from typing import Any

import msgspec

from minagent import wire


def nested(levels: int) -> Any:
    """``levels`` containers, objects and arrays alternating, each with a scalar beside."""
    value: Any = {"k": "x", "n": 1}
    for i in range(levels):
        value = [value, i] if i % 2 else {"a": value, "b": i}
    return value


def main() -> None:
    """Print the ratios for both formats."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--levels", type=int, default=12)
    args = parser.parse_args()
    block = {"type": "tool_use", "id": "c", "name": "f", "input": {"v": nested(args.levels)}}
    messages = [{"role": "assistant", "content": [block]}] * 300
    for name, codec, generic in (
        ("JSON", wire.json, msgspec.json),
        ("MessagePack", wire.msgpack, msgspec.msgpack),
    ):
        data = generic.encode(messages)
        ours, plain = [], []
        for _ in range(args.repeat):
            ours.append(min(timeit.repeat(lambda: codec.decode(data), number=3, repeat=3)) / 3)  # noqa: B023
            plain.append(min(timeit.repeat(lambda: generic.decode(data), number=3, repeat=3)) / 3)  # noqa: B023
        mine, theirs = statistics.median(ours), statistics.median(plain)
        print(
            f"{name}: ours {mine * 1e3:.2f} ms, schema-less {theirs * 1e3:.2f} ms, "
            f"ours / schema-less {mine / theirs:.2f}"
        )


if __name__ == "__main__":
    main()
