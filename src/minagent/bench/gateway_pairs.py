"""The gateway bench across every ordered pair of the four formats: what each target accepts.

For each operation (``request``: a client's request to the provider's; ``response``: the
provider's response back to the client's format), each source format and each other target
format, every input of the source (`gateway_corpus.pair_requests` / `pair_responses`) is
translated by each library and judged by the target's referee (`gateway_rules.request_verdict` /
`response_verdict`: the target's official SDK types and its documented rules).

- **minagent**: the source adapter's ``decode_request`` (``decode_response``), then the target
  adapter's ``encode_request(..., unsupported="drop")`` (``encode_response``); an Anthropic
  target gets ``defaults={"max_tokens": DEFAULT_MAX_TOKENS}`` (it requires one).
- **LiteLLM**: its own routes, through OpenAI Chat as LiteLLM itself goes. A request: the
  source's adapter to a ``litellm.completion`` call (Anthropic: ``LiteLLMAnthropicMessagesAdapter
  .translate_anthropic_to_openai``, what its ``/v1/messages`` endpoint does for another
  provider's model; Responses: ``LiteLLMCompletionResponsesConfig
  .transform_responses_api_request_to_chat_completion_request``, what ``litellm.responses`` does;
  Gemini: ``GoogleGenAIAdapter.translate_generate_content_to_completion``, what
  ``litellm.generate_content`` does), then the body that call sends to the target, captured
  offline by ``litellm.utils.return_raw_request`` (model ``anthropic/...``, ``openai/...``,
  ``openai/responses/...``, ``gemini/...``). A response: the target provider's response parsed
  into a ``ModelResponse`` by the config LiteLLM uses for that provider (Anthropic:
  ``AnthropicConfig.transform_parsed_response``; Gemini: ``VertexGeminiConfig
  .transform_response``; Responses: ``LiteLLMResponsesTransformationHandler.transform_response``;
  Chat: the ``ModelResponse`` of its body), then written in the client's format by the same
  adapters (``translate_openai_response_to_anthropic``, ``transform_chat_completion_response_to_
  responses_api_response``, ``translate_completion_to_generate_content``, or the Chat JSON). A
  pair LiteLLM has no route for is "n/a".

Streams (``stream``): minagent's ``translate_stream`` on each recorded stream of the source
(`gateway_corpus.pair_streams`), judged by `gateway_rules.stream_verdict` (the target SDK's
event types and its own accumulator). LiteLLM's stream routes are not driven here ("n/a"; its
Anthropic -> Chat stream is in the gateway family's main tables).

Only acceptance is measured here (the timing tables stay on the Chat -> Anthropic corpus).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import gateway_rules
from .gateway import DEFAULT_MAX_TOKENS, TARGET_MODEL, Acceptance, judge

__all__ = [
    "PAIR_MODELS",
    "PAIR_OPERATIONS",
    "PairAcceptance",
    "accept_pairs",
    "litellm_pairs",
    "minagent_pair",
    "pair_json",
    "pair_table",
]

FORMATS = gateway_rules.FORMATS
PAIR_OPERATIONS = ("request", "response", "stream")
PAIR_MODELS = {
    "anthropic": TARGET_MODEL,
    "openai_chat": "gpt-4.1",
    "openai_responses": "gpt-4.1",
    "gemini": "gemini-2.5-flash",
}
"""The model each target is asked for (LiteLLM routes and looks limits up by it)."""

Translate = Callable[[bytes], bytes]


def minagent_pair(operation: str, source: str, target: str) -> Translate:
    """minagent's translation of ``operation`` from ``source`` to ``target`` through the
    public adapter API (`minagent.providers.get`)."""
    from .. import providers

    src, tgt = providers.get(source), providers.get(target)
    if operation == "request":
        defaults = {"max_tokens": DEFAULT_MAX_TOKENS} if target == "anthropic" else None

        def request(body: bytes) -> bytes:
            return tgt.encode_request(
                src.decode_request(body),
                unsupported="drop",
                dropped=[],
                defaults=defaults,
                model=PAIR_MODELS[target],
            )

        return request

    def response(body: bytes) -> bytes:
        return tgt.encode_response(src.decode_response(body), unsupported="drop", dropped=[])

    def stream(body: bytes) -> bytes:
        chunks = providers.translate_stream(
            [body], source=source, target=target, unsupported="drop", dropped=[]
        )
        return b"".join(chunks)

    return response if operation == "response" else stream


@dataclass
class Pairs:
    """A library's translations per (operation, source, target): a function, or why none."""

    name: str
    translate: Callable[[str, str, str], Translate | None]
    missing: Callable[[str, str, str], str] = lambda *_: ""


def minagent_pairs() -> Pairs:
    """minagent: every pair (`minagent_pair`)."""
    return Pairs("minagent", minagent_pair)


@dataclass
class PairAcceptance:
    """One (operation, source, target): each library's `Acceptance`, or why it has none."""

    operation: str
    source: str
    target: str
    inputs: int
    results: dict[str, Acceptance] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)
    """Library name -> why it has no translation for this pair ("n/a" in the table)."""


_VERDICTS = {
    "request": gateway_rules.request_verdict,
    "response": gateway_rules.response_verdict,
    "stream": gateway_rules.stream_verdict,
}


def accept_pairs(
    libs: list[Pairs], inputs: dict[str, dict[str, list[tuple[str, bytes]]]]
) -> list[PairAcceptance]:
    """Judge every library on every ordered pair (``inputs``: operation -> source format ->
    items)."""
    out = []
    for operation in PAIR_OPERATIONS:
        verdict = _VERDICTS[operation]
        for source in FORMATS:
            items = inputs.get(operation, {}).get(source, [])
            if not items:
                continue
            for target in FORMATS:
                if target == source:
                    continue
                pair = PairAcceptance(operation, source, target, len(items))

                def check(body: bytes, target: str = target, verdict: Any = verdict) -> Any:
                    return verdict(target, body)

                for lib in libs:
                    fn = lib.translate(operation, source, target)
                    if fn is None:
                        pair.missing[lib.name] = lib.missing(operation, source, target) or "n/a"
                        continue
                    result = Acceptance(operation, lib.name, len(items))
                    judge(fn, check, items, result)
                    pair.results[lib.name] = result
                out.append(pair)
    return out


_SHORT = {
    "anthropic": "Anthropic",
    "openai_chat": "Chat",
    "openai_responses": "Responses",
    "gemini": "Gemini",
}


def _cell(pair: PairAcceptance, name: str) -> str:
    result = pair.results.get(name)
    if result is None:
        return "n/a"
    return f"{result.accepted}/{result.inputs}"


def pair_table(pairs: list[PairAcceptance], names: list[str]) -> str:
    """Accepted / inputs per pair and library ("n/a": no translation for that pair), then
    what the target rejected, by rule, for every cell below its inputs."""
    head = f"{'operation':<9} {'source -> target':<24} {'inputs':>6}" + "".join(
        f" {n:>10}" for n in names
    )
    lines = [head]
    notes = []
    for pair in pairs:
        what = f"{_SHORT[pair.source]} -> {_SHORT[pair.target]}"
        lines.append(
            f"{pair.operation:<9} {what:<24} {pair.inputs:>6}"
            + "".join(f" {_cell(pair, n):>10}" for n in names)
        )
        for name in names:
            result = pair.results.get(name)
            if result is None or result.accepted == result.inputs:
                continue
            parts = [f"{rule} {n}" for rule, n in result.by_rule().items()]
            if result.raised:
                parts.append(f"raised {len(result.raised)}")
            notes.append(f"  {pair.operation} {what} {name} rejected by: " + ", ".join(parts))
    return "\n".join(lines + notes)


def pair_json(pairs: list[PairAcceptance]) -> list[dict[str, Any]]:
    """The pairs for ``--json``: per pair, each library's counts and rejections, or ``n/a``."""
    out = []
    for pair in pairs:
        libs: dict[str, Any] = {name: f"n/a: {why}" for name, why in pair.missing.items()}
        for name, r in pair.results.items():
            libs[name] = r.to_json()
        out.append(
            {
                "operation": pair.operation,
                "source": pair.source,
                "target": pair.target,
                "inputs": pair.inputs,
                "libraries": libs,
            }
        )
    return out


# --- LiteLLM ------------------------------------------------------------------------------------

LITELLM_PREFIX = {
    "anthropic": "anthropic/",
    "openai_chat": "openai/",
    "openai_responses": "openai/responses/",
    "gemini": "gemini/",
}
"""LiteLLM's model prefix that routes a ``completion`` call to each target's API."""


def litellm_pairs() -> Pairs:
    """LiteLLM's routes for every pair, through OpenAI Chat (see the module docstring). Call
    after `gateway.litellm_library` (which sets its offline environment and checks it)."""
    from datetime import datetime

    import httpx
    import litellm
    from litellm.google_genai.adapters.transformation import GoogleGenAIAdapter
    from litellm.litellm_core_utils.litellm_logging import Logging
    from litellm.llms.anthropic.chat.transformation import AnthropicConfig
    from litellm.llms.anthropic.messages.adapters.transformation import (
        LiteLLMAnthropicMessagesAdapter,
    )
    from litellm.llms.vertex_ai.gemini.vertex_and_google_ai_studio_gemini import (
        VertexGeminiConfig,
    )
    from litellm.responses.litellm_completion_transformation.transformation import (
        LiteLLMCompletionResponsesConfig,
    )
    from litellm.types.llms.openai import ResponsesAPIResponse
    from litellm.types.utils import CallTypes
    from litellm.utils import return_raw_request

    from litellm.completion_extras.litellm_responses_transformation.transformation import (  # isort: skip
        LiteLLMResponsesTransformationHandler,
    )

    cfg = LiteLLMCompletionResponsesConfig
    to_responses = cfg.transform_chat_completion_response_to_responses_api_response
    to_chat_request = cfg.transform_responses_api_request_to_chat_completion_request
    anthropic_adapter = LiteLLMAnthropicMessagesAdapter()
    genai = GoogleGenAIAdapter()

    def log(stream: bool = False) -> Any:
        obj = Logging(
            model="gateway-bench",
            messages=[],
            stream=stream,
            call_type="completion",
            litellm_call_id="gateway-bench",
            start_time=datetime.now(),
            function_id="gateway-bench",
        )
        obj.update_environment_variables(litellm_params={}, optional_params={})
        return obj

    # requests: the source's body -> the kwargs of a litellm.completion call
    def from_anthropic(body: Any) -> dict[str, Any]:  # (a JSON body for its TypedDict)
        request, _ = anthropic_adapter.translate_anthropic_to_openai(body)
        return dict(request)

    def from_responses(body: dict[str, Any]) -> dict[str, Any]:
        params: Any = {k: v for k, v in body.items() if k not in ("model", "input")}
        return dict(
            to_chat_request(
                model=body.get("model", "gateway"),
                input=body.get("input", ""),
                responses_api_request=params,
            )
        )

    def from_gemini(body: dict[str, Any]) -> dict[str, Any]:
        rest = {k: v for k, v in body.items() if k not in ("contents", "generationConfig")}
        return genai.translate_generate_content_to_completion(
            "gateway", body.get("contents", []), body.get("generationConfig"), **rest
        )

    to_chat: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
        "anthropic": from_anthropic,
        "openai_chat": dict,
        "openai_responses": from_responses,
        "gemini": from_gemini,
    }

    def sent(kwargs: dict[str, Any], target: str) -> bytes:
        call = {k: v for k, v in kwargs.items() if v is not None}
        call.update(model=LITELLM_PREFIX[target] + PAIR_MODELS[target], drop_params=True)
        captured = return_raw_request(CallTypes.completion, call)
        if not captured.get("raw_request_body"):
            raise ValueError(captured.get("error") or "no request captured")
        return json.dumps(captured["raw_request_body"]).encode()

    # responses: the provider's body -> a ModelResponse -> the client's format
    def parse(body: bytes, source: str) -> Any:
        value = json.loads(body)
        raw = httpx.Response(200, content=body, request=httpx.Request("POST", "https://x"))
        if source == "openai_chat":
            return litellm.ModelResponse(**value)
        if source == "anthropic":
            return AnthropicConfig().transform_parsed_response(
                completion_response=value, raw_response=raw, model_response=litellm.ModelResponse()
            )
        if source == "gemini":
            return VertexGeminiConfig().transform_response(
                model=PAIR_MODELS["gemini"],
                raw_response=raw,
                model_response=litellm.ModelResponse(),
                logging_obj=log(),
                request_data={},
                messages=[],
                optional_params={},
                litellm_params={},
                encoding=None,
            )
        handler: Any = LiteLLMResponsesTransformationHandler
        return handler().transform_response(
            model=PAIR_MODELS["openai_responses"],
            raw_response=ResponsesAPIResponse(**value),
            model_response=litellm.ModelResponse(),
            logging_obj=log(),
            request_data={},
            messages=[],
            optional_params={},
            litellm_params={},
            encoding=None,
        )

    def write(response: Any, target: str) -> bytes:
        if target == "openai_chat":
            text: str = response.model_dump_json()
            return text.encode()
        if target == "anthropic":
            out: Any = anthropic_adapter.translate_openai_response_to_anthropic(response)
        elif target == "gemini":
            out = genai.translate_completion_to_generate_content(response)
        else:
            out = to_responses(
                request_input=[], responses_api_request={}, chat_completion_response=response
            )
        if hasattr(out, "model_dump_json"):
            return str(out.model_dump_json()).encode()
        return json.dumps(out, default=_plain).encode()

    stream = _litellm_streams(log)

    def translate(operation: str, source: str, target: str) -> Translate | None:
        if operation == "request":
            return lambda body: sent(to_chat[source](json.loads(body)), target)
        if operation == "response":
            return lambda body: write(parse(body, source), target)
        return lambda body: stream(body, source, target)

    return Pairs("LiteLLM", translate)


def _litellm_streams(log: Callable[[bool], Any]) -> Callable[[bytes, str, str], bytes]:
    """LiteLLM's stream routes, through Chat chunks: the source provider's stream iterator
    (Anthropic's and Gemini's ``ModelResponseIterator``, Responses'
    ``OpenAiResponsesToChatCompletionStreamIterator``; a Chat stream's chunks as
    ``ModelResponseStream``) inside ``CustomStreamWrapper``, as ``completion(stream=True)``
    returns it, then the client's format: the Chat chunks as the proxy writes them,
    ``AnthropicStreamWrapper.anthropic_sse_wrapper``, ``GoogleGenAIStreamWrapper
    .google_genai_sse_wrapper``, or ``LiteLLMCompletionStreamingIterator`` (Responses events,
    ``event:`` + ``data:`` as the proxy writes them)."""
    from litellm.google_genai.adapters.transformation import GoogleGenAIStreamWrapper
    from litellm.litellm_core_utils.streaming_handler import CustomStreamWrapper
    from litellm.llms.anthropic.chat.handler import ModelResponseIterator as AnthropicIterator
    from litellm.llms.anthropic.messages.adapters.streaming_iterator import (
        AnthropicStreamWrapper,
    )
    from litellm.llms.custom_httpx.sse_lines import iter_sse_lines
    from litellm.llms.vertex_ai.gemini.vertex_and_google_ai_studio_gemini import (
        ModelResponseIterator as GeminiIterator,
    )
    from litellm.responses.litellm_completion_transformation.streaming_iterator import (
        LiteLLMCompletionStreamingIterator,
    )
    from litellm.types.utils import ModelResponseStream

    from litellm.completion_extras.litellm_responses_transformation.transformation import (  # isort: skip
        OpenAiResponsesToChatCompletionStreamIterator,
    )

    providers = {
        "anthropic": "anthropic",
        "openai_chat": "openai",
        "openai_responses": "openai",
        "gemini": "gemini",
    }

    def chat_chunks(body: bytes, source: str) -> Any:
        lines = iter_sse_lines([body.decode()])
        if source == "anthropic":
            chunks: Any = AnthropicIterator(lines, sync_stream=True, json_mode=False)
        elif source == "gemini":
            chunks = iter(GeminiIterator(lines, sync_stream=True, logging_obj=log(True)))
        elif source == "openai_responses":
            chunks = OpenAiResponsesToChatCompletionStreamIterator(lines, sync_stream=True)
        else:
            chunks = iter(
                [
                    ModelResponseStream(**value)
                    for value in gateway_rules.sse_data(body)
                    if isinstance(value, dict)
                ]
            )
        return CustomStreamWrapper(
            completion_stream=chunks,
            model=PAIR_MODELS[source],
            custom_llm_provider=providers[source],
            logging_obj=log(True),
        )

    def stream(body: bytes, source: str, target: str) -> bytes:
        chunks = chat_chunks(body, source)
        if target == "openai_chat":
            parts = [
                b"data: "
                + chunk.model_dump_json(exclude_none=True, exclude_unset=True).encode()
                + b"\n\n"
                for chunk in chunks
            ]
            return b"".join(parts) + b"data: [DONE]\n\n"
        if target == "anthropic":
            wrapper = AnthropicStreamWrapper(completion_stream=chunks, model=PAIR_MODELS[source])
            return b"".join(_bytes(part) for part in wrapper.anthropic_sse_wrapper())
        if target == "gemini":  # the proxy's path: the async wrapper (the sync one is not used)
            genai = GoogleGenAIStreamWrapper(completion_stream=_aiter(chunks))

            async def collect() -> bytes:
                return b"".join([_bytes(p) async for p in genai.async_google_genai_sse_wrapper()])

            return asyncio.run(collect())
        events = LiteLLMCompletionStreamingIterator(
            model=PAIR_MODELS[source],
            litellm_custom_stream_wrapper=chunks,
            request_input=[],
            responses_api_request={},
        )
        out = []
        for event in events:
            data = event.model_dump_json()
            kind = json.loads(data).get("type", "")
            out.append(f"event: {kind}\ndata: {data}\n\n".encode())
        return b"".join(out)

    return stream


async def _aiter(items: Any) -> Any:
    for item in items:
        yield item


def _bytes(part: Any) -> bytes:
    return part if isinstance(part, bytes) else str(part).encode()


def _plain(value: Any) -> Any:
    """JSON for what LiteLLM's adapters leave as objects (pydantic models)."""
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        return dump()
    raise TypeError(f"not JSON: {type(value).__name__}")
