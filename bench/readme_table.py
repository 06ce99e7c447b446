"""Regenerate bench/README.md's measured table from bench/results.json.

Usage: ``python bench/readme_table.py [results.json] [README.md]`` (defaults: the files next to
this script). The text between ``<!-- results-table:start -->`` and ``<!-- results-table:end -->``
in the README is replaced by: the run's date, versions and settings (as the command that
produced it), minagent's speed-up against the reference per family and size (decode and encode,
JSON and MessagePack, from the ``speedup`` fields), typed decode against msgspec's schema-less
decode of the same bytes (``vs_untyped``), JSON encode against msgspec's own encode of the same
data (the schema-less floor), and the import cost when the run measured it. Nothing is typed by
hand: ``--check`` exits 1 if the README is not what the JSON gives (a test runs it).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
START, END = "<!-- results-table:start -->", "<!-- results-table:end -->"
_COLUMNS = [("decode", "json"), ("encode", "json"), ("decode", "msgpack"), ("encode", "msgpack")]
_MINE = {"json": "minagent-json", "msgpack": "minagent-msgpack"}
_FLOOR = "untyped"
TARGETS = {
    "tool-heavy": (5, 14, 5, 15),
    "text-heavy": (3.2, 12, 9, 50),
    "multilingual": (1.6, 12, 1.7, 30),
}
"""Speed-up targets against the reference at 300 messages (issue 5; issue 28 restates the JSON
encode ones): decode JSON, encode JSON, decode MessagePack, encode MessagePack."""


def _ratio(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}x" if value < 10 else f"{value:.1f}x"


def _command(settings: dict[str, Any]) -> str:
    parts = ["minagent bench"]
    for family in settings.get("families", []):
        parts.append(f"--family {family}")
    sizes = settings.get("sizes")
    if sizes:
        parts.append("--size " + ",".join(str(s) for s in sizes))
    formats = settings.get("formats", [])
    if len(formats) == 1:
        parts.append(f"--format {formats[0]}")
    if "repeat" in settings:
        parts.append(f"--repeat {settings['repeat']}")
    return " ".join(parts) + " --json bench/results.json"


def _floor_encode(results: list[dict[str, Any]], family: str, size: int, fmt: str) -> str:
    """minagent's encode time against msgspec's own (schema-less) encode of the same data."""
    found = {
        r["implementation"]: r["seconds"]
        for r in results
        if (r["family"], r["size"], r["format"], r["operation"]) == (family, size, fmt, "encode")
    }
    floor = next((s for name, s in found.items() if _FLOOR in name and fmt in name), None)
    mine = found.get(_MINE[fmt])
    return _ratio(floor / mine) if floor and mine else "-"


def _mine(results: list[dict[str, Any]], family: str, size: int) -> dict[tuple[str, str], Any]:
    """minagent's results for one transcript, by (operation, format)."""
    return {
        (r["operation"], r["format"]): r
        for r in results
        if (r["family"], r["size"]) == (family, size) and r["implementation"] == _MINE[r["format"]]
    }


def table(doc: dict[str, Any]) -> str:
    """The README block for one results document."""
    results = doc["results"]
    versions = ", ".join(f"{k} {v}" for k, v in doc.get("libraries", {}).items() if v)
    lines = [
        f"Measured {doc.get('date', '(date not recorded)')}, machine: "
        f"{doc.get('machine', {}).get('platform', '?')}; {versions}.",
        "",
        f"Command: `{_command(doc.get('settings', {}))}`; medians of interleaved repetitions, "
        "ratios within the run. Generated from `bench/results.json` by "
        "`python bench/readme_table.py`.",
        "",
        "| family | size | decode JSON | encode JSON | decode MsgPack | encode MsgPack "
        "| decode JSON vs untyped | decode MsgPack vs untyped "
        "| encode JSON vs msgspec | encode MsgPack vs msgspec |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for corpus in doc["corpus"]:
        family, size = corpus["family"], corpus["size"]
        found = _mine(results, family, size)
        cells = [_ratio(found[k]["speedup"]) if k in found else "-" for k in _COLUMNS]
        untyped = [
            _ratio(found[k]["vs_untyped"]) if k in found else "-"
            for k in _COLUMNS
            if k[0] == "decode"
        ]
        floors = [_floor_encode(results, family, size, fmt) for fmt in ("json", "msgpack")]
        lines.append(f"| {family} | {size} | " + " | ".join([*cells, *untyped, *floors]) + " |")
    lines += [
        "",
        "Speed-ups are against the dataclass reference with stdlib `json` (`-`: the reference "
        'cannot express the family). "vs untyped" is msgspec\'s schema-less decode time over '
        'ours; "vs msgspec" is msgspec\'s schema-less encode of the same data over our encode '
        "(1.00x: as fast as msgspec itself).",
    ]
    targets = [(family, found) for family in TARGETS if (found := _mine(results, family, 300))]
    if targets:
        lines += [
            "",
            "Against the targets (300 messages, speed-up against the reference):",
            "",
            "| family | decode JSON | encode JSON | decode MessagePack | encode MessagePack |",
            "| --- | --- | --- | --- | --- |",
        ]
        for family, found in targets:
            cells = []
            for key, goal in zip(_COLUMNS, TARGETS[family], strict=True):
                got = found[key]["speedup"] if key in found else None
                mark = "" if got is not None and got >= goal else ": missed"
                cells.append(f"{_ratio(got)} (>= {goal}{mark})")
            lines.append(f"| {family} | " + " | ".join(cells) + " |")
    imports = doc.get("imports") or []
    if imports:
        lines += ["", "Import cost in the same run (fresh processes, medians):", ""]
        lines += ["| case | median | what |", "| --- | ---: | --- |"]
        for c in imports:
            what = "CPU of the import" if c["kind"] == "import" else "process CPU"
            lines.append(f"| `{c['case']}` | {c['seconds'] * 1e3:.1f} ms | {what} |")
    return "\n".join(lines)


def regenerate(readme: str, doc: dict[str, Any]) -> str:
    """``readme`` with its generated block replaced by `table` of ``doc``."""
    head, found, rest = readme.partition(START)
    if not found:
        raise SystemExit(f"readme_table: no {START} marker in the README")
    _, found, tail = rest.partition(END)
    if not found:
        raise SystemExit(f"readme_table: no {END} marker after {START}")
    return f"{head}{START}\n{table(doc)}\n{END}{tail}"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    paths = [a for a in argv if a != "--check"]
    results = Path(paths[0]) if paths else HERE / "results.json"
    readme = Path(paths[1]) if len(paths) > 1 else HERE / "README.md"
    doc = json.loads(results.read_text(encoding="utf-8"))
    old = readme.read_text(encoding="utf-8")
    new = regenerate(old, doc)
    if check:
        if new != old:
            print(f"readme_table: {readme} is not what {results} gives; run without --check")
            return 1
        return 0
    readme.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
