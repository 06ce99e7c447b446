"""The gateway bench on every ordered pair of the four formats: each target's referee (its
SDK types and documented rules), minagent's per-pair acceptance on the corpus, the encoder fixes
the referee asked for, and LiteLLM's routes when LiteLLM is installed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from minagent import providers
from minagent.bench import gateway, gateway_corpus, gateway_pairs, gateway_rules
from minagent.bench.gateway_rules import Violation

pytest.importorskip("anthropic")
pytest.importorskip("openai")
pytest.importorskip("google.genai")

DATA = Path(__file__).parent / "data"

_ASK = {"role": "user", "content": "Weather in Paris?"}


def _call(ident: str = "call_1", name: str = "get_weather") -> dict[str, Any]:
    return {"id": ident, "type": "function", "function": {"name": name, "arguments": "{}"}}


def _chat(*messages: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"model": "gpt-4.1", "messages": list(messages), **fields}


def _fn(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}


def _resp(*items: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"model": "gpt-4.1", "input": list(items), **fields}


def _fc(call_id: str = "call_1", **keys: Any) -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": "w", "arguments": "{}", **keys}


def _out(call_id: str = "call_1") -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": "18C"}


def _gem(*contents: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"contents": list(contents), **fields}


_USER = {"role": "user", "parts": [{"text": "Hi"}]}


def _calls(n: int) -> dict[str, Any]:
    parts = [{"functionCall": {"name": "w", "args": {}}} for _ in range(n)]
    return {"role": "model", "parts": parts}


def _answers(n: int) -> dict[str, Any]:
    parts = [{"functionResponse": {"name": "w", "response": {"t": 18}}} for _ in range(n)]
    return {"role": "user", "parts": parts}


# (rule, a body breaking it, exactly what it reports, a body it accepts)
RULE_CASES = [
    (
        gateway_rules.chat_messages_non_empty,
        _chat(),
        [Violation("chat_messages_non_empty", "$.messages", "no messages")],
        _chat(_ASK),
    ),
    (
        gateway_rules.chat_tool_message_answers_call,
        _chat(
            _ASK,
            {"role": "assistant", "content": None, "tool_calls": [_call("call_1")]},
            {"role": "tool", "tool_call_id": "call_1", "content": "18C"},
            {"role": "user", "content": "and?"},
            {"role": "tool", "tool_call_id": "call_1", "content": "again"},
        ),
        [
            Violation(
                "chat_tool_message_answers_call",
                "$.messages[4].tool_call_id",
                "no assistant tool call 'call_1' before this tool message",
            )
        ],
        _chat(
            _ASK,
            {"role": "assistant", "content": None, "tool_calls": [_call("a"), _call("b")]},
            {"role": "tool", "tool_call_id": "a", "content": "1"},
            {"role": "tool", "tool_call_id": "b", "content": "2"},
        ),
    ),
    (
        gateway_rules.chat_tool_calls_answered,
        _chat(
            _ASK,
            {"role": "assistant", "content": None, "tool_calls": [_call("a"), _call("b")]},
            {"role": "tool", "tool_call_id": "a", "content": "1"},
            {"role": "user", "content": "go on"},
        ),
        [
            Violation(
                "chat_tool_calls_answered", "$.messages[1].tool_calls", "no tool message for 'b'"
            )
        ],
        _chat(_ASK, {"role": "assistant", "content": None, "tool_calls": [_call("a")]}),
    ),
    (
        gateway_rules.openai_function_name_pattern,
        _chat(_ASK, tools=[_fn("weather.get"), {"type": "function", "name": "x" * 65}]),
        [
            Violation(
                "openai_function_name_pattern",
                "$.tools[0].function.name",
                "'weather.get' does not match ^[a-zA-Z0-9_-]{1,64}$",
            ),
            Violation(
                "openai_function_name_pattern",
                "$.tools[1].name",
                f"{'x' * 65!r} does not match ^[a-zA-Z0-9_-]{{1,64}}$",
            ),
        ],
        _chat(_ASK, tools=[_fn("get_weather"), {"type": "function", "name": "w-2"}]),
    ),
    (
        gateway_rules.responses_call_output_answers_call,
        _resp(_fc("call_1"), _out("call_1"), _out("call_9")),
        [
            Violation(
                "responses_call_output_answers_call",
                "$.input[2].call_id",
                "no function call 'call_9' before this output",
            )
        ],
        _resp(_out("call_9"), previous_response_id="resp_1"),
    ),
    (
        gateway_rules.responses_item_id_prefix,
        _resp(
            _fc(id="call_1"),
            {"type": "message", "role": "assistant", "id": "m1", "content": []},
            {"type": "reasoning", "id": "rs_1", "summary": []},
        ),
        [
            Violation(
                "responses_item_id_prefix", "$.input[0].id", "'call_1' does not begin with 'fc'"
            ),
            Violation(
                "responses_item_id_prefix", "$.input[1].id", "'m1' does not begin with 'msg'"
            ),
        ],
        _resp(_fc(id="fc_1"), _fc("call_2"), {"type": "message", "role": "user", "id": "x"}),
    ),
    (
        gateway_rules.gemini_no_foreign_keys,
        _gem(_USER, model="gemini-2.5-flash", generationConfig={}),
        [Violation("gemini_no_foreign_keys", "$.model", "key 'model' outside the request body")],
        _gem(_USER, system_instruction={"parts": [{"text": "be brief"}]}, toolConfig={}),
    ),
    (
        gateway_rules.gemini_non_empty_parts,
        _gem(_USER, {"role": "model", "parts": []}, systemInstruction={"parts": []}),
        [
            Violation("gemini_non_empty_parts", "$.contents[1].parts", "parts must not be empty"),
            Violation(
                "gemini_non_empty_parts", "$.systemInstruction.parts", "parts must not be empty"
            ),
        ],
        _gem(_USER, {"role": "model", "parts": [{"text": "Hello"}]}),
    ),
    (
        gateway_rules.gemini_roles,
        _gem(_USER, {"role": "assistant", "parts": [{"text": "Hello"}]}),
        [Violation("gemini_roles", "$.contents[1].role", "role 'assistant'")],
        _gem({"parts": [{"text": "Hi"}]}, {"role": "model", "parts": [{"text": "Hello"}]}),
    ),
    (
        gateway_rules.gemini_function_response_pairing,
        _gem(_USER, _answers(1), _calls(2), _answers(1)),
        [
            Violation(
                "gemini_function_response_pairing",
                "$.contents[1]",
                "function response turn does not come right after a function call turn",
            ),
            Violation(
                "gemini_function_response_pairing",
                "$.contents[3].parts",
                "1 function responses for 2 function calls",
            ),
        ],
        _gem(_USER, _calls(2), _answers(2), {"role": "model", "parts": [{"text": "18C"}]}),
    ),
]


@pytest.mark.parametrize(
    ("rule", "bad", "expected", "good"), RULE_CASES, ids=[c[0].__name__ for c in RULE_CASES]
)
def test_each_rule_flags_its_violation_at_the_exact_path(
    rule: Any, bad: dict[str, Any], expected: list[Violation], good: dict[str, Any]
) -> None:
    """Each new request rule reports exactly its violations (rule, path, message), and nothing
    on a body that keeps it."""
    assert rule(bad) == expected
    assert rule(good) == []


def test_every_request_rule_is_registered_for_its_target() -> None:
    """Every rule above is in its target's `REQUEST_RULES` (so the bench applies it)."""
    registered = {rule for rules in gateway_rules.REQUEST_RULES.values() for rule in rules}
    assert {case[0] for case in RULE_CASES} <= registered
    assert gateway_rules.openai_function_name_pattern in gateway_rules.REQUEST_RULES["openai_chat"]
    assert (
        gateway_rules.openai_function_name_pattern
        in gateway_rules.REQUEST_RULES["openai_responses"]
    )


@pytest.mark.filterwarnings("error")
def test_gemini_finish_reason_rule_on_responses() -> None:
    """A candidate's finishReason outside the documented enum is flagged (google-genai only
    warns and keeps it, a warning the referee keeps quiet); the enum's values and a missing
    reason are not."""
    bad = {"candidates": [{"finishReason": "STOP"}, {"finishReason": ""}, {"index": 2}]}
    assert gateway_rules.gemini_finish_reason(bad) == [
        Violation(
            "gemini_finish_reason",
            "$.candidates[1].finishReason",
            "'' is not in the finishReason enum",
        )
    ]
    verdict = gateway_rules.response_verdict("gemini", bad)
    assert verdict.sdk == [] and [v.rule for v in verdict.rules] == ["gemini_finish_reason"]


def test_sdk_checks_of_each_target_name_the_path() -> None:
    """Each target's SDK check: a Chat request without messages, a Responses function tool
    without its required keys, a Gemini part with a key google-genai does not name (the API
    refuses it too), and each response model's required fields."""
    chat = gateway_rules.request_verdict("openai_chat", {"model": "m"})
    assert [(v.rule, v.path) for v in chat.sdk] == [("sdk", "$.messages")]
    responses = gateway_rules.request_verdict(
        "openai_responses", _resp(tools=[{"type": "function", "name": "w"}])
    )
    assert ("sdk", "$.tools[0].FunctionToolParam.parameters") in [
        (v.rule, v.path) for v in responses.sdk
    ]
    gemini = gateway_rules.request_verdict(
        "gemini", _gem({"role": "user", "parts": [{"text": "Hi", "cache_control": {}}]})
    )
    assert [(v.rule, v.path) for v in gemini.sdk] == [
        ("sdk", "$.contents[0].parts[0].cache_control")
    ]
    assert gemini.sdk[0].message.startswith("extra_forbidden")
    assert gateway_rules.request_verdict("gemini", _gem(_USER)).accepted
    message = gateway_rules.response_verdict("anthropic", {"type": "message"})
    assert {v.path for v in message.sdk} == {"$.id", "$.content", "$.model"}
    response = gateway_rules.response_verdict("openai_responses", {"object": "response"})
    assert response.sdk[0].path == "$.id"
    chat_ok = gateway_rules.response_verdict(
        "openai_chat",
        {
            "id": "c",
            "object": "chat.completion",
            "created": 1,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "hi"},
                    "x_vendor": 1,
                }
            ],
        },
    )
    assert chat_ok.accepted
    assert [v.path for v in chat_ok.foreign] == ["$.choices[0].x_vendor"]


def _inputs() -> dict[str, dict[str, list[tuple[str, bytes]]]]:
    return {
        "request": gateway_corpus.pair_requests(DATA),
        "response": gateway_corpus.pair_responses(DATA),
    }


SIZES = {
    "request": {"anthropic": 12, "openai_chat": 61, "openai_responses": 13, "gemini": 12},
    "response": {"anthropic": 14, "openai_chat": 31, "openai_responses": 16, "gemini": 12},
}
"""Inputs per operation and source format: the Chat corpus, and every recording in tests/data."""


def test_minagent_is_accepted_on_every_pair_of_the_corpus() -> None:
    """minagent's translations on all 12 ordered pairs, requests and responses: every output
    is accepted by the target's SDK types and rules (0 rejections, nothing raised), over the
    pinned number of inputs per source."""
    pairs = gateway_pairs.accept_pairs([gateway_pairs.minagent_pairs()], _inputs())
    assert len(pairs) == 24
    got = {
        (p.operation, p.source, p.target): (
            p.results["minagent"].accepted,
            p.inputs,
            p.results["minagent"].raised,
            p.results["minagent"].by_rule(),
        )
        for p in pairs
    }
    expected = {
        (op, s, t): (n, n, {}, {})
        for op, sizes in SIZES.items()
        for s, n in sizes.items()
        for t in gateway_rules.FORMATS
        if t != s
    }
    assert got == expected


STREAMS = {"anthropic": 10, "openai_chat": 23, "openai_responses": 10, "gemini": 8}
"""Recorded streams per source format."""
_INCONSISTENT = "provider-real/openai_responses/stream_shell_container.chunks.txt"
"""A recording whose ``output_text.done`` text does not continue its deltas: the translator
refuses it (it already sent the deltas)."""


def test_minagent_streams_on_every_pair() -> None:
    """minagent's translate_stream on all 12 ordered pairs: every translated stream passes the
    target SDK's event types and accumulator; the one inconsistent recording raises (by frame)
    for each target."""
    inputs = {"stream": gateway_corpus.pair_streams(DATA)}
    pairs = gateway_pairs.accept_pairs([gateway_pairs.minagent_pairs()], inputs)
    assert len(pairs) == 12
    for pair in pairs:
        result = pair.results["minagent"]
        assert pair.inputs == STREAMS[pair.source]
        assert result.by_rule() == {}
        if pair.source == "openai_responses":
            assert list(result.raised) == [_INCONSISTENT]
            assert result.raised[_INCONSISTENT].startswith(
                "StreamError: the done event's text does not continue the text of its deltas"
            )
        else:
            assert result.raised == {}
        assert result.accepted == pair.inputs - len(result.raised)


def _sse(*events: dict[str, Any]) -> bytes:
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)


_MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "m",
    "content": [],
    "stop_reason": None,
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 0},
}
_ANTHROPIC_STREAM = [
    {"type": "message_start", "message": _MESSAGE},
    {"type": "ping"},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
    {"type": "content_block_stop", "index": 0},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": 1},
    },
    {"type": "message_stop"},
]


def test_stream_referees_of_each_target() -> None:
    """Anthropic: events typed and accumulated by the SDK (ping skipped), a stream must end with
    message_stop, a bad delta is named by event index; Responses: the final response event is
    required; Gemini: each chunk is a response, its finishReason in the enum."""
    assert gateway_rules.stream_verdict("anthropic", _sse(*_ANTHROPIC_STREAM)).accepted
    cut = gateway_rules.stream_verdict("anthropic", _sse(*_ANTHROPIC_STREAM[:-1]))
    assert cut.sdk == [Violation("sdk", "$", "the stream does not end with message_stop")]
    bad = dict(_ANTHROPIC_STREAM[3], delta={"type": "text_delta"})
    wrong = gateway_rules.stream_verdict(
        "anthropic", _sse(*_ANTHROPIC_STREAM[:3], bad, *_ANTHROPIC_STREAM[4:])
    )
    assert wrong.sdk[0].path.startswith("$[3]")
    response = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "status": "completed",
        "model": "m",
        "output": [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }
    created = {"type": "response.created", "sequence_number": 0, "response": response}
    done = {"type": "response.completed", "sequence_number": 1, "response": response}
    assert gateway_rules.stream_verdict("openai_responses", _sse(created, done)).accepted
    assert gateway_rules.stream_verdict("openai_responses", _sse(created)).sdk == [
        Violation("sdk", "$", "the stream does not end with a final response event")
    ]
    chunks = _sse(
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi"}]}}]},
        {"candidates": [{"finishReason": ""}]},
    )
    verdict = gateway_rules.stream_verdict("gemini", chunks)
    assert verdict.sdk == []
    assert verdict.rules == [
        Violation(
            "gemini_finish_reason",
            "$[1].candidates[0].finishReason",
            "'' is not in the finishReason enum",
        )
    ]


def test_the_pair_table_and_json() -> None:
    """The table has a row per pair with "n/a" for a library without that route, notes what
    a target rejected by rule, and the JSON holds the same counts."""
    items = [("a", b'{"model": "m", "input": "Hi"}'), ("b", b"not json")]

    def translate(operation: str, source: str, target: str) -> Any:
        if target != "openai_chat":
            return None
        return lambda body: json.dumps(json.loads(body)).encode()

    peer = gateway_pairs.Pairs("peer", translate, lambda *_: "no route")
    pairs = gateway_pairs.accept_pairs(
        [gateway_pairs.minagent_pairs(), peer], {"request": {"openai_responses": items}}
    )
    assert [(p.source, p.target) for p in pairs] == [
        ("openai_responses", "anthropic"),
        ("openai_responses", "openai_chat"),
        ("openai_responses", "gemini"),
    ]
    text = gateway_pairs.pair_table(pairs, ["minagent", "peer"])
    lines = text.splitlines()
    assert lines[1].split() == ["request", "Responses", "->", "Anthropic", "2", "1/2", "n/a"]
    assert lines[2].split() == ["request", "Responses", "->", "Chat", "2", "1/2", "0/2"]
    assert "  request Responses -> Chat minagent rejected by: raised 1" in lines
    assert "  request Responses -> Chat peer rejected by: sdk 1, raised 1" in lines
    doc = gateway_pairs.pair_json(pairs)
    assert doc[0]["libraries"]["peer"] == "n/a: no route"
    assert doc[1]["libraries"]["peer"]["by_rule"] == {"sdk": 1}
    assert list(doc[1]["libraries"]["peer"]["raised"]) == ["b"]


def test_the_plain_bench_section_prints_the_pairs_quickly() -> None:
    """The section a plain `minagent bench` prints ends with the minagent pair table (LiteLLM's
    routes are the gateway family's)."""
    pairs = gateway.pair_results([gateway.minagent_library()], DATA, peers=False, streams=False)
    text = gateway.pairs_text(pairs, ["minagent"])
    assert text.splitlines()[1].split()[-1] == "minagent"
    rows = [line.split() for line in text.splitlines()[2:]]
    assert len(rows) == 24
    assert ["request", "Chat", "->", "Gemini", "61", "61/61"] in rows


# --- the encoder fixes the referee asked for ----------------------------------------------------


def test_responses_fits_tool_names_and_gives_them_back() -> None:
    """A Chat tool named ``weather.get`` is written to Responses as ``weather_get`` in the
    tools, the tool choice and the call history, recorded in `Renames`, and a Responses answer
    calling ``weather_get`` reaches the client as ``weather.get``."""
    chat = providers.get("openai_chat")
    resp = providers.get("openai_responses")
    body = _chat(
        _ASK,
        {"role": "assistant", "content": None, "tool_calls": [_call("c1", "weather.get")]},
        {"role": "tool", "tool_call_id": "c1", "content": "18C"},
        tools=[_fn("weather.get")],
        tool_choice={"type": "function", "function": {"name": "weather.get"}},
    )
    names = providers.Renames()
    out = json.loads(resp.encode_request(chat.decode_request(json.dumps(body)), renames=names))
    assert out["tools"] == [
        {
            "type": "function",
            "name": "weather_get",
            "parameters": {"type": "object"},
            "strict": False,
        }
    ]
    assert out["tool_choice"] == {"type": "function", "name": "weather_get"}
    assert out["input"][1]["name"] == "weather_get"
    assert names.names == {"weather_get": "weather.get"}
    assert gateway_rules.request_verdict("openai_responses", out).accepted
    answer = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "status": "completed",
        "model": "gpt-4.1",
        "output": [_fc("c2", id="fc_2") | {"name": "weather_get"}],
    }
    back = resp.decode_response(json.dumps(answer), renames=names)
    assert back.message.content[0].name == "weather.get"


def test_chat_fits_tool_names_from_another_format_and_gives_them_back() -> None:
    """A Gemini tool named ``weather.get`` (Gemini allows dots) is written to Chat as
    ``weather_get`` in the tools, the tool choice and the call history, recorded in `Renames`,
    and a Chat answer calling ``weather_get`` reaches the client as ``weather.get``."""
    gemini = providers.get("gemini")
    chat = providers.get("openai_chat")
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "weather.get", "args": {}}}]},
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": "weather.get", "response": {"t": 18}}}],
            },
        ],
        "tools": [{"functionDeclarations": [{"name": "weather.get"}]}],
        "toolConfig": {
            "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["weather.get"]}
        },
    }
    names = providers.Renames()
    request = gemini.decode_request(json.dumps(body))
    out = json.loads(chat.encode_request(request, renames=names, model="gpt-4.1"))
    assert [tool["function"]["name"] for tool in out["tools"]] == ["weather_get"]
    assert out["tool_choice"] == {"type": "function", "function": {"name": "weather_get"}}
    assert out["messages"][1]["tool_calls"][0]["function"]["name"] == "weather_get"
    assert names.names == {"weather_get": "weather.get"}
    assert gateway_rules.request_verdict("openai_chat", out).accepted
    answer = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4.1",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c2", "type": "function",
                     "function": {"name": "weather_get", "arguments": "{}"}}
                ]},
            }
        ],
    }  # fmt: skip
    back = chat.decode_response(json.dumps(answer), renames=names)
    assert back.message.content[0].name == "weather.get"


def test_responses_keeps_a_tools_own_strict() -> None:
    """A tool that sets strict keeps it; one without gets false (required here, and true when
    left out, unlike every other format)."""
    chat = providers.get("openai_chat")
    tool = {**_fn("w"), "function": {**_fn("w")["function"], "strict": True}}
    req = chat.decode_request(json.dumps(_chat(_ASK, tools=[tool, _fn("v")])))
    out = json.loads(providers.get("openai_responses").encode_request(req))
    assert [t["strict"] for t in out["tools"]] == [True, False]


def test_gemini_leaves_out_a_turn_left_without_parts() -> None:
    """A Responses turn whose only item Gemini cannot hold is left out (the API refuses a
    content without parts) and listed, besides the item itself."""
    resp = providers.get("openai_responses")
    body = _resp(
        {"type": "compaction", "id": "cmp_1", "encrypted_content": "x"},
        {"role": "user", "content": "Hi"},
    )
    dropped: list[providers.Dropped] = []
    out = json.loads(
        providers.get("gemini").encode_request(
            resp.decode_request(json.dumps(body)), unsupported="drop", dropped=dropped
        )
    )
    assert out["contents"] == [{"role": "user", "parts": [{"text": "Hi"}]}]
    assert dropped[-1] == providers.Dropped(
        "$.messages[0]", "a turn left without parts (Gemini refuses an empty one)", "metadata"
    )


@pytest.mark.parametrize(
    ("target", "reason", "key", "written", "listed"),
    [
        ("anthropic", "", "stop_reason", "end_turn", True),
        ("anthropic", "incomplete:other", "stop_reason", "max_tokens", True),
        ("anthropic", "OTHER", "stop_reason", "refusal", True),
        ("openai_responses", "", "status", "completed", True),
        ("openai_responses", "model_context_window_exceeded", "status", "incomplete", False),
        ("gemini", "", "finishReason", "OTHER", True),
        ("gemini", "stop_sequence", "finishReason", "STOP", False),
    ],
)
def test_stop_reasons_outside_a_targets_enum_are_mapped_and_listed(
    target: str, reason: str, key: str, written: str, listed: bool
) -> None:
    """A Chat dialect's empty finish_reason (and other providers' reasons) become a value of
    the target's enum; a value no documented mapping covers is listed as metadata; the SDK and
    the rules accept the response."""
    body = {
        "id": "c1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": reason,
                "message": {"role": "assistant", "content": "Hi"},
            }
        ],
    }
    decoded = providers.get("openai_chat").decode_response(json.dumps(body))
    dropped: list[providers.Dropped] = []
    out = json.loads(providers.get(target).encode_response(decoded, dropped=dropped))
    value = out["candidates"][0][key] if target == "gemini" else out[key]
    assert value == written
    note = providers.Dropped(
        "$.stop_reason", f"the stop reason {reason!r} (written as {written!r})", "metadata"
    )
    assert (note in dropped) is listed
    assert gateway_rules.response_verdict(target, out).accepted


def test_litellm_pairs_when_installed() -> None:
    """With LiteLLM installed: its routes exist for every pair; a plain question goes to each
    target accepted; a plain text stream from Anthropic reaches Chat and Gemini accepted, and
    Responses not (its text delta events lack the SDK's required ``logprobs``)."""
    if not gateway.litellm_available():  # not importorskip: the import must follow OFFLINE_ENV
        pytest.skip("litellm is not installed (the gateway-peers extra)")
    gateway.litellm_library()
    peer = gateway_pairs.litellm_pairs()
    items = [("q", json.dumps(_chat(_ASK)).encode())]
    pairs = gateway_pairs.accept_pairs([peer], {"request": {"openai_chat": items}})
    assert {p.target: p.results["LiteLLM"].accepted for p in pairs} == {
        "anthropic": 1,
        "openai_responses": 1,
        "gemini": 1,
    }
    text = [(n, b) for n, b in gateway_corpus.pair_streams(DATA)["anthropic"] if "/text." in n]
    streams = gateway_pairs.accept_pairs([peer], {"stream": {"anthropic": text}})
    accepted = {p.target: p.results["LiteLLM"].accepted for p in streams}
    assert accepted == {"openai_chat": 1, "openai_responses": 0, "gemini": 1}


def test_anthropic_rule_flags_a_request_with_no_messages() -> None:
    """``messages: []`` is flagged at ``$.messages``; one message passes."""
    assert gateway_rules.anthropic_messages_non_empty({"messages": []}) == [
        Violation("anthropic_messages_non_empty", "$.messages", "no messages")
    ]
    assert gateway_rules.anthropic_messages_non_empty({"messages": [_ASK]}) == []


def test_anthropic_refuses_another_formats_request_with_no_messages() -> None:
    """A Responses body with an empty ``input`` has nothing the Messages API would take: refused
    at ``$.messages`` (under either policy), never written as ``messages: []``; Anthropic's own
    body is written back as it came."""
    resp = providers.get("openai_responses")
    anthropic = providers.get("anthropic")
    request = resp.decode_request(json.dumps({"model": "gpt-4.1", "input": []}))
    for policy in ("error", "drop"):
        with pytest.raises(providers.UnsupportedError) as caught:
            anthropic.encode_request(request, unsupported=policy)
        assert (caught.value.message, caught.value.path) == (
            "the target format cannot hold a request with no messages (the Messages API needs "
            "at least one)",
            "$.messages",
        )
    own = json.dumps({"model": "m", "max_tokens": 5, "messages": []})
    assert anthropic.encode_request(anthropic.decode_request(own)) == own.replace(" ", "").encode()


@pytest.mark.parametrize("target", ["openai_chat", "openai_responses"])
def test_a_response_keeps_the_clients_tool_names(target: str) -> None:
    """A response goes back to the client that named the tools: an Anthropic answer whose call
    was given back its name ``weather.get`` (`Renames`) is written to Chat or Responses with
    that name, not fitted as a request would be."""
    names = providers.Renames()
    names.names["weather_get"] = "weather.get"
    answer = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [{"type": "tool_use", "id": "toolu_01", "name": "weather_get", "input": {}}],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 4},
    }
    resp = providers.get("anthropic").decode_response(json.dumps(answer), renames=names)
    out = json.loads(providers.get(target).encode_response(resp, created=1))
    if target == "openai_chat":
        call = out["choices"][0]["message"]["tool_calls"][0]["function"]
    else:
        call = out["output"][0]
    assert call["name"] == "weather.get"
