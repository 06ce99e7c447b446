"""Tests of the benchmark corpus, the implementation registry and the agreement check."""

from __future__ import annotations

import dataclasses

import pytest

from minagent import types as ref
from minagent import wire
from minagent.bench import runner
from minagent.bench.corpus import FAMILIES, SIZES, json_bytes, msgpack_bytes, transcript
from minagent.bench.implementations import Implementation, agreement, baseline, registry


def test_corpus_is_deterministic() -> None:
    """The same family, size and seed always give the same bytes, even outside the cache."""
    for family in FAMILIES:
        first = json_bytes(transcript(family, 40))
        transcript.cache_clear()
        assert json_bytes(transcript(family, 40)) == first
        assert json_bytes(transcript(family, 40, seed=7)) != first


@pytest.mark.parametrize("family", list(FAMILIES))
def test_corpus_has_the_requested_size(family: str) -> None:
    """Every family yields exactly the requested number of messages, the seed's 5 included."""
    for size in (1, SIZES[0], 123):
        assert len(transcript(family, size)) == size


@pytest.mark.parametrize("family", ["tool-heavy", "text-heavy", "multilingual"])
def test_reference_families_match_their_reference(family: str) -> None:
    """The wire data is exactly the reference objects' to_wire(), and minagent decodes it back."""
    t = transcript(family, 300)
    assert t.reference is not None
    assert t.wire == [m.to_wire() for m in t.reference]
    assert wire.to_reference(wire.json.decode(json_bytes(t))) == t.reference
    assert wire.msgpack.decode(msgpack_bytes(t)) == wire.from_reference(t.reference)


def _texts(family: str) -> str:
    return "".join(m.content for m in transcript(family, 300).reference or [])


def test_families_have_their_shape() -> None:
    """Tool-heavy is mostly tool traffic, text-heavy long ASCII, multilingual mostly non-ASCII."""
    tool = transcript("tool-heavy", 300).reference or []
    assert sum(1 for m in tool if m.tool_calls or m.role == "tool") > len(tool) / 2
    assert max(len(m.content) for m in tool) < 200
    text = _texts("text-heavy")
    assert text.isascii() and len(text) / 300 > 500
    multi = _texts("multilingual")
    assert sum(not c.isascii() for c in multi) > len(multi) / 2
    assert any("\u4e00" <= c <= "\u9fff" for c in multi) and "ж" in multi.lower() + "ж"
    assert any(ord(c) > 0xFFFF for c in multi)  # emoji outside the BMP


def test_rich_family_is_beyond_the_reference() -> None:
    """The rich family holds thinking, images, unknown blocks and extra keys, and no reference."""
    t = transcript("rich", 300)
    assert t.reference is None
    kinds = {b["type"] for m in t.wire if isinstance(m["content"], list) for b in m["content"]}
    assert {"thinking", "image", "tool_use", "web_search_tool_result"} <= kinds
    decoded = wire.json.decode(json_bytes(t))
    assert any(
        isinstance(b, wire.UnknownBlock)
        for m in decoded
        if isinstance(m.content, list)
        for b in m.content
    )
    with pytest.raises(wire.ValidationError):
        wire.to_reference(decoded)


def test_every_installed_implementation_agrees() -> None:
    """Each registered implementation agrees with the corpus on every family it can express."""
    for family in FAMILIES:
        t = transcript(family, SIZES[0])
        for impl in registry():
            if impl.supports(t):
                assert agreement(impl, t) is None, (family, impl.name)


def _lossy_reference() -> Implementation:
    base = baseline(registry(), "json")
    encode = base.encode
    assert encode is not None

    def drop_ids(msgs: list[ref.Message]) -> bytes:
        return encode([dataclasses.replace(m, tool_call_id=None) for m in msgs])

    return dataclasses.replace(base, name="lossy", label="lossy", encode=drop_ids)


def test_agreement_catches_a_lossy_encoder() -> None:
    """An encoder that drops tool_call_id is reported as disagreeing, with the reason."""
    problem = agreement(_lossy_reference(), transcript("tool-heavy", SIZES[0]))
    assert problem is not None and "different data" in problem


def test_agreement_catches_a_crashing_decoder() -> None:
    """A decoder that raises disagrees (the run goes on) and the error is named."""

    def broken(data: bytes) -> object:
        raise RuntimeError("boom")

    impl = dataclasses.replace(baseline(registry(), "json"), decode=broken)
    assert agreement(impl, transcript("tool-heavy", SIZES[0])) == "RuntimeError: boom"


def test_disagreeing_implementation_is_not_timed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner reports a disagreeing implementation under skipped and times the others."""
    lossy = _lossy_reference()
    monkeypatch.setattr(runner, "registry", lambda: [*registry(), lossy])
    result = runner.run(["tool-heavy"], [SIZES[0]], ("json",), repeat=1, memory=False, gc_size=None)
    assert any(s.label == "lossy" and "disagrees" in s.reason for s in result.skipped)
    names = {r.implementation for r in result.results}
    assert "lossy" not in names and {"reference-json", "minagent-json"} <= names
    ref_rows = [r for r in result.results if r.implementation == "reference-json"]
    assert all(r.speedup == pytest.approx(1.0) for r in ref_rows)


def test_memory_and_collector_measurements() -> None:
    """held_bytes sees a decoded transcript's memory; gc_share is a share between 0 and 1."""
    data = json_bytes(transcript("tool-heavy", 300))
    assert runner.held_bytes(wire.json.decode, data) > 300 * 50
    share = runner.gc_share(wire.json.decode, data, 2, freeze=True)
    assert 0.0 <= share < 1.0
