"""Print the hostile-input figures table of docs/hostile-input.md.

Run from the repository root: ``MINAGENT_EXAMPLES=60 python fuzz/figures.py`` (the budget of
docs/hostile-input.md: 300 mutated payloads per property). It runs the same checks as
tests/test_jsontestsuite.py, tests/test_msgpack_suite.py and tests/test_fuzz_props.py, counting
every decode instead of stopping at the first failure.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import test_fuzz_props as props  # noqa: E402
from tests import test_jsontestsuite as jts  # noqa: E402
from tests import test_msgpack_suite as mps  # noqa: E402

from minagent import wire  # noqa: E402
from minagent.wire import Message  # noqa: E402


def row(name: str, run: int, refused: int, accepted: int, foreign: int) -> str:
    """One markdown table row."""
    return f"| {name} | {run} | {refused} | {accepted} | {foreign} |"


def jsontestsuite() -> tuple[int, int, int, int]:
    """Every file in every placement: (run, refused correctly, accepted correctly, foreign)."""
    run = refused = accepted = foreign = 0
    for name in jts.FILES:
        doc = (jts.CORPUS / name).read_bytes()
        for where, data, tp in jts.placements(doc):
            run += 1
            try:
                result = wire.json.decode(data, type=tp)
            except wire.DecodeError:
                refused += name.startswith(("n_", "i_"))
                continue
            except wire.ValidationError:
                refused += name.startswith("i_") or (
                    name.startswith("y_") and "tool input" not in where
                )
                continue
            except Exception:
                foreign += 1
                continue
            good = not name.startswith("n_")
            if good and "tool input" in where:
                good = jts.tool_value(result) == json.loads(doc)
            accepted += good
    return run, refused, accepted, foreign


def msgpack_suite() -> tuple[int, int, int, int]:
    """Every encoding in a tool input, plus JSON refusals of the values JSON cannot hold."""
    run = refused = accepted = foreign = 0
    for param in mps.CASES:
        case = param.values[0]
        want = mps.expected(case)
        for encoding in case["msgpack"]:
            run += 1
            try:
                got = wire.msgpack.decode(mps.in_tool_input(mps.hexbytes(encoding)), type=Message)
            except Exception:
                foreign += 1
                continue
            value = got.content[0].input["v"]
            ok = mps.timestamp_of(value) == want if "timestamp" in case else mps.same(value, want)
            accepted += ok and wire.msgpack.decode(wire.msgpack.encode(got), type=Message) == got
            if any(k in case for k in mps.JSON_UNSAFE):
                run += 1
                try:
                    wire.json.encode(got)
                except wire.EncodeError as err:
                    refused += err.path == "$.content[0].input.v"
                except Exception:
                    foreign += 1
    return run, refused, accepted, foreign


def mutants() -> dict[str, int]:
    """Run the property tests once and return their tallies."""
    for test in (
        props.test_byte_mutations_raise_only_wire_errors,
        props.test_structural_mutations_raise_only_wire_errors,
        props.test_random_bytes_raise_only_wire_errors,
    ):
        test()
    return props.STATS


def main() -> None:
    """Print the table."""
    print("| input | decodes run | refused correctly | accepted correctly | other exceptions |")
    print("| --- | ---: | ---: | ---: | ---: |")
    print(row("JSONTestSuite, 318 files x 6-7 placements", *jsontestsuite()))
    print(row("msgpack-test-suite, 233 encodings (+ JSON refusals)", *msgpack_suite()))
    stats = mutants()
    decodes = stats["decoded"] + stats["refused"]
    print(
        row(
            f"mutated payloads: {stats['mutants']} inputs x 4 types",
            decodes + stats["foreign"],
            stats["refused"],
            stats["decoded"],
            stats["foreign"],
        )
    )


if __name__ == "__main__":
    main()
