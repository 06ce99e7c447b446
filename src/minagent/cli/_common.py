"""What the subcommands share: exit codes, usage errors, opening ``-`` as stdin / stdout, writing
an output file without damaging anything, and stopping quietly when the reader goes away."""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import re
import socket
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, TypeAlias

__all__ = [
    "DIST",
    "EXIT_ERROR",
    "EXIT_OK",
    "EXIT_PIPE",
    "EXIT_USAGE",
    "STDIO",
    "Output",
    "Subparsers",
    "UsageError",
    "command",
    "open_input",
    "open_output",
    "plural",
    "strict",
]

EXIT_OK = 0
"""Exit status: success."""

EXIT_ERROR = 1
"""Exit status: invalid data (a bad record, one the target cannot hold), or a failed run."""

EXIT_USAGE = 2
"""Exit status: bad usage (an unknown option or format, a missing file or directory)."""

EXIT_PIPE = 128 + 13
"""Exit status when stdout was closed by its reader (``| head``): the shell's status for a
process killed by SIGPIPE, as ``cat`` or ``grep`` end in the same case."""

DIST = "minagent-wire"
"""The distribution name on PyPI (the import name is ``minagent``): what install hints name."""

STDIO = "-"
"""The file name that means stdin (for an input) or stdout (for an output)."""

if TYPE_CHECKING:
    Subparsers: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]
else:
    Subparsers = argparse._SubParsersAction
"""What a command's ``add_*`` function receives from `minagent.cli.parser`."""


class UsageError(Exception):
    """Bad usage found after argument parsing (a missing file, an unknown format): exit 2."""


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 record``, ``2 records``, ``1,000 records`` (``words``: an irregular plural)."""
    return f"{count:,} {word if count == 1 else words or word + 's'}"


def strict(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``parser`` (a subcommand's), made to reject arguments it does not know with its own usage
    line: argparse otherwise hands them back to the top-level parser, which prints the top-level
    usage (``minagent stats a b`` would show ``usage: minagent [-h] ...``)."""
    parse_known = parser.parse_known_args

    def parse_known_args(
        args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extra = parse_known(args, namespace)
        if extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        return parsed, extra

    parser.parse_known_args = parse_known_args  # type: ignore[method-assign, assignment]
    return parser


def command(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A subcommand's handler, made to end quietly with `EXIT_PIPE` when stdout is closed by its
    reader (``minagent validate --format json big.jsonl | head -2``), and to print one line
    with exit 1 for input nested too deep for the interpreter (never a traceback)."""

    @functools.wraps(handler)
    def run(args: argparse.Namespace) -> int:
        try:
            code = handler(args)
            if sys.stdout is not None:
                sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
            return code
        except BrokenPipeError:
            _silence_stdout()
            return EXIT_PIPE
        except (RecursionError, MemoryError) as err:
            what = "nested too deep" if isinstance(err, RecursionError) else "too large"
            print(f"minagent {handler.__name__.lstrip('_')}: input {what}", file=sys.stderr)
            return EXIT_ERROR

    return run


def _silence_stdout() -> None:
    """Point fd 1 at /dev/null, so that the interpreter's last flush of stdout cannot fail (it
    would print "Exception ignored ... BrokenPipeError" and exit 120)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


@contextlib.contextmanager
def open_input(name: str) -> Iterator[BinaryIO]:
    """Open ``name`` for binary reading (``-``: stdin); a missing file is a `UsageError`."""
    if name == STDIO:
        yield sys.stdin.buffer
        return
    try:
        file = open(name, "rb")  # noqa: SIM115 (closed below)
    except FileNotFoundError:
        raise UsageError(f"no such file: {name}") from None
    except IsADirectoryError:
        raise UsageError(f"is a directory: {name}") from None
    with file:
        yield file


# --- writing an output file -------------------------------------------------------------------

_FD_PATH = re.compile(r"/(?:dev/fd|proc/self/fd)/(\d+)")
_STD_NAMES = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
_HOST = re.sub(r"[^A-Za-z0-9_]", "_", socket.gethostname()) or "host"
"""This machine's name, as it appears in the names of our temporary files."""
_PART = re.compile(r"\.(?P<name>.+)\.minagent-(?P<host>[A-Za-z0-9_]+)-(?P<pid>\d+)-[^.]*\.part")
"""A temporary file of ours: ``.OUT.minagent-HOST-PID-RANDOM.part`` beside OUT."""


class Output:
    """Where and how `open_output` writes ``name``.

    ``fd`` is set for an open file descriptor (``-``, ``/dev/stdout``, ``/dev/fd/N``): written
    at its current offset, never truncated or renamed. ``direct`` is set for a FIFO, a device
    or anything else that is not a regular file (or lies under /dev or /proc): opened and
    written in place. Otherwise ``path`` is the regular file to replace atomically (a symlink
    resolved to its target, so the link stays and points at the new content).
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.fd: int | None = None
        self.direct = False
        self.path = Path(name)
        if name == STDIO:
            self.fd = 1
            return
        match = _FD_PATH.fullmatch(name)
        if match or name in _STD_NAMES:
            self.fd = int(match.group(1)) if match else _STD_NAMES[name]
            return
        try:
            mode = os.stat(name).st_mode  # follows links
        except FileNotFoundError:
            mode = None
        except OSError as err:
            raise UsageError(f"cannot write {name}: {err.strerror}") from None
        if mode is not None and stat.S_ISDIR(mode):
            raise UsageError(f"is a directory: {name}")
        real = Path(os.path.realpath(name))
        if (mode is not None and not stat.S_ISREG(mode)) or real.parts[1:2] in (
            ("dev",),
            ("proc",),
        ):
            self.direct = True
            return
        if not real.parent.is_dir():
            raise UsageError(f"no such directory: {Path(name).parent}")
        self.path = real

    def same_file(self, other: str) -> bool:
        """Whether ``other`` (an input file name) is the file this output writes."""
        if other == STDIO:
            return False
        try:
            here = os.fstat(self.fd) if self.fd is not None else os.stat(self.path)
            there = os.stat(other)
        except OSError:
            return False
        return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def remove_stale_parts(target: Path) -> list[Path]:
    """Delete the temporary files a killed run left beside ``target`` (``SIGKILL`` cannot be
    caught): ours by name, owned by this user and written on this machine by a process that no
    longer runs (a folder shared with other machines keeps their files). Returns what was
    removed."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return removed
    for entry in entries:
        match = _PART.fullmatch(entry.name)
        if match is None or (match.group("name"), match.group("host")) != (target.name, _HOST):
            continue
        pid = int(match.group("pid"))
        try:
            os.kill(pid, 0)
            continue  # still running (or not ours to signal): leave it
        except ProcessLookupError:
            pass
        except (PermissionError, OverflowError):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid():
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            continue
    return removed


@contextlib.contextmanager
def open_output(
    name: str | Output, report: Callable[[str], None] | None = None
) -> Iterator[BinaryIO]:
    """Open ``name`` for binary writing, never damaging what is there.

    - ``-``, ``/dev/stdout``, ``/dev/fd/N``: the open descriptor, written where it stands.
    - A FIFO, a device, anything that is not a regular file: opened and written in place.
    - A regular file (new or existing, or a symlink's target): written under a temporary name
      beside it, ``.OUT.minagent-HOST-PID-RANDOM.part``, flushed to disk and renamed into place only
      when the block ends without an exception, so a failed run leaves OUT as it was. The new
      file keeps the mode (and, when allowed, the owner) of the file it replaces; a new file gets
      0666 less the umask, as ``open()`` would give it. Temporary files that a killed run left
      beside OUT are removed first (``report`` is told of each).
    """
    out = name if isinstance(name, Output) else Output(name)
    if out.fd is not None:
        if out.fd == 1:
            if sys.stdout is None:  # started with stdout closed (``>&-``)
                raise BrokenPipeError("stdout is closed")
            sys.stdout.flush()
            yield sys.stdout.buffer
            sys.stdout.buffer.flush()
            return
        with os.fdopen(os.dup(out.fd), "wb") as file:
            yield file
        return
    if out.direct:
        try:
            file = open(out.name, "wb")  # noqa: SIM115 (closed below)
        except OSError as err:
            raise UsageError(f"cannot write {out.name}: {err.strerror}") from None
        with file:
            yield file
        return
    target = out.path
    for stale in remove_stale_parts(target):
        if report is not None:
            report(f"removed {stale}, left by an interrupted run")
    try:
        existing: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        existing = None
    fd, tmp = tempfile.mkstemp(
        prefix=f".{target.name}.minagent-{_HOST}-{os.getpid()}-", suffix=".part", dir=target.parent
    )
    try:
        with os.fdopen(fd, "wb") as file:
            yield file
            file.flush()
            if existing is None:
                os.fchmod(fd, 0o666 & ~_umask())
            else:
                if (existing.st_uid, existing.st_gid) != (os.geteuid(), os.getegid()):
                    with contextlib.suppress(OSError):  # allowed for root only
                        os.fchown(fd, existing.st_uid, existing.st_gid)
                os.fchmod(fd, stat.S_IMODE(existing.st_mode))  # after chown, which clears setuid
            os.fsync(fd)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
