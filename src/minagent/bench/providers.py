"""The ``providers`` benchmark group: the provider adapters against the official SDKs.

Three operations, each per provider (Anthropic Messages, OpenAI Chat Completions):

- ``response decode``: response bytes to a `ModelResponse`, against the SDK's
  ``model_validate_json`` (``anthropic.types.Message`` / ``openai.types.chat.ChatCompletion``);
- ``request encode``: a request to bytes, against the SDK's writer: ``openapi_dumps`` (its
  ``json.dumps``) over the request params, with the assistant turns held as the SDK's own
  response blocks (pydantic models), as an agent loop holds them. The ``client`` column times
  the SDK client's whole request building where it does more before writing (OpenAI's
  ``create`` runs ``maybe_transform`` over the params; Anthropic's writes them as they are, so
  its SDK time is all of it);
- ``stream parse`` / ``stream accumulate``: a recorded SSE stream to typed events (and to the
  final message), against the SDK's ``Stream`` over an in-memory HTTP response (and its
  accumulator: ``accumulate_event`` / ``ChatCompletionStreamState``).

Inputs are the repository's provider examples and recorded streams (``tests/data``) when they are
there. Method as in `runner`: each case calibrated to samples of about ``sample_seconds``, the
samples of every case interleaved over ``repeat`` rounds, medians per call; a group's figure is
the sum over its inputs of the per-input medians, and the ratio is SDK time over ours.
"""

from __future__ import annotations

import contextlib
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

if TYPE_CHECKING:
    from ..providers._stream import Parser

__all__ = [
    "TARGETS",
    "Case",
    "Row",
    "cases",
    "command",
    "data_dir",
    "openai_client_body",
    "run",
    "table",
]

TARGETS = {"response decode": 20.0, "request encode": 5.0, "stream parse": 10.0}
"""The issue's targets, as SDK time over ours."""


@dataclass(frozen=True)
class Case:
    """One input of one operation: our callable and the SDK's, both without arguments."""

    operation: str
    provider: str
    name: str
    ours: Callable[[], Any]
    sdk: Callable[[], Any]
    floor: Callable[[], Any] | None = None
    """msgspec alone, schema-less, on the same JSON (decode bytes / encode the parsed value)."""
    client: Callable[[], Any] | None = None
    """For a request: the SDK client's whole request building, where it does more than ``sdk``
    (OpenAI's ``create`` runs ``maybe_transform`` over the params before ``openapi_dumps``;
    google-genai's ``generate_content`` builds its parameter model and converts it). None
    where ``sdk`` is already all of it (Anthropic's ``create`` writes its params as they are)."""


@dataclass(frozen=True)
class Row:
    """One operation x provider: total median seconds over its inputs, ours and the SDK's."""

    operation: str
    provider: str
    inputs: int
    ours: float
    sdk: float
    worst: float
    """The smallest per-input ratio (per input: the median over rounds of SDK / ours)."""
    floor: float | None = None
    """Total median seconds of the schema-less msgspec floor, where there is one."""
    best: float | None = None
    """SDK time over ours from the fastest round of each (noise on a shared machine only adds
    time, so the minimum is the steadier estimate when the medians swing)."""
    client: float | None = None
    """Total median seconds of the SDK client's whole request building (`Case.client`, else
    ``sdk``), where some input has one."""

    @property
    def ratio(self) -> float:
        """SDK time over ours."""
        return self.sdk / self.ours


def data_dir() -> Path | None:
    """The repository's ``tests/data`` (present in a source checkout), or None."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / "tests" / "data" / "provider-examples"
        if candidate.is_dir():
            return candidate.parent
    return None


def cases(data: Path | None = None) -> list[Case]:
    """Every case whose inputs and SDK are available (an empty list without the data)."""
    data = data or data_dir()
    if data is None:
        return []
    out: list[Case] = []
    with contextlib.suppress(ImportError):
        out += _anthropic_cases(data)
    with contextlib.suppress(ImportError):
        out += _openai_cases(data)
    from . import providers_extra  # OpenAI Responses and Gemini (that module imports this one)

    out += providers_extra.cases(data)
    return out


def _files(data: Path, sub: str, pattern: str) -> list[Path]:
    return sorted((data / sub).glob(pattern))


def _anthropic_cases(data: Path) -> list[Case]:
    import anthropic as sdk_module
    import httpx2
    import pydantic
    from anthropic._streaming import Stream
    from anthropic._utils._json import openapi_dumps
    from anthropic.lib.streaming._messages import accumulate_event
    from anthropic.types import ContentBlock, Message, RawMessageStreamEvent

    from ..providers import get

    adapter = get("anthropic")  # the registry: timed through the module functions themselves
    anthropic, anthropic_stream = adapter.module, adapter.stream_module

    out: list[Case] = []
    for path in _files(data, "provider-examples/anthropic", "response_*.json"):
        body = path.read_bytes()
        out.append(
            Case(
                "response decode",
                "anthropic",
                path.name,
                partial(anthropic.decode_response, body),
                partial(Message.model_validate_json, body),
                partial(msgspec.json.decode, body),
            )
        )
    blocks: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(ContentBlock)
    for path in _files(data, "provider-examples/anthropic", "request_*.json"):
        body = path.read_bytes()
        req = anthropic.decode_request(body)
        params = _sdk_params(json.loads(body), blocks.validate_python)
        out.append(
            Case(
                "request encode",
                "anthropic",
                path.name,
                partial(anthropic.encode_request, req),
                partial(openapi_dumps, params),
                partial(msgspec.json.encode, json.loads(body)),
            )
        )
    client = sdk_module.Anthropic(api_key="offline")
    request = httpx2.Request("POST", "https://api.anthropic.com/v1/messages")

    def sdk_events(stream: bytes) -> list[Any]:
        response = httpx2.Response(200, content=stream, request=request)
        # The SDK's own client passes this union alias as cast_to; its stub asks for a class.
        return list(Stream(cast_to=RawMessageStreamEvent, response=response, client=client))  # type: ignore[arg-type]

    def sdk_accumulate(stream: bytes) -> Any:
        snapshot: Any = None
        bufs: dict[int, bytes] = {}
        for event in sdk_events(stream):
            snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=bufs)
        return snapshot

    def parse(stream: bytes) -> list[Any]:
        parser: Parser = anthropic_stream.StreamParser()
        return parser.feed(stream) + parser.close()

    for path in _files(data, "provider-streams/anthropic", "*.sse"):
        stream = path.read_bytes() + b"\n\n"  # the fixtures lack the final empty line
        out.append(
            Case(
                "stream parse",
                "anthropic",
                path.name,
                partial(parse, stream),
                partial(sdk_events, stream),
            )
        )
        out.append(
            Case(
                "stream accumulate",
                "anthropic",
                path.name,
                partial(anthropic_stream.accumulate, [stream]),
                partial(sdk_accumulate, stream),
            )
        )
    return out


def _sdk_params(body: dict[str, Any], block: Callable[[Any], Any]) -> dict[str, Any]:
    """Request params as an SDK user holds them: assistant blocks as the SDK's models."""
    messages = []
    for message in body["messages"]:
        if message["role"] == "assistant" and isinstance(message["content"], list):
            message = dict(message, content=[block(b) for b in message["content"]])
        messages.append(message)
    return dict(body, messages=messages)


def _openai_cases(data: Path) -> list[Case]:
    import httpx2
    import openai as sdk_module
    import pydantic
    from openai._streaming import Stream
    from openai._utils._json import openapi_dumps
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import (
        ChatCompletion,
        ChatCompletionChunk,
        ChatCompletionMessageFunctionToolCall,
    )
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming

    from ..providers import get

    adapter = get("openai_chat")
    openai_chat, openai_chat_stream = adapter.module, adapter.stream_module

    out: list[Case] = []
    for path in _files(data, "provider-examples/openai", "response_*.json"):
        body = path.read_bytes()
        out.append(
            Case(
                "response decode",
                "openai",
                path.name,
                partial(openai_chat.decode_response, body),
                partial(ChatCompletion.model_validate_json, body),
                partial(msgspec.json.decode, body),
            )
        )
    call = pydantic.TypeAdapter(ChatCompletionMessageFunctionToolCall)
    for path in _files(data, "provider-examples/openai", "request_*.json"):
        body = path.read_bytes()
        req = openai_chat.decode_request(body)
        params = json.loads(body)
        for message in params["messages"]:
            if message.get("tool_calls"):
                message["tool_calls"] = [call.validate_python(c) for c in message["tool_calls"]]
        out.append(
            Case(
                "request encode",
                "openai",
                path.name,
                partial(openai_chat.encode_request, req),
                partial(openapi_dumps, params),
                partial(msgspec.json.encode, json.loads(body)),
                partial(openai_client_body, params, CompletionCreateParamsNonStreaming),
            )
        )
    client = sdk_module.OpenAI(api_key="offline")
    request = httpx2.Request("POST", "https://api.openai.com/v1/chat/completions")

    def sdk_chunks(stream: bytes) -> list[Any]:
        response = httpx2.Response(200, content=stream, request=request)
        return list(Stream(cast_to=ChatCompletionChunk, response=response, client=client))

    def sdk_accumulate(stream: bytes) -> Any:
        state = ChatCompletionStreamState()
        for chunk in sdk_chunks(stream):
            state.handle_chunk(chunk)
        return state.current_completion_snapshot

    def parse(stream: bytes) -> list[Any]:
        parser: Parser = openai_chat_stream.StreamParser()
        events = parser.feed(stream)
        parser.close()
        return events

    for path in _files(data, "provider-streams/openai", "*.sse"):
        stream = path.read_bytes()
        out.append(
            Case(
                "stream parse",
                "openai",
                path.name,
                partial(parse, stream),
                partial(sdk_chunks, stream),
            )
        )
        out.append(
            Case(
                "stream accumulate",
                "openai",
                path.name,
                partial(openai_chat_stream.accumulate, [stream]),
                partial(sdk_accumulate, stream),
            )
        )
    return out


def openai_client_body(params: dict[str, Any], expected: Any) -> bytes:
    """The body OpenAI's client writes for ``create(**params)``: ``maybe_transform`` over the
    params (its TypedDict ``expected``: SDK models dumped, keys aliased), then
    ``openapi_dumps``."""
    from openai._utils import maybe_transform
    from openai._utils._json import openapi_dumps

    return openapi_dumps(maybe_transform(params, expected))


def _calibrate(fn: Callable[[], Any], seconds: float) -> int:
    loops = 1
    while True:
        start = time.perf_counter()
        for _ in range(loops):
            fn()
        if time.perf_counter() - start >= seconds or loops >= 1 << 20:
            return loops
        loops *= 2


def run(
    repeat: int = 7,
    sample_seconds: float = 0.01,
    data: Path | None = None,
    progress: Callable[[str], None] | None = None,
    found: list[Case] | None = None,
) -> list[Row]:
    """Time every case (or the ``found`` ones; interleaved rounds, medians) and sum them per
    operation and provider."""
    found = cases(data) if found is None else found
    timed = [
        (c, side, getattr(c, side))
        for c in found
        for side in ("ours", "sdk", "floor", "client")
        if getattr(c, side) is not None
    ]
    loops = [_calibrate(fn, sample_seconds) for _, _, fn in timed]
    samples: list[list[float]] = [[] for _ in timed]
    for r in range(repeat):
        if progress is not None:
            progress(f"providers: round {r + 1}/{repeat}")
        for i, (_, _, fn) in enumerate(timed):
            n = loops[i]
            start = time.perf_counter()
            for _ in range(n):
                fn()
            samples[i].append((time.perf_counter() - start) / n)
    medians = {
        (id(c), side): statistics.median(s) for (c, side, _), s in zip(timed, samples, strict=True)
    }
    rows: dict[tuple[str, str], list[Case]] = {}
    for c in found:
        rows.setdefault((c.operation, c.provider), []).append(c)
    by_round = {(id(c), side): s for (c, side, _), s in zip(timed, samples, strict=True)}
    out = []
    for (operation, provider), group in rows.items():
        ours = [medians[id(c), "ours"] for c in group]
        sdk = [medians[id(c), "sdk"] for c in group]
        # per input: the median over rounds of SDK / ours, both timed back to back in a round
        paired = [
            statistics.median(
                s / o for o, s in zip(by_round[id(c), "ours"], by_round[id(c), "sdk"], strict=True)
            )
            for c in group
        ]
        floors = [medians.get((id(c), "floor")) for c in group]
        floor = sum(f for f in floors if f is not None) if None not in floors else None
        best = sum(min(by_round[id(c), "sdk"]) for c in group) / sum(
            min(by_round[id(c), "ours"]) for c in group
        )
        client = None
        if any(c.client is not None for c in group):
            client = sum(medians.get((id(c), "client"), medians[id(c), "sdk"]) for c in group)
        out.append(
            Row(
                operation,
                provider,
                len(group),
                sum(ours),
                sum(sdk),
                min(paired),
                floor,
                best,
                client,
            )
        )
    return out


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:9.1f} us"


def table(rows: list[Row]) -> str:
    """The rows as a text table: ratio = SDK time / ours from the medians (best: from the
    fastest rounds; worst: the smallest per-input ratio),
    target from the issue, the schema-less msgspec floor with SDK time / floor (no adapter
    can beat the floor, so a target above SDK/floor cannot be met), and for requests the SDK
    client's whole request building over ours (``client``: `Case.client`)."""
    if not rows:
        return "providers: no inputs (tests/data not found) or no SDK installed; nothing timed"
    lines = [
        f"{'operation':<18} {'provider':<10} {'inputs':>6} {'minagent':>12} {'SDK':>12}"
        f" {'ratio':>7} {'best':>7} {'worst':>7} {'target':>7} {'floor':>12} {'SDK/floor':>9}"
        f" {'client':>8}",
    ]
    for row in rows:
        target = TARGETS.get(row.operation)
        lines.append(
            f"{row.operation:<18} {row.provider:<10} {row.inputs:>6} {_us(row.ours)} {_us(row.sdk)}"
            f" {row.ratio:6.1f}x {row.best or 0:6.1f}x {row.worst:6.1f}x"
            + (f" {target:6.0f}x" if target else "       -")
            + (f" {_us(row.floor)} {row.sdk / row.floor:8.1f}x" if row.floor else " " * 23)
            + (f" {row.client / row.ours:7.1f}x" if row.client else "")
        )
    return "\n".join(lines)


def command(args: Any) -> int:
    """``minagent bench --family providers``: time this group only, print the table (and write
    ``--json``); uses ``--repeat`` / ``--quick``."""
    import sys

    repeat = 3 if args.quick else args.repeat
    rows = run(repeat=repeat, progress=lambda text: print(text, file=sys.stderr, flush=True))
    print(table(rows))
    if args.json is not None:
        payload = {
            "settings": {"family": "providers", "repeat": repeat},
            "rows": [
                {
                    "operation": r.operation,
                    "provider": r.provider,
                    "inputs": r.inputs,
                    "minagent_s": r.ours,
                    "sdk_s": r.sdk,
                    "ratio": r.ratio,
                    "worst": r.worst,
                    "best": r.best,
                    "floor_s": r.floor,
                    "client_s": r.client,
                }
                for r in rows
            ],
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n")
    return 0 if rows else 1
