"""The gateway bench family: its referee (SDK types and documented rules), its corpus, its
tables, and LiteLLM beside minagent when LiteLLM is installed (timing is the bench's, not here)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from minagent import cli, providers
from minagent.bench import gateway, gateway_corpus, gateway_rules
from minagent.bench.gateway_rules import Violation

pytest.importorskip("anthropic")
pytest.importorskip("openai")

DATA = Path(__file__).parent / "data"


def _req(*messages: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"model": "claude-x", "max_tokens": 100, "messages": list(messages), **fields}


_USER = {"role": "user", "content": "Hi"}
_TOOLS = [{"name": "get_weather", "input_schema": {"type": "object"}}]


def _use(ident: str = "toolu_1", name: str = "get_weather") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": ident, "name": name, "input": {}}],
    }


def _result(ident: str = "toolu_1", *first: dict[str, Any]) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": ident, "content": "18C"}
    return {"role": "user", "content": [*first, block]}


RULE_CASES = [
    (
        gateway_rules.max_tokens_required,
        {"model": "m", "messages": [_USER]},
        [Violation("max_tokens_required", "$.max_tokens", "max_tokens is missing")],
    ),
    (
        gateway_rules.anthropic_messages_non_empty,
        {"model": "m", "max_tokens": 5, "messages": []},
        [Violation("anthropic_messages_non_empty", "$.messages", "no messages")],
    ),
    (
        gateway_rules.no_empty_content,
        _req({"role": "user", "content": ""}, _USER, {"role": "assistant", "content": []}),
        [Violation("no_empty_content", "$.messages[0].content", "empty content")],
    ),
    (
        gateway_rules.no_empty_text_blocks,
        _req(
            _USER,
            {"role": "assistant", "content": [{"type": "text", "text": ""}]},
            system=[{"type": "text", "text": ""}],
        ),
        [
            Violation("no_empty_text_blocks", "$.messages[1].content[0].text", "empty text block"),
            Violation("no_empty_text_blocks", "$.system[0].text", "empty text block"),
        ],
    ),
    (
        gateway_rules.tool_id_pattern,
        _req(
            _USER, _use("functions.get_weather:0"), _result("functions.get_weather:0"), tools=_TOOLS
        ),
        [
            Violation(
                "tool_id_pattern",
                "$.messages[1].content[0].id",
                "'functions.get_weather:0' does not match ^[a-zA-Z0-9_-]+$",
            ),
            Violation(
                "tool_id_pattern",
                "$.messages[2].content[0].tool_use_id",
                "'functions.get_weather:0' does not match ^[a-zA-Z0-9_-]+$",
            ),
        ],
    ),
    (
        gateway_rules.tool_name_pattern,
        _req(
            _USER,
            _use(name="weather.get"),
            _result(),
            tools=[
                {"name": "weather.get", "input_schema": {"type": "object"}},
                {"type": "web_search_20250305", "name": "web_search"},
                {"name": "x" * 129, "input_schema": {"type": "object"}},
            ],
            tool_choice={"type": "tool", "name": "a/b"},
        ),
        [
            Violation(
                "tool_name_pattern",
                "$.tools[0].name",
                "'weather.get' does not match ^[a-zA-Z0-9_-]{1,128}$",
            ),
            Violation(
                "tool_name_pattern",
                "$.tools[2].name",
                f"{'x' * 129!r} does not match ^[a-zA-Z0-9_-]{{1,128}}$",
            ),
            Violation(
                "tool_name_pattern",
                "$.messages[1].content[0].name",
                "'weather.get' does not match ^[a-zA-Z0-9_-]{1,128}$",
            ),
            Violation(
                "tool_name_pattern",
                "$.tool_choice.name",
                "'a/b' does not match ^[a-zA-Z0-9_-]{1,128}$",
            ),
        ],
    ),
    (
        gateway_rules.tool_history_needs_tools,
        _req(_USER, _use(), _result()),
        [
            Violation(
                "tool_history_needs_tools",
                "$.messages[1].content[0]",
                "a tool_use block in a request without tools",
            )
        ],
    ),
    (
        gateway_rules.tool_result_follows_tool_use,
        _req(
            _USER,
            _use("toolu_1"),
            _result("toolu_1", {"type": "text", "text": "here"}),
            _use("toolu_2"),
            {"role": "user", "content": "no result"},
            _result("toolu_9"),
            tools=_TOOLS,
        ),
        [
            Violation(
                "tool_result_follows_tool_use",
                "$.messages[2].content",
                "tool_result blocks do not come first",
            ),
            Violation(
                "tool_result_follows_tool_use", "$.messages[4]", "no tool_result for 'toolu_2'"
            ),
            Violation(
                "tool_result_follows_tool_use",
                "$.messages[5].content[0].tool_use_id",
                "no tool_use 'toolu_9' in the message before",
            ),
        ],
    ),
    (
        gateway_rules.no_trailing_whitespace_in_final_assistant,
        _req(_USER, {"role": "assistant", "content": [{"type": "text", "text": "Here:\n"}]}),
        [
            Violation(
                "no_trailing_whitespace_in_final_assistant",
                "$.messages[1].content[0].text",
                "final assistant content ends with whitespace: 'Here:\\n'",
            )
        ],
    ),
    (
        gateway_rules.metadata_user_id_only,
        _req(_USER, metadata={"user_id": "u-1", "tenant": "acme"}),
        [Violation("metadata_user_id_only", "$.metadata.tenant", "metadata key 'tenant'")],
    ),
]


@pytest.mark.parametrize(
    ("rule", "body", "expected"), RULE_CASES, ids=[c[0].__name__ for c in RULE_CASES]
)
def test_each_rule_catches_its_violation(
    rule: Any, body: dict[str, Any], expected: list[Violation]
) -> None:
    """Each Anthropic request rule reports exactly its violations (rule, path, message)."""
    assert rule(body) == expected


def test_a_valid_request_breaks_no_rule_and_every_rule_is_registered() -> None:
    """A request with a tool round trip, a clean prefill and user_id metadata passes the SDK
    types and all rules; every rule of the table above is in ANTHROPIC_REQUEST_RULES."""
    body = _req(
        _USER,
        _use(),
        _result(),
        {"role": "assistant", "content": "Sure,"},
        tools=_TOOLS,
        metadata={"user_id": "u-1"},
    )
    verdict = gateway_rules.anthropic_request(json.dumps(body).encode())
    assert verdict == gateway_rules.Verdict([], [], [])
    assert verdict.accepted
    assert {rule for rule, _, _ in RULE_CASES} == set(gateway_rules.ANTHROPIC_REQUEST_RULES)


def test_the_sdk_check_reports_errors_and_foreign_keys_by_path() -> None:
    """The SDK TypedDict refuses a missing max_tokens at $.max_tokens; keys it does not name
    are listed as foreign keys, top-level and nested."""
    missing = gateway_rules.anthropic_request({"model": "m", "messages": [_USER]})
    assert missing.sdk == [Violation("sdk", "$.max_tokens", "missing: Field required")]
    extra = _req({"role": "user", "content": [{"type": "text", "text": "hi", "foo": 1}]}, bar=2)
    verdict = gateway_rules.anthropic_request(extra)
    assert verdict.sdk == [] and verdict.rules == []
    assert [v.path for v in verdict.foreign] == ["$.messages[0].content[0].foo", "$.bar"]
    assert verdict.accepted  # foreign keys are counted apart, not rejected


def _completion(finish: str, **message: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "claude-x",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "hi", **message},
                "finish_reason": finish,
            }
        ],
    }


def test_openai_response_checks() -> None:
    """A finish reason outside the enum (or null, outside a stream) breaks the rule (and the
    SDK type); a key outside
    ChatCompletion is a foreign key; a missing ``created`` is the SDK's error."""
    bad = gateway_rules.openai_response(_completion("pause_turn"))
    assert bad.rules == [
        Violation(
            "openai_finish_reason",
            "$.choices[0].finish_reason",
            "'pause_turn' is not in the finish_reason enum",
        )
    ]
    assert [v.path for v in bad.sdk] == ["$.choices[0].finish_reason"]
    assert gateway_rules.openai_finish_reason(_completion(None)) == [  # type: ignore[arg-type]
        Violation(
            "openai_finish_reason",
            "$.choices[0].finish_reason",
            "None is not in the finish_reason enum",
        )
    ]
    extra = gateway_rules.openai_response(_completion("stop", reasoning_content="hm"))
    assert extra.accepted
    assert [v.path for v in extra.foreign] == ["$.choices[0].message.reasoning_content"]
    body = _completion("stop")
    del body["created"]
    assert gateway_rules.openai_response(body).sdk == [
        Violation("sdk", "$.created", "missing: Field required")
    ]


def _sse(*chunks: dict[str, Any]) -> bytes:
    return (
        b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"
    )


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "claude-x",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def test_openai_chunk_checks() -> None:
    """A stream passes ChatCompletionChunk, the SDK accumulator and the enum; a bad finish
    reason is reported with the chunk index; a list delta without ``index`` is the
    accumulator's error; an empty stream is refused."""
    good = gateway_rules.openai_chunks(
        _sse(_chunk({"role": "assistant", "content": "hi"}), _chunk({}, "length"))
    )
    assert good == gateway_rules.Verdict([], [], [])
    bad = gateway_rules.openai_chunks(_sse(_chunk({"content": "hi"}), _chunk({}, "pause_turn")))
    assert bad.rules == [
        Violation(
            "openai_finish_reason",
            "$[1].choices[0].finish_reason",
            "'pause_turn' is not in the finish_reason enum",
        )
    ]
    no_index = gateway_rules.openai_chunks(
        _sse(_chunk({"blocks": [{"type": "x"}]}), _chunk({"blocks": [{"type": "y"}]}))
    )
    assert [(v.rule, v.path) for v in no_index.sdk] == [("sdk", "$[1]")]
    assert no_index.sdk[0].message.startswith(
        "accumulator: RuntimeError: Expected list delta entry"
    )
    assert gateway_rules.openai_chunks(b"data: [DONE]\n\n").sdk == [
        Violation("sdk", "$", "no chunks")
    ]


def test_the_corpus_covers_the_issue_and_the_recordings() -> None:
    """At least 53 requests: the hand-built ones (named after the issue's cases) and every
    recorded Chat request; every recorded Anthropic response and stream; .chunks.txt streams
    become event/data SSE pairs."""
    requests = gateway_corpus.requests(DATA)
    recorded = [p for g in gateway_corpus.RECORDED_REQUESTS for p in DATA.glob(g)]
    assert len(requests) == len(gateway_corpus.HAND_BUILT) + len(recorded) >= 53
    assert {
        "no_max_tokens",
        "max_tokens_and_max_completion_tokens",
        "empty_content_with_tool_calls",
        "tool_id_functions_colon",
        "tool_name_dotted",
        "tool_history_without_tools",
        "prefill_trailing_space",
        "metadata_extra_keys",
        "tool_choice_allowed_tools",
        "custom_tool",
        "image_part_cache_control",
        "tool_calls_with_index",
        "response_format_json_schema",
        "reasoning_effort",
        "user",
        "stop_list",
        "parallel_tool_calls_false",
    } <= set(gateway_corpus.HAND_BUILT)
    for _, body in requests:  # every one is a Chat request minagent's decoder reads
        providers.get("openai_chat").decode_request(body)
    assert len(gateway_corpus.responses(DATA)) == len(
        [p for g in gateway_corpus.RECORDED_RESPONSES for p in DATA.glob(g)]
    )
    streams = dict(gateway_corpus.streams(DATA))
    container = streams["provider-real/anthropic/stream_container.chunks.txt"]
    assert container.startswith(b'event: message_start\ndata: {"type":"message_start"')
    assert container.endswith(b'data: {"type":"message_stop"}\n\n')
    assert (
        gateway_corpus.requests(None)
        == gateway_corpus.requests(DATA)[: len(gateway_corpus.HAND_BUILT)]
    )


def _tiny() -> dict[str, list[tuple[str, bytes]]]:
    full = gateway.corpus(DATA)
    return {
        "request": [r for r in full["request"] if r[0] in ("no_max_tokens", "user")],
        "response": [r for r in full["response"] if r[0].endswith("response_text.json")],
        "stream": [r for r in full["stream"] if r[0].endswith("/text.sse")],
    }


def test_the_family_runs_without_litellm_on_a_tiny_corpus() -> None:
    """minagent alone: both requests get the gateway's max_tokens default only where the client
    set none, every output is accepted, the tables and the install hint are printed, and the
    stream row is '-' until translate_stream exists."""
    lib = gateway.minagent_library()
    inputs = _tiny()
    out = json.loads(lib.request(dict(inputs["request"])["no_max_tokens"]))
    assert out["max_tokens"] == gateway.DEFAULT_MAX_TOKENS
    assert json.loads(lib.request(dict(inputs["request"])["user"]))["max_tokens"] == 100
    results, timings, text = gateway.report([lib], inputs, repeat=1, sample_seconds=0)
    counts = {(r.operation, r.library): (r.accepted, r.inputs) for r in results}
    assert counts[("request", "minagent")] == (2, 2)
    assert counts[("response", "minagent")] == (1, 1)
    assert [t.operation for t in timings][:2] == ["request", "response"]
    assert all(t.ratio is None and t.inputs for t in timings)
    assert "OpenAI Chat request -> Anthropic request: accepted minagent 2/2" in text
    assert text.endswith(gateway.INSTALL_HINT)
    if getattr(providers, "translate_stream", None) is None:
        assert "minagent stream: - (minagent.providers.translate_stream does not exist yet)" in text
        assert ("stream", "minagent") not in counts
    else:
        assert counts[("stream", "minagent")] == (1, 1)


def test_the_acceptance_table_counts_rejections_raises_and_foreign_keys() -> None:
    """A library writing a body without max_tokens, one raising, one with a foreign key: the
    table and the summary count each (accepted, SDK, rules, raised, foreign)."""

    def write(body: bytes) -> bytes:
        name = json.loads(body)["name"]
        if name == "raise":
            raise ValueError("no")
        value = _req(_USER) if name == "ok" else {"model": "m", "messages": [_USER]}
        return json.dumps({**value, "extra": 1} if name == "ok" else value).encode()

    lib = gateway.Library("fake", "0", write, None, None)
    inputs = [(n, json.dumps({"name": n}).encode()) for n in ("ok", "missing", "raise")]
    result = gateway.accept(lib, "request", inputs)
    assert result is not None
    assert (result.accepted, result.sdk_ok, result.rules_ok, result.with_foreign) == (1, 1, 1, 1)
    assert result.raised == {"raise": "ValueError: no"}
    assert result.by_rule() == {"max_tokens_required": 1, "sdk": 1}
    assert result.foreign_keys() == ["$.extra"]
    assert result.rejected()["missing"] == [
        "sdk: missing: Field required at $.max_tokens",
        "max_tokens_required: max_tokens is missing at $.max_tokens",
    ]
    table = gateway.acceptance_table([result])
    assert "request   fake            1/3       1/3     1/3      1          1/3        1" in table
    assert "  request fake rejected by: max_tokens_required 1, sdk 1, raised 1" in table
    assert gateway.accept(lib, "response", inputs) is None


def test_the_cli_registers_the_family(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`minagent bench --family gateway --quick --json FILE` prints both tables and writes the
    figures (acceptance per library and operation) as JSON (on the tiny corpus, for time)."""
    tiny = _tiny()
    monkeypatch.setattr(gateway, "corpus", lambda data=None: tiny)
    out = tmp_path / "gateway.json"
    assert cli.main(["bench", "--family", "gateway", "--quick", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("gateway: OpenAI Chat client -> Anthropic")
    doc = json.loads(out.read_text())
    request = next(
        a for a in doc["acceptance"] if a["library"] == "minagent" and a["operation"] == "request"
    )
    assert request["inputs"] == len(gateway.corpus()["request"])
    assert f"accepted minagent {request['accepted']}/{request['inputs']}" in text
    assert doc["carried"]["minagent"]["id"] == [1, 1]  # the response id is kept
    assert "carried back" in text


def test_litellm_beside_minagent() -> None:
    """With LiteLLM installed: its timed request translation writes the body its completion()
    sends, its outputs are judged, and the timing table has the ratio column."""
    if not gateway.litellm_available():  # not importorskip: the import must follow OFFLINE_ENV
        pytest.skip("litellm is not installed (the gateway-peers extra)")
    lib = gateway.litellm_library()
    assert lib is not None and lib.name == "LiteLLM"
    inputs = _tiny()
    body = dict(inputs["request"])["user"]
    assert json.loads(lib.request(body)) == json.loads(lib.judge["request"](body))
    results, timings, text = gateway.report(
        [gateway.minagent_library(), lib], inputs, repeat=1, sample_seconds=0
    )
    counts = {(r.operation, r.library): (r.accepted, r.inputs) for r in results}
    assert counts[("request", "LiteLLM")] == (2, 2)
    assert counts[("response", "LiteLLM")] == (1, 1)
    assert counts[("stream", "LiteLLM")] == (1, 1)
    request = next(t for t in timings if t.operation == "request")
    assert request.ratio is not None and request.ratio > 0
    assert "ratio" in text and gateway.INSTALL_HINT not in text


def test_carried_counts_what_reaches_the_chat_response() -> None:
    """`carried` finds a thinking signature, a citation's cited text and a server block's id
    anywhere in the output, compares thinking tokens with reasoning tokens, the id and the
    model; what is absent counts as lost."""
    source = {
        "id": "msg_1",
        "model": "claude-x-1",
        "usage": {"output_tokens": 9, "output_tokens_details": {"thinking_tokens": 7}},
        "content": [
            {"type": "thinking", "thinking": "hm", "signature": "sig-1"},
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "text", "text": "Paris", "citations": [{"cited_text": "Paris is big"}]},
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
            {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
        ],
    }
    output = {
        "id": "chatcmpl-x",
        "model": "claude-x-1",
        "choices": [
            {"message": {"thinking_blocks": [{"signature": "sig-1"}], "x": ["srvtoolu_1"]}}
        ],
        "usage": {"completion_tokens_details": {"reasoning_tokens": 7}},
    }
    counts = gateway.carried(json.dumps(source).encode(), json.dumps(output).encode())
    assert counts == {
        "thinking": (1, 2),
        "citations": (0, 1),
        "server blocks": (2, 2),
        "thinking tokens": (1, 1),
        "id": (0, 1),
        "model": (1, 1),
    }


def test_mapped_checks_each_option_on_the_written_request() -> None:
    """`mapped` runs each MAPPED check on the Anthropic request a library writes: a body with
    max_tokens 256 and stop_sequences ["END", "STOP"] maps those two options and no other."""
    written = {
        "model": "m",
        "max_tokens": 256,
        "stop_sequences": ["END", "STOP"],
        "messages": [_USER],
    }
    lib = gateway.Library("fake", "0", lambda body: json.dumps(written).encode(), None, None)
    result = gateway.mapped(lib, gateway_corpus.requests(None))
    assert result is not None and set(result) == set(gateway_corpus.MAPPED)
    assert {name for name, ok in result.items() if ok} == {"max_completion_tokens", "stop_list"}
    assert gateway.mapped_table([lib], gateway_corpus.requests(None)).startswith(
        f"options mapped fake: 2/{len(gateway_corpus.MAPPED)} (missed: "
    )


def test_a_litellm_that_cannot_be_driven_is_reported_not_fatal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """When the installed LiteLLM lacks the functions the bench calls, `libraries` keeps
    minagent and reports why (or raises PeerError to a caller that gives no list)."""

    def moved() -> None:
        raise gateway.PeerError("litellm 0.1 is installed but lacks the functions this bench calls")

    monkeypatch.setattr(gateway, "litellm_library", moved)
    problems: list[str] = []
    assert [lib.name for lib in gateway.libraries(problems)] == ["minagent"]
    assert problems == ["litellm 0.1 is installed but lacks the functions this bench calls"]
    with pytest.raises(gateway.PeerError, match="lacks the functions"):
        gateway.libraries()
