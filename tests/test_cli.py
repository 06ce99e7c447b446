"""Tests of the ``minagent`` command line: in-process (`tests.cli_runner`) for what it reads and
writes, as a subprocess for the entry point, the bench, terminals, memory and missing extras."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

import minagent
from minagent import cli, wire
from minagent.bench import corpus
from minagent.cli import _formats as cli_formats
from minagent.cli._formats import PROVIDER_ADAPTERS
from minagent.wire.schema import json_schema
from minagent.wire.stream import encode_frames
from tests.cli_runner import run_cli, run_cli_text


def _spawn(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "minagent.cli", *args], capture_output=True, text=True, timeout=300
    )


def test_bench_quick_prints_the_table_and_writes_json_and_a_chart(tmp_path: Path) -> None:
    """`minagent bench --quick` prints the table and summary, writes the documented JSON and,
    with ``--plot FILE.png``, a PNG chart (matplotlib, the plot extra): one run for the three."""
    out, png = tmp_path / "bench.json", tmp_path / "chart.png"
    proc = _spawn(
        "bench", "--quick", "--family", "tool-heavy", "--size", "5", "--json", str(out),
        "--plot", str(png),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    head = png.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(head[16:20], "big") == 1512  # width in pixels
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
    proc = run_cli_text(*args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert proc.stdout == ""


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    """`minagent` alone lists the commands and exits 2."""
    assert cli.main([]) == 2
    assert "bench" in capsys.readouterr().err


def test_help_describes_the_bench_options(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`minagent bench --help` documents every option, and says truthfully which families run
    by default ('providers' does not)."""
    monkeypatch.setenv("COLUMNS", "400")  # argparse wraps at the terminal's width, even at '-'
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["bench", "--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    for option in ("--family", "--size", "--format", "--repeat", "--quick", "--json", "--plot"):
        assert option in text
    said = " ".join(text.split())
    assert (
        "(repeatable; default: tool-heavy, text-heavy, multilingual, rich, anthropic, "
        "anthropic-1in100); 'providers', not in the default, times the provider adapters"
    ) in said


# --- helpers ----------------------------------------------------------------------------------


def _corpus(family: str, size: int) -> bytes:
    return corpus.json_bytes(corpus.transcript(family, size))


BAD_LINES = (
    b'{"role":"user","content":"hi"}\n'
    b'{"role":"robot"}\n'
    b"\n"
    b'{"role":"user","content":[{"type":"text","text":1}]}\n'
    b"not json\n"
    b'{"role":"user"}'
)
BAD_ARRAY = (
    b'[{"role":"user","content":"a"},\n'
    b' {"role":"user","content":[{"type":"text"}]},\n'
    b'{"role":"tool"}, {"role":"x"}]'
)


# --- convert ----------------------------------------------------------------------------------


def test_convert_json_msgpack_json_gives_back_the_original(tmp_path: Path) -> None:
    """JSON -> MessagePack -> JSON is equal when parsed, and byte-equal under --canonical."""
    source = tmp_path / "in.json"
    source.write_bytes(_corpus("rich", 120))
    for args in (
        ["convert", str(source), str(tmp_path / "a.msgpack")],
        ["convert", str(tmp_path / "a.msgpack"), str(tmp_path / "back.json")],
        ["convert", "--canonical", str(source), str(tmp_path / "c.json")],
        ["convert", "--canonical", str(tmp_path / "a.msgpack"), str(tmp_path / "cback.json")],
    ):
        proc = run_cli(*args)
        assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "back.json").read_bytes()) == json.loads(source.read_bytes())
    assert (tmp_path / "back.json").read_bytes() == source.read_bytes()  # compact in, compact out
    canonical = wire.json.encode(wire.json.decode(source.read_bytes()), canonical=True)
    assert (tmp_path / "c.json").read_bytes() == canonical
    assert (tmp_path / "cback.json").read_bytes() == canonical
    assert proc.stderr == b"minagent convert: 120 records, msgpack -> json\n"


def test_convert_writes_exactly_what_the_library_writes(tmp_path: Path) -> None:
    """Framed MessagePack and JSON Lines outputs are the bytes of encode_frames / encode_lines."""
    data = _corpus("rich", 90)
    messages = wire.json.decode(data)
    (tmp_path / "in.json").write_bytes(data)
    assert run_cli("convert", str(tmp_path / "in.json"), str(tmp_path / "o.mpk")).returncode == 0
    assert (tmp_path / "o.mpk").read_bytes() == encode_frames(messages)
    proc = run_cli("convert", str(tmp_path / "o.mpk"), str(tmp_path / "o.jsonl"))
    assert proc.returncode == 0
    assert (tmp_path / "o.jsonl").read_bytes() == wire.json.encode_lines(messages)


def test_convert_reads_stdin_and_writes_stdout_with_from_and_to() -> None:
    """'-' is stdin / stdout; --from / --to name the formats; nothing else goes to stdout but
    the records (and the newline that ends a JSON document)."""
    data = _corpus("tool-heavy", 40)
    proc = run_cli("convert", "--from", "json", "--to", "jsonl", "-", "-", stdin=data)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == wire.json.encode_lines(wire.json.decode(data))
    back = run_cli("convert", "--from", "jsonl", "--to", "json", "-", "-", stdin=proc.stdout)
    assert back.stdout == data + b"\n"  # JSON on stdout ends its line


def test_convert_model_responses_round_trip(tmp_path: Path) -> None:
    """A file of ModelResponses is detected from its first record and converted as such."""
    responses = [
        wire.ModelResponse(
            message=wire.Message(role="assistant", content=f"answer {i}"),
            stop_reason="end_turn",
            usage={"input_tokens": i, "output_tokens": 2 * i},
        )
        for i in range(5)
    ]
    (tmp_path / "r.jsonl").write_bytes(wire.json.encode_lines(responses))
    assert (
        run_cli("convert", str(tmp_path / "r.jsonl"), str(tmp_path / "r.msgpack")).returncode == 0
    )
    frames = (tmp_path / "r.msgpack").read_bytes()
    assert frames == encode_frames(responses)


def test_convert_stops_at_bad_input_and_leaves_no_output(tmp_path: Path) -> None:
    """Invalid input: exit 1, the first error with line and path on stderr, no OUT file."""
    (tmp_path / "bad.json").write_bytes(BAD_ARRAY)
    proc = run_cli("convert", str(tmp_path / "bad.json"), str(tmp_path / "out.msgpack"))
    assert proc.returncode == 1
    assert proc.stderr.decode() == (
        f"minagent convert: {tmp_path / 'bad.json'}: Object missing required field `text` "
        "(line 2, at $[1].content[0])\n"
    )
    assert proc.stdout == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]


def test_convert_refuses_what_json_cannot_hold(tmp_path: Path) -> None:
    """MessagePack binary data inside a tool input cannot become JSON: exit 1 naming the path."""
    packed = msgspec.msgpack.encode(
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "c", "name": "n", "input": {"blob": b"\x00"}}],
        }
    )
    ok = msgspec.msgpack.encode({"role": "user", "content": "hi"})
    frames = b"".join(len(p).to_bytes(4, "big") + p for p in (ok, packed))
    (tmp_path / "in.msgpack").write_bytes(frames)
    proc = run_cli("convert", str(tmp_path / "in.msgpack"), str(tmp_path / "out.json"))
    assert proc.returncode == 1
    assert b"at $[1].content[0].input.blob" in proc.stderr
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["convert", "in.txt", "out.json"], "cannot tell the format of in.txt from its name"),
        (["convert", "in.json", "out.bin"], "pass --to"),
        (["convert", "missing.json", "out.json"], "no such file: missing.json"),
        (["convert", "--to", "xml", "a.json", "b.json"], "invalid choice: 'xml'"),
        (["convert", "a.json"], "the following arguments are required: OUT"),
        (["convert", "in.json", "no/such/dir/out.json"], "no such directory: no/such/dir"),
        (["validate"], "the following arguments are required: FILE"),
        (["validate", "missing.jsonl"], "no such file: missing.jsonl"),
        (["stats", "in.txt"], "cannot tell the format"),
        (["stats", "--format", "yaml", "in.json"], "invalid choice: 'yaml'"),
        (["schema", "--bogus"], "usage: minagent schema"),
        (["stats", "in.json", "in.txt"], "usage: minagent stats"),
        (["stats", "in.json", "in.txt"], "minagent stats: error: unrecognized arguments: in.txt"),
        (["convert", "in.json", "o.json", "x"], "minagent convert: error: unrecognized arguments"),
        (["validate", "--bogus", "in.json"], "usage: minagent validate"),
    ],
)
def test_bad_usage_of_the_data_commands_exits_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    """Bad usage (unknown format, missing file or argument) exits 2 and says why on stderr."""
    (tmp_path / "in.txt").write_bytes(b"[]")
    (tmp_path / "in.json").write_bytes(b"[]")
    monkeypatch.chdir(tmp_path)
    try:
        code = cli.main(args)
    except SystemExit as exit_info:  # argparse's own errors
        code = exit_info.code  # type: ignore[assignment]
    out, err = capsys.readouterr()
    assert code == 2
    assert message in err
    assert out == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.json", "in.txt"]


def test_bad_usage_through_the_entry_point(tmp_path: Path) -> None:
    """The same through a subprocess: exit 2, the reason on stderr, nothing on stdout."""
    proc = _spawn("convert", str(tmp_path / "missing.json"), str(tmp_path / "o.json"))
    assert proc.returncode == 2
    assert proc.stderr == f"minagent convert: no such file: {tmp_path / 'missing.json'}\n"
    assert proc.stdout == ""


def test_convert_shows_a_progress_bar_on_a_terminal_and_none_when_piped(tmp_path: Path) -> None:
    """On a terminal (stderr a pty) a rich bar counts the bytes read; piped, stderr has none."""
    data = _corpus("rich", 300)
    source = tmp_path / "in.json"
    source.write_bytes(data)
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "minagent.cli", "convert", str(source), str(tmp_path / "o.msgpack")],
        stderr=slave,
        stdout=subprocess.DEVNULL,
        env={**os.environ, "COLUMNS": "120"},  # a new pty has no size
    )
    os.close(slave)
    seen = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the pty
            break
        if not chunk:
            break
        seen.append(chunk)
    os.close(master)
    assert proc.wait(timeout=60) == 0
    shown = b"".join(seen)
    assert f"{len(data) / 1000:.1f}/{len(data) / 1000:.1f} kB".encode() in shown
    assert b"\x1b[" in shown  # drawn with terminal control sequences
    piped = subprocess.run(
        [sys.executable, "-m", "minagent.cli", "convert", str(source), str(tmp_path / "p.msgpack")],
        capture_output=True,
        timeout=60,
    )
    assert piped.stderr == b"minagent convert: 300 records, json -> msgpack\n"


def _peak_rss_kib(*args: str) -> int:
    """Peak RSS (KiB) of ``minagent ARGS`` run as a child of a fresh Python, which measures it
    with getrusage(RUSAGE_CHILDREN) (only that one child counts)."""
    code = (
        "import resource, subprocess, sys\n"
        "r = subprocess.run([sys.executable, '-m', 'minagent.cli', *sys.argv[1:]],"
        " stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "assert r.returncode == 0, r.returncode\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    return int(proc.stdout)


def test_large_files_stream_in_constant_memory(tmp_path: Path) -> None:
    """A 12 MB transcript goes JSON -> MessagePack -> JSON Lines and is validated in each form
    with a peak RSS within 8 MiB of validating a 5-message file: every reader and writer streams
    (holding the file would take more than its 12 MB)."""
    one = _corpus("tool-heavy", 300)[1:-1]
    big = tmp_path / "big.json"
    big.write_bytes(b"[" + b",".join([one] * 280) + b"]")
    assert big.stat().st_size > 11_500_000
    small = tmp_path / "small.json"
    small.write_bytes(_corpus("tool-heavy", 5))
    packed, lines = str(tmp_path / "big.msgpack"), str(tmp_path / "big.jsonl")
    base = _peak_rss_kib("validate", str(small))
    for args in (
        ["convert", str(big), packed],
        ["validate", packed],
        ["convert", packed, lines],
        ["validate", lines],
    ):
        peak = _peak_rss_kib(*args)
        assert peak - base < 8 * 1024, (args, base, peak)
    frames, pos, count = (tmp_path / "big.msgpack").read_bytes(), 0, 0
    while pos < len(frames):  # every message was written: count the frames
        pos += 4 + int.from_bytes(frames[pos : pos + 4], "big")
        count += 1
    assert (pos, count) == (len(frames), 300 * 280)
    assert (tmp_path / "big.jsonl").read_bytes().count(b"\n") == 300 * 280


# --- validate ---------------------------------------------------------------------------------


def test_validate_reports_every_bad_record_then_a_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every bad record of every file: file, line, JSON path, error; the summary comes last and
    counts the blank line (line 3 of a.jsonl) it skipped."""
    (tmp_path / "a.jsonl").write_bytes(BAD_LINES)
    (tmp_path / "b.json").write_bytes(BAD_ARRAY)
    (tmp_path / "good.json").write_bytes(_corpus("rich", 30))
    monkeypatch.chdir(tmp_path)  # the report names the files as given
    proc = run_cli_text("validate", "a.jsonl", "b.json", "good.json")
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [
        "a.jsonl: line 2: $.role: ValidationError: Invalid enum value 'robot'",
        "a.jsonl: line 4: $.content[0].text: ValidationError: Expected `str`, got `int`",
        "a.jsonl: line 5: $: DecodeError: invalid JSON: JSON is malformed: invalid character "
        "(byte 4)",
        "b.json: line 2: $[1].content[0]: ValidationError: Object missing required field `text`",
        "b.json: line 3: $[3].role: ValidationError: Invalid enum value 'x'",
        "FAILED: 3 files, 39 records, 5 bad, 1 blank line skipped",
    ]
    assert proc.stderr == ""


def test_validate_json_report(tmp_path: Path) -> None:
    """--format json prints one document: per file the records, the bad ones and where."""
    (tmp_path / "b.json").write_bytes(BAD_ARRAY)
    proc = run_cli("validate", "--format", "json", str(tmp_path / "b.json"))
    assert proc.returncode == 1
    assert json.loads(proc.stdout) == {
        "ok": False,
        "records": 4,
        "bad": 2,
        "blank_lines": 0,
        "files": [
            {
                "file": str(tmp_path / "b.json"),
                "format": "json",
                "records": 4,
                "bad": 2,
                "blank_lines": 0,
                "fatal": None,
                "ok": False,
                "errors": [
                    {
                        "line": 2,
                        "frame": None,
                        "path": "$[1].content[0]",
                        "error": "ValidationError",
                        "message": "Object missing required field `text`",
                    },
                    {
                        "line": 3,
                        "frame": None,
                        "path": "$[3].role",
                        "error": "ValidationError",
                        "message": "Invalid enum value 'x'",
                    },
                ],
            }
        ],
    }


def test_validate_frames_goes_past_a_bad_frame_and_reports_a_cut_one(tmp_path: Path) -> None:
    """In framed MessagePack a bad frame is reported by index and the next ones still count;
    a file cut inside a frame is reported as unreadable to the end."""
    good = msgspec.msgpack.encode({"role": "user", "content": "hi"})
    bad = msgspec.msgpack.encode({"role": "user", "content": 5})
    frames = [good, bad, good, good]
    data = b"".join(len(p).to_bytes(4, "big") + p for p in frames)
    (tmp_path / "f.msgpack").write_bytes(data + b"\x00\x00\x00\x09abc")
    proc = run_cli("validate", str(tmp_path / "f.msgpack"))
    assert proc.returncode == 1
    name = tmp_path / "f.msgpack"
    assert proc.stdout.decode().splitlines() == [
        f"{name}: frame 1: $.content: ValidationError: Expected `str | array`, got `int`",
        f"{name}: frame 4: TruncatedError: input ended inside frame 4 (it starts at byte offset "
        f"{len(data)})",
        f"FAILED: 1 file, 4 records, 1 bad, 1 unreadable to the end ({name})",
    ]


def test_validate_good_files_exit_0(tmp_path: Path) -> None:
    """Files with only good records: exit 0 and one summary line."""
    data = _corpus("rich", 50)
    (tmp_path / "a.json").write_bytes(data)
    (tmp_path / "a.jsonl").write_bytes(wire.json.encode_lines(wire.json.decode(data)))
    proc = run_cli("validate", str(tmp_path / "a.json"), str(tmp_path / "a.jsonl"))
    assert proc.returncode == 0
    assert proc.stdout == b"ok: 2 files, 100 records, 0 bad\n"


# --- stats ------------------------------------------------------------------------------------


STATS_INPUT = [
    wire.Message(role="system", content="be brief"),
    wire.Message(role="user", content=[wire.TextBlock(text="add 1 and 2")]),
    wire.Message(
        role="assistant",
        content=[
            wire.TextBlock(text="ok"),
            wire.ToolUseBlock(id="c1", name="add", input={"a": 1, "b": 2}),
            wire.ToolUseBlock(id="c2", name="add", input={"a": 3, "b": 4}),
            wire.ToolUseBlock(id="c3", name="search", input={"q": "x"}),
            wire.ServerToolUseBlock(id="s", name="web", input={"query": "q"}),
            wire.UnknownBlock(wire.Extra({"type": "future_block"})),
        ],
    ),
    wire.Message(role="tool", content="3", tool_call_id="c1"),
]


def test_stats_json_counts_exactly(tmp_path: Path) -> None:
    """Roles, blocks by type (unknown by name), tool calls by tool, and both sizes."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(wire.json.encode_lines(STATS_INPUT))
    proc = run_cli("stats", "--format", "json", str(path))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {
        "file": str(path),
        "format": "jsonl",
        "records": 4,
        "blank_lines": 0,
        "model_responses": 0,
        "roles": {"system": 1, "user": 1, "assistant": 1, "tool": 1},
        "blocks": {"(string content)": 2, "text": 2, "tool_use": 3, "server_tool_use": 1},
        "unknown_blocks": {"future_block": 1},
        "tool_calls": {"add": 2, "search": 1, "web": 1},
        "stop_reasons": {},
        "usage": {},
        "bytes": {
            "json": len(wire.json.encode(STATS_INPUT)),
            "msgpack": len(encode_frames(STATS_INPUT)),
        },
    }


def test_stats_totals_usage_of_model_responses_in_tables(tmp_path: Path) -> None:
    """For ModelResponses: usage totals and stop reasons, printed as tables (rich)."""
    responses = [
        wire.ModelResponse(
            message=wire.Message(role="assistant", content="hi"),
            stop_reason=reason,
            usage={"input_tokens": 10 * i, "output_tokens": i},
        )
        for i, reason in enumerate(["end_turn", "tool_use", "end_turn"], 1)
    ]
    path = tmp_path / "r.json"
    path.write_bytes(wire.json.encode(responses))
    proc = run_cli("stats", str(path))
    assert proc.returncode == 0, proc.stderr
    lines = [line.rstrip() for line in proc.stdout.decode().splitlines()]
    assert lines[0] == f"{path} (json): 3 records (3 ModelResponses)"
    assert [
        line.split("  ")[0] for line in lines if line.endswith(("count", "tokens", "bytes"))
    ] == [
        "messages by role",
        "content blocks by type",
        "stop reasons",
        "usage totals",
        "size as",
    ]
    assert [line.split() for line in lines if line.strip().startswith(("input_", "output_"))] == [
        ["input_tokens", "60"],
        ["output_tokens", "6"],
    ]
    assert [
        line.split() for line in lines if line.strip().startswith(("end_turn", "tool_use"))
    ] == [
        ["end_turn", "2"],
        ["tool_use", "1"],
    ]


def test_stats_of_bad_input_exits_1(tmp_path: Path) -> None:
    """stats stops at the first bad record (exit 1) and points to validate."""
    (tmp_path / "b.jsonl").write_bytes(BAD_LINES)
    proc = run_cli("stats", str(tmp_path / "b.jsonl"))
    assert proc.returncode == 1
    assert proc.stderr.decode() == (
        f"minagent stats: {tmp_path / 'b.jsonl'}: Invalid enum value 'robot' (line 2, at $.role)"
        " (run minagent validate for every error)\n"
    )


# --- schema, version, bench options -----------------------------------------------------------


def test_schema_prints_the_wire_schema(tmp_path: Path) -> None:
    """`minagent schema` prints json_schema() (indented); --compact -o writes it on one line."""
    proc = run_cli("schema")
    assert proc.returncode == 0
    assert proc.stdout == json.dumps(json_schema(), indent=2).encode() + b"\n"
    assert cli.main(["schema", "--compact", "-o", str(tmp_path / "s.json")]) == 0
    assert (tmp_path / "s.json").read_bytes() == json.dumps(json_schema()).encode() + b"\n"


def test_version_prints_the_package_version() -> None:
    """`minagent --version` prints the version and exits 0."""
    proc = _spawn("--version")
    assert proc.returncode == 0
    assert proc.stdout == f"minagent {minagent.__version__}\n"


def test_every_subcommand_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    """Each subcommand answers --help with exit 0 and its usage line."""
    for command in ("convert", "validate", "stats", "schema", "bench"):
        with pytest.raises(SystemExit) as exit_info:
            cli.main([command, "--help"])
        assert exit_info.value.code == 0
        assert capsys.readouterr().out.startswith(f"usage: minagent {command} ")


def test_bench_no_gc_keeps_memory_and_skips_the_collector(tmp_path: Path) -> None:
    """`--no-gc` measures memory but not the collector share (the JSON says so: gc == [])."""
    out = tmp_path / "b.json"
    proc = _spawn(
        "bench",
        "--family",
        "tool-heavy",
        "--size",
        "5",
        "--repeat",
        "1",
        "--no-gc",
        "--json",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    assert doc["gc"] == []
    assert {(m["label"], m["format"]) for m in doc["memory"]} >= {
        ("reference + json (stdlib)", "json"),
    }
    assert "collector share" not in proc.stdout
    assert "memory held per decoded message" in proc.stdout


def test_bench_plot_without_matplotlib_exits_1(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without matplotlib, `--plot` exits 1 before timing anything, naming the extra."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib: ImportError
    proc = run_cli_text("bench", "--quick", "--plot", "x.png")
    assert proc.returncode == 1
    assert (
        proc.stderr
        == "minagent bench: --plot needs matplotlib (pip install 'minagent-wire[plot]')\n"
    )
    assert proc.stdout == ""


# --- the README's tour ------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]
TOUR = ROOT / "examples" / "cli"
"""The files the command-line tours of the README and docs/cli.md run on."""


def _console_blocks() -> list[tuple[str, list[tuple[str, list[str]]]]]:
    """Every ```console block of README.md and docs/ that runs only ``minagent`` commands:
    (where, [(command, lines shown)])."""
    found = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        for match in re.finditer(r"```console\n(.*?)```", text, re.S):
            steps: list[tuple[str, list[str]]] = []
            for line in match.group(1).splitlines():
                if line.startswith("$ "):
                    steps.append((line[2:].split("  #")[0].strip(), []))
                else:
                    steps[-1][1].append(line)
            where = f"{page.relative_to(ROOT)}:{text.count(chr(10), 0, match.start()) + 1}"
            if all(command.startswith("minagent ") for command, _ in steps):
                found.append((where, steps))
    return found


def test_the_tours_are_found() -> None:
    """The README's tour shows each subcommand, in this order, and docs/cli.md has its own."""
    blocks = dict(_console_blocks())
    readme = next(steps for where, steps in blocks.items() if where.startswith("README.md"))
    assert [cmd.split()[1] for cmd, _ in readme] == [
        "convert",
        "convert",
        "validate",
        "stats",
        "schema",
        "bench",
    ]
    assert readme[-1] == ("minagent bench --quick", [])
    assert {"README.md", "docs/cli.md"} <= {where.split(":")[0] for where in blocks}


@pytest.mark.parametrize(
    ("where", "steps"), _console_blocks(), ids=[w for w, _ in _console_blocks()]
)
def test_a_cli_tour_shows_real_output(
    tmp_path: Path, where: str, steps: list[tuple[str, list[str]]]
) -> None:
    """Each `$ minagent ...` line of a console block, run in order in a copy of examples/cli/,
    prints exactly the lines shown under it (stdout and stderr, as a terminal shows them);
    `minagent bench` is not run (its figures are the machine's)."""
    for path in TOUR.iterdir():
        (tmp_path / path.name).write_bytes(path.read_bytes())
    minagent = f"{sys.executable} -m minagent.cli"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for command, shown in steps:
        if command.startswith("minagent bench"):
            continue
        proc = subprocess.run(
            ["bash", "-c", command.replace("minagent ", f"{minagent} ", 1)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,  # as a terminal shows them: in the order written
            text=True,
            cwd=tmp_path,
            env=env,
            timeout=60,
        )
        assert proc.stdout.splitlines() == shown, (where, command)


def test_the_codec_and_the_command_start_without_the_optional_libraries() -> None:
    """`import minagent.wire` (schema included) and `import minagent.cli` load none of rich,
    jsonschema or matplotlib: the codec needs msgspec alone, the command loads rich on use."""
    code = (
        "import sys, minagent.wire, minagent.wire.schema, minagent.cli\n"
        "print(sorted(m for m in ('rich', 'jsonschema', 'matplotlib') if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "[]\n", "")


def test_stats_tables_without_rich_exit_1_naming_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without rich, `stats` (tables) exits 1 naming the cli extra; --format json still works."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(wire.json.encode_lines(STATS_INPUT))
    monkeypatch.setitem(sys.modules, "rich", None)  # import rich: ImportError
    proc = run_cli_text("stats", str(path))
    assert proc.returncode == 1
    assert proc.stderr == (
        "minagent stats: the tables need rich (pip install 'minagent-wire[cli]'); "
        "or use --format json\n"
    )
    proc = run_cli_text("stats", "--format", "json", str(path))
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["records"] == 4


# --- provider formats -------------------------------------------------------------------------


def test_every_provider_adapter_is_a_convert_format() -> None:
    """Each adapter module in minagent.providers (a public module whose functions come from
    the adapter contract, ``kit.request_encoder``) is listed in the convert format table, so a new
    adapter cannot be forgotten there."""
    folder = Path(minagent.__file__).parent / "providers"
    modules = sorted(
        p.stem
        for p in folder.glob("*.py")
        if not p.stem.startswith("_") and "kit.request_encoder(" in p.read_text(encoding="utf-8")
    )
    assert sorted(PROVIDER_ADAPTERS.values()) == modules
    for prefix in PROVIDER_ADAPTERS:
        assert {f"{prefix}-request", f"{prefix}-response"} <= set(cli_formats.FORMATS)


# --- blank lines, counts, help ------------------------------------------------------------------


def test_blank_lines_are_counted_by_every_command(tmp_path: Path) -> None:
    """A JSON Lines file of 1 record and 2 blank lines (one of spaces, one after the last
    newline): convert, validate and stats each say so, in the singular and plural as due."""
    path = tmp_path / "one.jsonl"
    path.write_bytes(b'{"role":"user","content":"hi"}\n   \n\n')
    proc = run_cli_text("convert", str(path), str(tmp_path / "one.msgpack"))
    assert proc.stderr == "minagent convert: 1 record (2 blank lines skipped), jsonl -> msgpack\n"
    proc = run_cli_text("validate", str(path))
    assert proc.stdout == "ok: 1 file, 1 record, 0 bad, 2 blank lines skipped\n"
    proc = run_cli_text("stats", str(path))
    assert proc.stdout.splitlines()[0] == f"{path} (jsonl): 1 record (2 blank lines skipped)"
    proc = run_cli_text("stats", "--format", "json", str(path))
    assert json.loads(proc.stdout)["blank_lines"] == 2
    response = wire.ModelResponse(
        message=wire.Message(role="assistant", content="x"), stop_reason="end_turn", usage={}
    )
    path.write_bytes(wire.json.encode_lines([response]) + b"\n")
    proc = run_cli_text("stats", str(path))
    assert proc.stdout.splitlines()[0] == (
        f"{path} (jsonl): 1 record (1 ModelResponse; 1 blank line skipped)"
    )


def test_top_level_help_names_every_kind_of_convert_format(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`minagent --help` says convert handles provider bodies too, not only the three formats
    of the protocol."""
    monkeypatch.setenv("COLUMNS", "400")
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    line = next(x for x in capsys.readouterr().out.splitlines() if x.strip().startswith("convert"))
    assert " ".join(line.split()) == (
        "convert convert between JSON, JSON Lines, framed MessagePack and provider bodies "
        "(Anthropic, OpenAI Chat and Responses, Gemini)"
    )


# --- help texts (pinned by mutation testing, docs/mutation.md) ---------------------------------

_FORMAT_NAMES = [
    "json", "jsonl", "msgpack", "anthropic-request", "anthropic-response",
    "openai-chat-request", "openai-chat-response", "openai-responses-request",
    "openai-responses-response", "gemini-request", "gemini-response",
]  # fmt: skip
_RECORD_TYPES = ["auto", "message", "response"]

_OPTIONS: dict[str, list[tuple[Any, ...]]] = {
    "convert": [
        ("input", (), "input file ('-': stdin)", None, None, "IN", None),
        ("output", (), "output file ('-': stdout)", None, None, "OUT", None),
        ("source", ("--from",), "input format", None, _FORMAT_NAMES, None, None),
        ("target", ("--to",), "output format", None, _FORMAT_NAMES, None, None),
        (
            "type", ("--type",),
            "record type (default: auto, from the first record: an object with 'message' and "
            "no 'role' is a ModelResponse)",
            "auto", _RECORD_TYPES, None, None,
        ),
        (
            "canonical", ("--canonical",),
            "sort keys at every level (byte-identical output for equal input)",
            False, None, None, 0,
        ),
        (
            "messages_only", ("--messages-only",),
            "from a provider request to a transcript: write the messages and drop the other "
            "options (model, tools, ...), which a transcript cannot hold",
            False, None, None, 0,
        ),
        (
            "drop_unsupported", ("--drop-unsupported",),
            "to a provider format: drop what it cannot hold, listing each drop on stderr "
            "(default: stop with exit 1, naming it)",
            False, None, None, 0,
        ),
        (
            "no_progress", ("--no-progress",),
            "no progress bar (there is none anyway unless stderr is a terminal and OUT a file)",
            False, None, None, 0,
        ),
    ],
    "validate": [
        ("files", (), "files to check ('-': stdin)", None, None, "FILE", "+"),
        ("source", ("--from",), "format of every FILE", None, _FORMAT_NAMES, None, None),
        ("type", ("--type",), "record type", "auto", _RECORD_TYPES, None, None),
        (
            "report", ("--format",), "report format (json: one document on stdout)",
            "text", ["text", "json"], None, None,
        ),
    ],
    "stats": [
        ("file", (), "file to read ('-': stdin)", None, None, "FILE", None),
        ("source", ("--from",), "input format", None, _FORMAT_NAMES, None, None),
        ("type", ("--type",), "record type", "auto", _RECORD_TYPES, None, None),
        (
            "report", ("--format",),
            "text: tables (needs rich: pip install 'minagent-wire[cli]'); json: one document",
            "text", ["text", "json"], None, None,
        ),
    ],
    "schema": [
        ("output", ("-o", "--output"), "write to FILE (default: stdout)", "-", None, "FILE", None),
        ("compact", ("--compact",), "no indentation", False, None, None, 0),
    ],
}  # fmt: skip

_DESCRIPTIONS = {
    "convert": (
        "Convert a file of messages between formats, streaming in constant memory.\n"
        "Formats come from the file extensions or from --from / --to; '-' is stdin / stdout.\n"
        "Nothing is dropped: a record the target cannot hold stops the conversion (exit 1)\n"
        "and OUT is left as it was. Blank lines of a JSON Lines input are skipped and counted.\n"
        "\n"
        "OUT is never damaged: a file is written beside it and renamed into place at the end\n"
        "(an existing file keeps its mode, a new one gets 0666 less the umask; a symlink is\n"
        "written through to its target); FIFOs, devices, /dev/stdout and '-' are written\n"
        "directly. IN and OUT may be the same file. JSON on stdout ends with a newline."
    ),
    "validate": (
        "Decode every record of each FILE and report every one that is bad (file, line or "
        "frame, JSON path, what was wrong), not only the first; a summary line comes last. "
        "Blank lines of JSON Lines files are skipped and counted. Exit 0 if all are good, 1 if "
        "any is bad."
    ),
    "stats": (
        "Messages by role, content blocks by type (unknown types by name), tool calls by tool "
        "name, the size as a JSON transcript and as framed MessagePack, and usage totals for "
        "ModelResponses. Blank lines of a JSON Lines file are skipped and counted. Streams: "
        "constant memory."
    ),
    "schema": (
        "Print the JSON Schema (draft 2020-12) of the wire protocol, generated from the msgspec "
        "Structs, with titles and descriptions from their docstrings. Its root accepts a "
        "transcript, a Message, a ModelResponse or an array of ModelResponses."
    ),
}

_CONVERT_EPILOG = """formats:
  json                       .json            a JSON transcript: one array of Messages (or of ModelResponses)
  jsonl                      .jsonl, .ndjson  JSON Lines: one Message (or ModelResponse) per line
  msgpack                    .msgpack, .mpk   framed MessagePack: a 4-byte big-endian length, then one object, per record
  anthropic-request          --from/--to      anthropic request body (minagent.providers.anthropic)
  anthropic-response         --from/--to      anthropic response body (minagent.providers.anthropic)
  openai-chat-request        --from/--to      openai-chat request body (minagent.providers.openai_chat)
  openai-chat-response       --from/--to      openai-chat response body (minagent.providers.openai_chat)
  openai-responses-request   --from/--to      openai-responses request body (minagent.providers.openai_responses)
  openai-responses-response  --from/--to      openai-responses response body (minagent.providers.openai_responses)
  gemini-request             --from/--to      gemini request body (minagent.providers.gemini)
  gemini-response            --from/--to      gemini response body (minagent.providers.gemini)"""  # noqa: E501


@pytest.mark.parametrize("name", list(_OPTIONS))
def test_each_command_s_help_texts_exactly(name: str) -> None:
    """Each data command's parser: its one-line help, description, epilog and every argument
    (name, flags, help text, default, choices, metavar, arity) exactly; the description and
    epilog print as written (raw) for convert. Read from the parser, not from ``--help``,
    whose wrapping moves with the Python version."""
    import argparse

    top = cli.parser(name)
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    parser = sub.choices[name]
    assert [(a.dest, a.help) for a in sub._choices_actions if a.dest == name] == [
        (name, cli.COMMANDS[name][1])
    ]
    assert parser.prog == f"minagent {name}"
    assert parser.description == _DESCRIPTIONS[name]
    assert parser.epilog == (_CONVERT_EPILOG if name == "convert" else None)
    raw = parser.formatter_class is argparse.RawDescriptionHelpFormatter
    assert raw is (name == "convert")
    got = [
        (
            a.dest, tuple(a.option_strings), a.help, a.default, a.choices, a.metavar,
            0 if a.nargs == 0 else a.nargs,
        )
        for a in parser._actions
        if a.dest != "help"
    ]  # fmt: skip
    assert got == _OPTIONS[name]


def test_a_request_with_options_to_a_transcript_names_the_keys_it_would_lose(
    tmp_path: Path,
) -> None:
    """Without --messages-only, a request body with options going to a transcript exits 2 with
    this one line, naming the request's other keys sorted, and writes nothing."""
    path = (
        Path(__file__).parent
        / "data"
        / "provider-examples"
        / "anthropic"
        / "request_tool_result.json"
    )
    out = tmp_path / "t.jsonl"
    proc = run_cli("convert", "--from", "anthropic-request", str(path), str(out))
    assert (proc.returncode, proc.stdout) == (2, b"")
    assert proc.stderr == (
        b"minagent convert: a jsonl file holds messages only; the request's other keys "
        b"(max_tokens, model, tools) would be lost: pass --messages-only to drop them, or "
        b"convert to a request format\n"
    )
    assert not out.exists()


def test_the_progress_reader_hands_out_the_bytes_and_counts_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`progress_reader(..., show=True)` reads through to the file (sized reads and the rest)
    and its bar, named after the file, ends at the bytes read of the file's size; with
    ``show=False`` it is the file itself."""
    from minagent.cli._convert import progress_reader

    path = tmp_path / "in.json"
    path.write_bytes(b"abcdef")
    with path.open("rb") as raw, progress_reader(raw, str(path), True) as file:
        assert file is not raw
        assert (file.read(2), file.read(), file.read()) == (b"ab", b"cdef", b"")
    err = capsys.readouterr().err
    assert "in.json" in err
    assert "6/6 bytes" in err
    with path.open("rb") as raw, progress_reader(raw, str(path), False) as file:
        assert file is raw


def test_the_top_level_parser_exactly() -> None:
    """`minagent`'s parser: its name and description, ``--version`` printing
    ``minagent VERSION`` (in-process), and the commands listed under "commands" as COMMAND,
    each with its one-line help; ``parser(only)`` builds that command alone whole."""
    import argparse

    p = cli.parser()
    assert (p.prog, p.description) == (
        "minagent",
        "One typed, lossless and fast message protocol for agents.",
    )
    version = next(a for a in p._actions if isinstance(a, argparse._VersionAction))
    assert (version.option_strings, version.version) == (
        ["--version"],
        f"minagent {minagent.__version__}",
    )
    sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
    assert sub.metavar == "COMMAND"
    assert [g.title for g in p._action_groups if sub in g._group_actions] == ["commands"]
    assert [(a.dest, a.help) for a in sub._choices_actions] == [
        (name, help_line) for name, (_, help_line) in cli.COMMANDS.items()
    ]
    built = {name: [a.dest for a in c._actions] for name, c in sub.choices.items()}
    assert built["schema"] == ["help", "output", "compact"]  # parser(): every command whole
    for only, whole in (("", None), ("schema", "schema")):
        subs = next(
            a for a in cli.parser(only)._actions if isinstance(a, argparse._SubParsersAction)
        )
        assert {name: [a.dest for a in c._actions] for name, c in subs.choices.items()} == {
            name: built[name] if name == whole else ["help"] for name in cli.COMMANDS
        }  # the others listed by name only: their modules are not imported
    proc = run_cli_text("--version")
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        0,
        f"minagent {minagent.__version__}\n",
        "",
    )
