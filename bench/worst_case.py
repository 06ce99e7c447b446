"""Worst-case inputs within the default limits: decode rate and extra peak memory.

Run from the repository root::

    PYTHONPATH=src python bench/worst_case.py            # 8 MiB inputs, about a minute
    PYTHONPATH=src python bench/worst_case.py --mib 60   # the sizes of the issue 12 review

Prints the markdown table of docs/hostile-input.md ("Worst cases"): for each bomb, the input
size, the decode rate (MB/s, median of ``--repeat`` runs, process CPU time) and the extra peak
memory as a multiple of the input (``tracemalloc``, one separate run). Then the ratios the
issue asks for, each the median of ``--repeat`` runs measured in this process:

- ``max_depth=64`` against the default on the same input;
- the CPython 3.12+ depth path (forced here: ``_codec._GUARD_BEFORE_3_12 = False``) against
  this interpreter's path, decoding 300-message transcripts with the default limits;
- ``LineDecoder`` against ``FrameDecoder`` on one 16 MiB message fed in 1 KiB chunks.

Each case must decode or be refused with a `WireError` (the refusal is what is timed then).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import struct
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

import msgspec  # noqa: E402

from minagent import wire  # noqa: E402
from minagent.bench import corpus  # noqa: E402
from minagent.wire import _codec  # noqa: E402
from minagent.wire.limits import DEFAULT  # noqa: E402
from minagent.wire.stream import FrameDecoder, LineDecoder, encode_frames  # noqa: E402


def _tool_message_prefix(fmt: str) -> tuple[bytes, bytes]:
    """Bytes before and after the value of a tool input key ``v`` in a one-message list."""
    message = {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {"v": 0}}],
    }
    enc = msgspec.json.encode if fmt == "json" else msgspec.msgpack.encode
    whole = enc([message])
    zero = b"0" if fmt == "json" else b"\x00"
    at = whole.rindex(zero)
    return whole[:at], whole[at + 1 :]


def mp_array(count: int, item: bytes) -> bytes:
    """A MessagePack array32 of ``count`` copies of ``item``."""
    return struct.pack(">BI", 0xDD, count) + item * count


def bombs(size: int, frame_size: int = 16 << 20) -> list[tuple[str, Callable[[], Any], int]]:
    """The cases: (name, decode call, input size in bytes); the frame case is ``frame_size``."""
    mp_head, mp_tail = _tool_message_prefix("msgpack")
    js_head, js_tail = _tool_message_prefix("json")
    n = size
    cases: list[tuple[str, bytes, str]] = [
        ("MessagePack empty maps, tool input", mp_head + mp_array(n, b"\x80") + mp_tail, "mp"),
        (
            "MessagePack empty arrays in a tool input",
            mp_head + mp_array(n, b"\x90") + mp_tail,
            "mp",
        ),
        (
            "MessagePack `[nil]` items, tool input",
            mp_head + mp_array(n // 2, b"\x91\xc0") + mp_tail,
            "mp",
        ),
        ("MessagePack `-20` items, tool input", mp_head + mp_array(n, b"\xec") + mp_tail, "mp"),
        ("JSON `[]` in a tool input", js_head + b"[" + b"[]," * (n // 3) + b"[]]" + js_tail, "js"),
        ("JSON `{}` in a tool input", js_head + b"[" + b"{}," * (n // 3) + b"{}]" + js_tail, "js"),
        ("JSON `[]` as the whole input", b"[" + b"[]," * (n // 3) + b"[]]", "js"),
        ("MessagePack empty maps, whole input", mp_array(n, b"\x80"), "mp"),
    ]
    unknown = corpus.transcript("text-heavy", 300)
    dicts = msgspec.json.decode(corpus.json_bytes(unknown))
    per = [dict(m, x_provider_id=f"id-{i}") for i, m in enumerate(dicts)]
    transcript = msgspec.json.encode(per)
    copies = max(1, size // len(transcript))
    big = b"[" + b",".join([transcript[1:-1]] * copies) + b"]"
    cases.append(("a transcript with an unknown key in every message", big, "js"))
    keys = b"{" + b",".join(b'"k%d":1' % i for i in range(size // 12)) + b',"z":1e400}'
    cases.append(("`1e400` after a million keys", js_head + keys + js_tail, "js"))
    out = []
    for name, data, fmt in cases:
        decode = wire.json.decode if fmt == "js" else wire.msgpack.decode
        out.append((name, _call(decode, data), len(data)))
    frame = mp_head + mp_array(frame_size - 128, b"\x80") + mp_tail
    frame = frame[len(b"\x91") :]  # one Message, not a list
    framed = struct.pack(">I", len(frame)) + frame

    def one_frame() -> Any:
        decoder = FrameDecoder()
        try:
            return decoder.feed(framed) + decoder.finish()
        except wire.WireError as err:
            return err

    out.append(("one frame of empty maps (FrameDecoder)", one_frame, len(framed)))
    return out


def _call(decode: Callable[..., Any], data: bytes, **options: Any) -> Callable[[], Any]:
    def run() -> Any:
        try:
            return decode(data, **options)
        except wire.WireError as err:
            return err

    return run


def cpu(call: Callable[[], Any], repeat: int) -> float:
    """Median process CPU seconds of ``call()`` over ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        result = call()
        times.append(time.process_time() - start)
        del result
    return statistics.median(times)


def extra_peak(call: Callable[[], Any]) -> int:
    """Bytes allocated at the peak of ``call()`` beyond what was held before it."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        result = call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del result
    return peak - before


def ratios(repeat: int, size: int) -> list[str]:
    """The ratio lines: max_depth=64 vs default, forced 3.12+ path vs this one, lines vs frames."""
    lines = []
    js_head, js_tail = _tool_message_prefix("json")
    data = js_head + b"[" + b"{}," * (size // 3) + b"{}]" + js_tail
    shallow = dataclasses.replace(DEFAULT, max_depth=64)
    base = cpu(_call(wire.json.decode, data), repeat)
    other = cpu(_call(wire.json.decode, data, limits=shallow), repeat)
    lines.append(f"max_depth=64 / default, {len(data) >> 20} MiB of `{{}}`: {other / base:.2f}x")
    for family in ("tool-heavy", "text-heavy", "multilingual"):
        payload = corpus.json_bytes(corpus.transcript(family, 300))
        guard = cpu(_call(wire.json.decode, payload), repeat * 5)
        _codec._GUARD_BEFORE_3_12 = False
        try:
            forced = cpu(_call(wire.json.decode, payload), repeat * 5)
        finally:
            _codec._GUARD_BEFORE_3_12 = sys.version_info < (3, 12)
        lines.append(f"3.12+ depth path / 3.11 path, {family} x300: {forced / guard:.2f}x")
    message = wire.Message(role="user", content="x" * ((16 << 20) - 100))
    as_line, as_frame = wire.json.encode_lines([message]), encode_frames(message)

    def fed(decoder: Any, data: bytes) -> Callable[[], Any]:
        def run() -> Any:
            d = decoder()
            out = []
            for i in range(0, len(data), 1024):
                out += d.feed(data[i : i + 1024])
            return out + d.finish()

        return run

    line_time = cpu(fed(LineDecoder, as_line), repeat)
    frame_time = cpu(fed(FrameDecoder, as_frame), repeat)
    lines.append(
        f"LineDecoder / FrameDecoder, one 16 MiB message in 1 KiB chunks: "
        f"{line_time / frame_time:.2f}x ({line_time:.3f} s / {frame_time:.3f} s)"
    )
    return lines


def main() -> None:
    """Print the table and the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mib", type=int, default=8, help="size of each bomb (MiB)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    size = args.mib << 20
    print(f"Python {sys.version.split()[0]}, msgspec {msgspec.__version__}")
    print("| input | size | outcome | decode rate | extra peak memory |")
    print("| --- | --- | --- | --- | --- |")
    for name, call, nbytes in bombs(size):
        seconds = cpu(call, args.repeat)
        outcome = call()
        what = type(outcome).__name__ if isinstance(outcome, wire.WireError) else "decoded"
        del outcome
        memory = extra_peak(call)
        rate = nbytes / seconds / 1e6 if seconds else float("inf")
        print(
            f"| {name} | {nbytes / 1e6:.1f} MB | {what} | {rate:.1f} MB/s | "
            f"{memory / nbytes:.1f}x |"
        )
    print()
    for line in ratios(args.repeat, size):
        print(f"- {line}")


if __name__ == "__main__":
    main()
