"""Neutral deltas to OpenAI Chat Completions ``chat.completion.chunk`` events (see `_delta`).

Every chunk repeats the response's ``id``, ``created``, ``model`` (and ``system_fingerprint`` /
``service_tier`` when the target body has them), as OpenAI sends them. Text goes out as
``delta.content`` pieces; complete tool calls as one ``tool_calls`` delta each (``index`` in
order, the whole ``arguments`` text as the target adapter spells it); the last chunk carries the
finish reason, the message's other keys and the choice's other keys; usage follows in a chunk
with no choices (``stream_options.include_usage`` style), further choices (``n > 1``) whole, then
``data: [DONE]``.
"""

from __future__ import annotations

from typing import Any

from ._delta import Writer, dumps

__all__ = ["ChatWriter"]

_TOP = frozenset({"id", "object", "created", "model", "choices", "usage"})
_MESSAGE = frozenset({"role", "content", "refusal", "tool_calls"})
_CHOICE = frozenset({"message", "finish_reason"})
_FIRST = ("system_fingerprint", "service_tier")
"""Top-level keys the accumulator (and the SDK) read from the first chunk only."""
_OPEN = b',"finish_reason":null}]}\n\n'
_CLOSE_TEXT = b"}" + _OPEN


class ChatWriter(Writer):
    """Writes ``data: {chunk}`` events; see the module docstring."""

    __slots__ = ("_calls", "_head", "_text", "_texts", "_top")
    target = "openai_chat"

    def __init__(self) -> None:
        super().__init__()
        self._head = b""
        self._texts = b""  # _head and the start of a content delta: a text piece's prefix
        self._top: dict[str, Any] = {}
        self._calls = 0
        self._text = False  # a content delta was sent

    def begin(self, header: dict[str, Any]) -> None:
        top = {
            "id": header.get("id", ""),
            "object": "chat.completion.chunk",
            "created": header.get("created", 0),
            "model": header.get("model", ""),
        }
        for key in _FIRST:
            if key in header:
                top[key] = header[key]
        self._top = top
        self._head = b"data: " + dumps(top)[:-1] + b',"choices":[{"index":0,"delta":'
        self._texts = self._head + b'{"content":'
        self._delta({"role": "assistant"})

    def _delta(self, delta: dict[str, Any]) -> None:
        self.out.append(self._head + dumps(delta) + _OPEN)

    def open_text(self) -> None:
        if not self._text:  # the message has content from here on, even if this block is empty
            self._text = True
            self._delta({"content": ""})

    def text(self, piece: str) -> None:
        self.out.append(self._texts + dumps(piece) + _CLOSE_TEXT)

    def close_text(self) -> None:
        pass

    def blocks(self, body: dict[str, Any]) -> None:
        message = _message(body)
        content = message.get("content")
        if type(content) is str:
            self.open_text()
            if content:
                self.text(content)
        elif type(content) is list and content:
            self._delta({"content": content})
        for call in message.get("tool_calls") or ():
            self._delta({"tool_calls": [dict(call, index=self._calls)]})
            self._calls += 1

    def finish(self, body: dict[str, Any]) -> None:
        choices = body.get("choices") or [{}]
        first = choices[0]
        message = first.get("message") or {}
        # (the key sets are compared first: the commonest body has no key beyond them)
        delta = (
            {k: v for k, v in message.items() if k not in _MESSAGE}
            if message.keys() - _MESSAGE
            else {}
        )
        if type(message.get("refusal")) is str:
            delta["refusal"] = message["refusal"]
        choice = {k: v for k, v in first.items() if k not in _CHOICE}
        choice["index"] = 0
        choice["delta"] = delta
        choice["finish_reason"] = first.get("finish_reason")
        top = self._top
        if body.keys() - _TOP:
            top = dict(top)
            top.update((k, v) for k, v in body.items() if k not in _TOP)
        self._chunk(top, [choice])
        for at, other in enumerate(choices[1:], 1):
            self._chunk(self._top, [_whole(other, at)])
        if body.get("usage") is not None:
            self._chunk(self._top, [], usage=body["usage"])
        self.out.append(b"data: [DONE]\n\n")

    def _chunk(self, top: dict[str, Any], choices: list[Any], **more: Any) -> None:
        self.out.append(b"data: " + dumps(dict(top, choices=choices, **more)) + b"\n\n")


def _message(body: dict[str, Any]) -> dict[str, Any]:
    choices = body.get("choices") or [{}]
    message: dict[str, Any] = choices[0].get("message") or {}
    return message


def _whole(choice: dict[str, Any], at: int) -> dict[str, Any]:
    """A further choice of the final body as one chunk choice."""
    message = dict(choice.get("message") or {})
    calls = message.get("tool_calls")
    if type(calls) is list:
        message["tool_calls"] = [dict(c, index=i) for i, c in enumerate(calls)]
    out = {k: v for k, v in choice.items() if k != "message"}
    out["index"] = choice.get("index", at)
    out["delta"] = message
    return out
