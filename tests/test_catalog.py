"""The typed Anthropic catalog: every documented block and field decodes typed and round-trips."""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import msgspec
import msgspec.inspect as mi
import pydantic
import pytest
from hypothesis import given
from hypothesis import strategies as st

from minagent import wire
from minagent.wire import blocks
from tests import strategies as s
from tests.test_lossless import _all_trips

anthropic_types = pytest.importorskip("anthropic.types")
anthropic_beta = pytest.importorskip("anthropic.types.beta")

DATA = Path(__file__).parent / "data" / "provider-examples"

# One documented example of each catalog block, with the class it must decode to.
CATALOG: list[tuple[dict[str, Any], type]] = [
    ({"type": "text", "text": "cited", "citations": [
        {"type": "char_location", "cited_text": "c", "document_index": 0,
         "document_title": None, "start_char_index": 0, "end_char_index": 1}],
      "cache_control": {"type": "ephemeral", "ttl": "1h"}}, wire.TextBlock),
    ({"type": "text", "text": "t", "citations": None, "cache_control": None}, wire.TextBlock),
    ({"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": [1, 2.5]},
      "caller": {"type": "direct"}, "toolset_name": None,
      "cache_control": {"type": "ephemeral"}}, wire.ToolUseBlock),
    ({"type": "image", "source": {"type": "file", "file_id": "file_1"},
      "cache_control": {"type": "ephemeral"}}, wire.ImageBlock),
    ({"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "x"},
      "title": "T", "context": None, "citations": {"enabled": True}}, wire.DocumentBlock),
    ({"type": "document", "source": {"type": "content", "content": [
        {"type": "text", "text": "a"},
        {"type": "image", "source": {"type": "url", "url": "https://x/i.png"}}]}},
     wire.DocumentBlock),
    ({"type": "document", "source": {"type": "content", "content": "plain"}}, wire.DocumentBlock),
    ({"type": "tool_result", "tool_use_id": "toolu_1", "content": [
        {"type": "text", "text": "ok"},
        {"type": "search_result", "source": "https://x", "title": "R",
         "content": [{"type": "text", "text": "r"}], "citations": {"enabled": True}},
        {"type": "tool_reference", "tool_name": "grep"},
        {"type": "browser_state", "tabs": [{"tab_id": "1", "title": "t", "url": "u"}]}],
      "is_error": False, "cache_control": {"type": "ephemeral"}}, wire.ToolResultBlock),
    ({"type": "tool_result", "tool_use_id": "toolu_2", "content": "plain"}, wire.ToolResultBlock),
    ({"type": "tool_result", "tool_use_id": "toolu_3"}, wire.ToolResultBlock),
    ({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
      "input": {"query": "q"}, "caller": {"type": "direct"}}, wire.ServerToolUseBlock),
    ({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
        {"type": "web_search_result", "title": "T", "url": "https://x",
         "encrypted_content": "E", "page_age": None}]}, wire.WebSearchToolResultBlock),
    ({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": {
        "type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}},
     wire.WebSearchToolResultBlock),
    ({"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_2",
      "content": {"type": "web_fetch_result", "url": "https://x", "retrieved_at": None,
                  "content": {"type": "document", "source": {
                      "type": "text", "media_type": "text/plain", "data": "page"}}}},
     wire.WebFetchToolResultBlock),
    ({"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_3",
      "content": {"type": "code_execution_result", "stdout": "42\n", "stderr": "",
                  "return_code": 0, "content": []}}, wire.CodeExecutionToolResultBlock),
    ({"type": "bash_code_execution_tool_result", "tool_use_id": "srvtoolu_4",
      "content": {"type": "bash_code_execution_result", "stdout": "", "stderr": "",
                  "return_code": 1, "content": []}}, wire.BashCodeExecutionToolResultBlock),
    ({"type": "text_editor_code_execution_tool_result", "tool_use_id": "srvtoolu_5",
      "content": {"type": "text_editor_code_execution_create_result", "is_file_update": False}},
     wire.TextEditorCodeExecutionToolResultBlock),
    ({"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_6",
      "content": {"type": "tool_search_tool_search_result", "tool_references": [
          {"type": "tool_reference", "tool_name": "grep"}]}}, wire.ToolSearchToolResultBlock),
    ({"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "echo", "server_name": "s",
      "input": {"x": [1, 2.5, True, None]}}, wire.McpToolUseBlock),
    ({"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "is_error": False,
      "content": [{"type": "text", "text": "echo"}]}, wire.McpToolResultBlock),
    ({"type": "search_result", "source": "s", "title": "t",
      "content": [{"type": "text", "text": "x"}]}, wire.SearchResultBlock),
    ({"type": "container_upload", "file_id": "file_1"}, wire.ContainerUploadBlock),
    ({"type": "tool_reference", "tool_name": "grep", "cache_control": None},
     wire.ToolReferenceBlock),
    ({"type": "browser_state", "tabs": [], "state_changes": None}, wire.BrowserStateBlock),
]  # fmt: skip

_BETA = {"mcp_tool_use", "mcp_tool_result"}
_NOT_A_PARAM_BLOCK = {"tool_reference", "browser_state"}  # tool_result content only


def _message(*content: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": list(content)}


def _walk(value: Any) -> list[Any]:
    """Every Struct in a decoded value, depth first."""
    found: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, msgspec.Struct):
            found.append(item)
            stack.extend(getattr(item, f) for f in item.__struct_fields__)
    return found


@pytest.mark.parametrize("block,cls", CATALOG, ids=lambda x: str(x)[:50])
def test_catalog_blocks_decode_typed_and_round_trip(block: dict[str, Any], cls: type) -> None:
    """Each documented block decodes to its class on the fast path, with no extra, and survives
    every trip; absent keys stay absent and nulls stay null."""
    value = [_message(block)]
    data = json.dumps(value).encode()
    decoded = msgspec.json.Decoder(list[wire.Message]).decode(data)  # the one-call path itself
    assert decoded == wire.json.decode(data)
    got = decoded[0].content[0]
    assert type(got) is cls
    structs = _walk(decoded)
    assert all(getattr(x, "extra", msgspec.UNSET) is msgspec.UNSET for x in structs)
    assert not any(type(x) in (wire.UnknownBlock, wire.UnknownSource) for x in structs)
    assert msgspec.json.decode(wire.json.encode(decoded)) == value
    _all_trips(value)


@pytest.mark.parametrize("block,cls", CATALOG, ids=lambda x: str(x)[:50])
def test_official_sdk_accepts_what_we_write(block: dict[str, Any], cls: type) -> None:
    """The official SDK's request types validate each catalog block as we encode it."""
    if block["type"] in _NOT_A_PARAM_BLOCK:
        pytest.skip("only valid inside tool_result content (checked there)")
    union = anthropic_beta.BetaContentBlockParam if block["type"] in _BETA else None
    adapter = pydantic.TypeAdapter(union or anthropic_types.ContentBlockParam)
    ours = json.loads(wire.json.encode(wire.json.decode(json.dumps([_message(block)]).encode())))
    checked = json.loads(adapter.dump_json(adapter.validate_python(ours[0]["content"][0])))
    assert checked["type"] == block["type"]


def _sdk_keys(name: str) -> set[str]:
    module = anthropic_beta if name.startswith("Beta") else anthropic_types
    keys = set(getattr(module, name).__annotations__)
    response = getattr(module, name.removesuffix("Param"), None)
    if isinstance(response, type) and issubclass(response, pydantic.BaseModel):
        keys |= set(response.model_fields)
    return keys


SDK_NAMES = {
    wire.TextBlock: "TextBlockParam",
    wire.ToolUseBlock: "ToolUseBlockParam",
    wire.ThinkingBlock: "ThinkingBlockParam",
    wire.RedactedThinkingBlock: "RedactedThinkingBlockParam",
    wire.ImageBlock: "ImageBlockParam",
    wire.DocumentBlock: "DocumentBlockParam",
    wire.ToolResultBlock: "ToolResultBlockParam",
    wire.ServerToolUseBlock: "ServerToolUseBlockParam",
    wire.WebSearchToolResultBlock: "WebSearchToolResultBlockParam",
    wire.WebFetchToolResultBlock: "WebFetchToolResultBlockParam",
    wire.CodeExecutionToolResultBlock: "CodeExecutionToolResultBlockParam",
    wire.BashCodeExecutionToolResultBlock: "BashCodeExecutionToolResultBlockParam",
    wire.TextEditorCodeExecutionToolResultBlock: "TextEditorCodeExecutionToolResultBlockParam",
    wire.ToolSearchToolResultBlock: "ToolSearchToolResultBlockParam",
    wire.McpToolUseBlock: "BetaMCPToolUseBlockParam",
    wire.McpToolResultBlock: "BetaRequestMCPToolResultBlockParam",
    wire.SearchResultBlock: "SearchResultBlockParam",
    wire.ContainerUploadBlock: "ContainerUploadBlockParam",
    wire.ToolReferenceBlock: "ToolReferenceBlockParam",
    wire.BrowserStateBlock: "BrowserStateBlockParam",
    wire.TextSource: "PlainTextSourceParam",
    wire.ContentSource: "ContentBlockSourceParam",
    wire.FileSource: "FileDocumentSourceParam",
    wire.UrlSource: "URLPDFSourceParam",
    wire.Base64Source: "Base64PDFSourceParam",
}


def test_every_sdk_block_type_has_a_class() -> None:
    """The catalog names every block type of the SDK's request and response unions."""
    sdk_tags: set[str] = set()
    for union in (anthropic_types.ContentBlockParam, anthropic_types.ContentBlock):
        for member in typing.get_args(union):
            for part in typing.get_args(member) or (member,):
                if isinstance(part, type) and issubclass(part, pydantic.BaseModel):
                    sdk_tags |= set(typing.get_args(part.model_fields["type"].annotation))
                elif isinstance(part, type):
                    hint = typing.get_type_hints(part)["type"]
                    while typing.get_origin(hint) is not typing.Literal:  # Required[...] on 3.10
                        hint = typing.get_args(hint)[0]
                    sdk_tags |= set(typing.get_args(hint))
    assert len(sdk_tags) == 16
    assert sdk_tags - set(blocks.KNOWN_BLOCKS) == set()
    assert set(SDK_NAMES) == set(blocks.KNOWN_BLOCKS.values()) | set(blocks.KNOWN_SOURCES.values())


@pytest.mark.parametrize("cls", list(SDK_NAMES), ids=lambda c: c.__name__)
def test_every_sdk_field_is_typed(cls: type) -> None:
    """Every key the SDK documents for a block or source is a typed field of our class."""
    ours = set(cls.__struct_encode_fields__) - {blocks.EXTRA_KEY} | {"type"}
    assert _sdk_keys(SDK_NAMES[cls]) - ours == set()


# --- provider examples --------------------------------------------------------------------------


ANTHROPIC_FILES = sorted(p.name for p in (DATA / "anthropic").glob("*.json"))


@pytest.mark.parametrize("name", ANTHROPIC_FILES)
def test_anthropic_examples_hold_no_unknown_block(name: str) -> None:
    """Real Anthropic payloads decode with no UnknownBlock / UnknownSource anywhere, and no extra
    on any block (only the response body's own keys are extra)."""
    body = json.loads((DATA / "anthropic" / name).read_text(encoding="utf-8"))
    if "messages" in body:
        decoded: Any = wire.json.decode(json.dumps(body["messages"]).encode())
    else:
        decoded = wire.json.decode(json.dumps(body).encode(), type=wire.Message)
    structs = _walk(decoded)
    assert not any(type(x) in (wire.UnknownBlock, wire.UnknownSource) for x in structs)
    blocks_ = [x for x in structs if type(x) not in (wire.Message,)]
    assert all(x.extra is msgspec.UNSET for x in blocks_)


# --- property tests: generated blocks of every type ---------------------------------------------

_json_object = st.dictionaries(s.short_text, s.json_values(floats=True), max_size=3)
_text_block = st.builds(lambda t: {"type": "text", "text": t}, s.text)
_sources = st.sampled_from(
    [
        {"type": "url", "url": "https://x/y"},
        {"type": "file", "file_id": "file_1"},
        {"type": "text", "media_type": "text/plain", "data": "d"},
        {"type": "content", "content": [{"type": "text", "text": "c"}]},
        {"type": "base64", "media_type": "image/png", "data": "AAEC"},
    ]
)


def _value_for(t: Any) -> st.SearchStrategy[Any]:
    """A strategy for a wire value of msgspec type ``t`` (blocks and sources kept small)."""
    if isinstance(t, mi.UnionType):
        return st.one_of(*(_value_for(u) for u in t.types))
    if isinstance(t, mi.StrType):
        return s.text
    if isinstance(t, mi.BoolType):
        return st.booleans()
    if isinstance(t, mi.NoneType):
        return st.none()
    if isinstance(t, mi.BytesType):
        return st.just("AAEC")
    if isinstance(t, mi.DictType):
        return _json_object
    if isinstance(t, mi.ListType):
        if isinstance(t.item_type, mi.DictType):
            return st.lists(_json_object, max_size=2)
        if isinstance(t.item_type, mi.UnionType):  # blocks
            return st.lists(_text_block, max_size=2)
        return st.lists(s.json_values(floats=True), max_size=2)
    if isinstance(t, mi.StructType):  # a source union member
        return _sources
    raise AssertionError(f"no strategy for {t!r}")


def _block_of(cls: type, info: Any) -> st.SearchStrategy[dict[str, Any]]:
    fields = [f for f in info.fields if f.name != "extra"]
    required = {
        f.encode_name: _sources
        if isinstance(f.type, mi.UnionType) and f.name == "source"
        else _value_for(f.type)
        for f in fields
        if f.required
    }
    optional = {f.encode_name: _value_for(f.type) for f in fields if not f.required}
    tag = cls.__struct_config__.tag  # type: ignore[attr-defined]
    return st.fixed_dictionaries(required, optional=optional).map(lambda d: {"type": tag, **d})


# One msgspec.inspect pass over all blocks (it expands the JSON value union afresh per call),
# deferred to the first draw so that collecting the tests does not pay it.
any_catalog_block = st.deferred(
    lambda: st.one_of(
        *(
            _block_of(i.cls, i)  # type: ignore[attr-defined]
            for i in mi.multi_type_info(list(blocks.KNOWN_BLOCKS.values()))
        )
    )
)
_names = {k for c in SDK_NAMES for k in c.__struct_encode_fields__} | {"type"}
unknown_keys = st.dictionaries(
    s.short_text.filter(lambda k: k not in _names), s.json_values(), min_size=1, max_size=2
)


@given(st.lists(any_catalog_block, min_size=1, max_size=4))
def test_generated_catalog_blocks_round_trip(content: list[dict[str, Any]]) -> None:
    """Generated blocks of every catalog type decode typed and survive every trip."""
    value = [_message(*content)]
    decoded = wire.json.decode(json.dumps(value).encode())
    assert [type(b) for b in decoded[0].content] == [
        blocks.KNOWN_BLOCKS[b["type"]] for b in content
    ]
    _all_trips(value)


@given(any_catalog_block, unknown_keys)
def test_unknown_keys_on_catalog_blocks_land_in_extra(
    block: dict[str, Any], extra: dict[str, Any]
) -> None:
    """Unknown keys injected into a generated catalog block land in its extra, exactly."""
    value = [_message({**block, **extra})]
    decoded = wire.json.decode(json.dumps(value).encode())
    got = decoded[0].content[0]
    assert type(got) is blocks.KNOWN_BLOCKS[block["type"]]
    assert got.extra == extra
    _all_trips(value)


def test_anthropic_corpus_is_typed_and_1in100_differs_by_its_unknown_blocks() -> None:
    """The anthropic bench family decodes in one strict msgspec call with nothing unknown; the
    1-in-100 family is the same transcript plus exactly one UnknownBlock per 100 messages."""
    from minagent.bench import corpus

    known = corpus.json_bytes(corpus.transcript("anthropic", 300))
    msgspec.json.Decoder(list[wire.Message]).decode(known)
    decoded = wire.json.decode(known)
    assert not any(type(x) in (wire.UnknownBlock, wire.UnknownSource) for x in _walk(decoded))
    odd = wire.json.decode(corpus.json_bytes(corpus.transcript("anthropic-1in100", 300)))
    unknown = [x for x in _walk(odd) if type(x) is wire.UnknownBlock]
    assert [u.type for u in unknown] == ["compaction"] * 3
    stripped = [
        wire.Message(m.role, [b for b in m.content if type(b) is not wire.UnknownBlock])
        if isinstance(m.content, list)
        else m
        for m in odd
    ]
    assert stripped == decoded
