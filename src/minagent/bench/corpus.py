"""The benchmark corpus: seeded, deterministic, generated in memory (no downloads).

Speed-ups depend on the shape of the traffic far more than on its size, so the corpus comes in
*families*, each at any size (the standard sizes are the seed's 5 messages, 300 and 15,000):

- ``tool-heavy``: short turns, tool loops, small JSON inputs (structure dominates);
- ``text-heavy``: long English prose and code in user, assistant and tool messages;
- ``multilingual``: long CJK, Cyrillic, accented Latin and emoji text;
- ``rich``: thinking blocks, images, documents, unknown blocks and provider keys, which the
  dataclass reference cannot express.

A `Transcript` holds the conversation as plain wire data (the protocol's data model: dicts, lists,
strings, numbers; image bytes as ``bytes``) and, for the first three families, as
`minagent.types` reference objects, whose ``to_wire()`` output is the wire data exactly. The same
family, size and seed always give the same transcript.
"""

from __future__ import annotations

import base64
import functools
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import msgspec

from .. import types as ref

__all__ = [
    "FAMILIES",
    "SIZES",
    "Transcript",
    "json_bytes",
    "json_view",
    "msgpack_bytes",
    "transcript",
]

SIZES: tuple[int, ...] = (5, 300, 15_000)
"""The standard sizes, in messages: the seed's conversation, a long session, a large log."""

SEED = 1_2_0
"""Default seed (the seed chapter's section number, 1.2.0)."""

Wire = list[dict[str, Any]]


@dataclass(frozen=True)
class Transcript:
    """One conversation of one family and size, as wire data and (when expressible) reference."""

    family: str
    """Family name (a key of `FAMILIES`)."""
    wire: Wire
    """The messages as plain wire data; ``bytes`` for binary data."""
    reference: list[ref.Message] | None
    """The same messages as `minagent.types` objects, or None if the reference cannot hold them."""

    def __len__(self) -> int:
        return len(self.wire)


def json_view(value: Any) -> Any:
    """The wire data as JSON sees it: ``bytes`` become standard base64 text, all else unchanged."""
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, dict):
        return {k: json_view(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_view(v) for v in value]
    return value


def json_bytes(t: Transcript) -> bytes:
    """The transcript as compact UTF-8 JSON, keys in wire order, written by the standard library."""
    text = json.dumps(json_view(t.wire), ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8")


def msgpack_bytes(t: Transcript) -> bytes:
    """The transcript as MessagePack (binary data as ``bin``), written schema-less by msgspec."""
    return msgspec.msgpack.encode(t.wire)


# --- vocabulary -------------------------------------------------------------------------------

_EN_TEXT = (
    "the agent reads a file and then calls a tool to check the result before it answers user "
    "with short summary of what changed in repository because tests failed on main branch after "
    "last merge so we need to look at log output from build server and compare it against "
    "expected values while keeping track of each step in plan that model wrote earlier today "
    "service returns error when request body is too large or contains invalid field names"
)
_CODE = (
    "def {f}(items: list[str], limit: int = {n}) -> dict[str, int]:\n"
    '    """Count how often each item appears, up to {n} items."""\n'
    "    counts: dict[str, int] = {{}}\n"
    "    for item in items[:limit]:\n"
    "        counts[item] = counts.get(item, 0) + 1\n"
    "    return counts\n",
    "for (let i = 0; i < {n}; i++) {{\n  if (rows[i].{f} === undefined) {{ continue; }}\n"
    '  total += rows[i].{f} * 2; // "{f}" may be missing\n}}\n',
    "SELECT id, {f}, created_at FROM events WHERE {f} > {n} ORDER BY created_at DESC LIMIT 50;\n",
)
_CJK = "数据模型工具调用消息协议智能体运行时序列化性能测试结果一致性中文日本語の文章を読む東京大阪"
_CYRILLIC_TEXT = (
    "агент читает файл и вызывает инструмент чтобы проверить результат перед ответом "
    "пользователю сообщение протокол данные модель сервер ошибка запрос"
)
_ACCENTED_TEXT = (
    "café naïve façade élève déjà vu über größer straße mañana señor niño acción "
    "tiếng việt người đường phố ökonomisch smörgåsbord"
)
_EN = _EN_TEXT.split()
_CYRILLIC = _CYRILLIC_TEXT.split()
_ACCENTED = _ACCENTED_TEXT.split()
_EMOJI = "😀🚀🔧✅❌📦🧠🌍🎉👍🏽🇫🇷👩‍💻"
_TOOLS = ("read_file", "search", "run_tests", "http_get", "add", "list_dir", "sql_query", "grep")


def _words(rng: random.Random, pool: list[str] | tuple[str, ...], n: int) -> str:
    return " ".join(rng.choices(pool, k=n))


def _prose(rng: random.Random, sentences: int) -> str:
    out = []
    for _ in range(sentences):
        sentence = _words(rng, _EN, rng.randint(8, 22))
        out.append(sentence[0].upper() + sentence[1:] + rng.choice(".?!"))
    return " ".join(out)


def _code(rng: random.Random) -> str:
    template = rng.choice(_CODE)
    return template.format(f=rng.choice(_EN) + "_" + rng.choice(_EN), n=rng.randint(1, 999))


def _long_english(rng: random.Random) -> str:
    parts = [_prose(rng, rng.randint(4, 12))]
    if rng.random() < 0.5:
        parts.append("```\n" + _code(rng) + "```")
        parts.append(_prose(rng, rng.randint(2, 6)))
    return "\n\n".join(parts)


def _cjk(rng: random.Random, n: int) -> str:
    text = "".join(rng.choices(_CJK, k=n))
    return "。".join(text[i : i + 17] for i in range(0, len(text), 17)) + "。"


def _multilingual(rng: random.Random) -> str:
    chunks = []
    for _ in range(rng.randint(3, 7)):
        kind = rng.randrange(4)
        if kind == 0:
            chunks.append(_cjk(rng, rng.randint(60, 200)))
        elif kind == 1:
            chunks.append(_words(rng, _CYRILLIC, rng.randint(20, 60)) + ".")
        elif kind == 2:
            chunks.append(_words(rng, _ACCENTED, rng.randint(20, 60)) + ".")
        else:
            chunks.append(" ".join(rng.choices(_EMOJI, k=rng.randint(3, 12))))
    return " ".join(chunks)


def _small_input(rng: random.Random, tool: str) -> dict[str, Any]:
    args: dict[str, Any] = {"path": f"src/{rng.choice(_EN)}/{rng.choice(_EN)}.py"}
    if rng.random() < 0.6:
        args["limit"] = rng.randint(1, 500)
    if rng.random() < 0.4:
        args["recursive"] = rng.random() < 0.5
    if rng.random() < 0.3:
        args["threshold"] = round(rng.uniform(0, 1), 3)
    if rng.random() < 0.3:
        args["filters"] = {"kind": rng.choice(_EN), "tags": rng.sample(_EN, 2), "since": None}
    if tool == "add":
        args = {"a": rng.randint(-999, 999), "b": rng.randint(-999, 999)}
    return args


# --- families -----------------------------------------------------------------------------------

Turn = Callable[[random.Random, int], list[ref.Message]]


def _tool_loop(
    rng: random.Random, turn: int, text: Callable[[random.Random], str], short: bool
) -> list[ref.Message]:
    """One user turn: a question, one to three rounds of tool calls and results, an answer."""
    msgs = [ref.Message(role="user", content=text(rng))]
    for r in range(rng.randint(1, 3)):
        calls = []
        for c in range(rng.randint(1, 3) if short else 1):
            tool = rng.choice(_TOOLS)
            calls.append(ref.ToolCall(f"call_{turn}_{r}_{c}", tool, _small_input(rng, tool)))
        preface = "" if rng.random() < 0.5 else text(rng)
        msgs.append(ref.Message(role="assistant", content=preface, tool_calls=calls))
        for call in calls:
            lines = rng.randint(0, 400)
            result = json.dumps({"ok": True, "lines": lines}) if short else text(rng)
            msgs.append(ref.Message(role="tool", content=result, tool_call_id=call.id))
    msgs.append(ref.Message(role="assistant", content=text(rng)))
    return msgs


def _short_text(rng: random.Random) -> str:
    return _words(rng, _EN, rng.randint(3, 14))


def _reference_family(
    text: Callable[[random.Random], str], short: bool, system: str
) -> Callable[[random.Random, int], list[ref.Message]]:
    def generate(rng: random.Random, n: int) -> list[ref.Message]:
        msgs = [ref.Message(role="system", content=system)]
        turn = 0
        while len(msgs) < n:
            msgs.extend(_tool_loop(rng, turn, text, short))
            turn += 1
        return msgs[:n]

    return generate


def _rich_blocks(rng: random.Random, turn: int) -> Iterator[dict[str, Any]]:
    """Wire messages of one rich turn: images, thinking, unknown blocks, provider keys.

    ``compaction`` (a beta block, outside the typed catalog) and the message ``id`` are the
    unknown data; the rest is typed."""
    image = rng.randbytes(rng.randint(200, 1500))
    user_content: list[dict[str, Any]] = [
        {"type": "text", "text": _prose(rng, 2), "cache_control": {"type": "ephemeral"}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": image}},
    ]
    if rng.random() < 0.3:
        user_content.append(
            {"type": "document", "source": {"type": "url", "url": "https://example.com/a.pdf"}}
        )
    yield {"role": "user", "content": user_content}
    call_id = f"toolu_{turn:06d}"
    assistant: list[dict[str, Any]] = [
        {
            "type": "thinking",
            "thinking": _prose(rng, 3),
            "signature": base64.b64encode(image[:48]).decode(),
        },
    ]
    if rng.random() < 0.3:
        assistant.append(
            {"type": "redacted_thinking", "data": base64.b64encode(image[:96]).decode()}
        )
    if rng.random() < 0.5:
        assistant.append(
            {
                "type": "server_tool_use",
                "id": f"srvtoolu_{turn}",
                "name": "web_search",
                "input": {"query": _short_text(rng)},
            }
        )
        assistant.append(
            {
                "type": "web_search_tool_result",
                "tool_use_id": f"srvtoolu_{turn}",
                "content": [
                    {
                        "type": "web_search_result",
                        "url": "https://example.org/",
                        "title": _short_text(rng),
                        "page_age": None,
                    }
                ],
            }
        )
        assistant.append({"type": "compaction", "content": "Earlier turns, summarised."})
    assistant.append({"type": "text", "text": _prose(rng, 2), "citations": None})
    tool = rng.choice(_TOOLS)
    assistant.append(
        {
            "type": "tool_use",
            "id": call_id,
            "name": tool,
            "input": _small_input(rng, tool),
            "caller": {"type": "direct"},
        }
    )
    yield {"role": "assistant", "content": assistant, "id": f"msg_{turn:06d}"}
    result: dict[str, Any] = {"role": "tool", "content": _prose(rng, 1), "tool_call_id": call_id}
    if rng.random() < 0.2:
        result["is_error"] = True
    yield result


def _rich(rng: random.Random, n: int) -> Wire:
    wire: Wire = [{"role": "system", "content": "You are a careful research assistant."}]
    turn = 0
    while len(wire) < n:
        wire.extend(_rich_blocks(rng, turn))
        turn += 1
    return wire[:n]


_REFERENCE_FAMILIES: dict[str, Turn] = {
    "tool-heavy": _reference_family(_short_text, True, "You are a coding agent. Use the tools."),
    "text-heavy": _reference_family(_long_english, False, _long_english(random.Random(0))),
    "multilingual": _reference_family(_multilingual, False, _multilingual(random.Random(0))),
}

FAMILIES: dict[str, str] = {
    "tool-heavy": "short turns, tool loops, small JSON inputs (structure dominates)",
    "text-heavy": "long English prose and code in user, assistant and tool messages",
    "multilingual": "long CJK, Cyrillic, accented and emoji text (non-ASCII strings dominate)",
    "rich": "thinking, images, documents, unknown blocks, provider keys (beyond the reference)",
}
"""Family names and what dominates each."""


@functools.lru_cache(maxsize=32)
def transcript(family: str, size: int, seed: int = SEED) -> Transcript:
    """The transcript of ``family`` with ``size`` messages (cached; treat it as read-only)."""
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; choose from {', '.join(FAMILIES)}")
    if size < 1:
        raise ValueError(f"size must be at least 1, got {size}")
    rng = random.Random(f"{family}:{size}:{seed}")
    generate = _REFERENCE_FAMILIES.get(family)
    if generate is None:
        return Transcript(family, _rich(rng, size), None)
    messages = generate(rng, size)
    return Transcript(family, [m.to_wire() for m in messages], messages)
