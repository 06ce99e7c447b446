"""Adapters between the neutral protocol (`minagent.wire`) and provider wire formats.

Four formats, one contract (`Adapter`), one registry::

    from minagent import providers
    adapter = providers.get("anthropic")          # or providers.ADAPTERS["openai_chat"], ...
    req = adapter.decode_request(data)            # -> Request (messages, typed settings, options)
    adapter.encode_request(req) -> bytes          # or encode_request(messages, model=..., ...)
    adapter.decode_response(data) -> wire.ModelResponse
    adapter.encode_response(resp) -> bytes
    adapter.accumulate(chunks) -> wire.ModelResponse   # a recorded event stream

The modules themselves (``minagent.providers.anthropic``, ``openai_chat``, ``openai_responses``,
``gemini`` and their ``*_stream`` modules) have the same functions. Everything a provider sends
goes back to that provider exactly: data the neutral model does not name is kept with the
provider it came from (`SOURCE`). Another provider's encoder maps it exactly, or refuses content
with `UnsupportedError` naming it and its path (``unsupported="drop"``: dropped and listed in
``dropped``), and lists metadata it has no place for in ``dropped`` (`Dropped.kind`), never
raising. Stream failures raise `StreamError` with the event index. `translate_stream` (and
`StreamTranslator`) turn one provider's stream into another's as it arrives (docs/streaming.md).

For a gateway, encoders also satisfy the rules each target API enforces on the server
(docs/providers.md, "Rules the target enforces"): ``encode_request(req, defaults={...})`` fills
settings the client left unset (the client's own values win), and ``renames=Renames()`` records
the tool names and ids rewritten to fit the target, which ``decode_response(data, renames=...)``
gives back to the client.
"""

from __future__ import annotations

from ._base import (
    SOURCE,
    Dropped,
    Reasoning,
    Renames,
    Request,
    ResponseFormat,
    StreamError,
    Tool,
    ToolChoice,
    UnsupportedError,
    UnsupportedPolicy,
)
from ._registry import ADAPTERS, Adapter, get
from .translate import StreamTranslator, translate_stream

__all__ = [
    "ADAPTERS",
    "SOURCE",
    "Adapter",
    "Dropped",
    "Reasoning",
    "Renames",
    "Request",
    "ResponseFormat",
    "StreamError",
    "StreamTranslator",
    "Tool",
    "ToolChoice",
    "UnsupportedError",
    "UnsupportedPolicy",
    "get",
    "translate_stream",
]
