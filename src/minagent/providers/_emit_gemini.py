"""Neutral deltas to Gemini ``streamGenerateContent?alt=sse`` chunks (see `_delta`).

Each chunk is a ``GenerateContentResponse`` (``data: {...}``) for candidate 0, repeating the
``modelVersion`` and ``responseId`` of the header as Gemini does. Text goes out as one text part per
piece, thinking as one ``thought`` text part per piece; complete blocks as the parts the target
adapter writes for them, in one chunk. The last chunk carries the candidate's other keys
(``finishReason``, ``citationMetadata``, ...), further candidates, ``usageMetadata`` and every other
top-level key of the final body. A Gemini stream ends at a ``finishReason``: when the final body
leaves it out (the adapter does for ``end_turn`` and ``tool_use``, which ``STOP`` stands for), the
last chunk says ``STOP``.
"""

from __future__ import annotations

from typing import Any

from ._delta import Writer, dumps

__all__ = ["GeminiWriter"]

_TOP = ("modelVersion", "responseId")


class GeminiWriter(Writer):
    """Writes ``data: {chunk}`` events; see the module docstring."""

    __slots__ = ("_head", "_tail", "_top")
    target = "gemini"

    def __init__(self) -> None:
        super().__init__()
        self._top: dict[str, Any] = {}
        self._head = b""
        self._tail = b""

    def begin(self, header: dict[str, Any]) -> None:
        self._top = {k: header[k] for k in _TOP if k in header}
        self._head = b'data: {"candidates":[{"content":{"role":"model","parts":[{"text":'
        top = dumps(self._top)
        self._tail = b'}]},"index":0}]' + (b"," + top[1:] if len(top) > 2 else b"}") + b"\r\n\r\n"

    def can_think(self, body: dict[str, Any]) -> bool:
        candidates = body.get("candidates") or [{}]
        parts = (candidates[0].get("content") or {}).get("parts")
        return bool(parts == [{"text": "x", "thought": True}])

    def open_thinking(self) -> None:
        pass

    def thinking(self, piece: str) -> None:
        self.out.append(self._head + dumps(piece) + b',"thought":true' + self._tail)

    def close_thinking(self) -> None:
        pass

    def open_text(self) -> None:
        pass

    def text(self, piece: str) -> None:
        self.out.append(self._head + dumps(piece) + self._tail)

    def close_text(self) -> None:
        pass

    def blocks(self, body: dict[str, Any]) -> None:
        candidates = body.get("candidates") or [{}]
        parts = (candidates[0].get("content") or {}).get("parts")
        if parts:
            content = {"role": "model", "parts": parts}
            self._chunk(dict(self._top, candidates=[{"content": content, "index": 0}]))

    def finish(self, body: dict[str, Any]) -> None:
        chunk = dict(self._top)
        chunk.update((k, v) for k, v in body.items() if k != "candidates")
        candidates = body.get("candidates")
        if type(candidates) is list and candidates and type(candidates[0]) is dict:
            first = {k: v for k, v in candidates[0].items() if k != "content"}
            content = candidates[0].get("content")
            if type(content) is dict:
                first["content"] = {k: v for k, v in content.items() if k != "parts"}
            elif "content" in candidates[0]:
                first["content"] = content
            if "finishReason" not in first:
                first["finishReason"] = "STOP"
            chunk["candidates"] = [first, *candidates[1:]]
        elif candidates is not None:
            chunk["candidates"] = candidates
        self._chunk(chunk)

    def _chunk(self, chunk: dict[str, Any]) -> None:
        self.out.append(b"data: " + dumps(chunk) + b"\r\n\r\n")
