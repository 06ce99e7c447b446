"""Coverage-guided fuzz target (atheris) for the wire decoders.

Run from the repository root (see fuzz/README.md)::

    python fuzz/fuzz_wire.py json -max_total_time=300
    python fuzz/fuzz_wire.py msgpack -max_total_time=300

Every input goes through the chosen decoder as each accepted type; whatever decodes is encoded
again in both formats. Anything raised other than a `minagent.wire.WireError` (or an
`EncodeError` when re-encoding) is a finding: atheris stops and writes the input to
``crash-<sha1>`` in the working directory.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Any

import atheris
import msgspec

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

with atheris.instrument_imports():
    from minagent import wire
    from minagent.wire import Message, ModelResponse

TYPES: list[Any] = [list[Message], Message, ModelResponse, list[ModelResponse]]


def one_input(fmt: Any, data: bytes) -> None:
    """Decode ``data`` as every type; re-encode what decodes. Only our errors may escape."""
    for tp in TYPES:
        try:
            result = fmt.decode(data, type=tp)
        except wire.WireError:
            continue
        for target in (wire.json, wire.msgpack):
            with contextlib.suppress(wire.EncodeError):
                target.encode(result)


def seed_corpus(name: str) -> Path:
    """The seed corpus directory for ``name``, written from the property tests' seeds."""
    from tests.test_fuzz_props import SEEDS

    directory = ROOT / "fuzz" / "corpus" / name
    directory.mkdir(parents=True, exist_ok=True)
    encode = msgspec.json.encode if name == "json" else msgspec.msgpack.encode
    for i, seed in enumerate(SEEDS):
        (directory / f"seed-{i}").write_bytes(encode(seed))
    return directory


def main() -> None:
    """``python fuzz/fuzz_wire.py {json|msgpack} [libFuzzer flags]``."""
    if len(sys.argv) < 2 or sys.argv[1] not in ("json", "msgpack"):
        raise SystemExit(__doc__)
    name = sys.argv.pop(1)
    fmt = getattr(wire, name)
    corpus = seed_corpus(name)
    atheris.Setup([sys.argv[0], *sys.argv[1:], str(corpus)], lambda data: one_input(fmt, data))
    atheris.Fuzz()


if __name__ == "__main__":
    main()
