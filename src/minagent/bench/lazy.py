"""The lazy benchmark: `minagent.wire` lazy decoding against minagent's own eager path.

Three operations, each timed for both paths on the same bytes, interleaved (`runner.time_cases`),
medians, ratios taken within one run:

- ``decode``: ``decode`` against ``decode_lazy`` (nothing read);
- ``pass-through``: decode, read every message's role and tool call names, encode again in the
  same format (eager reads ``m.tool_calls``; lazy reads ``m.tool_names``);
- ``full access``: decode and read every message's content and every block of it.

``ratio`` is eager time over lazy time (above 1: lazy is faster), the median of the ratios of
each repetition (eager and lazy timed back to back, so a busy machine slows both alike). Memory
is the growth of
`tracemalloc`'s traced total while one decoded sequence is alive (`runner.held_bytes`), lazy
counted right after ``decode_lazy`` and again after every routing field was read.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .. import wire
from .corpus import json_bytes, msgpack_bytes, transcript
from .runner import CLOCK, held_bytes

__all__ = [
    "OPERATIONS",
    "TARGETS",
    "LazyMemory",
    "LazyResult",
    "cases",
    "check",
    "memory",
    "report",
    "run",
    "table",
]

OPERATIONS = ("decode", "pass-through", "full access")
TARGETS = {"anthropic": {"json": 3.0, "msgpack": 3.0}, "multilingual": {"json": 5.0}}
"""Pass-through targets (issue 28) above the floor of every family and format: 1.0x."""
FLOOR = 1.0
_CODECS: dict[str, Any] = {"json": wire.json, "msgpack": wire.msgpack}


@dataclass(frozen=True)
class LazyResult:
    """Eager and lazy medians of one operation on one transcript."""

    family: str
    size: int
    format: str
    operation: str
    eager: float
    """Median seconds per transcript, eager path."""
    lazy: float
    """Median seconds per transcript, lazy path."""
    paired: float | None = None
    """The median over the repetitions of eager time over lazy time, each pair timed back to
    back (None: not measured so)."""

    @property
    def ratio(self) -> float:
        """Eager time over lazy time (above 1: lazy is faster): `paired` if measured, else
        the ratio of the medians."""
        return self.paired if self.paired is not None else self.eager / self.lazy


@dataclass(frozen=True)
class LazyMemory:
    """Bytes held per message after decoding one transcript."""

    family: str
    size: int
    format: str
    eager: float
    lazy: float
    """Right after ``decode_lazy``."""
    routed: float
    """After reading every message's role and tool call names as well."""
    input: float
    """The input itself, which a lazy decode keeps alive (eager does not need it)."""


def _read_blocks(msgs: Iterable[Any]) -> int:
    n = 0
    for m in msgs:
        content = m.content
        if isinstance(content, list):
            for _block in content:
                n += 1
        else:
            n += 1
    return n


def cases(data: bytes, fmt: str) -> dict[str, tuple[Callable[[], object], Callable[[], object]]]:
    """The (eager, lazy) callables of each operation on ``data`` in format ``fmt``."""
    codec = _CODECS[fmt]

    def eager_pass() -> bytes:
        msgs = codec.decode(data)
        for m in msgs:
            m.role  # noqa: B018
            [b.name for b in m.tool_calls]
        out: bytes = codec.encode(msgs)
        return out

    def lazy_pass() -> bytes:
        msgs = codec.decode_lazy(data)
        for m in msgs:
            m.role  # noqa: B018
            m.tool_names  # noqa: B018
        out: bytes = codec.encode(msgs)
        return out

    return {
        "decode": (lambda: codec.decode(data), lambda: codec.decode_lazy(data)),
        "pass-through": (eager_pass, lazy_pass),
        "full access": (
            lambda: _read_blocks(codec.decode(data)),
            lambda: _read_blocks(codec.decode_lazy(data)),
        ),
    }


def _payload(family: str, size: int, fmt: str) -> bytes:
    t = transcript(family, size)
    return json_bytes(t) if fmt == "json" else msgpack_bytes(t)


def check(data: bytes, fmt: str) -> str | None:
    """Why the lazy path disagrees with the eager one on ``data`` (None if it agrees)."""
    codec = _CODECS[fmt]
    eager, lazy = cases(data, fmt), codec.decode_lazy(data)
    if codec.encode(lazy) != data:
        return "pass-through bytes differ from the input"
    if lazy.messages() != codec.decode(data):
        return "fully read messages differ from eager decode"
    if eager["pass-through"][1]() != data:
        return "pass-through after routing reads differs from the input"
    return None


def run(
    families: Iterable[str],
    sizes: Iterable[int],
    formats: Iterable[str] = ("json", "msgpack"),
    repeat: int = 9,
    progress: Callable[[str], None] = lambda _: None,
) -> list[LazyResult]:
    """Time every operation, eager and lazy, on each family, size and format."""
    out: list[LazyResult] = []
    for family in families:
        for size in sizes:
            for fmt in formats:
                data = _payload(family, size, fmt)
                problem = check(data, fmt)
                if problem is not None:
                    raise AssertionError(f"lazy {fmt} disagrees on {family} x{size}: {problem}")
                progress(f"lazy {family} x{size} {fmt}")
                pairs = cases(data, fmt)
                timed = time_pairs([pairs[op] for op in OPERATIONS], repeat)
                for op, (eager, lazy, ratio) in zip(OPERATIONS, timed, strict=True):
                    out.append(LazyResult(family, size, fmt, op, eager, lazy, ratio))
    return out


def time_pairs(
    pairs: list[tuple[Callable[[], object], Callable[[], object]]],
    repeat: int,
    sample_seconds: float = 0.01,
) -> list[tuple[float, float, float]]:
    """For each (eager, lazy) pair: the median seconds per call of each and the median of
    eager / lazy over ``repeat`` repetitions. In each repetition every pair is timed back to
    back (which goes first alternates), so the ratio of one repetition compares the two under
    the same load; in CPU time of this process (`runner.CLOCK`)."""
    numbers = []
    for pair in pairs:
        counts = []
        for fn in pair:
            fn()  # warm up
            start = CLOCK()
            fn()
            counts.append(max(1, round(sample_seconds / max(CLOCK() - start, 1e-7))))
        numbers.append(counts)
    samples: list[tuple[list[float], list[float]]] = [([], []) for _ in pairs]
    for r in range(repeat):
        for pair, counts, (eager_s, lazy_s) in zip(pairs, numbers, samples, strict=True):
            for side in (0, 1) if r % 2 == 0 else (1, 0):
                fn, number = pair[side], counts[side]
                start = CLOCK()
                for _ in range(number):
                    fn()
                (eager_s, lazy_s)[side].append((CLOCK() - start) / number)
    return [
        (
            statistics.median(eager_s),
            statistics.median(lazy_s),
            statistics.median([e / max(z, 1e-12) for e, z in zip(eager_s, lazy_s, strict=True)]),
        )
        for eager_s, lazy_s in samples
    ]


def verdicts(results: list[LazyResult]) -> list[str]:
    """One line per family and format measured: its pass-through ratio against its target
    (`TARGETS`, else `FLOOR`), and whether it meets it."""
    lines = []
    for r in results:
        if r.operation != "pass-through":
            continue
        target = TARGETS.get(r.family, {}).get(r.format, FLOOR)
        verdict = "meets" if r.ratio >= target else "BELOW"
        lines.append(
            f"  {r.family} x{r.size} {r.format}: {r.ratio:.2f}x, target {target:.1f}x: {verdict}"
        )
    return lines


def memory(families: Iterable[str], size: int, formats: Iterable[str]) -> list[LazyMemory]:
    """Bytes held per message after an eager and a lazy decode of ``size`` messages."""
    out = []
    for family in families:
        for fmt in formats:
            codec, data = _CODECS[fmt], _payload(family, size, fmt)

            def routed(data: bytes, codec: Any = codec) -> Any:
                msgs = codec.decode_lazy(data)
                for m in msgs:
                    m.role  # noqa: B018
                    m.tool_names  # noqa: B018
                return msgs

            eager = held_bytes(codec.decode, data) / size
            lazy = held_bytes(codec.decode_lazy, data) / size
            routed_held = held_bytes(routed, data) / size
            out.append(LazyMemory(family, size, fmt, eager, lazy, routed_held, len(data) / size))
    return out


def table(results: list[LazyResult], mem: list[LazyMemory] | None = None) -> str:
    """The results as text: one row per family, size and format; eager / lazy ratios."""
    header = ["family", "size", "format", *OPERATIONS]
    rows: dict[tuple[str, int, str], dict[str, LazyResult]] = {}
    for r in results:
        rows.setdefault((r.family, r.size, r.format), {})[r.operation] = r
    lines = [header]
    for (family, size, fmt), ops in rows.items():
        cells = []
        for op in OPERATIONS:
            found = ops.get(op)
            if found is None:
                cells.append("-")
            elif op == "full access":
                cells.append(f"{1 / found.ratio:.2f} of eager")
            else:
                cells.append(f"{found.ratio:.2f}x")
        lines.append([family, str(size), fmt, *cells])
    widths = [max(len(row[i]) for row in lines) for i in range(len(header))]
    text = [
        "  ".join(
            c.ljust(w) if i < 3 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in lines
    ]
    out = [
        "Lazy vs eager (minagent), one run: decode and pass-through as eager time / lazy time "
        "(median of the repetitions' ratios); full access as lazy cost / eager cost.",
        *text,
    ]
    if mem:
        out.append("")
        out.append("Pass-through against its target (1.0x: lazy never slower than eager):")
        out.extend(verdicts(results))
        out.append("")
        out.append(
            "Memory held per message (tracemalloc): eager / lazy / lazy after routing reads; "
            "a lazy decode also keeps its input alive (last figure)."
        )
        for m in mem:
            out.append(
                f"  {m.family} x{m.size} {m.format}: {m.eager:.0f} B / {m.lazy:.0f} B / "
                f"{m.routed:.0f} B; input {m.input:.0f} B"
            )
    return "\n".join(out)


measure_memory = memory


def report(
    families: Iterable[str],
    sizes: Iterable[int],
    formats: Iterable[str],
    repeat: int,
    memory: bool = True,
    progress: Callable[[str], None] = lambda _: None,
) -> str:
    """Run the lazy benchmark and return its table (``minagent bench --lazy``); with ``memory``,
    also the bytes held after decoding 15,000 messages of each family."""
    families, formats = list(families), list(formats)
    results = run(families, sizes, formats, repeat, progress)
    held = measure_memory(families, 15_000, formats) if memory else None
    return table(results, held)
