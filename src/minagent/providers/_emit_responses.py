"""Neutral deltas to OpenAI Responses stream events (see `_delta`).

``response.created`` carries the header as an ``in_progress`` response with no output. A text block
is a message item (``response.output_item.added``, ``response.content_part.added``,
``response.output_text.delta`` pieces, then the ``.done`` events with the whole text), a thinking
block a reasoning item the same way (a ``reasoning_text`` part growing by
``response.reasoning_text.delta``); complete blocks are the output items the target adapter writes
for them, each sent as ``response.output_item.added`` and ``response.output_item.done``. The
terminal event (``response.completed``, or ``response.incomplete`` / ``response.failed`` as the
final body's ``status`` says) carries the final body whole, as the API sends it. Every event has its
``sequence_number``.
"""

from __future__ import annotations

from typing import Any

from ._delta import Writer, dumps

__all__ = ["ResponsesWriter"]

_TERMINAL = {"incomplete": "response.incomplete", "failed": "response.failed"}


class ResponsesWriter(Writer):
    """Writes ``event: <type>`` / ``data: {...}`` events; see the module docstring."""

    __slots__ = ("_base", "_head", "_item", "_pieces", "_seq", "_slot")
    target = "openai_responses"

    def __init__(self) -> None:
        super().__init__()
        self._seq = 0
        self._slot = 0  # the next output_index
        self._base = ""
        self._item = ""
        self._head = b""
        self._pieces: list[str] = []

    def _event(self, kind: str, data: dict[str, Any]) -> None:
        data = dict(data, type=kind, sequence_number=self._seq)
        self._seq += 1
        self.out.append(b"event: " + kind.encode() + b"\ndata: " + dumps(data) + b"\n\n")

    def begin(self, header: dict[str, Any]) -> None:
        response = dict(header, status="in_progress", output=[])
        response.pop("usage", None)
        self._base = str(header.get("id", ""))
        self._event("response.created", {"response": response})

    def open_text(self) -> None:
        self._open(_MESSAGE, "msg")

    def _open(self, kind: tuple[str, str, dict[str, Any]], prefix: str) -> None:
        """An item of ``kind`` (`_MESSAGE` or `_REASONING`) starts, with one empty part."""
        part_type, delta_type, item = kind
        self._item = f"{self._base}_{prefix}_{self._slot}"
        item = dict(item, id=self._item, content=[])
        self._event("response.output_item.added", {"output_index": self._slot, "item": item})
        self._event("response.content_part.added", self._where(part=_part(part_type, "")))
        self._head = (
            b"event: " + delta_type.encode() + b'\ndata: {"type":"' + delta_type.encode() + b'",'
            b'"item_id":'
            + dumps(self._item)
            + b',"output_index":'
            + str(self._slot).encode()
            + (
                b',"content_index":0,"logprobs":[],"delta":'
                if part_type == "output_text"
                else b',"content_index":0,"delta":'
            )
        )
        self._pieces = []

    def _where(self, **more: Any) -> dict[str, Any]:
        return dict(item_id=self._item, output_index=self._slot, content_index=0, **more)

    def text(self, piece: str) -> None:
        self._pieces.append(piece)
        seq = self._seq
        self._seq += 1
        self.out.append(
            self._head + dumps(piece) + b',"sequence_number":' + str(seq).encode() + b"}\n\n"
        )

    def close_text(self) -> None:
        self._close(_MESSAGE, "response.output_text.done", {"logprobs": []})

    def can_think(self, body: dict[str, Any]) -> bool:
        output = body.get("output")
        if type(output) is not list or len(output) != 1 or type(output[0]) is not dict:
            return False
        item = output[0]
        shape = {k: v for k, v in item.items() if k != "id"}
        return bool(shape == dict(_REASONING[2], content=[_part("reasoning_text", "x")]))

    def open_thinking(self) -> None:
        self._open(_REASONING, "rs")

    def thinking(self, piece: str) -> None:
        self.text(piece)

    def close_thinking(self) -> None:
        self._close(_REASONING, "response.reasoning_text.done", {})

    def _close(
        self, kind: tuple[str, str, dict[str, Any]], done: str, more: dict[str, Any]
    ) -> None:
        part_type, _, item = kind
        text = "".join(self._pieces)
        self._pieces = []
        self._event(done, self._where(text=text, **more))
        self._event("response.content_part.done", self._where(part=_part(part_type, text)))
        item = dict(item, id=self._item, content=[_part(part_type, text)])
        if "status" in item:
            item["status"] = "completed"
        self._event("response.output_item.done", {"output_index": self._slot, "item": item})
        self._slot += 1

    def blocks(self, body: dict[str, Any]) -> None:
        for item in body.get("output") or ():
            self._event("response.output_item.added", {"output_index": self._slot, "item": item})
            self._event("response.output_item.done", {"output_index": self._slot, "item": item})
            self._slot += 1

    def finish(self, body: dict[str, Any]) -> None:
        kind = _TERMINAL.get(body.get("status"), "response.completed")  # type: ignore[arg-type]
        self._event(kind, {"response": body})


def _part(kind: str, text: str) -> dict[str, Any]:
    if kind == "output_text":
        return {"type": "output_text", "text": text, "annotations": []}
    return {"type": kind, "text": text}


_MESSAGE = (
    "output_text",
    "response.output_text.delta",
    {"type": "message", "status": "in_progress", "role": "assistant"},
)
"""A text block's item: part type, delta event, the item's keys."""
_REASONING = (
    "reasoning_text",
    "response.reasoning_text.delta",
    {"type": "reasoning", "summary": []},
)
"""A thinking block's item (as the adapter writes one: ``reasoning_text`` content)."""
