"""`minagent.bench.imports`: the import cost in fresh processes, as `minagent bench` prints it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from minagent.bench import imports, report
from minagent.bench.runner import Run

SRC = str(Path(__file__).resolve().parents[1] / "src")


def test_measure_times_each_case_in_fresh_processes_and_takes_the_median() -> None:
    """Two rounds of one import and one command give one median each, of two runs, kinds named,
    and a positive CPU time; the table names both and the wire/msgspec ratio when both ran."""
    costs = imports.measure(2, imports=("json",), commands=(("-c", "pass"),))
    assert [(c.case, c.kind, c.runs) for c in costs] == [
        ("import json", "import", 2),
        ("python -c pass", "command", 2),
    ]
    assert all(c.seconds > 0 for c in costs)
    text = imports.table(costs)
    assert text.splitlines()[0] == "Import cost (fresh processes, median of 2, interleaved):"
    assert "import minagent.wire / import msgspec" not in text
    both = [
        imports.ImportCost("import msgspec", "import", 0.020, 10),
        imports.ImportCost("import minagent.wire", "import", 0.030, 10),
    ]
    assert imports.table(both).splitlines()[-1] == (
        "  import minagent.wire / import msgspec: 1.50x"
    )


def test_self_times_lists_the_module_s_own_import_times() -> None:
    """`-X importtime` parsed: the largest own times, biggest first, the module itself among
    them when it is imported fresh."""
    own = imports.self_times("minagent.wire", top=200)
    names = [name for name, _ in own]
    assert "minagent.wire.blocks" in names and "minagent.wire._codec" not in names
    seconds = [s for _, s in own]
    assert seconds == sorted(seconds, reverse=True) and seconds[0] > 0


def test_the_json_document_carries_the_date_and_the_import_costs() -> None:
    """`report.to_json` dates the run (UTC) and lists the import costs when given."""
    cost = imports.ImportCost("import msgspec", "import", 0.02, 10)
    doc = report.to_json(Run(), {}, [cost])
    assert doc["imports"] == [
        {"case": "import msgspec", "kind": "import", "seconds": 0.02, "runs": 10}
    ]
    assert doc["date"].endswith(" UTC") and len(doc["date"]) == len("2026-01-01 00:00 UTC")
    json.dumps(doc)


def test_bench_imports_option_prints_only_the_import_table() -> None:
    """`minagent bench --imports --quick` prints the import table (3 rounds) and nothing else."""
    proc = subprocess.run(
        [sys.executable, "-m", "minagent.cli", "bench", "--imports", "--quick"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": SRC, "PATH": ""},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "Import cost (fresh processes, median of 3, interleaved):"
    assert [line.split()[0:2] for line in lines[1:8]] == [
        ["import", "msgspec"],
        ["import", "minagent.wire"],
        ["import", "minagent.wire.json"],
        ["python", "-c"],
        ["python", "-m"],
        ["python", "-m"],
        ["python", "-m"],
    ]
    assert lines[8].startswith("  import minagent.wire / import msgspec: ")
