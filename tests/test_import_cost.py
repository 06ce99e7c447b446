"""What importing minagent loads: the types without the codec, the CLI's --version / --help
without any codec, and the decoders built on first use (times are in ``minagent bench``)."""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import minagent
from minagent import cli, wire
from minagent.wire import _codec

SRC = str(Path(__file__).resolve().parents[1] / "src")

HEAVY = (
    "minagent.wire._codec",
    "minagent.wire.json",
    "minagent.wire.msgpack",
    "minagent.wire.lazy",
    "minagent.wire.stream",
    "minagent.wire.schema",
    "minagent.providers",
)


def _loaded(code: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running ``code``."""
    probe = f"{code}\nimport sys\nprint('\\n'.join(sorted(sys.modules)))"
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": SRC, "PATH": ""},
    )
    return set(proc.stdout.split())


def test_import_wire_loads_the_types_and_no_codec() -> None:
    """`import minagent.wire` loads the Structs but none of the codec, lazy, stream, schema or
    provider modules."""
    loaded = _loaded("import minagent.wire")
    assert {"minagent.wire.blocks", "minagent.wire.messages", "msgspec"} <= loaded
    assert sorted(loaded.intersection(HEAVY)) == []


@pytest.mark.parametrize("args", [["--version"], ["--help"], []])
def test_version_and_help_load_no_codec(args: list[str]) -> None:
    """`minagent --version`, `--help` and a bare `minagent` import neither msgspec nor any
    command module."""
    call = (
        f"import sys\nfrom minagent import cli\ntry:\n    cli.main({args!r})\n"
        "except SystemExit:\n    pass"
    )
    loaded = _loaded(call)
    assert "minagent.cli" in loaded
    commands = {f"minagent.cli.{module}" for module, _ in cli.COMMANDS.values()}
    assert sorted(loaded & ({"msgspec", *HEAVY} | commands)) == []


def test_a_command_loads_only_its_own_module() -> None:
    """`minagent schema` imports the schema command's module, and no other command's."""
    loaded = _loaded("from minagent import cli\ncli.main(['schema', '-o', '/dev/null'])")
    commands = {f"minagent.cli.{module}" for module, _ in cli.COMMANDS.values()}
    assert sorted(loaded & commands) == ["minagent.cli._schema"]


def test_the_help_lines_are_the_commands_own() -> None:
    """Each one-line help `COMMANDS` lists without importing is the one the command's module
    gives, in the same order, and the full parser knows exactly these commands."""
    full = cli.parser()
    sub = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    own = [(choice.dest, choice.help) for choice in sub._choices_actions]
    assert own == [(name, summary) for name, (_, summary) in cli.COMMANDS.items()]


def test_lazy_names_resolve_and_unknown_names_fail() -> None:
    """The names `minagent.wire` imports on first use are the real objects; `dir` lists them;
    an unknown name is an AttributeError naming it."""
    from minagent.wire import _check, convert, lazy

    assert (wire.check, wire.to_reference, wire.LazyMessages) == (
        _check.check,
        convert.to_reference,
        lazy.LazyMessages,
    )
    assert wire.json.__name__ == "minagent.wire.json"
    assert {"json", "msgpack", "lazy", "check", "LazyMessage"} <= set(dir(wire))
    with pytest.raises(AttributeError, match=r"'minagent\.wire' has no attribute 'nope'"):
        wire.nope  # noqa: B018
    assert minagent.__version__


def test_decoders_are_built_once_even_by_racing_threads() -> None:
    """Eight threads asking a fresh codec for the same decoder all get one object, of that
    type; an unknown type is a TypeError naming the accepted ones."""
    fresh = _codec.Codec(
        _codec.msgspec.json,
        "JSON",
        text=True,
        enc_hook=_codec._json_hook,
        refused=None,
        unencodable=_codec._unencodable,
    )
    got: list[object] = []
    barrier = threading.Barrier(8)

    def ask() -> None:
        barrier.wait()
        got.append(fresh.decoder_for(list[wire.Message]))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 8 and len({id(d) for d in got}) == 1
    assert got[0].type == list[wire.Message]  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="type must be one of list\\[Message\\]"):
        fresh.decoder_for(dict)
    with pytest.raises(TypeError, match="type must be one of"):
        fresh.decoder_for([1])
