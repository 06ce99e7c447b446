"""The CLI's counting, tables and file handling pinned exactly, in-process.

The mutation run (docs/mutation.md, issue 30) found these behaviours covered only by the tests
that spawn ``python -m minagent.cli`` (which mutmut cannot attribute to a function) or by loose
assertions: the role and unknown-block counters, the byte sizes across batches, the text tables
line by line, the output-name rules of `Output`, `_silence_stdout` and `remove_stale_parts`.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from minagent import wire
from minagent.cli import _common
from minagent.cli._common import Output, UsageError, remove_stale_parts
from minagent.cli._stats import Stats
from minagent.wire.stream import encode_frames
from tests.cli_runner import run_cli

MESSAGES = [
    wire.Message(role="user", content="q"),
    wire.Message(role="user", content=[wire.TextBlock(text="a"), wire.TextBlock(text="b")]),
    wire.Message(
        role="assistant",
        content=[
            wire.ToolUseBlock(id="c1", name="add", input={"a": 1}),
            wire.UnknownBlock(wire.Extra({"type": "custom_tool_use", "name": "grep"})),
            wire.UnknownBlock(wire.Extra({"type": "custom_tool_use", "name": "grep"})),
            wire.UnknownBlock(wire.Extra({"type": "note", "name": "not-a-tool"})),
        ],
    ),
]
RESPONSE = wire.ModelResponse(
    message=wire.Message(role="assistant", content="hi"),
    stop_reason="end_turn",
    usage={"input_tokens": 1200, "output_tokens": 7},
)


def _table(header: str, *rows: str) -> list[str]:
    """A rich SIMPLE_HEAD table as the stats command prints it: blank line, header, rule, rows."""
    return ["", header, "\u2500" * len(header), *rows]


# --- Stats: the counters ------------------------------------------------------------------------


def test_stats_counts_repeated_roles_unknown_kinds_and_unknown_tool_names() -> None:
    """Roles and unknown kinds add up (2 users, 2 custom_tool_use); an unknown block's name
    counts as a tool call only when its type ends in tool_use (``note`` does not)."""
    stats = Stats()
    stats.add(MESSAGES)
    assert stats.roles == {"user": 2, "assistant": 1}
    assert stats.unknown == {"custom_tool_use": 2, "note": 1}
    assert stats.blocks == {"text": 2, "(string content)": 1, "tool_use": 1}
    assert stats.tools == {"grep": 2, "add": 1}


def test_stats_sizes_add_up_across_batches_of_one_and_more() -> None:
    """Batches of 1, 2 and 0 records give the sizes of one JSON array and of the frames of all
    three (the comma between batches counted once per later batch)."""
    stats = Stats()
    stats.add(MESSAGES[:1])
    stats.add(MESSAGES[1:])
    stats.add([])
    assert stats.records == 3
    assert stats.json_bytes == len(wire.json.encode(MESSAGES)) == 323
    assert stats.msgpack_bytes == len(encode_frames(MESSAGES)) == 245


def test_stats_json_size_is_none_once_a_record_cannot_be_json_and_stays_none() -> None:
    """A record only MessagePack can hold (a bin value) makes the JSON size None for good,
    while later batches still count their MessagePack frames."""
    holder = wire.msgpack.decode(
        b"\x91\x82\xa4role\xa9assistant\xa7content\x91\x84\xa4type\xa8tool_use\xa2id\xa1c"
        b"\xa4name\xa1f\xa5input\x81\xa1b\xc4\x01\x00"
    )
    stats = Stats()
    stats.add(holder)
    assert stats.json_bytes is None
    stats.add(MESSAGES)
    assert stats.json_bytes is None
    assert stats.msgpack_bytes == len(encode_frames(holder)) + len(encode_frames(MESSAGES))
    assert stats.records == 4


# --- stats: the text tables -------------------------------------------------------------------


def test_stats_tables_of_messages_line_by_line(tmp_path: Path) -> None:
    """The text report: the summary line, then each table with its header, rule and rows,
    counts right-aligned, unknown block types marked, and both sizes in bytes."""
    path = tmp_path / "m.jsonl"
    path.write_bytes(wire.json.encode_lines(MESSAGES))
    proc = run_cli("stats", str(path))
    assert (proc.returncode, proc.stderr) == (0, b"")
    assert [line.rstrip() for line in proc.stdout.decode().splitlines()] == [
        f"{path} (jsonl): 3 records",
        *_table("messages by role   count", "user                   2", "assistant              1"),
        *_table(
            "content blocks by type      count",
            "text                            2",
            "(string content)                1",
            "tool_use                        1",
            "custom_tool_use (unknown)       2",
            "note (unknown)                  1",
        ),
        *_table(
            "tool calls by tool   count", "grep                     2", "add                      1"
        ),
        *_table(
            "size as              bytes", "JSON transcript        323", "framed MessagePack     245"
        ),
    ]


def test_stats_tables_of_responses_show_stop_reasons_usage_in_tokens(tmp_path: Path) -> None:
    """ModelResponses add the stop-reason table and usage totals headed ``tokens``, thousands
    separated; the summary line names the responses."""
    path = tmp_path / "r.jsonl"
    path.write_bytes(wire.json.encode_lines([RESPONSE]))
    proc = run_cli("stats", str(path))
    assert [line.rstrip() for line in proc.stdout.decode().splitlines()] == [
        f"{path} (jsonl): 1 record (1 ModelResponse)",
        *_table("messages by role   count", "assistant              1"),
        *_table("content blocks by type   count", "(string content)             1"),
        *_table("stop reasons   count", "end_turn           1"),
        *_table("usage totals    tokens", "input_tokens     1,200", "output_tokens        7"),
        *_table(
            "size as              bytes", "JSON transcript        122", "framed MessagePack      99"
        ),
    ]


def test_stats_table_shows_a_dash_for_a_file_json_cannot_hold(tmp_path: Path) -> None:
    """A framed MessagePack file holding a bin value: the JSON size is ``-``."""
    data = (
        b"\x91\x82\xa4role\xa9assistant\xa7content\x91\x84\xa4type\xa8tool_use\xa2id\xa1c"
        b"\xa4name\xa1f\xa5input\x81\xa1b\xc4\x01\x00"
    )
    framed = encode_frames(wire.msgpack.decode(data))
    path = tmp_path / "b.msgpack"
    path.write_bytes(framed)
    proc = run_cli("stats", str(path))
    lines = [line.rstrip() for line in proc.stdout.decode().splitlines()]
    frames = len(framed)
    assert lines[-5:] == _table(
        "size as              bytes",
        "JSON transcript          -",
        f"framed MessagePack {frames:>7}",
    )


def test_stats_summary_line_is_not_highlighted_on_a_colour_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With colour forced, the summary line still has no escape codes (no number or path
    highlighting: the console is made with highlight=False)."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    path = tmp_path / "m.jsonl"
    path.write_bytes(wire.json.encode_lines(MESSAGES))
    proc = run_cli("stats", str(path))
    assert proc.stdout.decode().splitlines()[0] == f"{path} (jsonl): 3 records"


# --- validate: format and type ------------------------------------------------------------------


def test_validate_reads_the_format_given_by_from_whatever_the_name(tmp_path: Path) -> None:
    """``--from jsonl`` reads a ``.txt`` file as JSON Lines (the name alone says nothing)."""
    path = tmp_path / "m.txt"
    path.write_bytes(wire.json.encode_lines(MESSAGES))
    proc = run_cli("validate", "--from", "jsonl", str(path))
    assert (proc.returncode, proc.stdout.decode()) == (0, "ok: 1 file, 3 records, 0 bad\n")


def test_validate_without_a_format_names_the_input_flag(tmp_path: Path) -> None:
    """A name with no known extension: exit 2, and the message asks for ``--from``."""
    path = tmp_path / "m.txt"
    path.write_bytes(b"[]")
    proc = run_cli("validate", str(path))
    assert proc.returncode == 2
    assert proc.stderr.decode().endswith(
        f"cannot tell the format of {path} from its name "
        "(.json, .jsonl, .ndjson, .msgpack, .mpk); pass --from\n"
    )


def test_validate_type_message_refuses_a_model_response(tmp_path: Path) -> None:
    """``--type message`` reads records as Messages: a ModelResponse record is an error."""
    path = tmp_path / "r.jsonl"
    path.write_bytes(wire.json.encode_lines([RESPONSE]))
    proc = run_cli("validate", "--type", "message", str(path))
    assert proc.returncode == 1
    assert proc.stdout.decode() == (
        f"{path}: line 1: $: ValidationError: Object missing required field `role`\n"
        "FAILED: 1 file, 1 record, 1 bad\n"
    )


# --- _common: argument parsing, stdout, output names, stale parts ------------------------------


def test_unknown_arguments_are_listed_space_separated() -> None:
    """Two stray arguments are both named, separated by one space, in the subcommand's usage."""
    proc = run_cli("stats", "a.jsonl", "b", "c")
    assert proc.returncode == 2
    assert proc.stderr.decode().splitlines()[-1] == (
        "minagent stats: error: unrecognized arguments: b c"
    )


@contextlib.contextmanager
def _stdout(stream: object) -> Iterator[None]:
    saved = sys.stdout
    sys.stdout = stream  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout = saved


def test_silence_stdout_points_fd_of_stdout_at_dev_null(tmp_path: Path) -> None:
    """After `_silence_stdout`, stdout's descriptor is /dev/null (same device), and no
    descriptor is left open."""
    with open(tmp_path / "out", "wb") as file:
        fd = file.fileno()
        before = len(os.listdir("/proc/self/fd"))
        with _stdout(file):
            _common._silence_stdout()
        assert os.fstat(fd).st_rdev == os.stat(os.devnull).st_rdev
        assert stat.S_ISCHR(os.fstat(fd).st_mode)
        assert len(os.listdir("/proc/self/fd")) == before


class _BadFd(io.RawIOBase):
    def fileno(self) -> int:
        return 1 << 20  # no such descriptor: dup2 raises OSError (EBADF)


@pytest.mark.parametrize(
    "stream",
    [None, io.StringIO(), _BadFd()],
    ids=["closed-stdout-None", "no-fileno-ValueError", "bad-fd-OSError"],
)
def test_silence_stdout_is_quiet_when_stdout_has_no_usable_descriptor(stream: object) -> None:
    """No stdout (AttributeError), one without a descriptor (ValueError) or with a bad one
    (OSError): nothing raised."""
    closed = io.BufferedWriter(io.FileIO(os.devnull, "w"))
    closed.close()
    with _stdout(stream):
        _common._silence_stdout()
    with _stdout(closed):  # fileno() of a closed file: ValueError alone
        _common._silence_stdout()


@pytest.mark.parametrize(
    ("name", "fd"),
    [("/dev/fd/5", 5), ("/proc/self/fd/7", 7), ("/dev/stdout", 1), ("/dev/stderr", 2), ("-", 1)],
)
def test_output_names_of_open_descriptors(name: str, fd: int) -> None:
    """Descriptor names are written through that descriptor, never opened as paths."""
    out = Output(name)
    assert (out.fd, out.direct) == (fd, False)


def test_output_of_a_regular_path_is_replaced_atomically(tmp_path: Path) -> None:
    """A new or existing regular file: no descriptor, not direct, its resolved path."""
    (tmp_path / "real.json").write_bytes(b"[]")
    (tmp_path / "link.json").symlink_to(tmp_path / "real.json")
    for name in ("new.json", "real.json", "link.json"):
        out = Output(str(tmp_path / name))
        assert (out.fd, out.direct) == (None, False)
    assert Output(str(tmp_path / "link.json")).path == tmp_path / "real.json"


@pytest.mark.parametrize("name", ["/dev/null", "/proc/self/comm", "/dev/shm/minagent-new.json"])
def test_output_under_dev_or_proc_or_not_regular_is_written_in_place(name: str) -> None:
    """A device, a /proc file (regular to stat) and a new file under /dev are written in place."""
    if not Path(name).parent.is_dir():
        pytest.skip(f"{Path(name).parent} does not exist here")
    out = Output(name)
    assert (out.fd, out.direct) == (None, True)


def test_output_errors_name_the_file(tmp_path: Path) -> None:
    """A directory, a path through a file and a missing folder are `UsageError` naming them."""
    (tmp_path / "f").write_bytes(b"")
    cases = {
        str(tmp_path): f"is a directory: {tmp_path}",
        str(tmp_path / "f" / "x"): f"cannot write {tmp_path / 'f' / 'x'}: Not a directory",
        str(tmp_path / "no" / "x"): f"no such directory: {tmp_path / 'no'}",
    }
    for name, message in cases.items():
        with pytest.raises(UsageError) as caught:
            Output(name)
        assert str(caught.value) == message


def test_same_file_compares_the_written_file_with_an_input(tmp_path: Path) -> None:
    """By descriptor or by path: the same file is the same (also through a link); another
    file, a missing one and stdin are not."""
    target, other = tmp_path / "t.json", tmp_path / "o.json"
    target.write_bytes(b"[]")
    other.write_bytes(b"[]")
    (tmp_path / "l.json").symlink_to(target)
    by_path = Output(str(target))
    assert by_path.same_file(str(target)) and by_path.same_file(str(tmp_path / "l.json"))
    assert not by_path.same_file(str(other))
    assert not by_path.same_file(str(tmp_path / "missing.json"))
    assert not by_path.same_file("-")
    with open(target, "rb") as file:
        by_fd = Output(f"/dev/fd/{file.fileno()}")
        assert by_fd.same_file(str(target))
        assert not by_fd.same_file(str(other))


def _part(folder: Path, target: str, pid: int | str, host: str = _common._HOST) -> Path:
    return folder / f".{target}.minagent-{host}-{pid}-r{len(os.listdir(folder))}.part"


def test_remove_stale_parts_removes_only_dead_runs_regular_files(tmp_path: Path) -> None:
    """Among 10 parts of running processes, 10 of dead ones, one with a pid too large to
    signal, another host's, another target's, a symlink and a FIFO named like parts: exactly
    the dead runs' regular files are removed, whatever order the folder lists them in."""
    dead = int(Path("/proc/sys/kernel/pid_max").read_text()) + 1  # no process can have it
    kept, gone = [], []
    for _ in range(10):
        kept.append(_part(tmp_path, "out.json", os.getpid()))
        kept[-1].write_bytes(b"x")
        gone.append(_part(tmp_path, "out.json", dead))
        gone[-1].write_bytes(b"x")
    huge = _part(tmp_path, "out.json", "9" * 30)
    foreign = _part(tmp_path, "out.json", dead, host="elsewhere")
    other = _part(tmp_path, "other.json", dead)
    for path in (huge, foreign, other):
        path.write_bytes(b"x")
    link = _part(tmp_path, "out.json", dead)
    link.symlink_to(tmp_path / "other-target")
    (tmp_path / "other-target").write_bytes(b"x")
    fifo = _part(tmp_path, "out.json", dead)
    os.mkfifo(fifo)
    removed = remove_stale_parts(tmp_path / "out.json")
    assert sorted(removed) == sorted(gone)
    assert not any(path.exists() for path in gone)
    assert all(path.exists() for path in (*kept, huge, foreign, other, fifo))
    assert link.is_symlink()


def test_remove_stale_parts_of_a_missing_folder_is_empty(tmp_path: Path) -> None:
    """A target in a folder that does not exist: nothing to remove, no error."""
    assert remove_stale_parts(tmp_path / "no" / "out.json") == []


def test_same_file_of_stdout_compares_the_open_descriptor(tmp_path: Path) -> None:
    """``-`` is descriptor 1: compared by what it has open (``minagent convert in -`` with
    stdout redirected onto ``in`` is the same file), not by the name ``-``."""
    target, other = tmp_path / "t.json", tmp_path / "o.json"
    target.write_bytes(b"[]")
    other.write_bytes(b"[]")
    saved = os.dup(1)
    try:
        with open(target, "ab") as file:
            os.dup2(file.fileno(), 1)
        same, different = Output("-").same_file(str(target)), Output("-").same_file(str(other))
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    assert (same, different) == (True, False)


def test_remove_stale_parts_goes_on_past_a_part_it_cannot_remove(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unlink that fails (here every one) skips that part only: each of the 5 dead runs'
    parts is tried, none is reported removed."""
    dead = int(Path("/proc/sys/kernel/pid_max").read_text()) + 1
    parts = []
    for _ in range(5):
        parts.append(_part(tmp_path, "out.json", dead))
        parts[-1].write_bytes(b"x")
    tried: list[str] = []

    def refuse(path: str) -> None:
        tried.append(path)
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(_common.os, "unlink", refuse)
    assert remove_stale_parts(tmp_path / "out.json") == []
    assert sorted(tried) == sorted(map(str, parts))


# --- main: what a handler raises ----------------------------------------------------------------


def test_an_interrupted_command_exits_130(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C inside a command ends it with 130 (128 + SIGINT), as shells report it."""
    path = tmp_path / "m.jsonl"
    path.write_bytes(wire.json.encode_lines(MESSAGES))

    def interrupt(self: Stats, batch: list[object]) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(Stats, "add", interrupt)
    assert run_cli("stats", str(path)).returncode == 130


def test_an_os_error_while_reading_is_one_line_and_exit_1() -> None:
    """A read the system refuses (``/proc/self/mem`` at offset 0: EIO) is one line naming the
    error, exit 1, no traceback."""
    proc = run_cli("validate", "--from", "jsonl", "/proc/self/mem")
    assert (proc.returncode, proc.stdout) == (1, b"")
    assert proc.stderr.decode() == "minagent: [Errno 5] Input/output error\n"
