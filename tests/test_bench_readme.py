"""bench/readme_table.py: bench/README.md's measured table is generated from bench/results.json."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _script() -> Any:
    spec = importlib.util.spec_from_file_location(
        "readme_table", ROOT / "bench" / "readme_table.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _result(impl: str, op: str, fmt: str, seconds: float, speedup: float | None) -> dict[str, Any]:
    return {
        "family": "tool-heavy", "size": 300, "implementation": impl, "operation": op,
        "format": fmt, "seconds": seconds, "speedup": speedup,
        "vs_untyped": 1.5 if op == "decode" else None,
    }  # fmt: skip


def test_the_repository_readme_is_what_its_results_give() -> None:
    """`python bench/readme_table.py --check` passes on the committed README and results.json."""
    assert _script().main(["--check"]) == 0


def test_a_results_document_becomes_the_exact_block() -> None:
    """One family at 300 messages: the dated header, the row (speed-ups, vs untyped, vs
    msgspec's encode), the target row with its misses, the import costs; the rest of the README
    is kept and the markers stay."""
    doc = {
        "date": "2026-12-03 09:00 UTC",
        "machine": {"platform": "Linux-x"},
        "libraries": {"python": "3.11.7"},
        "settings": {"families": ["tool-heavy"], "sizes": [300], "formats": ["json", "msgpack"],
                     "repeat": 7},
        "corpus": [{"family": "tool-heavy", "size": 300}],
        "results": [
            _result("minagent-json", "decode", "json", 1e-4, 6.0),
            _result("minagent-json", "encode", "json", 5e-5, 13.0),
            _result("minagent-msgpack", "decode", "msgpack", 1e-4, 5.5),
            _result("minagent-msgpack", "encode", "msgpack", 4e-5, 20.0),
            _result("msgspec-untyped-json", "encode", "json", 4.5e-5, 20.0),
            _result("msgspec-untyped-msgpack", "encode", "msgpack", 4.4e-5, 20.0),
        ],
        "imports": [{"case": "import msgspec", "kind": "import", "seconds": 0.025, "runs": 10}],
    }  # fmt: skip
    script = _script()
    readme = f"# Title\n\n{script.START}\nold\n{script.END}\n\nTail.\n"
    out = script.regenerate(readme, doc)
    assert out.startswith(f"# Title\n\n{script.START}\nMeasured 2026-12-03 09:00 UTC, machine: ")
    assert out.endswith(f"{script.END}\n\nTail.\n")
    lines = out.splitlines()
    assert (
        "| tool-heavy | 300 | 6.00x | 13.0x | 5.50x | 20.0x | 1.50x | 1.50x | 0.90x | 1.10x |"
        in lines
    )
    assert (
        "| tool-heavy | 6.00x (>= 5) | 13.0x (>= 14: missed) | 5.50x (>= 5) | 20.0x (>= 15) |"
        in lines
    )
    assert "| `import msgspec` | 25.0 ms | CPU of the import |" in lines
    assert (
        "`minagent bench --family tool-heavy --size 300 --repeat 7 --json bench/results.json`"
        in out
    )
    json.dumps(doc)


def test_a_readme_without_markers_is_refused() -> None:
    """No start marker, or no end marker after it: the script stops and says which."""
    script = _script()
    with pytest.raises(SystemExit, match="no <!-- results-table:start --> marker"):
        script.regenerate("# nothing\n", {})
    with pytest.raises(SystemExit, match="no <!-- results-table:end --> marker"):
        script.regenerate(f"{script.START}\n", {})
