"""The JSON Schema (draft 2020-12) of the wire protocol, generated from the Structs by msgspec.

``json_schema()`` returns one document whose ``$defs`` hold every Struct (``Message``,
``ModelResponse``, each content block and source) with the titles and descriptions of their
docstrings, field docstrings included. Its root accepts what `minagent.wire.json.decode` accepts:
a transcript (an array of Messages), one Message, one ModelResponse, or an array of them.

The document ships with the package, generated (`minagent.wire._schema_gen` says how, and what
is rewritten after msgspec); a test checks that the shipped file is what generation gives.
"""

from __future__ import annotations

import json as _stdjson
from pathlib import Path
from typing import Any

__all__ = ["SCHEMA_ID", "json_schema"]

SCHEMA_ID = "https://minagent.dev/schema/wire-1.json"
"""The ``$id`` of the schema document."""

SHIPPED = Path(__file__).with_name("schema.json")
"""The generated schema document, as compact JSON text."""


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the wire protocol, as a new dict each call."""
    result: dict[str, Any] = _stdjson.loads(SHIPPED.read_bytes())
    return result
