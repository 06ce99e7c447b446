"""The ``minagent`` command: ``convert``, ``validate``, ``stats``, ``schema`` and ``bench``.

Each subcommand lives in its own module and adds itself to the parser through `COMMANDS`.
Exit status: 0 on success, 1 on invalid data (or a failed run), 2 on bad usage.

Examples: ``minagent convert session.jsonl session.msgpack``, ``minagent validate *.jsonl``,
``minagent stats session.json``, ``minagent schema``, ``minagent bench --quick``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from ._bench import add_bench
from ._common import EXIT_ERROR, EXIT_OK, EXIT_USAGE, Subparsers, UsageError
from ._convert import add_convert
from ._schema import add_schema
from ._stats import add_stats
from ._validate import add_validate

__all__ = ["COMMANDS", "EXIT_ERROR", "EXIT_OK", "EXIT_USAGE", "main", "parser"]

COMMANDS: tuple[Callable[[Subparsers], None], ...] = (
    add_convert,
    add_validate,
    add_stats,
    add_schema,
    add_bench,
)
"""Each adds one subcommand to the parser; add a function here to add a command."""


def parser() -> argparse.ArgumentParser:
    """The ``minagent`` argument parser."""
    from .. import __version__

    p = argparse.ArgumentParser(
        prog="minagent", description="One typed, lossless and fast message protocol for agents."
    )
    p.add_argument("--version", action="version", version=f"minagent {__version__}")
    sub = p.add_subparsers(title="commands", metavar="COMMAND")
    for add in COMMANDS:
        add(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``minagent`` command; return its exit code (0 ok, 1 error, 2 bad usage)."""
    p = parser()
    args = p.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        p.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        code: int = handler(args)
    except KeyboardInterrupt:
        return 130
    except UsageError as err:
        print(f"minagent {handler.__name__.lstrip('_')}: {err}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_ERROR
    except OSError as err:
        print(f"minagent: {err}", file=sys.stderr)
        return EXIT_ERROR
    return code
