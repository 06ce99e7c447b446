"""What the subcommands share: exit codes, usage errors, opening ``-`` as stdin / stdout."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, TypeAlias

__all__ = [
    "EXIT_ERROR",
    "EXIT_OK",
    "EXIT_USAGE",
    "STDIO",
    "Subparsers",
    "UsageError",
    "open_input",
    "open_output",
]

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
"""Exit statuses: success, invalid data (or a failed run), bad usage."""

STDIO = "-"
"""The file name that means stdin (for an input) or stdout (for an output)."""

if TYPE_CHECKING:
    Subparsers: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]
else:
    Subparsers = argparse._SubParsersAction
"""What a command's ``add_*`` function receives from `minagent.cli.parser`."""


class UsageError(Exception):
    """Bad usage found after argument parsing (a missing file, an unknown format): exit 2."""


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


@contextlib.contextmanager
def open_output(name: str) -> Iterator[BinaryIO]:
    """Open ``name`` for binary writing (``-``: stdout).

    A file is written under a temporary name beside it and renamed into place only when the
    block ends without an exception, so a failed run never leaves a partial OUT behind.
    """
    if name == STDIO:
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    target = Path(name)
    if not target.parent.is_dir():
        raise UsageError(f"no such directory: {target.parent}")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            yield file
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
