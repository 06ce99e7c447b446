"""``minagent convert`` with provider bodies (the adapters in `minagent.providers`), run
in-process on the real provider examples in tests/data/provider-examples."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from minagent import cli, wire
from minagent.cli._formats import PROVIDER_ADAPTERS
from minagent.providers import anthropic
from tests.cli_runner import run_cli

EXAMPLES = Path(__file__).parent / "data" / "provider-examples"
FOLDERS = {"anthropic": "anthropic", "openai-chat": "openai"}
"""Format prefix -> folder of real examples (the other adapters ship theirs inside their tests)."""

CASES = [
    (prefix, path)
    for prefix, folder in FOLDERS.items()
    for path in sorted((EXAMPLES / folder).glob("*.json"))
]


def _convert(*args: str) -> subprocess.CompletedProcess[bytes]:
    """``minagent convert ARGS`` in-process (the entry point itself: tests/test_cli.py)."""
    return run_cli("convert", *args)


def test_the_example_folders_belong_to_registered_adapters() -> None:
    """Each provider with example bodies is a convert format, and every example is used."""
    assert set(FOLDERS) <= set(PROVIDER_ADAPTERS)
    assert len(CASES) == sum(len(list((EXAMPLES / f).glob("*.json"))) for f in FOLDERS.values())


@pytest.mark.parametrize(("prefix", "path"), CASES, ids=[f"{p}/{path.name}" for p, path in CASES])
def test_a_provider_body_converts_to_itself_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], prefix: str, path: Path
) -> None:
    """--from P-request --to P-request (or response) writes the body back equal when parsed
    (in-process, as every test here: tests/test_cli.py spawns the entry point)."""
    kind = "request" if path.name.startswith("request") else "response"
    fmt = f"{prefix}-{kind}"
    out = tmp_path / "out.json"
    assert cli.main(["convert", "--from", fmt, "--to", fmt, str(path), str(out)]) == 0
    assert json.loads(out.read_bytes()) == json.loads(path.read_bytes())
    assert capsys.readouterr().err == f"minagent convert: 1 record, {fmt} -> {fmt}\n"


def test_a_request_to_a_transcript_needs_messages_only(tmp_path: Path) -> None:
    """The request's options cannot go into a transcript: refused (exit 2) unless
    --messages-only, which writes exactly the decoded messages."""
    path = EXAMPLES / "anthropic" / "request_tool_result.json"
    out = tmp_path / "t.jsonl"
    proc = _convert("--from", "anthropic-request", str(path), str(out))
    assert proc.returncode == 2
    assert b"would be lost: pass --messages-only" in proc.stderr
    assert not out.exists()
    proc = _convert("--messages-only", "--from", "anthropic-request", str(path), str(out))
    assert proc.returncode == 0, proc.stderr
    request = anthropic.decode_request(path.read_bytes())
    assert out.read_bytes() == wire.json.encode_lines(request.messages)


def test_a_transcript_becomes_a_request_body(tmp_path: Path) -> None:
    """A JSON Lines transcript converts to an Anthropic request body of those messages."""
    messages = [
        wire.Message(role="system", content="be brief"),
        wire.Message(role="user", content="hi"),
    ]
    path = tmp_path / "t.jsonl"
    path.write_bytes(wire.json.encode_lines(messages))
    proc = _convert("--to", "anthropic-request", str(path), "-")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == anthropic.encode_request(messages) + b"\n"  # JSON on stdout: a line
    assert anthropic.decode_request(proc.stdout).messages == messages


def test_what_the_target_provider_cannot_hold_stops_or_is_listed(
    tmp_path: Path,
) -> None:
    """A signed thinking block cannot go to OpenAI Chat Completions (no place for thinking):
    exit 1 naming it; with --drop-unsupported it is dropped and each drop is listed on
    stderr."""
    path = EXAMPLES / "anthropic" / "response_thinking_text.json"
    args = [
        "--from",
        "anthropic-response",
        "--to",
        "openai-chat-response",
        str(path),
    ]
    proc = _convert(*args, str(tmp_path / "o.json"))
    assert proc.returncode == 1
    assert b"(at $.message.content[0])" in proc.stderr
    assert not (tmp_path / "o.json").exists()
    proc = _convert("--drop-unsupported", *args, "-")
    assert proc.returncode == 0, proc.stderr
    assert b"minagent convert: dropped " in proc.stderr
    assert b"(at $.message.content[0])" in proc.stderr
