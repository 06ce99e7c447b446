"""The adapter contract (`Adapter`) and the registry of the provider formats (`ADAPTERS`, `get`).

Each provider format is two modules: the adapter (``minagent.providers.anthropic``: requests and
responses both ways) and its stream module (``anthropic_stream``: event parser, accumulator),
which imports the adapter, never the reverse. An `Adapter` puts both behind one face with one
signature per function, so the CLI, the benchmark and the contract test treat every provider
alike. The modules are imported on first use, so ``import minagent.providers`` stays cheap.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING, Any

from ..wire.limits import DEFAULT, Limits
from ..wire.messages import Message, ModelResponse
from ._base import Defaults, Dropped, Renames, Request, UnsupportedPolicy

if TYPE_CHECKING:  # (the stream base classes are imported with a stream module)
    from ._stream import Accumulator, Parser

__all__ = ["ADAPTERS", "Adapter", "get"]


class Adapter:
    """One provider wire format: its four body functions and its stream classes.

    Every adapter has the same signatures:

    - ``decode_request(data, *, limits=DEFAULT) -> Request``
    - ``encode_request(request, *, unsupported="error", dropped=None, defaults=None,
      renames=None, **options) -> bytes``
    - ``decode_response(data, *, limits=DEFAULT, renames=None) -> ModelResponse``
    - ``encode_response(response, *, unsupported="error", dropped=None, **fields) -> bytes``
    - ``StreamParser`` (bytes in, events out), ``StreamAccumulator`` (events in, the final
      ``ModelResponse`` out), ``accumulate(chunks, *, limits=DEFAULT, renames=None) ->
      ModelResponse``

    Decoders raise `DecodeError` / `ValidationError` (WireError subclasses) with a JSON path;
    encoders raise `UnsupportedError` / `EncodeError`, and never change their input.
    """

    __slots__ = ("name", "title")

    def __init__(self, name: str, title: str) -> None:
        self.name = name
        """The adapter's name: its module under `minagent.providers`, and the `SOURCE` hint
        its decoders put on what they produce."""
        self.title = title
        """The API it speaks, for people (``Anthropic Messages``)."""

    def __repr__(self) -> str:
        return f"<Adapter {self.name!r}: {self.title}>"

    @property
    def module(self) -> ModuleType:
        """The adapter module (``minagent.providers.<name>``)."""
        return _module(f"{__package__}.{self.name}")

    @property
    def stream_module(self) -> ModuleType:
        """The stream module (``minagent.providers.<name>_stream``)."""
        return _module(f"{__package__}.{self.name}_stream")

    def decode_request(self, data: Any, /, *, limits: Limits = DEFAULT) -> Request:
        """Decode a request body of this format into a `Request`."""
        result: Request = self.module.decode_request(data, limits=limits)
        return result

    def encode_request(
        self,
        request: Request | list[Message],
        /,
        *,
        unsupported: UnsupportedPolicy = "error",
        dropped: list[Dropped] | None = None,
        defaults: Defaults | None = None,
        renames: Renames | None = None,
        **options: Any,
    ) -> bytes:
        """Write a request body of this format (keyword options set typed settings or add
        options; ``defaults`` fill what the request lacks; ``renames`` records rewritten tool
        names and ids)."""
        result: bytes = self.module.encode_request(
            request,
            unsupported=unsupported,
            dropped=dropped,
            defaults=defaults,
            renames=renames,
            **options,
        )
        return result

    def decode_response(
        self, data: Any, /, *, limits: Limits = DEFAULT, renames: Renames | None = None
    ) -> ModelResponse:
        """Decode a response body of this format into a `ModelResponse` (``renames``: the
        `Renames` its request was encoded with, to give tool calls their original names)."""
        result: ModelResponse = self.module.decode_response(data, limits=limits, renames=renames)
        return result

    def encode_response(
        self,
        response: ModelResponse,
        /,
        *,
        unsupported: UnsupportedPolicy = "error",
        dropped: list[Dropped] | None = None,
        **fields: Any,
    ) -> bytes:
        """Write a response body of this format (``fields``: top-level keys the response lacks,
        such as ``id=`` and ``model=``)."""
        result: bytes = self.module.encode_response(
            response, unsupported=unsupported, dropped=dropped, **fields
        )
        return result

    @property
    def StreamParser(self) -> type[Parser]:
        """The stream parser class: byte chunks in, typed events out."""
        cls: type[Parser] = self.stream_module.StreamParser
        return cls

    @property
    def StreamAccumulator(self) -> type[Accumulator]:
        """The stream accumulator class: events in, the final `ModelResponse` out."""
        cls: type[Accumulator] = self.stream_module.StreamAccumulator
        return cls

    def accumulate(
        self,
        chunks: Iterable[bytes | bytearray | memoryview],
        *,
        limits: Limits = DEFAULT,
        renames: Renames | None = None,
    ) -> ModelResponse:
        """The final `ModelResponse` of a whole recorded stream (``renames``: as for
        `decode_response`, tool calls get the client's names and ids back)."""
        result: ModelResponse = self.stream_module.accumulate(chunks, limits=limits)
        return result if renames is None else renames.restore(result)


def _module(name: str) -> ModuleType:
    """The module ``name``, imported on first use and then kept (`importlib.import_module`
    costs a microsecond on every adapter call)."""
    module = _MODULES.get(name)
    if module is None:
        module = _MODULES[name] = importlib.import_module(name)
    return module


_MODULES: dict[str, ModuleType] = {}


ADAPTERS: Mapping[str, Adapter] = MappingProxyType(
    {
        "anthropic": Adapter("anthropic", "Anthropic Messages"),
        "openai_chat": Adapter("openai_chat", "OpenAI Chat Completions"),
        "openai_responses": Adapter("openai_responses", "OpenAI Responses"),
        "gemini": Adapter("gemini", "Google Gemini generateContent"),
    }
)
"""Every provider format, by name, in a fixed order."""


def get(name: str) -> Adapter:
    """The adapter called ``name`` (``"anthropic"``, ``"openai_chat"``, ``"openai_responses"``,
    ``"gemini"``); ``ValueError`` naming the known ones otherwise."""
    try:
        return ADAPTERS[name]
    except (KeyError, TypeError):
        known = ", ".join(ADAPTERS)
        raise ValueError(f"no provider adapter named {name!r}; known: {known}") from None
