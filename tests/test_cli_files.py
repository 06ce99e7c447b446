"""The command line never damages a file: output modes, symlinks, FIFOs, devices, ``/dev/stdout``,
a file converted onto itself, files a killed run left behind, a closed stdout, and hostile input
that used to end in a traceback. Real files, links, FIFOs and processes throughout."""

from __future__ import annotations

import os
import re
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from minagent import cli, wire
from minagent.cli._common import EXIT_PIPE, remove_stale_parts
from minagent.wire.stream import encode_frames
from tests.cli_runner import run_cli

MESSAGES = [
    wire.Message(role="user", content="1 + 2?"),
    wire.Message(
        role="assistant",
        content=[wire.ToolUseBlock(id="c1", name="add", input={"b": 2, "a": 1})],
    ),
    wire.Message(role="tool", content="3", tool_call_id="c1"),
]
LINES = wire.json.encode_lines(MESSAGES)
HOST = re.sub(r"[^A-Za-z0-9_]", "_", socket.gethostname())
FRAMES = encode_frames(MESSAGES)


def _spawn(*args: str, **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "minagent.cli", *args], timeout=120, **kwargs
    )


@pytest.fixture
def umask() -> Iterator[None]:
    """Restores the process umask after a test that sets it."""
    saved = os.umask(0o022)
    os.umask(saved)
    yield
    os.umask(saved)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _parts(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".part"))


# --- modes ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o002, 0o664)])
def test_a_new_output_gets_0666_less_the_umask(
    tmp_path: Path, umask: None, mask: int, mode: int
) -> None:
    """A new OUT (convert and schema -o) has the mode open() would give it: 0666 & ~umask."""
    (tmp_path / "in.jsonl").write_bytes(LINES)
    os.umask(mask)
    assert (
        run_cli("convert", str(tmp_path / "in.jsonl"), str(tmp_path / "o.msgpack")).returncode == 0
    )
    assert cli.main(["schema", "-o", str(tmp_path / "s.json")]) == 0
    assert (_mode(tmp_path / "o.msgpack"), _mode(tmp_path / "s.json")) == (mode, mode)
    assert (tmp_path / "o.msgpack").read_bytes() == FRAMES


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o664, 0o755])
def test_an_existing_output_keeps_its_mode(tmp_path: Path, umask: None, mode: int) -> None:
    """Replacing an existing OUT keeps its mode bits, whatever the umask says."""
    (tmp_path / "in.jsonl").write_bytes(LINES)
    out = tmp_path / "o.msgpack"
    out.write_bytes(b"old")
    out.chmod(mode)
    os.umask(0o077)
    assert run_cli("convert", str(tmp_path / "in.jsonl"), str(out)).returncode == 0
    assert (_mode(out), out.read_bytes()) == (mode, FRAMES)
    assert _parts(tmp_path) == []


def test_a_failed_conversion_leaves_an_existing_output_as_it_was(tmp_path: Path) -> None:
    """Bad input: exit 1, OUT keeps its bytes, mode and inode, and no temporary file is left."""
    (tmp_path / "bad.jsonl").write_bytes(LINES + b'{"role":"robot"}\n')
    out = tmp_path / "o.msgpack"
    out.write_bytes(b"precious")
    out.chmod(0o640)
    inode = out.stat().st_ino
    proc = run_cli("convert", str(tmp_path / "bad.jsonl"), str(out))
    assert proc.returncode == 1
    assert (out.read_bytes(), _mode(out), out.stat().st_ino) == (b"precious", 0o640, inode)
    assert _parts(tmp_path) == []


# --- symlinks ---------------------------------------------------------------------------------


def test_a_symlink_output_is_written_through_to_its_target(tmp_path: Path) -> None:
    """OUT a symlink (through a second link): the final target gets the new content and keeps
    its mode, both links stay links pointing where they pointed."""
    (tmp_path / "in.jsonl").write_bytes(LINES)
    real = tmp_path / "data" / "real.msgpack"
    real.parent.mkdir()
    real.write_bytes(b"old")
    real.chmod(0o640)
    (tmp_path / "hop.msgpack").symlink_to(real)
    link = tmp_path / "link.msgpack"
    link.symlink_to("hop.msgpack")
    assert run_cli("convert", str(tmp_path / "in.jsonl"), str(link)).returncode == 0
    assert link.is_symlink() and os.readlink(link) == "hop.msgpack"
    assert os.readlink(tmp_path / "hop.msgpack") == str(real)
    assert (real.read_bytes(), _mode(real)) == (FRAMES, 0o640)
    assert _parts(tmp_path) == [] and _parts(real.parent) == []


def test_a_dangling_symlink_output_creates_its_target(tmp_path: Path, umask: None) -> None:
    """OUT a symlink to a file not there yet: the target is created (0666 & ~umask), the link
    stays a link."""
    (tmp_path / "in.jsonl").write_bytes(LINES)
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "new.json")
    os.umask(0o022)
    assert run_cli("convert", str(tmp_path / "in.jsonl"), str(link)).returncode == 0
    assert link.is_symlink()
    assert (tmp_path / "new.json").read_bytes() == wire.json.encode(MESSAGES)
    assert _mode(tmp_path / "new.json") == 0o644


# --- FIFOs, devices, /dev/stdout, '-' ---------------------------------------------------------


def test_a_fifo_output_is_written_directly_and_stays_a_fifo(tmp_path: Path) -> None:
    """OUT a FIFO: its reader gets the records (it used to wait forever for a renamed-over
    FIFO), and the FIFO is still a FIFO afterwards."""
    (tmp_path / "in.jsonl").write_bytes(LINES)
    fifo = tmp_path / "pipe.msgpack"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    proc = _spawn("convert", str(tmp_path / "in.jsonl"), str(fifo), capture_output=True)
    reader.join(timeout=60)
    assert not reader.is_alive()
    assert proc.returncode == 0, proc.stderr
    assert received == [FRAMES]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert _parts(tmp_path) == []


def _char_device(tmp_path: Path) -> Path:
    """A private node of the null device (1:3) in ``tmp_path``: a real character device that
    no one else writes, and that an old CLI renaming onto it would not take from the machine."""
    node = tmp_path / "null.msgpack"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod refused (not root): no private character device")
    return node


LINK_TARGETS = {
    "/dev/stdout": "/proc/self/fd/1",
    "/dev/stderr": "/proc/self/fd/2",
    "/dev/fd": "/proc/self/fd",
}
DEV_ENTRIES = tuple(LINK_TARGETS)


@pytest.fixture
def dev_guard() -> Iterator[None]:
    """Fails the test if it replaced /dev/stdout, /dev/stderr or /dev/fd or left a temporary
    file in /dev, after putting things back: a CLI that renames onto /dev/stdout (as before
    issue 29) must fail this test without leaving the machine without /dev/stdout."""
    before = {name: os.lstat(name) for name in DEV_ENTRIES}
    listing = sorted(os.listdir("/dev"))
    yield
    damaged = []
    for name, was in before.items():
        now = os.lstat(name)
        if (now.st_mode, now.st_ino, now.st_rdev) == (was.st_mode, was.st_ino, was.st_rdev):
            continue
        damaged.append(name)
        os.unlink(name)
        os.symlink(LINK_TARGETS[name], name)
    created = sorted(n for n in set(os.listdir("/dev")) - set(listing) if n.endswith(".part"))
    for name in created:
        os.unlink(f"/dev/{name}")
    assert (damaged, created) == ([], [])


def test_a_device_output_is_written_directly(tmp_path: Path, dev_guard: None) -> None:
    """OUT a character device: written (the null device takes it), still the same device
    node afterwards, no temporary file beside it."""
    (tmp_path / "in.jsonl").write_bytes(LINES)
    node = _char_device(tmp_path)
    inode = node.lstat().st_ino
    proc = run_cli("convert", str(tmp_path / "in.jsonl"), str(node))
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISCHR(node.lstat().st_mode) and node.lstat().st_ino == inode
    assert _parts(tmp_path) == []


@pytest.mark.parametrize("name", ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "-"])
def test_dev_stdout_appends_to_what_stdout_already_holds(
    tmp_path: Path, name: str, dev_guard: None
) -> None:
    """stdout redirected (``>>``) to a file, OUT /dev/stdout (or -): the records follow what the
    file held, nothing is truncated or renamed; the file keeps its inode."""
    (tmp_path / "in.jsonl").write_bytes(LINES)
    log = tmp_path / "stdout.txt"
    log.write_bytes(b"before\n")
    inode = log.stat().st_ino
    with open(log, "ab") as out:
        proc = _spawn(
            "convert", "--to", "jsonl", str(tmp_path / "in.jsonl"), name,
            stdout=out, stderr=subprocess.PIPE,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert log.read_bytes() == b"before\n" + LINES
    assert log.stat().st_ino == inode
    assert proc.stderr == b"minagent convert: 3 records, jsonl -> jsonl\n"


# --- a file onto itself -----------------------------------------------------------------------


def test_converting_a_file_onto_itself_is_safe_and_keeps_its_mode(tmp_path: Path) -> None:
    """``convert --canonical a.json a.json`` rewrites a.json in canonical form (all of it read
    before the rename), keeping its mode; also through a symlink to it."""
    path = tmp_path / "a.json"
    path.write_bytes(wire.json.encode(MESSAGES))
    path.chmod(0o604)
    assert run_cli("convert", "--canonical", str(path), str(path)).returncode == 0
    canonical = wire.json.encode(MESSAGES, canonical=True)
    assert (path.read_bytes(), _mode(path)) == (canonical, 0o604)
    (tmp_path / "l.jsonl").symlink_to(path)
    proc = run_cli("convert", "--to", "jsonl", str(path), str(tmp_path / "l.jsonl"))
    assert proc.returncode == 0
    assert (path.read_bytes(), _mode(path)) == (
        wire.json.encode_lines(wire.json.decode(canonical)),
        0o604,
    )
    assert (tmp_path / "l.jsonl").is_symlink()


def test_converting_onto_itself_through_stdout_is_refused(tmp_path: Path, dev_guard: None) -> None:
    """stdout opened on IN itself (``1<>a.jsonl``) and OUT /dev/stdout: written in place it
    would destroy IN while reading it, so it is refused with exit 2 and IN is untouched."""
    path = tmp_path / "a.jsonl"
    path.write_bytes(LINES)
    with open(path, "r+b") as same:
        proc = _spawn(
            "convert", "--to", "json", str(path), "/dev/stdout", stdout=same, stderr=subprocess.PIPE
        )
    assert proc.returncode == 2
    assert (
        proc.stderr
        == (
            f"minagent convert: {path} is also OUT, and OUT (/dev/stdout) is written in place: "
            "convert to another file\n"
        ).encode()
    )
    assert path.read_bytes() == LINES


# --- a killed run -----------------------------------------------------------------------------


def test_a_killed_runs_temporary_file_is_found_and_removed_by_the_next_run(tmp_path: Path) -> None:
    """SIGKILL during a conversion leaves ``.OUT.minagent-HOST-PID-*.part`` (nothing can catch it);
    the next run writing OUT removes it, says so on stderr, and leaves no file of its own."""
    out = tmp_path / "o.msgpack"
    proc = subprocess.Popen(
        [sys.executable, "-m", "minagent.cli", "convert", "--from", "jsonl", "-", str(out)],
        stdin=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None
    proc.stdin.write(LINES)  # the run waits for the rest of its input
    proc.stdin.flush()
    deadline = time.monotonic() + 60
    while not _parts(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    proc.stdin.close()
    left = _parts(tmp_path)
    assert left == [f".o.msgpack.minagent-{HOST}-{proc.pid}-{left[0].rsplit('-', 1)[1]}"]
    (tmp_path / "in.jsonl").write_bytes(LINES)
    again = run_cli("convert", str(tmp_path / "in.jsonl"), str(out))
    assert again.returncode == 0
    assert again.stderr.decode().splitlines() == [
        f"minagent convert: removed {tmp_path / left[0]}, left by an interrupted run",
        "minagent convert: 3 records, jsonl -> msgpack",
    ]
    assert _parts(tmp_path) == [] and out.read_bytes() == FRAMES


def test_a_running_writers_temporary_file_is_left_alone(tmp_path: Path) -> None:
    """Only files of processes that no longer run on this machine are removed: not a live
    writer's, not another machine's, not another OUT's, not a file that merely looks similar."""
    target = tmp_path / "o.json"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    names = {
        f".o.json.minagent-{HOST}-{os.getpid()}-abc.part": True,  # this process: alive
        f".o.json.minagent-{HOST}-{dead.stdout.strip()}-abc.part": False,  # exited
        f".o.json.minagent-{HOST}x-{dead.stdout.strip()}-abc.part": True,  # another machine
        f".other.json.minagent-{HOST}-{dead.stdout.strip()}-abc.part": True,  # another OUT
        ".o.json.abc.part": True,  # not ours by name
    }
    for name in names:
        (tmp_path / name).write_bytes(b"x")
    removed = remove_stale_parts(target)
    assert [p.name for p in removed] == [n for n, kept in names.items() if not kept]
    assert _parts(tmp_path) == sorted(n for n, kept in names.items() if kept)


# --- a closed stdout --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "--format", "json", "{bad}"],
        ["validate", "{bad}"],
        ["convert", "--to", "jsonl", "{bad_json}", "-"],
        ["stats", "--format", "json", "{good}"],
        ["schema"],
    ],
)
def test_a_stdout_closed_by_its_reader_ends_quietly_with_141(
    tmp_path: Path, args: list[str]
) -> None:
    """The reader of stdout goes away before the command writes (``| head`` that has seen
    enough): exit 141 as for SIGPIPE, never 1 (invalid data), and nothing on stderr."""
    many_bad = b'{"role":"robot"}\n' * 5000  # a report far larger than a pipe's buffer
    files = {
        "bad": (tmp_path / "bad.jsonl", many_bad),
        "bad_json": (tmp_path / "big.json", wire.json.encode(MESSAGES * 5000)),
        "good": (tmp_path / "good.jsonl", LINES),
    }
    for path, data in files.values():
        path.write_bytes(data)
    argv = [a.format(**{k: str(p) for k, (p, _) in files.items()}) for a in args]
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first write
    try:
        proc = _spawn(*argv, stdout=write_end, stderr=subprocess.PIPE)
    finally:
        os.close(write_end)
    assert (proc.returncode, proc.stderr) == (EXIT_PIPE, b"")


def test_head_reading_two_lines_of_a_report_gives_141_not_1(tmp_path: Path) -> None:
    """``minagent validate --format json big.jsonl | head -2``: bash's PIPESTATUS shows 141
    for minagent (the file holds bad records, which alone would give 1) and head prints 2
    lines."""
    (tmp_path / "big.jsonl").write_bytes(b'{"role":"robot"}\n' * 20000)
    script = (
        f"{sys.executable} -m minagent.cli validate --format json big.jsonl | head -2; "
        'echo "status ${PIPESTATUS[0]}"'
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.stdout.splitlines() == ["{", '  "ok": false,', f"status {EXIT_PIPE}"]
    assert proc.stderr == ""


def test_a_stdout_closed_at_start_ends_quietly(tmp_path: Path) -> None:
    """Started with stdout closed (``>&-``), ``convert IN -`` exits 141 without a traceback."""
    (tmp_path / "in.jsonl").write_bytes(LINES)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run(
        ["bash", "-c", f"{sys.executable} -m minagent.cli convert in.jsonl - --to json >&-"],
        cwd=tmp_path, capture_output=True, env=env, timeout=120,
    )  # fmt: skip
    assert (proc.returncode, proc.stderr) == (EXIT_PIPE, b"")


# --- hostile input ----------------------------------------------------------------------------

DEPTH = 100_000


def _deep_files(folder: Path) -> dict[str, Path]:
    """First record nested DEPTH deep: JSON Lines arrays and objects, MessagePack arrays and
    maps, a JSON transcript; a good record follows."""
    good = wire.json.encode(MESSAGES[0])
    packed = [b"\x91" * DEPTH + b"\xc0", b"\x81\xa1a" * DEPTH + b"\xc0"]
    data = {
        "arrays.jsonl": b"[" * DEPTH + b"]" * DEPTH + b"\n" + good + b"\n",
        "objects.jsonl": b'{"a":' * DEPTH + b"1" + b"}" * DEPTH + b"\n" + good + b"\n",
        "arrays.json": b"[" + b"[" * DEPTH + b"]" * DEPTH + b"," + good + b"]",
        "arrays.msgpack": b"".join(len(p).to_bytes(4, "big") + p for p in packed[:1]) + FRAMES,
        "maps.msgpack": b"".join(len(p).to_bytes(4, "big") + p for p in packed[1:]) + FRAMES,
    }
    for name, raw in data.items():
        (folder / name).write_bytes(raw)
    return {name: folder / name for name in data}


@pytest.mark.parametrize(
    ("name", "where", "kind"),
    [
        ("arrays.jsonl", "line 1: $", "JSON"),
        ("objects.jsonl", "line 1: $", "JSON"),
        ("arrays.json", "line 1: $[0]", "JSON"),
        ("arrays.msgpack", "frame 0: $", "MessagePack"),
        ("maps.msgpack", "frame 0: $", "MessagePack"),
    ],
)
def test_input_nested_100k_deep_gives_one_line_and_exit_1(
    tmp_path: Path, name: str, where: str, kind: str
) -> None:
    """A first record nested 100k deep (it used to raise RecursionError from the format
    detection): validate reports it located and goes on; stats and convert print one line;
    every one exits 1, with no traceback."""
    path = _deep_files(tmp_path)[name]
    deep = (
        f"invalid {kind}: nesting deeper than max_depth=1000 or the interpreter's recursion limit"
    )
    records = 4 if name.endswith(".msgpack") else 2
    validate = _spawn("validate", str(path), capture_output=True)
    assert (validate.returncode, validate.stderr) == (1, b"")
    assert validate.stdout.decode().splitlines() == [
        f"{path}: {where}: DecodeError: {deep}",
        f"FAILED: 1 file, {records} records, 1 bad",
    ]
    at = where.replace(": ", ", at ")
    for args in (["stats", str(path)], ["convert", str(path), str(tmp_path / "out.jsonl")]):
        proc = _spawn(*args, capture_output=True)
        assert (proc.returncode, proc.stdout) == (1, b""), args
        assert proc.stderr.decode().splitlines() == [
            f"minagent {args[0]}: {path}: {deep} ({at})"
            + (" (run minagent validate for every error)" if args[0] == "stats" else "")
        ]
    assert not (tmp_path / "out.jsonl").exists()
