"""The ``minagent`` command: ``convert``, ``validate``, ``stats``, ``schema`` and ``bench``.

Each subcommand lives in its own module, named in `COMMANDS`, and adds itself to the parser.
Exit status: 0 on success, 1 on invalid data (or a failed run), 2 on bad usage.

Examples: ``minagent convert session.jsonl session.msgpack``, ``minagent validate *.jsonl``,
``minagent stats session.json``, ``minagent schema``, ``minagent bench --quick``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from ._common import EXIT_ERROR, EXIT_OK, EXIT_USAGE, Subparsers, UsageError

__all__ = ["COMMANDS", "EXIT_ERROR", "EXIT_OK", "EXIT_USAGE", "main", "parser"]

COMMANDS: dict[str, tuple[str, str]] = {
    "convert": (
        "_convert",
        "convert between JSON, JSON Lines, framed MessagePack and provider bodies "
        "(Anthropic, OpenAI Chat and Responses, Gemini)",
    ),
    "validate": ("_validate", "check every record of one or more files"),
    "stats": ("_stats", "count messages, blocks, tool calls, bytes and usage in a file"),
    "schema": ("_schema", "print the JSON Schema of the wire protocol"),
    "bench": ("_bench", "time minagent against the reference and peers on a built-in corpus"),
}
"""Each command: the module defining its ``add_<command>`` function, and its one-line help.
Only the module of the command being run is imported (``--version`` and ``--help`` import
none, so they load no codec); a test checks each help line against the module's own."""


def _adder(name: str) -> Callable[[Subparsers], None]:
    module = importlib.import_module(f".{COMMANDS[name][0]}", __name__)
    add: Callable[[Subparsers], None] = getattr(module, f"add_{name}")
    return add


def parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``minagent`` argument parser; with ``only``, that command is complete and the others
    are listed by name and help line (without importing their modules)."""
    from .. import __version__

    p = argparse.ArgumentParser(
        prog="minagent", description="One typed, lossless and fast message protocol for agents."
    )
    p.add_argument("--version", action="version", version=f"minagent {__version__}")
    sub = p.add_subparsers(title="commands", metavar="COMMAND")
    for name, (_, summary) in COMMANDS.items():
        if only is None or name == only:
            _adder(name)(sub)
        else:
            sub.add_parser(name, help=summary)
    return p


def _command(argv: Sequence[str]) -> str:
    """The command ``argv`` names (its first word that is not an option), or ``""``."""
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else ""
    return ""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``minagent`` command; return its exit code (0 ok, 1 error, 2 bad usage)."""
    if argv is None:
        argv = sys.argv[1:]
    p = parser(_command(argv))
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
    except OSError as err:
        print(f"minagent: {err}", file=sys.stderr)
        return EXIT_ERROR
    return code
