"""Every implementation timed by the benchmark, behind one face (like msgspec's ``benchmarks/``).

An `Implementation` holds a transcript in its own in-memory form (``prepare``, untimed), encodes
that to bytes and decodes bytes back (both timed), and turns its objects back into wire data
(``to_wire``, untimed) so that `agreement` can check it against the corpus before it is timed.

Implementations that speak the protocol's own bytes (``speaks_wire``) all decode the same shared
payload (`corpus.json_bytes` / `corpus.msgpack_bytes`); peers with their own formats decode their
own encoding of the same conversation. Optional packages (orjson, pydantic, pydantic-ai,
LangGraph) are imported here only; a missing one leaves its implementations out, reported in
`NOT_INSTALLED`.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

from .. import types as ref
from .. import wire
from . import _peers
from .corpus import Transcript, json_bytes, json_view, msgpack_bytes

__all__ = [
    "FORMATS",
    "NOT_INSTALLED",
    "OPERATIONS",
    "Implementation",
    "agreement",
    "baseline",
    "payload",
    "registry",
]

FORMATS = ("json", "msgpack")
OPERATIONS = ("decode", "encode")


@dataclass(frozen=True)
class Implementation:
    """One way to turn a transcript into bytes and back."""

    name: str
    """Short stable id, e.g. ``minagent-json``."""
    label: str
    """What the table shows."""
    format: str
    """``json`` or ``msgpack``: which column of ratios it belongs to."""
    kind: str
    """``reference``, ``minagent``, ``model``, ``peer`` or ``floor``."""
    prepare: Callable[[Transcript], Any]
    """The transcript in this implementation's in-memory form (not timed)."""
    to_wire: Callable[[Any], Any]
    """Its objects back to wire data, as `corpus.json_view` shows it for JSON (not timed)."""
    encode: Callable[[Any], bytes] | None = None
    """Objects to bytes; None if the implementation only decodes."""
    decode: Callable[[bytes], Any] | None = None
    """Bytes to objects; None if the implementation only encodes."""
    speaks_wire: bool = True
    """Reads and writes the protocol's own bytes (so it decodes the shared payload)."""
    needs_reference: bool = False
    """Only for transcripts the dataclass reference can express."""
    canonical: bool = False
    """Its JSON must be byte-identical to the reference's (PROTOCOL.md, canonical form)."""

    def supports(self, t: Transcript) -> bool:
        """Whether this implementation can hold transcript ``t`` at all."""
        return t.reference is not None or not self.needs_reference

    def input_for(self, t: Transcript) -> bytes:
        """The bytes its ``decode`` is timed on."""
        if self.speaks_wire:
            return payload(t, self.format)
        assert self.encode is not None
        return self.encode(self.prepare(t))


def payload(t: Transcript, fmt: str) -> bytes:
    """The shared bytes every wire-speaking decoder of format ``fmt`` is timed on."""
    return json_bytes(t) if fmt == "json" else msgpack_bytes(t)


def _view(fmt: str, data: Any) -> Any:
    return json_view(data) if fmt == "json" else data


# --- the dataclass reference --------------------------------------------------------------------


def _ref_prepare(t: Transcript) -> list[ref.Message]:
    assert t.reference is not None
    return t.reference


def _ref_wire(fmt: str) -> Callable[[list[ref.Message]], Any]:
    return lambda msgs: _view(fmt, [m.to_wire() for m in msgs])


def _stdlib_encode(msgs: list[ref.Message]) -> bytes:
    wire_data = [m.to_wire() for m in msgs]
    text = json.dumps(wire_data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return text.encode("utf-8")


def _stdlib_decode(data: bytes) -> list[ref.Message]:
    return [ref.Message.from_wire(w) for w in json.loads(data)]


_MSGPACK_ANY = msgspec.msgpack.Decoder()
_MSGPACK_ENC = msgspec.msgpack.Encoder()
_JSON_ANY = msgspec.json.Decoder()
_JSON_ENC = msgspec.json.Encoder()


def _ref_msgpack_encode(msgs: list[ref.Message]) -> bytes:
    return _MSGPACK_ENC.encode([m.to_wire() for m in msgs])


def _ref_msgpack_decode(data: bytes) -> list[ref.Message]:
    return [ref.Message.from_wire(w) for w in _MSGPACK_ANY.decode(data)]


def _reference() -> list[Implementation]:
    common: dict[str, Any] = {"kind": "reference", "prepare": _ref_prepare, "needs_reference": True}
    out = [
        Implementation(
            "reference-json",
            "reference + json (stdlib)",
            "json",
            to_wire=_ref_wire("json"),
            encode=_stdlib_encode,
            decode=_stdlib_decode,
            **common,
        ),
        Implementation(
            "reference-msgpack",
            "reference + msgspec.msgpack untyped",
            "msgpack",
            to_wire=_ref_wire("msgpack"),
            encode=_ref_msgpack_encode,
            decode=_ref_msgpack_decode,
            **common,
        ),
    ]
    if _installed("orjson"):
        import orjson

        def orjson_encode(msgs: list[ref.Message]) -> bytes:
            return orjson.dumps([m.to_wire() for m in msgs], option=orjson.OPT_SORT_KEYS)

        def orjson_decode(data: bytes) -> list[ref.Message]:
            return [ref.Message.from_wire(w) for w in orjson.loads(data)]

        out.append(
            Implementation(
                "reference-orjson",
                "reference + orjson",
                "json",
                to_wire=_ref_wire("json"),
                encode=orjson_encode,
                decode=orjson_decode,
                **common,
            )
        )
    return out


# --- minagent ------------------------------------------------------------------------------------


def _minagent_prepare(t: Transcript) -> list[wire.Message]:
    if t.reference is not None:
        return wire.from_reference(t.reference)
    return wire.json.decode(json_bytes(t))


def _minagent_wire(fmt: str) -> Callable[[list[wire.Message]], Any]:
    """Structs to wire data: through the reference when it can hold them, else via the encoder."""

    def to_wire(msgs: list[wire.Message]) -> Any:
        try:
            back = wire.to_reference(msgs)
        except wire.ValidationError:
            if fmt == "json":
                return _JSON_ANY.decode(wire.json.encode(msgs))
            return _MSGPACK_ANY.decode(wire.msgpack.encode(msgs))
        return _view(fmt, [m.to_wire() for m in back])

    return to_wire


def _minagent() -> list[Implementation]:
    common: dict[str, Any] = {"kind": "minagent", "prepare": _minagent_prepare}

    def canonical(msgs: Any) -> bytes:
        return wire.json.encode(msgs, canonical=True)

    return [
        Implementation(
            "minagent-json",
            "minagent JSON",
            "json",
            to_wire=_minagent_wire("json"),
            encode=wire.json.encode,
            decode=wire.json.decode,
            **common,
        ),
        Implementation(
            "minagent-json-canonical",
            "minagent JSON canonical",
            "json",
            to_wire=_minagent_wire("json"),
            encode=canonical,
            canonical=True,
            **common,
        ),
        Implementation(
            "minagent-msgpack",
            "minagent MessagePack",
            "msgpack",
            to_wire=_minagent_wire("msgpack"),
            encode=wire.msgpack.encode,
            decode=wire.msgpack.decode,
            **common,
        ),
    ]


# --- pydantic models and real peers ------------------------------------------------------------


def _pydantic() -> list[Implementation]:
    from ._models import ADAPTER

    def prepare(t: Transcript) -> Any:
        return ADAPTER.validate_python(t.wire)

    def dump_json(msgs: Any) -> bytes:
        return ADAPTER.dump_json(msgs, exclude_unset=True)

    def dump_msgpack(msgs: Any) -> bytes:
        return _MSGPACK_ENC.encode(ADAPTER.dump_python(msgs, exclude_unset=True))

    def load_msgpack(data: bytes) -> Any:
        return ADAPTER.validate_python(_MSGPACK_ANY.decode(data))

    return [
        Implementation(
            "pydantic-json",
            "pydantic v2 models",
            "json",
            "model",
            prepare,
            to_wire=lambda m: ADAPTER.dump_python(m, mode="json", exclude_unset=True),
            encode=dump_json,
            decode=ADAPTER.validate_json,
        ),
        Implementation(
            "pydantic-msgpack",
            "pydantic v2 + msgspec.msgpack",
            "msgpack",
            "model",
            prepare,
            to_wire=lambda m: ADAPTER.dump_python(m, exclude_unset=True),
            encode=dump_msgpack,
            decode=load_msgpack,
        ),
    ]


def _pydantic_ai() -> list[Implementation]:
    from pydantic_ai.messages import ModelMessagesTypeAdapter as adapter

    def decode(data: bytes) -> Any:
        return adapter.validate_json(data)

    return [
        Implementation(
            "pydantic-ai-json",
            "pydantic-ai ModelMessagesTypeAdapter",
            "json",
            "peer",
            prepare=lambda t: _peers.to_pydantic_ai(_ref_prepare(t)),
            to_wire=lambda m: _ref_wire("json")(_peers.from_pydantic_ai(m)),
            encode=adapter.dump_json,
            decode=decode,
            speaks_wire=False,
            needs_reference=True,
        )
    ]


def _langgraph() -> list[Implementation]:
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    serde = JsonPlusSerializer()

    def encode(msgs: Any) -> bytes:
        kind, data = serde.dumps_typed(msgs)
        assert kind == "msgpack", kind
        return data

    return [
        Implementation(
            "langgraph-msgpack",
            "LangGraph JsonPlusSerializer",
            "msgpack",
            "peer",
            prepare=lambda t: _peers.to_langchain(_ref_prepare(t)),
            to_wire=lambda m: _ref_wire("msgpack")(_peers.from_langchain(m)),
            encode=encode,
            decode=lambda data: serde.loads_typed(("msgpack", data)),
            speaks_wire=False,
            needs_reference=True,
        )
    ]


# --- floors ---------------------------------------------------------------------------------------


def _floors() -> list[Implementation]:
    out = []
    for fmt, any_decoder, encoder, module in (
        ("json", _JSON_ANY, _JSON_ENC, msgspec.json),
        ("msgpack", _MSGPACK_ANY, _MSGPACK_ENC, msgspec.msgpack),
    ):
        raw = module.Decoder(list[msgspec.Raw])

        def raw_wire(raws: list[msgspec.Raw], dec: Any = any_decoder) -> list[Any]:
            return [dec.decode(r) for r in raws]

        def raw_prepare(t: Transcript, fmt: str = fmt, raw: Any = raw) -> Any:
            return raw.decode(payload(t, fmt))

        def untyped_prepare(t: Transcript, fmt: str = fmt) -> Any:
            return _view(fmt, t.wire)

        out += [
            Implementation(
                f"untyped-{fmt}",
                f"msgspec untyped (floor) {fmt}",
                fmt,
                "floor",
                untyped_prepare,
                to_wire=lambda x: x,
                encode=encoder.encode,
                decode=any_decoder.decode,
            ),
            Implementation(
                f"raw-{fmt}",
                f"msgspec Raw scan (floor) {fmt}",
                fmt,
                "floor",
                raw_prepare,
                to_wire=raw_wire,
                decode=raw.decode,
            ),
        ]
    return out


# --- the registry -------------------------------------------------------------------------------


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


_OPTIONAL: tuple[tuple[str, str, Callable[[], list[Implementation]]], ...] = (
    ("pydantic", "pydantic v2 models", _pydantic),
    ("pydantic_ai", "pydantic-ai ModelMessagesTypeAdapter", _pydantic_ai),
    ("langgraph", "LangGraph JsonPlusSerializer", _langgraph),
)

NOT_INSTALLED: dict[str, str] = {}
"""Implementations left out, by label, with the reason (filled by `registry`)."""


def registry() -> list[Implementation]:
    """All implementations whose packages are installed, reference first."""
    out = _reference() + _minagent()
    if not _installed("orjson"):
        NOT_INSTALLED["reference + orjson"] = "orjson not installed"
    for module, label, factory in _OPTIONAL:
        if not _installed(module):
            NOT_INSTALLED[label] = f"{module} not installed"
            continue
        try:
            out += factory()
        except ImportError as err:
            NOT_INSTALLED[label] = f"cannot import: {err}"
    return out + _floors()


def baseline(impls: list[Implementation], fmt: str) -> Implementation:
    """What speed-ups of format ``fmt`` are measured against: the seed's way for both formats.

    The reference has no MessagePack of its own, so MessagePack figures say how much faster
    minagent's MessagePack is than the seed's JSON (the issue's targets are set this way); the row
    ``reference + msgspec.msgpack untyped`` shows what bolting a fast packer onto it would give.
    """
    return next(i for i in impls if i.name == "reference-json")


def agreement(impl: Implementation, t: Transcript) -> str | None:
    """Check ``impl`` against the corpus on ``t``: None if it agrees, else what differs."""
    truth = _view(impl.format, t.wire)
    try:
        native = impl.prepare(t)
        if impl.to_wire(native) != truth:
            return "its objects differ from the conversation"
        if impl.encode is not None:
            out = impl.encode(native)
            if impl.speaks_wire:
                generic = _JSON_ANY if impl.format == "json" else _MSGPACK_ANY
                if generic.decode(out) != truth:
                    return "its bytes carry different data from the reference's"
            if impl.canonical and t.reference is not None and out != _stdlib_encode(t.reference):
                return "its canonical JSON is not byte-identical to the reference's"
        if impl.decode is not None and impl.to_wire(impl.decode(impl.input_for(t))) != truth:
            return "decoding gives a different conversation"
    except Exception as err:  # an implementation that crashes disagrees, it does not stop the run
        return f"{type(err).__name__}: {err}"
    return None
