"""OpenAI Responses and Gemini cases for the ``providers`` benchmark group.

The same `Case` shape as `minagent.bench.providers`, whose ``cases()`` includes these (so
``minagent bench --family providers`` covers all four formats):

- ``response decode``: recorded response bytes to a `ModelResponse`, against the SDK's
  ``model_validate_json`` (``openai.types.responses.Response`` /
  ``google.genai.types.GenerateContentResponse``). The installed SDKs refuse some recordings
  for a key they require or do not know (see the tests); both sides then read the same bytes
  patched the way the tests patch them (``cache_write_tokens: 0`` added; ``serviceTier``
  removed).
- ``request encode``: a request to bytes, against what an SDK user does: OpenAI's
  ``openapi_dumps`` over the params with the earlier output items held as the SDK's response
  models (as an agent loop holds them); Gemini's ``contents`` held as ``types.Content`` models,
  dumped by alias without ``None`` and written with ``json.dumps``. Their ``client`` side is
  the SDK client's whole request building: OpenAI's ``maybe_transform`` before
  ``openapi_dumps``; google-genai's ``generate_content`` parameter model and converter
  (`gemini_client_body`).

``python -m minagent.bench.providers_extra`` times them (interleaved rounds, medians, as the
group does) and prints the table.
"""

from __future__ import annotations

import contextlib
import json
import sys
from functools import partial
from pathlib import Path
from typing import Any

import msgspec

from .providers import Case, Row, data_dir, openai_client_body, table

__all__ = ["cases", "gemini_client_body", "main", "run"]


def cases(data: Path | None = None) -> list[Case]:
    """Every Responses / Gemini case whose inputs and SDK are available."""
    data = data or data_dir()
    if data is None:
        return []
    out: list[Case] = []
    with contextlib.suppress(ImportError):
        out += _responses_cases(data)
    with contextlib.suppress(ImportError):
        out += _gemini_cases(data)
    return out


def _responses_cases(data: Path) -> list[Case]:
    import pydantic
    from openai._utils._json import openapi_dumps
    from openai.types.responses import Response, ResponseOutputItem
    from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming

    from ..providers import get

    openai_responses = get("openai_responses").module

    out: list[Case] = []
    for path in sorted((data / "provider-examples-responses").glob("response_*.json")):
        obj = json.loads(path.read_bytes())
        details = obj.get("usage", {}).get("input_tokens_details")
        if isinstance(details, dict):
            details.setdefault("cache_write_tokens", 0)
        body = json.dumps(obj).encode()
        out.append(
            Case(
                "response decode",
                "responses",
                path.name,
                partial(openai_responses.decode_response, body),
                partial(Response.model_validate_json, body),
                partial(msgspec.json.decode, body),
            )
        )
    item: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(ResponseOutputItem)
    for path in sorted((data / "provider-examples-responses").glob("request_*.json")):
        body = path.read_bytes()
        req = openai_responses.decode_request(body)
        params = json.loads(body)
        held = []
        for raw in params.get("input", []):
            try:
                held.append(item.validate_python(raw) if "type" in raw else raw)
            except pydantic.ValidationError:
                held.append(raw)
        params["input"] = held
        out.append(
            Case(
                "request encode",
                "responses",
                path.name,
                partial(openai_responses.encode_request, req),
                partial(openapi_dumps, params),
                partial(msgspec.json.encode, json.loads(body)),
                partial(openai_client_body, params, ResponseCreateParamsNonStreaming),
            )
        )
    return out


def _gemini_cases(data: Path) -> list[Case]:
    from google import genai
    from google.genai import types

    from ..providers import get

    gemini = get("gemini").module

    out: list[Case] = []
    for path in sorted((data / "provider-examples-gemini").glob("response_*.json")):
        obj = json.loads(path.read_bytes())
        usage = obj.get("usageMetadata")
        if isinstance(usage, dict):
            usage.pop("serviceTier", None)
        body = json.dumps(obj).encode()
        out.append(
            Case(
                "response decode",
                "gemini",
                path.name,
                partial(gemini.decode_response, body),
                partial(types.GenerateContentResponse.model_validate_json, body),
                partial(msgspec.json.decode, body),
            )
        )
    client = genai.Client(api_key="offline")  # no request is sent
    for path in sorted((data / "provider-examples-gemini").glob("request_*.json")):
        body = path.read_bytes()
        req = gemini.decode_request(body)
        params = json.loads(body)
        contents = [types.Content.model_validate_json(json.dumps(c)) for c in params["contents"]]
        rest = {k: v for k, v in params.items() if k != "contents"}
        held = {key: params[key] for key in _CONFIG_KEYS if key in params}
        config = types.GenerateContentConfig.model_validate(
            {**params.get("generationConfig", {}), **held}
        )
        out.append(
            Case(
                "request encode",
                "gemini",
                path.name,
                partial(gemini.encode_request, req),
                partial(_gemini_sdk_encode, contents, rest),
                partial(msgspec.json.encode, json.loads(body)),
                partial(gemini_client_body, client, contents, config),
            )
        )
    return out


_CONFIG_KEYS = ("systemInstruction", "tools", "toolConfig", "safetySettings")
"""Top-level request keys google-genai takes inside ``GenerateContentConfig`` (camelCase is
accepted as the alias), besides the generation config's own."""


def gemini_client_body(client: Any, contents: list[Any], config: Any) -> bytes:
    """The body google-genai's ``client.models.generate_content(model=..., contents=...,
    config=...)`` writes for the Gemini API, before sending it: its parameter model, the
    converter to the API's shape, ``convert_to_dict``, ``encode_unserializable_types`` and
    ``json.dumps`` (as ``Models._generate_content`` and its API client do)."""
    from google.genai import _common, types
    from google.genai.models import _GenerateContentParameters_to_mldev

    model = types._GenerateContentParameters(
        model="gemini-2.5-flash", contents=contents, config=config
    )
    api = client.models._api_client
    request = _GenerateContentParameters_to_mldev(api, model, None, model)
    for key in ("config", "_url", "_query"):
        request.pop(key, None)
    request = _common.encode_unserializable_types(_common.convert_to_dict(request))
    return json.dumps(request).encode()


def _gemini_sdk_encode(contents: list[Any], rest: dict[str, Any]) -> bytes:
    dumped = [c.model_dump(mode="json", by_alias=True, exclude_none=True) for c in contents]
    return json.dumps({"contents": dumped, **rest}).encode()


def run(repeat: int = 7, sample_seconds: float = 0.01, data: Path | None = None) -> list[Row]:
    """Time the Responses and Gemini cases only, with `minagent.bench.providers.run` (interleaved
    rounds, medians summed per operation and provider); ``minagent bench --family providers``
    times them together with the Anthropic and Chat Completions cases."""
    from . import providers

    return providers.run(repeat, sample_seconds, data, found=cases(data))


def main(argv: list[str] | None = None) -> int:
    """Print the table (``--repeat N``, default 7)."""
    args = sys.argv[1:] if argv is None else argv
    repeat = int(args[args.index("--repeat") + 1]) if "--repeat" in args else 7
    rows = run(repeat=repeat)
    print(table(rows))
    return 0 if rows else 1


if __name__ == "__main__":
    raise SystemExit(main())
