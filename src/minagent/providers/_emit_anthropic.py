"""Neutral deltas to Anthropic Messages stream events (see `_delta`).

``message_start`` carries the header (id, model, the usage known so far); a text block is
``content_block_start`` / ``text_delta`` pieces / ``content_block_stop``; a complete block is
written the way the API streams it: its start with the growing field empty, then one delta
(``text_delta``, ``thinking_delta`` + ``signature_delta``, ``input_json_delta``), then its stop;
other blocks (server tools, results, anything else) whole in their start. ``message_delta``
carries every top-level key of the final body (stop reason, stop sequence, ...) and its usage,
then ``message_stop``.
"""

from __future__ import annotations

from typing import Any

from ._delta import Writer, dumps

__all__ = ["AnthropicWriter"]

_START_KEYS = ("id", "type", "role", "model")
_NOT_DELTA = frozenset({"id", "type", "role", "model", "content", "usage"})


class AnthropicWriter(Writer):
    """Writes ``event: <type>`` / ``data: {...}`` events; see the module docstring."""

    __slots__ = ("_head", "_index", "_start")
    target = "anthropic"

    def __init__(self) -> None:
        super().__init__()
        self._index = 0
        self._head = b""
        self._start: dict[str, Any] = {}

    def _event(self, kind: str, data: dict[str, Any]) -> None:
        self.out.append(b"event: " + kind.encode() + b"\ndata: " + dumps(data) + b"\n\n")

    def begin(self, header: dict[str, Any]) -> None:
        message = {k: header[k] for k in _START_KEYS if k in header}
        message.update(content=[], stop_reason=None, stop_sequence=None)
        usage = header.get("usage")
        message["usage"] = usage if type(usage) is dict else {"input_tokens": 0, "output_tokens": 0}
        self._start = message
        self._event("message_start", {"type": "message_start", "message": message})

    def open_text(self) -> None:
        self._start_block({"type": "text", "text": ""})
        self._head = (
            b'event: content_block_delta\ndata: {"type":"content_block_delta","index":'
            + str(self._index).encode()
            + b',"delta":{"type":"text_delta","text":'
        )

    def text(self, piece: str) -> None:
        self.out.append(self._head + dumps(piece) + b"}}\n\n")

    def close_text(self) -> None:
        self._stop_block()

    def _start_block(self, block: dict[str, Any]) -> None:
        data = {"type": "content_block_start", "index": self._index, "content_block": block}
        self._event("content_block_start", data)

    def _delta(self, delta: dict[str, Any]) -> None:
        data = {"type": "content_block_delta", "index": self._index, "delta": delta}
        self._event("content_block_delta", data)

    def _stop_block(self) -> None:
        self._event("content_block_stop", {"type": "content_block_stop", "index": self._index})
        self._index += 1

    def blocks(self, body: dict[str, Any]) -> None:
        for block in body.get("content") or ():
            self._block(block)

    def _block(self, block: Any) -> None:
        kind = block.get("type") if type(block) is dict else None
        if kind == "text" and type(block.get("text")) is str:
            self._start_block(dict(block, text=""))
            if block["text"]:
                self._delta({"type": "text_delta", "text": block["text"]})
        elif kind == "thinking" and type(block.get("thinking")) is str:
            signed = type(block.get("signature")) is str
            self._start_block(dict(block, thinking="", signature="") if signed else block)
            if block["thinking"] and signed:
                self._delta({"type": "thinking_delta", "thinking": block["thinking"]})
            if signed:
                self._delta({"type": "signature_delta", "signature": block["signature"]})
        elif kind in ("tool_use", "server_tool_use") and type(block.get("input")) is dict:
            self._start_block(dict(block, input={}))
            if block["input"]:
                text = dumps(block["input"]).decode()
                self._delta({"type": "input_json_delta", "partial_json": text})
        else:
            self._start_block(block)
        self._stop_block()

    def finish(self, body: dict[str, Any]) -> None:
        delta = {k: v for k, v in body.items() if k not in _NOT_DELTA}
        for key in ("id", "model"):
            if key in body and body[key] != self._start.get(key):
                delta[key] = body[key]
        data: dict[str, Any] = {"type": "message_delta", "delta": delta}
        usage = body.get("usage")
        data["usage"] = usage if type(usage) is dict else {}
        self._event("message_delta", data)
        self._event("message_stop", {"type": "message_stop"})
