"""What the nesting-depth check costs on this interpreter, as ratios measured side by side.

For each corpus family at 300 messages and each format it times, interleaved, medians of
``--repeat`` repetitions of this process's CPU time: our decode with the default `Limits`, our
decode with a non-default ``max_depth`` (64), and msgspec's schema-less decode of the same bytes
(the floor). Prints default / floor ("typed / floor") and max_depth=64 / default. Run it on
each Python to compare them (bench/README.md, "Per Python version"):

    python bench/depth_check.py [--repeat N] [--family NAME ...]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
import timeit
from collections.abc import Callable
from typing import Any

import msgspec

from minagent import wire
from minagent.bench import corpus

FAMILIES = ("tool-heavy", "text-heavy", "multilingual", "rich", "anthropic", "anthropic-1in100")
SMALL = wire.Limits(max_depth=64)


def _per_call(call: Callable[[], Any], repeat: int) -> list[float]:
    """Seconds of this process's CPU per call (not wall time: other processes sharing the
    cores then count less), over samples of about 20 ms; the caller interleaves them."""
    number = max(1, int(0.02 / max(timeit.timeit(call, number=1, timer=_CPU), 1e-7)))
    return [timeit.timeit(call, number=number, timer=_CPU) / number for _ in range(repeat)]


_CPU = time.process_time


def measure(family: str, fmt: str, repeat: int) -> dict[str, float]:
    """Median seconds per decode of default limits, max_depth=64 and the floor."""
    transcript = corpus.transcript(family, 300)
    if fmt == "json":
        data, module = corpus.json_bytes(transcript), wire.json
        floor: Any = msgspec.json.Decoder()
    else:
        data, module = corpus.msgpack_bytes(transcript), wire.msgpack
        floor = msgspec.msgpack.Decoder()
    assert module.decode(data, limits=SMALL) == module.decode(data)
    cases = {
        "default": lambda: module.decode(data),
        "max_depth=64": lambda: module.decode(data, limits=SMALL),
        "floor": lambda: floor.decode(data),
    }
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(repeat):  # one sample of each case per round: the noise hits them alike
        for name, call in cases.items():
            samples[name] += _per_call(call, 1)
    return {name: statistics.median(times) for name, times in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--family", action="append", choices=FAMILIES)
    args = parser.parse_args()
    print(f"Python {platform.python_version()}, msgspec {msgspec.__version__}")
    print("| family | format | default | typed / floor | max_depth=64 / default |")
    print("| --- | --- | ---: | ---: | ---: |")
    for family in args.family or FAMILIES:
        for fmt in ("json", "msgpack"):
            t = measure(family, fmt, args.repeat)
            print(
                f"| {family} | {'JSON' if fmt == 'json' else 'MsgPack'} "
                f"| {t['default'] * 1e3:.2f} ms | {t['default'] / t['floor']:.1f} "
                f"| {t['max_depth=64'] / t['default']:.2f} |"
            )


if __name__ == "__main__":
    main()
