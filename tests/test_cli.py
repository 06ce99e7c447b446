"""Tests of the ``minagent`` command line (run as a subprocess, as a user would)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from minagent import cli


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "minagent.cli", *args], capture_output=True, text=True, timeout=300
    )


def test_bench_quick_prints_the_table_and_writes_json(tmp_path: Path) -> None:
    """`minagent bench --quick` prints the table and summary and writes the documented JSON."""
    out = tmp_path / "bench.json"
    proc = _run("bench", "--quick", "--family", "tool-heavy", "--size", "5", "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "tool-heavy, 5 messages" in proc.stdout
    assert "minagent JSON" in proc.stdout and "reference + json (stdlib)" in proc.stdout
    assert "speed-up against the reference" in proc.stdout
    assert "repetition" in proc.stderr  # progress goes to stderr
    doc = json.loads(out.read_text())
    assert doc["schema"] == 1
    assert {
        "libraries",
        "machine",
        "settings",
        "corpus",
        "results",
        "memory",
        "gc",
        "skipped",
        "not_installed",
    } <= set(doc)
    assert doc["corpus"] == [
        {
            "family": "tool-heavy",
            "size": 5,
            "json_bytes": doc["corpus"][0]["json_bytes"],
            "msgpack_bytes": doc["corpus"][0]["msgpack_bytes"],
        }
    ]
    row = next(r for r in doc["results"] if r["implementation"] == "minagent-json")
    assert {"operation", "format", "seconds", "mb_per_s", "messages_per_s", "speedup"} <= set(row)
    assert row["messages"] == 5 and row["seconds"] > 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["bench", "--size", "lots"], "--size"),
        (["bench", "--size", "0"], "between 1 and"),
        (["bench", "--family", "poetry"], "invalid choice"),
        (["bench", "--format", "xml"], "invalid choice"),
        (["bench", "--repeat", "0"], "positive integer"),
        (["bench", "--json", "/no/such/dir/out.json"], "no such directory"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_options_exit_2_with_a_clear_error(args: list[str], message: str) -> None:
    """Bad options exit with status 2 and say what is wrong on stderr, before any timing."""
    proc = _run(*args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert proc.stdout == ""


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    """`minagent` alone lists the commands and exits 2."""
    assert cli.main([]) == 2
    assert "bench" in capsys.readouterr().err


def test_help_describes_the_bench_options(capsys: pytest.CaptureFixture[str]) -> None:
    """`minagent bench --help` documents every option."""
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["bench", "--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    for option in ("--family", "--size", "--format", "--repeat", "--quick", "--json", "--plot"):
        assert option in text
