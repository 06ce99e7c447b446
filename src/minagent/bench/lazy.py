"""The lazy benchmark: `minagent.wire` lazy decoding against minagent's own eager path.

Three operations, each timed for both paths on the same bytes, interleaved (`runner.time_cases`),
medians, ratios taken within one run:

- ``decode``: ``decode`` against ``decode_lazy`` (nothing read);
- ``pass-through``: decode, read every message's role and tool call names, encode again in the
  same format (eager reads ``m.tool_calls``; lazy reads ``m.tool_names``);
- ``full access``: decode and read every message's content and every block of it.

``ratio`` is eager time over lazy time (above 1: lazy is faster). Memory is the growth of
`tracemalloc`'s traced total while one decoded sequence is alive (`runner.held_bytes`), lazy
counted right after ``decode_lazy`` and again after every routing field was read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .. import wire
from .corpus import json_bytes, msgpack_bytes, transcript
from .runner import held_bytes, time_cases

__all__ = [
    "OPERATIONS",
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

    @property
    def ratio(self) -> float:
        """Eager time over lazy time (above 1: lazy is faster)."""
        return self.eager / self.lazy


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
                fns = [fn for op in OPERATIONS for fn in pairs[op]]
                medians = time_cases(fns, repeat)
                for k, op in enumerate(OPERATIONS):
                    eager, lazy = medians[2 * k], medians[2 * k + 1]
                    out.append(LazyResult(family, size, fmt, op, eager, lazy))
    return out


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
                cells.append(f"{found.lazy / found.eager:.2f} of eager")
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
        "Lazy vs eager (minagent), medians of one run: decode and pass-through as eager time / "
        "lazy time; full access as lazy cost / eager cost.",
        *text,
    ]
    if mem:
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
