"""Adapters between the neutral protocol (`minagent.wire`) and provider wire formats.

One module per format, each with the same four functions::

    from minagent.providers import anthropic
    req = anthropic.decode_request(data)        # -> Request (.messages, .options)
    anthropic.encode_request(req) -> bytes       # or encode_request(messages, model=..., **options)
    anthropic.decode_response(data) -> wire.ModelResponse
    anthropic.encode_response(resp) -> bytes

Everything decodes straight from bytes through msgspec Structs of the provider's own shape.
What a target format cannot hold raises `UnsupportedError` naming it and where it is, unless the
caller passes ``unsupported="drop"`` (then it is dropped and reported, see `Dropped`).
Streaming: each module also has ``StreamParser`` (byte chunks in, typed events out),
``StreamAccumulator`` (events in, the final ``ModelResponse`` out) and ``accumulate(chunks)``;
stream failures raise `StreamError` with the event index.
The shared pieces live in `minagent.providers._base` and `minagent.providers._sse`.
"""

from __future__ import annotations

from ._base import Dropped, Request, StreamError, UnsupportedError, UnsupportedPolicy

__all__ = ["Dropped", "Request", "StreamError", "UnsupportedError", "UnsupportedPolicy"]
