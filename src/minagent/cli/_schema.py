"""``minagent schema``: print the JSON Schema (draft 2020-12) of the wire protocol."""

from __future__ import annotations

import argparse
import json
import sys

from ..wire.schema import json_schema
from ._common import EXIT_OK, Subparsers, command, open_output, strict

__all__ = ["add_schema"]


def add_schema(sub: Subparsers) -> None:
    """Add the ``schema`` subcommand."""
    p = sub.add_parser(
        "schema",
        help="print the JSON Schema of the wire protocol",
        description="Print the JSON Schema (draft 2020-12) of the wire protocol, generated from "
        "the msgspec Structs, with titles and descriptions from their docstrings. Its root "
        "accepts a transcript, a Message, a ModelResponse or an array of ModelResponses.",
    )
    p.add_argument(
        "-o", "--output", default="-", metavar="FILE", help="write to FILE (default: stdout)"
    )
    p.add_argument("--compact", action="store_true", help="no indentation")
    strict(p)
    p.set_defaults(handler=_schema)


@command
def _schema(args: argparse.Namespace) -> int:
    text = json.dumps(json_schema(), indent=None if args.compact else 2, ensure_ascii=False)

    def note(line: str) -> None:
        print(f"minagent schema: {line}", file=sys.stderr)

    with open_output(args.output, report=note) as out:
        out.write(text.encode() + b"\n")
    return EXIT_OK
