"""Timing, memory and garbage-collector measurements.

Method (why the numbers can be trusted on a shared, noisy machine):

- every implementation is first checked by `implementations.agreement`; one that disagrees is
  reported and not timed;
- each case is calibrated so that one sample lasts about ``sample_seconds``; then the samples of
  all cases of a family are *interleaved*: repetition 1 of every case, then repetition 2, ... so
  that a burst of load from another process hits every case alike;
- the figure kept is the median per-call time over the repetitions, and ratios are taken between
  medians of the same run;
- time is this process's CPU time (`CLOCK`), not the wall clock, so that other processes on a
  shared machine do not count.

Memory is the growth of `tracemalloc`'s traced total while one decoded transcript is alive.
The collector's share is the time between its ``start`` and ``stop`` callbacks (`gc.callbacks`)
over the time of the decodes themselves.
"""

from __future__ import annotations

import gc
import statistics
import time
import tracemalloc
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .corpus import Transcript, json_bytes, msgpack_bytes, transcript
from .implementations import Implementation, agreement, baseline, payload, registry

__all__ = [
    "Corpus",
    "GcShare",
    "Memory",
    "Result",
    "Run",
    "Skip",
    "gc_share",
    "held_bytes",
    "run",
    "time_cases",
]

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Result:
    """The median time of one implementation on one operation of one transcript."""

    family: str
    size: int
    implementation: str
    label: str
    kind: str
    format: str
    operation: str
    seconds: float
    """Median time per transcript."""
    nbytes: int
    """Bytes produced (encode) or consumed (decode)."""
    messages: int
    speedup: float | None = None
    """Reference time / this time (same family, size, format, operation); None without one."""
    vs_untyped: float | None = None
    """Schema-less msgspec decode time / this time (decode only)."""

    @property
    def mb_per_s(self) -> float:
        """Throughput in MB (10**6 bytes) per second."""
        return self.nbytes / self.seconds / 1e6

    @property
    def messages_per_s(self) -> float:
        """Messages per second."""
        return self.messages / self.seconds


@dataclass(frozen=True)
class Skip:
    """An implementation left out of a family, and why."""

    family: str
    label: str
    reason: str


@dataclass(frozen=True)
class Corpus:
    """Description of one transcript of the corpus."""

    family: str
    size: int
    json_bytes: int
    msgpack_bytes: int


@dataclass(frozen=True)
class Memory:
    """Bytes held per decoded message by one implementation."""

    family: str
    size: int
    label: str
    format: str
    bytes_per_message: float
    vs_reference: float | None
    """Reference bytes / these bytes (above 1: smaller than the reference)."""


@dataclass(frozen=True)
class GcShare:
    """Share of decode time spent in the garbage collector."""

    family: str
    size: int
    label: str
    frozen: float
    """Share after ``gc.freeze()`` (the rest of the process out of the collector's view)."""
    unfrozen: float
    """Share in this process as it is (``tracked`` objects in view)."""
    tracked: int


@dataclass
class Run:
    """Everything one benchmark run measured."""

    results: list[Result] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    corpus: list[Corpus] = field(default_factory=list)
    memory: list[Memory] = field(default_factory=list)
    gc: list[GcShare] = field(default_factory=list)


# --- timing -------------------------------------------------------------------------------------

CLOCK = time.process_time
"""The clock of `time_cases`: CPU time of this process. On a shared machine a wall clock also
counts the time other processes held the CPU, which moved single ratios by 2x between runs; CPU
time does not (what it still feels: caches and memory bandwidth shared with them). For this
single-threaded code it equals the wall time of an idle machine."""


def time_cases(
    cases: list[Callable[[], object]],
    repeat: int,
    sample_seconds: float = 0.004,
    on_repeat: Callable[[int], None] | None = None,
) -> list[float]:
    """Median seconds per call of each case, from ``repeat`` interleaved samples, in CPU time of
    this process (`CLOCK`)."""
    numbers = []
    for fn in cases:
        fn()  # warm up
        start = CLOCK()
        fn()
        once = max(CLOCK() - start, 1e-7)
        numbers.append(max(1, round(sample_seconds / once)))
    samples: list[list[float]] = [[] for _ in cases]
    for r in range(repeat):
        order = list(range(len(cases)))
        order = order[r % len(order) :] + order[: r % len(order)]  # rotate: no case always first
        for i in order:
            fn, number = cases[i], numbers[i]
            start = CLOCK()
            for _ in range(number):
                fn()
            samples[i].append((CLOCK() - start) / number)
        if on_repeat is not None:
            on_repeat(r)
    return [statistics.median(s) for s in samples]


def _case(impl: Implementation, op: str, t: Transcript) -> tuple[Callable[[], object], int]:
    if op == "decode":
        assert impl.decode is not None
        data, decode = impl.input_for(t), impl.decode
        return (lambda: decode(data)), len(data)
    assert impl.encode is not None
    native, encode = impl.prepare(t), impl.encode
    return (lambda: encode(native)), len(encode(native))


# --- memory and collector -------------------------------------------------------------------------


def held_bytes(decode: Callable[[bytes], Any], data: bytes) -> int:
    """Bytes allocated and still held while the result of ``decode(data)`` is alive."""
    decode(data)  # warm caches (interned keys, type info) outside the measurement
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        result = decode(data)
        held = tracemalloc.get_traced_memory()[0] - before
        del result
    finally:
        tracemalloc.stop()
    return held


def gc_share(decode: Callable[[bytes], Any], data: bytes, repeat: int, freeze: bool) -> float:
    """Share of the time of ``repeat`` decodes spent in collections (results kept alive)."""
    spent = 0.0
    started = 0.0

    def callback(phase: str, info: dict[str, int]) -> None:
        nonlocal spent, started
        if phase == "start":
            started = time.perf_counter()
        else:
            spent += time.perf_counter() - started

    if freeze:
        gc.collect()
        gc.freeze()
    gc.callbacks.append(callback)
    try:
        total = 0.0
        for _ in range(repeat):
            start = time.perf_counter()
            result = decode(data)
            total += time.perf_counter() - start
            del result
    finally:
        gc.callbacks.remove(callback)
        if freeze:
            gc.unfreeze()
    return spent / total


# --- a whole run -------------------------------------------------------------------------------


def _speedups(results: list[Result], impls: list[Implementation]) -> list[Result]:
    def key(r: Result) -> tuple[str, int, str, str]:
        return (r.family, r.size, r.format, r.operation)

    by_name = {(key(r), r.implementation): r.seconds for r in results}
    out = []
    for r in results:
        base = baseline(impls, r.format)
        ref = by_name.get(((r.family, r.size, base.format, r.operation), base.name))
        untyped = by_name.get((key(r), f"untyped-{r.format}")) if r.operation == "decode" else None
        out.append(
            Result(
                **{
                    **r.__dict__,
                    "speedup": ref / r.seconds if ref else None,
                    "vs_untyped": untyped / r.seconds if untyped else None,
                }
            )
        )
    return out


def _measure_transcript(
    t: Transcript,
    size: int,
    impls: list[Implementation],
    formats: Iterable[str],
    repeat: int,
    progress: Progress,
    run: Run,
) -> None:
    chosen = [i for i in impls if i.format in formats or i is baseline(impls, i.format)]
    timed: list[tuple[Implementation, str]] = []
    for impl in chosen:
        if not impl.supports(t):
            run.skipped.append(Skip(t.family, impl.label, "cannot express this family"))
            continue
        problem = agreement(impl, t)
        if problem is not None:
            run.skipped.append(
                Skip(t.family, impl.label, f"disagrees with the reference: {problem}")
            )
            continue
        timed += [(impl, op) for op in ("decode", "encode") if getattr(impl, op) is not None]
    cases = [_case(impl, op, t) for impl, op in timed]

    def tick(r: int) -> None:
        progress(f"{t.family} x{size}: repetition {r + 1}/{repeat}")

    medians = time_cases([fn for fn, _ in cases], repeat, on_repeat=tick)
    for (impl, op), (_, nbytes), seconds in zip(timed, cases, medians, strict=True):
        run.results.append(
            Result(
                t.family,
                size,
                impl.name,
                impl.label,
                impl.kind,
                impl.format,
                op,
                seconds,
                nbytes,
                len(t),
            )
        )


def _measure_memory(t: Transcript, size: int, impls: list[Implementation], run: Run) -> None:
    held: dict[str, float] = {}
    for impl in impls:
        if impl.decode is None or impl.name.startswith("raw-"):
            continue
        if not impl.supports(t) or any(
            s.label == impl.label and s.family == t.family for s in run.skipped
        ):
            continue
        held[impl.name] = held_bytes(impl.decode, impl.input_for(t)) / len(t)
    for impl in impls:
        if impl.name in held:
            ref = held.get(baseline(impls, impl.format).name)
            per = held[impl.name]
            run.memory.append(
                Memory(t.family, size, impl.label, impl.format, per, ref / per if ref else None)
            )


def run(
    families: Iterable[str],
    sizes: Iterable[int],
    formats: Iterable[str] = ("json", "msgpack"),
    repeat: int = 9,
    memory: bool = True,
    gc_size: int | None = 15_000,
    progress: Progress = lambda _: None,
) -> Run:
    """Check, then time every installed implementation on each family and size."""
    impls = registry()
    formats = tuple(formats)
    result = Run()
    for family in families:
        for size in sizes:
            progress(f"{family} x{size}: generating and checking")
            t = transcript(family, size)
            result.corpus.append(Corpus(family, size, len(json_bytes(t)), len(msgpack_bytes(t))))
            _measure_transcript(t, size, impls, formats, repeat, progress, result)
            if memory:
                progress(f"{family} x{size}: memory")
                chosen = [i for i in impls if i.format in formats or i is baseline(impls, i.format)]
                _measure_memory(t, size, chosen, result)
    result.results = _speedups(result.results, impls)
    if gc_size:
        progress(f"tool-heavy x{gc_size}: garbage collector")
        result.gc = measure_gc(gc_size, impls, formats)
    return result


def measure_gc(size: int, impls: list[Implementation], formats: Iterable[str]) -> list[GcShare]:
    """The collector's share of decoding ``size`` tool-heavy messages, frozen and unfrozen."""
    t = transcript("tool-heavy", size)
    out = []
    for impl in impls:
        if impl.format not in formats or impl.decode is None:
            continue
        if impl.kind != "minagent" and impl.name not in (
            "reference-json",
            f"untyped-{impl.format}",
        ):
            continue
        data = payload(t, impl.format) if impl.speaks_wire else impl.input_for(t)
        frozen = gc_share(impl.decode, data, 5, freeze=True)
        unfrozen = gc_share(impl.decode, data, 5, freeze=False)
        out.append(GcShare("tool-heavy", size, impl.label, frozen, unfrozen, len(gc.get_objects())))
    return out
