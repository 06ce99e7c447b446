"""The ``gateway`` benchmark family: minagent as an OpenAI-to-Anthropic gateway, beside LiteLLM.

A gateway takes a client's OpenAI Chat Completions request, sends it to a model behind the
Anthropic Messages API and answers in the client's format. Three operations, bytes in, bytes
out, each done by both libraries on the same inputs (`minagent.bench.gateway_corpus`):

- ``request``: an OpenAI Chat request to an Anthropic request. minagent:
  ``openai_chat.decode_request`` then ``anthropic.encode_request(req, unsupported="drop",
  model=..., defaults={"max_tokens": DEFAULT_MAX_TOKENS})`` (a gateway's own default: it
  never overrides the client's). LiteLLM: what
  ``litellm.completion`` does before sending, without the network: its checks of the messages
  and parameters, ``get_optional_params(..., custom_llm_provider="anthropic",
  drop_params=True)`` (its OpenAI parameter mapping, ``AnthropicConfig.map_openai_params``
  inside) then ``AnthropicConfig().transform_request``, with ``json.loads`` / ``json.dumps``
  around them.
- ``response``: an Anthropic response to an OpenAI Chat response. minagent:
  ``anthropic.decode_response`` then ``openai_chat.encode_response(unsupported="drop")``.
  LiteLLM: ``AnthropicConfig().transform_parsed_response`` (the body of ``transform_response``
  after its logging call) into a ``litellm.ModelResponse``, written with ``model_dump_json``.
- ``stream``: an Anthropic SSE stream to OpenAI Chat SSE bytes. minagent:
  ``minagent.providers.translate_stream(chunks, source="anthropic", target="openai_chat")``
  ("-" while it does not exist). LiteLLM: its stream iterator ``ModelResponseIterator``
  (``litellm/llms/anthropic/chat/handler.py``) over ``iter_sse_lines``, each
  ``ModelResponseStream`` written as the proxy writes it
  (``model_dump_json(exclude_none=True, exclude_unset=True)`` after ``data: ``), then
  ``data: [DONE]``.

Both libraries target the same model (`TARGET_MODEL`). Every output goes to the referee
(`minagent.bench.gateway_rules`): the official SDK types and the documented server-side rules; the
acceptance table counts what each library produced that the target accepts, and the keys outside
the target's schema. LiteLLM is judged on what its public entry point produces (`Library.judge`:
``litellm.completion``'s request body as ``return_raw_request`` captures it, the stream
``completion(stream=True)`` returns), and timed on the functions above, the least it does per call.
Two more tables: the options each library maps (`gateway_corpus.MAPPED`) and what of the responses
reaches the client (`carried`). Timing as in the rest of the suite: each case calibrated to samples
of about ``sample_seconds`` of CPU time (`runner.CLOCK`), the samples of every case
interleaved over ``repeat`` rounds; per input, the median over rounds of LiteLLM / minagent (timed
back to back in a round); per operation, the median of those ratios over the inputs both libraries
translate.

LiteLLM is optional (``pip install 'minagent-wire[gateway-peers]'``); it is imported after
`OFFLINE_ENV` is set (bundled model table and beta headers, offline mode, no telemetry), so it
does not go to the network.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import inspect
import json
import os
import re
import statistics
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import gateway_corpus, gateway_rules
from .gateway_rules import Verdict
from .runner import CLOCK

__all__ = [
    "CARRIED",
    "DEFAULT_MAX_TOKENS",
    "INSTALL_HINT",
    "OPERATIONS",
    "PAIRS_HINT",
    "TARGETS",
    "TARGET_MODEL",
    "Acceptance",
    "Library",
    "PeerError",
    "Timing",
    "accept",
    "acceptance_table",
    "carried",
    "carried_table",
    "carried_totals",
    "command",
    "corpus",
    "judge",
    "libraries",
    "litellm_library",
    "mapped",
    "mapped_table",
    "minagent_library",
    "pair_results",
    "pairs_text",
    "report",
    "section",
    "time_cases",
    "timing_table",
]

TARGET_MODEL = "claude-sonnet-4-5-20250929"
"""The Anthropic model both libraries translate for (LiteLLM looks its limits up by name)."""

DEFAULT_MAX_TOKENS = 4096
"""The ``max_tokens`` minagent's side passes when the client's request has none (Anthropic
requires one; LiteLLM fills in the model's maximum output from its model table)."""

OPERATIONS = ("request", "response", "stream")
TARGETS = {"request": 10.0, "response": 10.0, "stream": 10.0}
"""The issue's speed targets: LiteLLM time over minagent's, median over the corpus."""

INSTALL_HINT = (
    "LiteLLM is not installed: pip install 'minagent-wire[gateway-peers]' to time and check "
    "it side by side"
)

Translate = Callable[[bytes], bytes]


@dataclass
class Library:
    """One gateway implementation: a function per operation (None: not available)."""

    name: str
    version: str
    request: Translate | None
    response: Translate | None
    stream: Translate | None
    missing: dict[str, str] = field(default_factory=dict)
    """Why an operation is None, by operation."""
    judge: dict[str, Translate] = field(default_factory=dict)
    """Where the outputs to judge come from another function than the timed one (LiteLLM: its
    public entry point rather than the translation functions), by operation."""

    def op(self, operation: str) -> Translate | None:
        """The function of ``operation`` (``request``, ``response``, ``stream``)."""
        fn: Translate | None = getattr(self, operation)
        return fn


# --- the two libraries -------------------------------------------------------------------------


def minagent_library(extensions: bool = False) -> Library:
    """minagent through its public adapter API (`minagent.providers`); ``extensions``: the
    OpenAI Chat extension that carries thinking, citations and server blocks (LiteLLM's keys;
    off by default, which keeps the strict Chat schema)."""
    from .. import __version__, providers

    chat, anthropic = providers.get("openai_chat"), providers.get("anthropic")
    ext: dict[str, Any] = {"extensions": True} if extensions else {}
    defaults = {"max_tokens": DEFAULT_MAX_TOKENS}  # the gateway's, only where the client set none

    def request(body: bytes) -> bytes:
        dropped: list[providers.Dropped] = []
        req = chat.decode_request(body)
        return anthropic.encode_request(
            req, unsupported="drop", dropped=dropped, defaults=defaults, model=TARGET_MODEL
        )

    def response(body: bytes) -> bytes:
        dropped: list[providers.Dropped] = []
        return chat.encode_response(
            anthropic.decode_response(body), unsupported="drop", dropped=dropped, **ext
        )

    translate = getattr(providers, "translate_stream", None)
    stream: Translate | None = None
    missing = {}
    if translate is None:
        missing["stream"] = "minagent.providers.translate_stream does not exist yet"
    else:
        params = inspect.signature(translate).parameters.values()
        drops = any(p.name == "unsupported" or p.kind is p.VAR_KEYWORD for p in params)

        def stream(sse: bytes) -> bytes:
            options: dict[str, Any] = {"unsupported": "drop", "dropped": [], **ext} if drops else {}
            chunks = translate([sse], source="anthropic", target="openai_chat", **options)
            return b"".join(chunks)

    name = "minagent ext" if extensions else "minagent"
    return Library(name, __version__, request, response, stream, missing=missing)


OFFLINE_ENV = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True",
    "LITELLM_LOCAL_BLOG_POSTS": "True",
    "LITELLM_OFFLINE_MODE": "true",
    "LITELLM_TELEMETRY": "False",
    "LITELLM_LOG": "ERROR",
}
"""Environment for an offline LiteLLM (set before its import): the bundled model cost map and
Anthropic beta-header table, no remote fetches, no telemetry."""


def litellm_available() -> bool:
    """Whether LiteLLM is installed (not imported: that takes seconds)."""
    return importlib.util.find_spec("litellm") is not None


def litellm_library() -> Library | None:
    """LiteLLM's own Anthropic translation functions, or None when it is not installed.

    Timed: the translation functions themselves (``request``: the message and parameter checks
    ``litellm.completion`` runs first, ``get_optional_params``, ``transform_request``;
    ``response``: ``transform_parsed_response``; ``stream``: ``ModelResponseIterator``), the
    least LiteLLM does per call. Judged (`Library.judge`): what its public entry point produces,
    offline: the request body ``litellm.utils.return_raw_request`` captures from a real
    ``litellm.completion`` call, and the stream ``completion(stream=True)`` returns (its
    ``CustomStreamWrapper`` around the same iterator)."""
    if not litellm_available():
        return None
    for key, value in OFFLINE_ENV.items():
        os.environ.setdefault(key, value)
    try:
        return _litellm_library()
    except (ImportError, AttributeError) as error:  # another LiteLLM moved its functions
        version = importlib.metadata.version("litellm")
        raise PeerError(
            f"litellm {version} is installed but lacks the functions this bench calls "
            f"({type(error).__name__}: {error}); the bench is written for litellm>=1.110"
        ) from error


class PeerError(Exception):
    """The installed peer library cannot be driven (its functions moved)."""


def _litellm_library() -> Library:
    from datetime import datetime

    import httpx
    import litellm
    from litellm.litellm_core_utils.litellm_logging import Logging
    from litellm.litellm_core_utils.prompt_templates.common_utils import get_completion_messages
    from litellm.litellm_core_utils.streaming_handler import CustomStreamWrapper
    from litellm.llms.anthropic.chat.handler import ModelResponseIterator
    from litellm.llms.anthropic.chat.transformation import AnthropicConfig
    from litellm.llms.custom_httpx.sse_lines import iter_sse_lines
    from litellm.types.utils import CallTypes, ModelResponseStream
    from litellm.utils import (
        get_optional_params,
        return_raw_request,
        validate_and_fix_openai_messages,
        validate_and_fix_openai_tools,
        validate_chat_completion_tool_choice,
        validate_openai_optional_params,
    )

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    config = AnthropicConfig()
    sent = httpx.Request("POST", "https://api.anthropic.com/v1/messages")

    def request(body: bytes) -> bytes:
        params = json.loads(body)
        params.pop("model", None)
        # completion()'s own checks and rewrites of the messages and parameters, in its order
        messages = validate_and_fix_openai_messages(messages=params.pop("messages"))
        if "tools" in params:
            params["tools"] = validate_and_fix_openai_tools(tools=params["tools"])
        if "tool_choice" in params:
            params["tool_choice"] = validate_chat_completion_tool_choice(
                tool_choice=params["tool_choice"], model=TARGET_MODEL
            )
        if "stop" in params:
            params["stop"] = validate_openai_optional_params(stop=params["stop"])
        messages = get_completion_messages(
            messages=messages,
            ensure_alternating_roles=False,
            user_continue_message=None,
            assistant_continue_message=None,
        )
        messages = list(
            config.translate_developer_role_to_system_role(
                messages=messages,
                model=TARGET_MODEL,
                custom_llm_provider="anthropic",
                api_base=None,
                model_info=None,
            )
        )
        # `metadata` is completion()'s own parameter (litellm_params): it maps its user_id
        metadata = params.pop("metadata", None)
        optional = get_optional_params(
            model=TARGET_MODEL,
            custom_llm_provider="anthropic",
            messages=messages,
            drop_params=True,
            **params,
        )
        optional.pop("json_mode", None)  # the handler takes it out before transform_request
        litellm_params = {"metadata": metadata} if metadata is not None else {}
        data = config.transform_request(TARGET_MODEL, messages, optional, litellm_params, {})
        return json.dumps(data).encode()

    def sent_request(body: bytes) -> bytes:
        kwargs = json.loads(body)
        kwargs.update(model=f"anthropic/{TARGET_MODEL}", drop_params=True)
        captured = return_raw_request(CallTypes.completion, kwargs)
        if not captured.get("raw_request_body"):
            raise ValueError(captured.get("error") or "no request captured")
        return json.dumps(captured["raw_request_body"]).encode()

    def response(body: bytes) -> bytes:
        raw = httpx.Response(200, content=body, request=sent)
        out = config.transform_parsed_response(
            completion_response=json.loads(body),
            raw_response=raw,
            model_response=litellm.ModelResponse(),
        )
        text: str = out.model_dump_json()
        return text.encode()

    def sse(chunks: Iterable[Any]) -> bytes:
        parts = [
            b"data: "
            + chunk.model_dump_json(exclude_none=True, exclude_unset=True).encode()
            + b"\n\n"
            for chunk in chunks
            if isinstance(chunk, ModelResponseStream)
        ]
        return b"".join(parts) + b"data: [DONE]\n\n"

    def stream(body: bytes) -> bytes:
        lines = iter_sse_lines([body.decode()])
        return sse(ModelResponseIterator(lines, sync_stream=True, json_mode=False))

    def wrapped_stream(body: bytes) -> bytes:
        log = Logging(
            model=TARGET_MODEL,
            messages=[],
            stream=True,
            call_type="completion",
            litellm_call_id="gateway-bench",
            start_time=datetime.now(),
            function_id="gateway-bench",
        )
        lines = iter_sse_lines([body.decode()])
        chunks = ModelResponseIterator(lines, sync_stream=True, json_mode=False)
        return sse(
            CustomStreamWrapper(
                completion_stream=chunks,
                model=TARGET_MODEL,
                custom_llm_provider="anthropic",
                logging_obj=log,
            )
        )

    version = importlib.metadata.version("litellm")
    judge: dict[str, Translate] = {"request": sent_request, "stream": wrapped_stream}
    return Library("LiteLLM", version, request, response, stream, judge=judge)


def libraries(problems: list[str] | None = None) -> list[Library]:
    """minagent, and LiteLLM when it is installed and can be driven (otherwise the reason is
    appended to ``problems``, when given, or raised as `PeerError`)."""
    out = [minagent_library()]
    try:
        peer = litellm_library()
    except PeerError as error:
        if problems is None:
            raise
        problems.append(str(error))
        peer = None
    if peer is not None:
        out.append(peer)
    return out


def corpus(data: Path | None = None) -> dict[str, list[tuple[str, bytes]]]:
    """The inputs of each operation (`gateway_corpus`; recorded ones from ``tests/data``)."""
    from .providers import data_dir

    data = data or data_dir()
    return {
        "request": gateway_corpus.requests(data),
        "response": gateway_corpus.responses(data),
        "stream": gateway_corpus.streams(data),
    }


# --- acceptance ---------------------------------------------------------------------------------

_CHECKS: dict[str, Callable[[bytes], Verdict]] = {
    "request": gateway_rules.anthropic_request,
    "response": gateway_rules.openai_response,
    "stream": gateway_rules.openai_chunks,
}


@dataclass
class Acceptance:
    """One library's outputs for one operation, as the target judges them."""

    operation: str
    library: str
    inputs: int
    raised: dict[str, str] = field(default_factory=dict)
    """Input name -> the exception the library raised on it."""
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    """Input name -> what the target makes of the output."""
    timed_differs: list[str] = field(default_factory=list)
    """Inputs (requests) whose timed translation wrote another body than the judged entry
    point sent (LiteLLM: its functions against ``litellm.completion``)."""

    @property
    def accepted(self) -> int:
        """Outputs the SDK types and every documented rule accept."""
        return sum(v.accepted for v in self.verdicts.values())

    @property
    def sdk_ok(self) -> int:
        """Outputs the SDK types accept."""
        return sum(not v.sdk for v in self.verdicts.values())

    @property
    def rules_ok(self) -> int:
        """Outputs that break no documented rule."""
        return sum(not v.rules for v in self.verdicts.values())

    @property
    def with_foreign(self) -> int:
        """Outputs holding a key outside the target schema."""
        return sum(bool(v.foreign) for v in self.verdicts.values())

    def foreign_keys(self) -> list[str]:
        """The distinct keys outside the target schema (JSON paths, list indices left out)."""
        return sorted(
            {re.sub(r"\[\d+\]", "[]", f.path) for v in self.verdicts.values() for f in v.foreign}
        )

    def rejected(self) -> dict[str, list[str]]:
        """Input name -> why the target rejects it (the exception, the SDK, the rules)."""
        out = {name: [f"raised {error}"] for name, error in self.raised.items()}
        for name, verdict in self.verdicts.items():
            if not verdict.accepted:
                out[name] = [str(v) for v in verdict.sdk + verdict.rules]
        return out

    def to_json(self) -> dict[str, Any]:
        """The counts and reasons as JSON values (the bench's ``--json`` output)."""
        return {
            "accepted": self.accepted,
            "sdk_ok": self.sdk_ok,
            "rules_ok": self.rules_ok,
            "raised": self.raised,
            "by_rule": self.by_rule(),
            "rejected": self.rejected(),
            "foreign_keys": self.foreign_keys(),
        }

    def by_rule(self) -> dict[str, int]:
        """Rule name -> how many outputs break it (``sdk`` for the SDK types)."""
        counts: dict[str, int] = {}
        for verdict in self.verdicts.values():
            for rule in {v.rule for v in verdict.sdk + verdict.rules}:
                counts[rule] = counts.get(rule, 0) + 1
        return dict(sorted(counts.items()))


def judge(
    fn: Translate,
    check: Callable[[bytes], Verdict],
    inputs: list[tuple[str, bytes]],
    result: Acceptance,
) -> dict[str, bytes]:
    """Translate each input with ``fn`` and put ``check``'s verdict (or what ``fn`` raised) in
    ``result``; return the outputs by input name."""
    outputs = {}
    for name, body in inputs:
        try:
            out = outputs[name] = fn(body)
        except Exception as error:  # a peer raises anything; ours WireError subclasses
            result.raised[name] = f"{type(error).__name__}: {str(error)[:160]}"
            continue
        result.verdicts[name] = check(out)
    return outputs


def accept(library: Library, operation: str, inputs: list[tuple[str, bytes]]) -> Acceptance | None:
    """Run ``library`` over ``inputs`` once and judge every output (None: no such operation)."""
    fn = library.judge.get(operation) or library.op(operation)
    if fn is None:
        return None
    result = Acceptance(operation, library.name, len(inputs))
    timed = library.op(operation) if operation in library.judge else None
    outputs = judge(fn, _CHECKS[operation], inputs, result)
    for name, body in inputs:
        out = outputs.get(name)
        if out is not None and timed is not None and operation == "request":
            try:
                same = json.loads(timed(body)) == json.loads(out)
            except Exception:
                same = False
            if not same:
                result.timed_differs.append(name)
    return result


_WHAT = {
    "request": "OpenAI Chat request -> Anthropic request",
    "response": "Anthropic response -> OpenAI Chat response",
    "stream": "Anthropic SSE stream -> OpenAI Chat SSE stream",
}


def acceptance_table(results: list[Acceptance]) -> str:
    """Accepted / inputs per operation and library, with the SDK and rule columns apart, the
    failures per rule and the keys outside the target schema."""
    lines = [
        f"{'operation':<9} {'library':<9} {'accepted':>9} {'SDK types':>9} {'rules':>7}"
        f" {'raised':>6} {'foreign keys':>12} {'distinct':>8}",
    ]
    for r in results:
        lines.append(
            f"{r.operation:<9} {r.library:<9} {f'{r.accepted}/{r.inputs}':>9}"
            f" {f'{r.sdk_ok}/{r.inputs}':>9} {f'{r.rules_ok}/{r.inputs}':>7} {len(r.raised):>6}"
            f" {f'{r.with_foreign}/{r.inputs}':>12} {len(r.foreign_keys()):>8}"
        )
    for r in results:
        if r.operation == "request" and r.library != "minagent" and r.verdicts:
            same = len(r.verdicts) - len(r.timed_differs)
            lines.append(
                f"  {r.operation} {r.library}: the timed functions wrote the body its entry point"
                f" sends for {same}/{len(r.verdicts)}"
                + (f" (not: {', '.join(r.timed_differs)})" if r.timed_differs else "")
            )
        counts = r.by_rule()
        if counts or r.raised:
            parts = [f"{rule} {n}" for rule, n in counts.items()]
            if r.raised:
                parts.append(f"raised {len(r.raised)}")
            lines.append(f"  {r.operation} {r.library} rejected by: " + ", ".join(parts))
        keys = r.foreign_keys()
        if keys:
            lines.append(f"  {r.operation} {r.library} keys outside the schema: " + ", ".join(keys))
    return "\n".join(lines)


def summary(results: list[Acceptance]) -> str:
    """One line per operation: ``minagent 53/53, LiteLLM 52/53``."""
    out = []
    for operation in OPERATIONS:
        parts = [
            f"{r.library} {r.accepted}/{r.inputs}" for r in results if r.operation == operation
        ]
        if parts:
            out.append(f"{_WHAT[operation]}: accepted " + ", ".join(parts))
    return "\n".join(out)


# --- what the way back carries -------------------------------------------------------------------

CARRIED = ("thinking", "citations", "server blocks", "thinking tokens", "id", "model")
"""What `carried` counts in a response translation."""


def _strings(value: Any) -> set[str]:
    """Every string anywhere in a JSON value (keys left out)."""
    out: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.add(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out


def _get_path(value: Any, *keys: str) -> Any:
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def carried(source: bytes, output: bytes) -> dict[str, tuple[int, int]]:
    """What of an Anthropic response reaches the OpenAI Chat response, as (kept, there):

    - ``thinking``: thinking blocks whose signature (redacted: whose data) is in the output;
    - ``citations``: citations of text blocks whose ``cited_text`` (or, without one, the
      citation's text span) is in the output;
    - ``server blocks``: server tool blocks (``server_tool_use``, ``*_tool_result``, MCP,
      ``compaction``, ...) whose id or ``tool_use_id`` (compaction: content) is in the output;
    - ``thinking tokens``: ``usage.output_tokens_details.thinking_tokens`` written as
      ``usage.completion_tokens_details.reasoning_tokens``;
    - ``id`` / ``model``: the response's ``id`` and served ``model`` written as the output's.

    A string anywhere in the output counts (as LiteLLM's ``thinking_blocks`` or
    ``provider_specific_fields`` hold it, or a future minagent extension)."""
    src, out = json.loads(source), json.loads(output)
    strings = _strings(out)
    counts = dict.fromkeys(CARRIED, (0, 0))

    def tally(key: str, kept: bool) -> None:
        k, n = counts[key]
        counts[key] = (k + kept, n + 1)

    for block in src.get("content") or []:
        kind = block.get("type")
        if kind in ("thinking", "redacted_thinking"):
            tally("thinking", block.get("signature", block.get("data")) in strings)
        elif kind == "text":
            for citation in block.get("citations") or []:
                tally("citations", citation.get("cited_text", block.get("text")) in strings)
        elif kind not in ("tool_use",):
            mark = block.get("id") or block.get("tool_use_id") or block.get("content")
            tally("server blocks", isinstance(mark, str) and mark in strings)
    thinking_tokens = _get_path(src, "usage", "output_tokens_details", "thinking_tokens")
    if thinking_tokens is not None:
        written = _get_path(out, "usage", "completion_tokens_details", "reasoning_tokens")
        tally("thinking tokens", written == thinking_tokens)
    tally("id", out.get("id") == src.get("id"))
    tally("model", out.get("model") == src.get("model"))
    return counts


def carried_table(libs: list[Library], inputs: list[tuple[str, bytes]]) -> str:
    """Per library, what its response translations carry over the corpus (`carried`)."""
    lines = [f"{'carried back':<12} " + " ".join(f"{key:>15}" for key in CARRIED)]
    for lib in libs:
        total = carried_totals(lib, inputs)
        if total is not None:
            cells = " ".join(f"{f'{k}/{n}':>15}" for k, n in total.values())
            lines.append(f"{lib.name:<12} {cells}")
    return "\n".join(lines)


def carried_totals(
    lib: Library, inputs: list[tuple[str, bytes]]
) -> dict[str, tuple[int, int]] | None:
    """`carried` summed over ``inputs`` (None: the library has no response translation)."""
    if lib.response is None:
        return None
    total = dict.fromkeys(CARRIED, (0, 0))
    for _, body in inputs:
        try:
            counts = carried(body, lib.response(body))
        except Exception:  # a translation that raises carries nothing
            counts = {key: (0, n) for key, (_, n) in carried(body, b"{}").items()}
        for key, (k, n) in counts.items():
            total[key] = (total[key][0] + k, total[key][1] + n)
    return total


def mapped(lib: Library, inputs: list[tuple[str, bytes]]) -> dict[str, bool] | None:
    """For each input with an entry in `gateway_corpus.MAPPED`, whether the library's request
    translation carried its option (a raise counts as not); None without a request function."""
    fn = lib.judge.get("request") or lib.request
    if fn is None:
        return None
    out = {}
    for name, body in inputs:
        if name in gateway_corpus.MAPPED:
            try:
                out[name] = bool(gateway_corpus.MAPPED[name][1](json.loads(fn(body))))
            except Exception:  # a translation that raises maps nothing
                out[name] = False
    return out


def mapped_table(libs: list[Library], inputs: list[tuple[str, bytes]]) -> str:
    """Per library: options mapped / options with a faithful mapping, and the ones missed."""
    lines = []
    for lib in libs:
        result = mapped(lib, inputs)
        if result:
            missed = [gateway_corpus.MAPPED[n][0] for n, ok in result.items() if not ok]
            lines.append(
                f"options mapped {lib.name}: {sum(result.values())}/{len(result)}"
                + (f" (missed: {'; '.join(missed)})" if missed else "")
            )
    return "\n".join(lines)


# --- timing -------------------------------------------------------------------------------------


@dataclass
class Timing:
    """One operation: per library the median per-call CPU time over the inputs, and the
    median over inputs of the per-input ratio LiteLLM / minagent."""

    operation: str
    inputs: int
    seconds: dict[str, float]
    """Library name -> median over inputs of the per-input median seconds per call."""
    ratio: float | None
    low: float | None = None
    """The smallest per-input ratio."""
    high: float | None = None
    """The largest per-input ratio."""


def _calibrate(fn: Callable[[], Any], seconds: float) -> int:
    loops = 1
    while True:
        start = CLOCK()
        for _ in range(loops):
            fn()
        if CLOCK() - start >= seconds or loops >= 1 << 16:
            return loops
        loops *= 2


def time_cases(
    libs: list[Library],
    inputs: dict[str, list[tuple[str, bytes]]],
    repeat: int = 7,
    sample_seconds: float = 0.004,
    skip: dict[tuple[str, str], set[str]] | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[Timing]:
    """Time every library on every input it translates without raising (``skip``: library and
    operation -> input names to leave out), interleaved over ``repeat`` rounds (rotating the
    order), CPU time, medians."""
    skip = skip or {}
    cases: list[tuple[str, str, str, Callable[[], Any]]] = []
    for operation in OPERATIONS:
        fns = [(lib.name, lib.op(operation)) for lib in libs]
        for name, body in inputs.get(operation, []):
            for lib, fn in fns:
                if fn is not None and name not in skip.get((lib, operation), set()):
                    cases.append((operation, name, lib, _bound(fn, body)))
    loops = [_calibrate(fn, sample_seconds) for *_, fn in cases]
    samples: list[list[float]] = [[] for _ in cases]
    for r in range(repeat):
        if progress is not None:
            progress(f"gateway: round {r + 1}/{repeat}")
        shift = r % max(len(cases), 1)
        for i in [*range(shift, len(cases)), *range(shift)]:
            fn, n = cases[i][3], loops[i]
            start = CLOCK()
            for _ in range(n):
                fn()
            samples[i].append((CLOCK() - start) / n)
    per: dict[tuple[str, str, str], list[float]] = {
        case[:3]: s for case, s in zip(cases, samples, strict=True)
    }
    out = []
    names = [lib.name for lib in libs]
    for operation in OPERATIONS:
        by_input: dict[str, dict[str, list[float]]] = {}
        for (op, name, lib), s in per.items():
            if op == operation:
                by_input.setdefault(name, {})[lib] = s
        if not by_input:
            continue
        seconds = {
            lib: statistics.median(statistics.median(d[lib]) for d in by_input.values() if lib in d)
            for lib in names
            if any(lib in d for d in by_input.values())
        }
        ratios = [
            statistics.median(p / m for m, p in zip(d["minagent"], d["LiteLLM"], strict=True))
            for d in by_input.values()
            if "minagent" in d and "LiteLLM" in d and min(d["minagent"]) > 0
        ]
        out.append(
            Timing(
                operation,
                len(by_input),
                seconds,
                statistics.median(ratios) if ratios else None,
                min(ratios) if ratios else None,
                max(ratios) if ratios else None,
            )
        )
    return out


def _bound(fn: Translate, body: bytes) -> Callable[[], Any]:
    return lambda: fn(body)


def _us(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1e6:.1f} us"


def timing_table(timings: list[Timing], libs: list[Library]) -> str:
    """Median CPU time per call per library, and the median ratio LiteLLM / minagent."""
    names = [lib.name for lib in libs]
    head = f"{'operation':<9} {'inputs':>6}" + "".join(f" {n:>12}" for n in names)
    if len(names) > 1:
        head += f" {'ratio':>7} {'min':>7} {'max':>7} {'target':>7}"
    lines = [head]
    seen = {t.operation for t in timings}
    for operation in OPERATIONS:
        t = next((t for t in timings if t.operation == operation), None)
        if t is None:
            if operation not in seen and any(lib.op(operation) is None for lib in libs):
                lines.append(f"{operation:<9} {'-':>6}" + "".join(f" {'-':>12}" for _ in names))
            continue
        row = f"{operation:<9} {t.inputs:>6}" + "".join(
            f" {_us(t.seconds.get(n)):>12}" for n in names
        )
        if len(names) > 1:
            row += (
                f" {t.ratio:6.1f}x {t.low:6.1f}x {t.high:6.1f}x {TARGETS[operation]:6.0f}x"
                if t.ratio is not None
                else f" {'-':>7} {'-':>7} {'-':>7} {TARGETS[operation]:6.0f}x"
            )
        lines.append(row)
    return "\n".join(lines)


# --- the whole family ---------------------------------------------------------------------------


def report(
    libs: list[Library],
    inputs: dict[str, list[tuple[str, bytes]]],
    repeat: int = 7,
    sample_seconds: float = 0.004,
    progress: Callable[[str], None] | None = None,
) -> tuple[list[Acceptance], list[Timing], str]:
    """Judge every output, then time the inputs each library translates; return both and the
    printed text (header, timing table, acceptance table, summary)."""
    results = [
        a
        for operation in OPERATIONS
        for lib in libs
        if inputs.get(operation) and (a := accept(lib, operation, inputs[operation])) is not None
    ]
    skip = {(r.library, r.operation): set(r.raised) for r in results}
    timings = time_cases(libs, inputs, repeat, sample_seconds, skip, progress)
    sizes = ", ".join(f"{len(inputs.get(op, []))} {op}s" for op in OPERATIONS)
    versions = ", ".join(f"{lib.name} {lib.version}" for lib in libs)
    text = [
        f"gateway: OpenAI Chat client -> Anthropic ({TARGET_MODEL}); {sizes}; {versions}",
        f"CPU time per call, median over inputs ({repeat} interleaved rounds); "
        "ratio = LiteLLM / minagent, median over inputs",
        timing_table(timings, libs),
    ]
    for lib in libs:
        for operation, why in lib.missing.items():
            text.append(f"{lib.name} {operation}: - ({why})")
    text += ["", acceptance_table(results), "", summary(results)]
    if inputs.get("request"):
        text += ["", mapped_table(libs, inputs["request"])]
    if inputs.get("response"):
        with_ext = [libs[0], minagent_library(extensions=True), *libs[1:]]
        text += ["", carried_table(with_ext, inputs["response"])]
    if len(libs) == 1:
        text += ["", INSTALL_HINT]
    return results, timings, "\n".join(text)


def _json(
    results: Iterable[Acceptance],
    timings: Iterable[Timing],
    libs: list[Library],
    inputs: dict[str, list[tuple[str, bytes]]],
) -> Any:
    responses = inputs.get("response", [])
    return {
        "mapped": {
            lib.name: result
            for lib in libs
            if (result := mapped(lib, inputs.get("request", []))) is not None
        },
        "carried": {
            lib.name: {k: list(v) for k, v in total.items()}
            for lib in [libs[0], minagent_library(extensions=True), *libs[1:]]
            if (total := carried_totals(lib, responses)) is not None
        },
        "libraries": {lib.name: lib.version for lib in libs},
        "target_model": TARGET_MODEL,
        "timings": [
            {
                "operation": t.operation,
                "inputs": t.inputs,
                "seconds": t.seconds,
                "ratio": t.ratio,
                "min": t.low,
                "max": t.high,
            }
            for t in timings
        ],
        "acceptance": [
            {"operation": r.operation, "library": r.library, "inputs": r.inputs, **r.to_json()}
            for r in results
        ],
    }


def section(repeat: int, progress: Callable[[str], None] | None = None) -> str:
    """The family's text for the end of a plain ``minagent bench`` run (LiteLLM beside
    minagent when it is installed and can be driven; otherwise why not)."""
    problems: list[str] = []
    libs = libraries(problems)
    text = report(libs, corpus(), repeat, progress=progress)[2]
    # LiteLLM's routes (~20 s) and the streams (~3 s) on every pair: the gateway family's
    pairs = pair_results(libs, peers=False, streams=False)
    return "\n".join([text, "", pairs_text(pairs, ["minagent"]), PAIRS_HINT, *problems])


PAIRS_HINT = "streams on every pair, and LiteLLM's routes beside: minagent bench --family gateway"


def pair_results(
    libs: list[Library], data: Path | None = None, peers: bool = True, streams: bool = True
) -> list[Any]:
    """Acceptance on every ordered pair of the four formats (`gateway_pairs`), for minagent
    and, when ``libs`` holds it and ``peers`` is true, LiteLLM's routes; requests and
    responses, and with ``streams`` the recorded streams too."""
    from . import gateway_pairs
    from .providers import data_dir

    data = data or data_dir()
    pair_libs = [gateway_pairs.minagent_pairs()]
    if peers and any(lib.name == "LiteLLM" for lib in libs):
        pair_libs.append(gateway_pairs.litellm_pairs())
    inputs = {
        "request": gateway_corpus.pair_requests(data),
        "response": gateway_corpus.pair_responses(data),
    }
    if streams:
        inputs["stream"] = gateway_corpus.pair_streams(data)
    return gateway_pairs.accept_pairs(pair_libs, inputs)


def pairs_text(pairs: list[Any], names: list[str]) -> str:
    """The every-pair acceptance table (columns: the libraries ``names``), with its heading."""
    from . import gateway_pairs

    return (
        "every ordered pair of anthropic, openai_chat, openai_responses, gemini: outputs the "
        "target's SDK types and documented rules accept\n" + gateway_pairs.pair_table(pairs, names)
    )


def command(args: Any) -> int:
    """``minagent bench --family gateway``: the timing and acceptance tables (LiteLLM beside
    minagent when installed), ``--json FILE`` too; uses ``--repeat`` / ``--quick``."""
    repeat = 3 if args.quick else args.repeat
    problems: list[str] = []
    libs = libraries(problems)
    for problem in problems:
        print(f"minagent bench: {problem}", file=sys.stderr)
    inputs = corpus()
    results, timings, text = report(
        libs, inputs, repeat, progress=lambda s: print(s, file=sys.stderr, flush=True)
    )
    pairs = pair_results(libs)
    print(text)
    print()
    print(pairs_text(pairs, [lib.name for lib in libs]))
    if args.json is not None:
        from .gateway_pairs import pair_json

        document = _json(results, timings, libs, inputs)
        document["pairs"] = pair_json(pairs)
        args.json.write_text(json.dumps(document, indent=2) + "\n")
    return 0
