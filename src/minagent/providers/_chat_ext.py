"""The OpenAI Chat extension for what Chat Completions has no place for: thinking, citations and
server-tool blocks, written the way LiteLLM writes them (docs/gateway.md).

On an assistant message (a response's, or one a client sends back in a request):

- ``reasoning_content``: the thinking text, joined (``""`` with only redacted thinking);
- ``thinking_blocks``: every thinking block in order, ``{"type": "thinking", "thinking": ...,
  "signature": ...}`` (no ``signature`` when it had none) or ``{"type": "redacted_thinking",
  "data": ...}``;
- ``provider_specific_fields``: ``citations`` (one list per cited text block: its citations, each
  with ``supported_text``, the block's text), ``server_tool_calls`` (server tool calls as Chat
  tool calls), ``web_search_results`` (``web_search_tool_result`` and ``web_fetch_tool_result``
  blocks, whole), ``tool_results`` (every other ``*_tool_result`` block, whole),
  ``compaction_blocks`` (whole), ``content_blocks`` (any other Anthropic block, whole: minagent's
  key), ``stop_reason`` (a stop reason outside the OpenAI enum) and, only when the blocks' order
  is not the default one, ``minagent_order`` (minagent's key: one token per block, see `ORDER`).
  A tool call's typed keys beyond Chat's (``caller``, ``cache_control``, ``toolset_name``) go in
  that call's own ``provider_specific_fields``.

The default order, used when ``minagent_order`` is absent (LiteLLM writes none): compaction
blocks, thinking blocks, each server tool call followed by the results answering it, the other
blocks, the text (split into one block per citation group at its ``supported_text``), the tool
calls. Decoding is exact or not done: a message whose extension keys would not be written back
identically is left as it was (its keys stay the provider's own).
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET

from ..wire import blocks as wb
from ..wire.errors import WireError
from ..wire.extra import Extra
from . import _toolkit as kit
from ._base import Unsupported

__all__ = [
    "BLOCK_LISTS",
    "CALL_KEYS",
    "ORDER",
    "PSF",
    "REASONING",
    "THINKING",
    "blocks_of",
    "call_fields",
    "lift_call",
    "put_stop_reason",
    "split",
]

REASONING = "reasoning_content"
THINKING = "thinking_blocks"
PSF = "provider_specific_fields"
ORDER = "minagent_order"
"""The ``provider_specific_fields`` key listing the blocks in order, one token each:
``thinking`` (the next of ``thinking_blocks``), ``text:N`` / ``cited:N`` (the next ``N`` code
points of ``content``; ``cited``: with the next ``citations`` group), ``tool_use`` (the next tool
call), ``server_tool_use`` (the next server tool call), or a block list's name (its next
block)."""

BLOCK_LISTS = ("compaction_blocks", "content_blocks", "web_search_results", "tool_results")
"""The ``provider_specific_fields`` lists holding whole Anthropic blocks."""

CALL_KEYS = ("caller", "cache_control", "toolset_name")
"""Typed tool-use fields a Chat tool call carries in its ``provider_specific_fields``."""

_TEXT_TYPES = frozenset({"text", "tool_use", "image", "document", "thinking", "redacted_thinking"})


def _list_for(kind: str) -> str:
    if kind in ("web_search_tool_result", "web_fetch_tool_result"):
        return "web_search_results"
    if kind.endswith("_tool_result"):
        return "tool_results"
    if kind == "compaction":
        return "compaction_blocks"
    return "content_blocks"


# --- writing ---------------------------------------------------------------------------------


def call_fields(block: Any) -> dict[str, Any]:
    """A tool-use block's typed `CALL_KEYS` that are set (for its call's
    ``provider_specific_fields``)."""
    out = {}
    for name in CALL_KEYS:
        value = getattr(block, name, UNSET)
        if value is not UNSET:
            out[name] = value
    return out


def _server_call(block: Any) -> dict[str, Any]:
    call: dict[str, Any] = {
        "id": block.id,
        "type": "function",
        "function": {"name": block.name, "arguments": kit.json_text(block.input)},
    }
    fields = call_fields(block)
    if fields:
        call[PSF] = fields
    return call


def split(
    content: list[Any],
    path: str,
    policy: Unsupported,
    blocks_ok: bool,
    skip: Any,
    own: bool = False,
) -> tuple[list[Any], dict[str, Any]]:
    """The blocks Chat writes itself (text without citations, tool calls, what it refuses), and
    the extension keys for the rest: ``reasoning_content``, ``thinking_blocks``,
    ``provider_specific_fields``. ``blocks_ok``: the message's unknown and server blocks are
    Anthropic's (written whole); ``skip(block)``: a block the caller writes itself; ``own``: the
    message came from this extension (a thinking entry's other keys, such as LiteLLM's stream
    ``index``, are written back; another provider's are listed as metadata)."""
    plain: list[Any] = []
    thinking: list[dict[str, Any]] = []
    cites: list[list[Any]] = []
    server: list[dict[str, Any]] = []
    lists: dict[str, list[Any]] = {}
    order: list[str] = []
    for j, block in enumerate(content):
        cls = type(block)
        where = f"{path}.content[{j}]"
        if skip(block):
            plain.append(block)
        elif cls is wb.ThinkingBlock:
            entry = {"type": "thinking", "thinking": block.thinking}
            if block.signature is not UNSET:
                entry["signature"] = block.signature
            thinking.append(_with_keys(entry, block, where, policy, own))
            order.append("thinking")
        elif cls is wb.RedactedThinkingBlock:
            entry = {"type": "redacted_thinking", "data": block.data}
            thinking.append(_with_keys(entry, block, where, policy, own))
            order.append("thinking")
        elif cls is wb.TextBlock and type(block.citations) is list:
            cites.append([{**c, "supported_text": block.text} for c in block.citations])
            plain.append(kit.without_keys(block, {"citations"}))
            order.append(f"cited:{len(block.text)}")
        elif cls is wb.TextBlock:
            plain.append(block)
            order.append(f"text:{len(block.text)}")
        elif cls is wb.ToolUseBlock:
            plain.append(block)
            order.append("tool_use")
        elif blocks_ok and cls is wb.ServerToolUseBlock and block.extra is UNSET:
            server.append(_server_call(block))
            order.append("server_tool_use")
        elif blocks_ok and block.type not in _TEXT_TYPES:
            name = _list_for(block.type)
            lists.setdefault(name, []).append(kit.lowered(block, where))
            order.append(name)
        else:
            plain.append(block)  # Chat's own rules write or refuse it
    fields: dict[str, Any] = {}
    if thinking:
        fields[REASONING] = "".join(e.get("thinking", "") for e in thinking)
        fields[THINKING] = thinking
    psf: dict[str, Any] = {}
    if cites:
        psf["citations"] = cites
    if server:
        psf["server_tool_calls"] = server
    for name in BLOCK_LISTS:
        if name in lists:
            psf[name] = lists[name]
    if psf or thinking:
        text = "".join(b.text for b in plain if type(b) is wb.TextBlock)
        default = _default_order(
            len(thinking), text, cites, [c["id"] for c in server], lists, order.count("tool_use")
        )
        if default != order:
            psf[ORDER] = order
    if psf:
        fields[PSF] = psf
    return plain, fields


def _with_keys(
    entry: dict[str, Any], block: Any, path: str, policy: Unsupported, own: bool
) -> dict[str, Any]:
    """A thinking entry with its block's other keys: written back when they came with it
    (``own``), else listed as metadata (hints aside)."""
    for key, value in kit.block_keys(block).items():
        if kit.block_hint(key, block):
            continue
        if own and key not in entry:
            entry[key] = value
        else:
            what = f"the key {key!r} on a {block.type} block"
            policy.report_key(f"{path}.{key}", what, value, metadata=True)
    return entry


def put_stop_reason(message: dict[str, Any], reason: Any) -> None:
    """Keep a stop reason outside the OpenAI enum in the message's
    ``provider_specific_fields`` (as LiteLLM does)."""
    psf = message.get(PSF)
    message[PSF] = {**(psf if type(psf) is dict else {}), "stop_reason": reason}


# --- the default order -----------------------------------------------------------------------


def _segments(text: str, cites: list[Any]) -> list[str] | None:
    """``text`` as ``text:N`` / ``cited:N`` tokens: each citation group's ``supported_text``
    found in order, the text between as plain blocks; None when a group is not found."""
    out: list[str] = []
    at = 0
    for group in cites:
        if type(group) is not list or not group or type(group[0]) is not dict:
            return None
        supported = group[0].get("supported_text")
        if type(supported) is not str:
            return None
        found = text.find(supported, at)
        if found < 0:
            return None
        if found > at:
            out.append(f"text:{found - at}")
        out.append(f"cited:{len(supported)}")
        at = found + len(supported)
    if at < len(text):
        out.append(f"text:{len(text) - at}")
    return out


def _default_order(
    thinking: int,
    text: str,
    cites: list[Any],
    server_ids: list[Any],
    lists: dict[str, list[Any]],
    calls: int,
) -> list[str] | None:
    order = ["compaction_blocks"] * len(lists.get("compaction_blocks", ()))
    order += ["thinking"] * thinking
    at = dict.fromkeys(BLOCK_LISTS, 0)
    at["compaction_blocks"] = len(lists.get("compaction_blocks", ()))
    for ident in server_ids:
        order.append("server_tool_use")
        for name in BLOCK_LISTS:
            items = lists.get(name, ())
            while at[name] < len(items) and _answers(items[at[name]], ident):
                order.append(name)
                at[name] += 1
    for name in BLOCK_LISTS:
        order += [name] * (len(lists.get(name, ())) - at[name])
    segments = _segments(text, cites)
    if segments is None:
        return None
    return order + segments + ["tool_use"] * calls


def _answers(block: Any, ident: object) -> bool:
    """Whether ``block`` (a JSON object when read, a typed block when written) answers the
    server tool call ``ident``."""
    answered: object = (
        block.get("tool_use_id") if type(block) is dict else getattr(block, "tool_use_id", None)
    )
    return answered == ident


# --- reading ---------------------------------------------------------------------------------


class _Fail(Exception):
    pass


def _thinking_in(entries: Any) -> list[dict[str, Any]]:
    if type(entries) is not list:
        raise _Fail
    for e in entries:
        if type(e) is not dict:
            raise _Fail
        kind = e.get("type")
        if kind == "thinking":  # other keys (LiteLLM's stream "index") go to the block's extra
            ok = type(e.get("thinking")) is str and type(e.get("signature", "")) is str
        else:
            ok = kind == "redacted_thinking" and type(e.get("data")) is str
        if not ok:
            raise _Fail
    return entries


def _server_in(calls: Any) -> list[dict[str, Any]]:
    if type(calls) is not list:
        raise _Fail
    out = []
    for call in calls:
        if not kit.has_keys(call, {"id", "type", "function"}, {PSF}) or call["type"] != "function":
            raise _Fail
        function = call["function"]
        if not kit.has_keys(function, {"name", "arguments"}) or type(function["name"]) is not str:
            raise _Fail
        try:
            arguments = msgspec.json.decode(function["arguments"])
        except (msgspec.DecodeError, TypeError, RecursionError):
            raise _Fail from None
        fields = call.get(PSF, {})
        if (
            type(arguments) is not dict
            or type(fields) is not dict
            or not set(fields)
            <= {
                "caller",
                "cache_control",
            }
        ):
            raise _Fail
        block = {"type": "server_tool_use", "id": call["id"], "name": function["name"]}
        out.append({**block, "input": arguments, **fields})
    return out


def _typed(raw: list[Any], path: str) -> list[Any]:
    """Whole Anthropic blocks as typed neutral blocks (the wire codec's own reading)."""
    if not raw:
        return []
    try:
        data = kit.encode_json([{"role": "assistant", "content": raw}])
        return list(kit.decode_messages(data, path)[0].content)
    except WireError:
        raise _Fail from None


def blocks_of(
    reasoning: Any, thinking: Any, psf: Any, content: Any, calls: list[Any], path: str
) -> tuple[list[Any], dict[str, Any]] | None:
    """The neutral blocks an assistant message's extension keys and its ``content`` (a string
    or None) and tool-call blocks stand for, in order, and what is left of
    ``provider_specific_fields`` (kept as the message's own key); None when they are not the
    extension's shapes (the message is then decoded without it)."""
    try:
        entries = _thinking_in(thinking) if thinking is not UNSET else []
        if thinking is not UNSET and reasoning != "".join(e.get("thinking", "") for e in entries):
            return None
        rest = dict(psf) if type(psf) is dict else {}
        if psf is not UNSET and type(psf) is not dict:
            return None
        cites = _take_list(rest, "citations")
        server_raw = _server_in(_take_list(rest, "server_tool_calls"))
        lists_raw = {name: _take_list(rest, name) for name in BLOCK_LISTS}
        order = rest.pop(ORDER, None)
        text = content if type(content) is str else ""
        if order is None:
            ids = [c["id"] for c in server_raw]
            order = _default_order(len(entries), text, cites, ids, lists_raw, len(calls))
            if order is None:
                return None
        elif type(order) is not list:
            return None
        typed = _typed([*entries, *server_raw], path)
        queues = {
            "thinking": typed[: len(entries)],
            "server_tool_use": typed[len(entries) :],
            "tool_use": list(calls),
        }
        for name in BLOCK_LISTS:
            queues[name] = _typed(lists_raw[name], path)
        blocks = _walk(order, queues, text, list(cites))
    except _Fail:
        return None
    if blocks is None:
        return None
    return blocks, rest


def _take_list(psf: dict[str, Any], key: str) -> list[Any]:
    """Pop ``key`` from ``provider_specific_fields`` when it is a list (LiteLLM writes
    ``citations: null``, left as it is)."""
    return psf.pop(key) if type(psf.get(key)) is list else []


def _walk(
    order: list[Any], queues: dict[str, list[Any]], text: str, cites: list[Any]
) -> list[Any] | None:
    out: list[Any] = []
    at = 0
    for token in order:
        if type(token) is not str:
            return None
        kind, _, size = token.partition(":")
        if kind in ("text", "cited"):
            if not size.isdigit() or at + int(size) > len(text):
                return None
            piece = text[at : at + int(size)]
            at += int(size)
            if kind == "text":
                out.append(wb.TextBlock(piece))
                continue
            if not cites:
                return None
            group = cites.pop(0)
            if type(group) is not list or not all(
                type(c) is dict and c.get("supported_text") == piece for c in group
            ):
                return None
            found = [{k: v for k, v in c.items() if k != "supported_text"} for c in group]
            out.append(wb.TextBlock(piece, citations=found))
        elif token in queues:
            queue = queues[token]
            if not queue:
                return None
            out.append(queue.pop(0))
        else:
            return None
    if at != len(text) or cites or any(queues.values()):
        return None
    return out


def lift_call(block: Any) -> Any:
    """A tool-use block whose call carried ``provider_specific_fields`` of typed keys only
    (`CALL_KEYS`): those keys as its typed fields (unchanged otherwise)."""
    if type(block) is not wb.ToolUseBlock:
        return block  # a call of another type, kept whole (an UnknownBlock has no extra)
    extra = block.extra
    if extra is UNSET or PSF not in extra:
        return block
    fields = extra[PSF]
    if type(fields) is not dict or not fields or not set(fields) <= set(CALL_KEYS):
        return block
    data = {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    try:
        typed = _typed([{**data, **fields}], "$")[0]
    except _Fail:
        return block
    kept = {k: v for k, v in extra.items() if k != PSF}
    return msgspec.structs.replace(typed, extra=Extra._own(kept) if kept else UNSET)
