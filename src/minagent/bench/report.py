"""Reports of a benchmark run: text tables, a JSON document, an optional chart (matplotlib)."""

from __future__ import annotations

import datetime
import json
import platform
import sys
from dataclasses import asdict
from importlib import metadata
from pathlib import Path
from typing import Any

from .corpus import FAMILIES
from .implementations import NOT_INSTALLED
from .imports import ImportCost
from .runner import Result, Run

__all__ = ["SCHEMA_VERSION", "libraries", "plot", "summary", "table", "to_json"]

SCHEMA_VERSION = 1
"""Version of the ``--json`` document's layout."""

_PACKAGES = (
    "minagent",
    "msgspec",
    "orjson",
    "pydantic",
    "pydantic-ai-slim",
    "langgraph",
    "langchain-core",
    "matplotlib",
)


def libraries() -> dict[str, str | None]:
    """Installed versions of the packages the benchmark can use (None when absent)."""
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def _time(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.0f} us"


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x" if value < 10 else f"{value:.1f}x"


def _rows(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    fmt = [f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths)]

    def line(cells: list[str]) -> str:
        return "  ".join(f.format(c) for f, c in zip(fmt, cells, strict=True)).rstrip()

    return [line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def table(run: Run) -> str:
    """One table per family and size: implementation x operation, times, rates, ratios."""
    out: list[str] = []
    for c in run.corpus:
        results = [r for r in run.results if (r.family, r.size) == (c.family, c.size)]
        out.append(
            f"{c.family}, {c.size} messages ({FAMILIES[c.family]}): "
            f"{c.json_bytes / 1e3:,.1f} kB JSON, {c.msgpack_bytes / 1e3:,.1f} kB MessagePack"
        )
        rows = [
            [
                r.label,
                r.operation,
                r.format,
                _time(r.seconds),
                f"{r.mb_per_s:,.0f}",
                f"{r.messages_per_s:,.0f}",
                _ratio(r.speedup),
                _ratio(r.vs_untyped),
            ]
            for r in sorted(results, key=lambda r: (r.format, r.operation))
        ]
        header = ["implementation", "op", "format", "time", "MB/s", "msg/s", "vs ref", "vs untyped"]
        out += _rows(header, rows)
        skipped = [s for s in run.skipped if s.family == c.family]
        out += [f"  not timed: {s.label}: {s.reason}" for s in skipped]
        out.append("")
    return "\n".join(out)


def summary(run: Run) -> str:
    """minagent against the reference (the issue's targets), memory, collector, absences."""
    out = ["minagent speed-up against the reference (median time ratio; higher is better):"]
    cols = [("decode", "json"), ("encode", "json"), ("decode", "msgpack"), ("encode", "msgpack")]
    names = {"json": "minagent-json", "msgpack": "minagent-msgpack"}
    rows = []
    for c in run.corpus:
        found = {
            (r.operation, r.format): r
            for r in run.results
            if (r.family, r.size) == (c.family, c.size) and r.implementation == names[r.format]
        }
        cells = [_ratio(found[k].speedup) if k in found else "-" for k in cols]
        untyped = [
            _ratio(found[k].vs_untyped) if k in found else "-" for k in cols if k[0] == "decode"
        ]
        rows.append([f"{c.family} x{c.size}", *cells, *untyped])
    header = [
        "family",
        "dec JSON",
        "enc JSON",
        "dec MsgPack",
        "enc MsgPack",
        "dec JSON vs untyped",
        "dec MsgPack vs untyped",
    ]
    out += _rows(header, rows)
    mine = [m for m in run.memory if m.label.startswith("minagent") and m.vs_reference]
    if mine:
        out.append("")
        out.append("memory held per decoded message (tracemalloc; reference / minagent):")
        out += [
            f"  {m.family} x{m.size} {m.format}: {m.bytes_per_message:,.0f} B "
            f"({_ratio(m.vs_reference)} smaller than the reference)"
            for m in mine
        ]
    for g in run.gc:
        out.append(
            f"collector share of decode time, {g.family} x{g.size}, {g.label}: "
            f"{g.frozen:.0%} after gc.freeze(), {g.unfrozen:.0%} unfrozen "
            f"({g.tracked:,} tracked objects in this process)"
        )
    if NOT_INSTALLED:
        out.append("not installed: " + "; ".join(f"{k} ({v})" for k, v in NOT_INSTALLED.items()))
    return "\n".join(out)


def to_json(
    run: Run, settings: dict[str, Any], imports: list[ImportCost] | None = None
) -> dict[str, Any]:
    """The run as a JSON-ready document (layout `SCHEMA_VERSION`), dated (UTC), with the import
    costs when measured."""
    results = []
    for r in run.results:
        item = asdict(r)
        item["mb_per_s"] = r.mb_per_s
        item["messages_per_s"] = r.messages_per_s
        results.append(item)
    return {
        "schema": SCHEMA_VERSION,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "libraries": libraries(),
        "machine": {"platform": platform.platform(), "implementation": sys.implementation.name},
        "settings": settings,
        "corpus": [asdict(c) for c in run.corpus],
        "results": results,
        "memory": [asdict(m) for m in run.memory],
        "gc": [asdict(g) for g in run.gc],
        "skipped": [asdict(s) for s in run.skipped],
        "not_installed": dict(NOT_INSTALLED),
        "imports": [asdict(c) for c in imports or []],
    }


def write_json(
    run: Run, settings: dict[str, Any], path: Path, imports: list[ImportCost] | None = None
) -> None:
    """Write `to_json` to ``path``."""
    document = to_json(run, settings, imports)
    path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")


def plot(run: Run, path: Path) -> None:
    """Save a chart: speed-up bars for one size, throughput (MB/s) against size for several.

    Raises ImportError when matplotlib is not installed (``pip install 'minagent-wire[plot]'``).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    families = list(dict.fromkeys(c.family for c in run.corpus))
    sizes = sorted({c.size for c in run.corpus})
    panels = [(op, fmt) for fmt in ("json", "msgpack") for op in ("decode", "encode")]
    fig, axes = plt.subplots(
        len(families),
        len(panels),
        figsize=(4.2 * len(panels), 3.2 * len(families)),
        squeeze=False,
    )
    for i, family in enumerate(families):
        for j, (op, fmt) in enumerate(panels):
            ax = axes[i][j]
            chosen = [
                r for r in run.results if (r.family, r.operation, r.format) == (family, op, fmt)
            ]
            if len(sizes) > 1:
                _throughput(ax, chosen)
            else:
                _bars(ax, chosen)
            ax.set_title(f"{family}: {op} {fmt}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _throughput(ax: Any, results: list[Result]) -> None:
    for label in dict.fromkeys(r.label for r in results):
        points = sorted((r.size, r.mb_per_s) for r in results if r.label == label)
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("messages", fontsize=8)
    ax.set_ylabel("MB/s", fontsize=8)
    ax.legend(fontsize=5)


def _bars(ax: Any, results: list[Result]) -> None:
    results = sorted(results, key=lambda r: r.mb_per_s)
    ax.barh([r.label for r in results], [r.mb_per_s for r in results])
    ax.set_xscale("log")
    ax.set_xlabel("MB/s (higher is better)", fontsize=8)
    ax.tick_params(labelsize=6)
