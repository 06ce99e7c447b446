"""Write the golden vectors: ``python tests/vectors/generate.py`` (from the repository root).

Each vector is one value of the wire protocol written twice, as canonical JSON (``NAME.json``)
and canonical MessagePack (``NAME.msgpack``, one object, not framed); ``index.json`` lists them
and ``schema.json`` is the exported JSON Schema. tests/test_vectors.py checks that the codec
reproduces every byte, and tests/node/check_vectors.mjs checks them from JavaScript.

The block vectors are built by introspection: one per member of ``wire.ContentBlock`` with every
field set, one with only the required fields, and one for each other alternative of each union
inside it (every source type, string or block content, ...). Re-running this script after new
block types join the union covers them with no edit here. Hand-written vectors add the seed's
conversation, unknown blocks and keys, binary data, Unicode edge cases, numbers and
ModelResponses.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import msgspec

from minagent import wire
from minagent.wire.blocks import JsonValue
from minagent.wire.schema import json_schema

HERE = Path(__file__).resolve().parent

ALL_BYTES = bytes(range(256))

UNICODE = [
    "",
    "plain ASCII",
    "\x00\x01\x08\t\n\x0b\x0c\r\x1b\x1f\x7f",  # control characters, NUL included
    "quote \" backslash \\ slash / apostrophe '",
    "é ü ß ñ ø",  # Latin-1 range, precomposed
    "e\u0301 n\u0303 a\u0308\u0304",  # combining marks (decomposed)
    "中文 日本語 한국어",
    "Здравствуй, мир",
    "مرحبا بالعالم \u200f שלום",  # right to left, with a mark
    "😀 👍🏽 👩\u200d💻 🇫🇷",  # astral: emoji, skin tone, ZWJ sequence, flag
    "\u2028\u2029",  # line and paragraph separators (raw in JSON, escaped by some writers)
    "\ufeff BOM inside",
    "\ufffd\uffff\U0010ffff",  # replacement character, noncharacters, the last code point
    "\u00a0\u2003\u3000",  # non-breaking and wide spaces
]
"""Strings every implementation must carry unchanged."""


def _json_value_sample() -> dict[str, Any]:
    return {
        "count": 3,
        "flag": True,
        "nothing": None,
        "path": "src/main.py",
        "ratio": 0.25,
        "tags": ["a", "b"],
        "nested": {"depth": [1, {"two": 2}]},
    }


REALISTIC: dict[str, Any] = {
    "media_type": "image/png",
    "url": "https://example.com/picture.png",
    "cache_control": {"type": "ephemeral"},
}
"""Values for fields whose name says more than their type (applied where the type allows)."""


class Builder:
    """Builds an example value for a msgspec type, choosing union alternatives by ``picks``."""

    def __init__(self, picks: dict[str, int] | None = None) -> None:
        self.picks = picks or {}
        self.minimal = False

    def value(self, info: msgspec.inspect.Type, name: str, depth: int = 0) -> Any:
        """An example value of type ``info`` for a field called ``name``."""
        m = msgspec.inspect
        sample = REALISTIC.get(name)
        if (isinstance(sample, str) and isinstance(info, m.StrType)) or (
            isinstance(sample, dict) and (isinstance(info, m.DictType) or _is_json_value(info))
        ):
            return sample
        if _is_json_value(info) or isinstance(info, m.AnyType):
            return _json_value_sample()
        if isinstance(info, m.StrType):
            return f"example {name}"
        if isinstance(info, m.BytesType):
            return b"\x00\x01\x02\xfe\xff binary"
        if isinstance(info, m.BoolType):
            return True
        if isinstance(info, m.IntType):
            return 7
        if isinstance(info, m.FloatType):
            return 0.5
        if isinstance(info, m.NoneType):
            return None
        if isinstance(info, m.LiteralType):
            return info.values[0]
        if isinstance(info, m.ListType):
            return [self.value(info.item_type, name, depth + 1)]
        if isinstance(info, m.DictType):
            if _is_json_value(info.value_type):
                return _json_value_sample()
            return {f"{name}_key": self.value(info.value_type, name, depth + 1)}
        if isinstance(info, m.UnionType):
            options = _options(info)
            choice = self.picks.get(_key(info), 0) if depth < 4 else 0
            return self.value(options[min(choice, len(options) - 1)], name, depth + 1)
        if isinstance(info, m.StructType):
            return self.struct(info, depth)
        raise TypeError(f"no example for {info!r}")

    def struct(self, info: msgspec.inspect.StructType, depth: int = 0) -> Any:
        """An instance of the Struct ``info`` describes (unknown ones: a made-up ``type``)."""
        cls = info.cls
        if cls is wire.UnknownBlock:
            return wire.UnknownBlock(wire.Extra({"type": "future_block", "payload": [1, "x"]}))
        if cls is wire.UnknownSource:
            return wire.UnknownSource(wire.Extra({"type": "future_source", "ref": "r-1"}))
        kwargs = {}
        for field in info.fields:
            if field.name == "extra" or (self.minimal and depth == 0 and not field.required):
                continue
            kwargs[field.name] = self.value(field.type, field.name, depth + 1)
        return cls(**kwargs)


def _options(info: msgspec.inspect.UnionType) -> list[Any]:
    """A union's alternatives, ``None`` last (never the default pick); msgspec leaves ``UNSET``
    out already."""
    m = msgspec.inspect
    return sorted(info.types, key=lambda t: isinstance(t, m.NoneType))


def _describe(info: Any, depth: int = 0) -> str:
    """A short description of a type, two levels deep (enough to tell unions apart)."""
    m = msgspec.inspect
    if depth > 2:
        return type(info).__name__
    if isinstance(info, m.StructType):
        return info.cls.__name__
    if isinstance(info, m.ListType):
        return f"list[{_describe(info.item_type, depth + 1)}]"
    if isinstance(info, m.DictType):
        return f"dict[{_describe(info.value_type, depth + 1)}]"
    if isinstance(info, m.UnionType):
        return " | ".join(_describe(t, depth + 1) for t in info.types)
    return type(info).__name__


def _key(info: msgspec.inspect.UnionType) -> str:
    """What identifies a union: its members, described (the same union in two fields, or in
    two blocks, is one union)."""
    return _describe(info)


_JSON_KINDS = {
    type(t)
    for t in msgspec.inspect.type_info(JsonValue).types  # type: ignore[attr-defined]
}


def _is_json_value(info: Any) -> bool:
    """Whether ``info`` is the JSON value union (told by the kinds of its members: no deep
    comparison, which the recursive catalog types would make slow)."""
    return (
        isinstance(info, msgspec.inspect.UnionType) and {type(t) for t in info.types} == _JSON_KINDS
    )


def _unions(
    info: Any, seen: set[Any], field: str = "", path: dict[str, int] | None = None
) -> Iterator[tuple[str, msgspec.inspect.UnionType, dict[str, int]]]:
    """Every union reachable from ``info`` (once each): the name of the field holding it, the
    union, and the picks of the unions on the way that reach it."""
    m = msgspec.inspect
    path = path or {}
    if _is_json_value(info):
        return
    if isinstance(info, m.UnionType):
        if _key(info) in seen:
            return
        seen.add(_key(info))
        yield field, info, path
        for index, t in enumerate(_options(info)):
            yield from _unions(t, seen, field, {**path, _key(info): index})
    elif isinstance(info, m.StructType):
        if info.cls in seen:
            return
        seen.add(info.cls)
        for f in info.fields:
            yield from _unions(f.type, seen, f.encode_name, path)
    elif isinstance(info, m.ListType):
        yield from _unions(info.item_type, seen, field, path)
    elif isinstance(info, m.DictType):
        yield from _unions(info.value_type, seen, field, path)


def block_classes() -> list[type]:
    """The members of ``wire.ContentBlock``, in union order."""
    return list(get_args(wire.ContentBlock))


def _snake(name: str) -> str:
    name = name.removesuffix("Block")
    return "".join(f"-{c.lower()}" if c.isupper() else c for c in name).lstrip("-")


def _option_name(info: Any) -> str:
    m = msgspec.inspect
    if isinstance(info, m.StructType):
        return _snake(info.cls.__name__)
    if isinstance(info, m.NoneType):
        return "null"
    return type(info).__name__.removesuffix("Type").lower()


def block_vectors() -> Iterator[tuple[str, str, Any]]:
    """(name, description, transcript): every block type with all its fields and with only the
    required ones, then each other alternative of each union inside the blocks (each union once,
    in the first block that holds it; the union of blocks itself is covered by the blocks)."""
    # One pass over every type: msgspec.inspect expands the JSON value union afresh per call.
    union, *infos = msgspec.inspect.multi_type_info([wire.ContentBlock, *block_classes()])
    covered = {_key(union)}  # type: ignore[arg-type]
    for cls, info in zip(block_classes(), infos, strict=True):
        if cls is wire.UnknownBlock:
            continue
        slug = _snake(cls.__name__)
        yield (
            f"block-{slug}",
            f"a {cls.__name__} with every field set",
            [wire.Message(role="assistant", content=[Builder().struct(info)])],
        )
        required = Builder()
        required.minimal = True
        yield (
            f"block-{slug}-required",
            f"a {cls.__name__} with only its required fields",
            [wire.Message(role="assistant", content=[required.struct(info)])],
        )
        for field, union, path in _unions(info, covered.copy()):
            if _key(union) in covered:
                continue
            covered.add(_key(union))
            for index, option in enumerate(_options(union)):
                if index == 0:
                    continue
                option_name = _option_name(option)
                yield (
                    f"block-{slug}-{field.replace('_', '-')}-{option_name}",
                    f"a {cls.__name__} whose {field} is the {option_name} alternative",
                    [
                        wire.Message(
                            role="assistant",
                            content=[Builder({**path, _key(union): index}).struct(info)],
                        )
                    ],
                )


def hand_vectors() -> Iterator[tuple[str, str, Any]]:
    """(name, description, value) for the cases introspection does not reach."""
    yield (
        "seed-conversation",
        "the seed chapter's conversation: system, user, tool call, tool result, answer",
        [
            wire.Message(role="system", content="你是一个只做加法的助手。"),
            wire.Message(role="user", content="1 + 2 等于多少？"),
            wire.Message(
                role="assistant",
                content=[wire.ToolUseBlock(id="call_1", name="add", input={"a": 1, "b": 2})],
            ),
            wire.Message(role="tool", content="3", tool_call_id="call_1"),
            wire.Message(role="assistant", content="结果是 3。"),
        ],
    )
    yield (
        "empty-transcript",
        "a transcript with no messages",
        [],
    )
    yield (
        "message-forms",
        "empty string content, text blocks, tool results with is_error true and false",
        [
            wire.Message(role="user", content=""),
            wire.Message(role="assistant", content=[]),
            wire.Message(role="tool", content="ok", tool_call_id="t1", is_error=False),
            wire.Message(role="tool", content="boom", tool_call_id="t2", is_error=True),
            wire.Message(
                role="assistant",
                content=[wire.TextBlock(text="Let me add."), wire.TextBlock(text="")],
            ),
        ],
    )
    yield (
        "unknown-blocks-and-keys",
        "blocks of unknown types kept whole, unknown keys on messages, blocks and sources",
        wire.json.decode(
            json.dumps(
                [
                    {
                        "role": "assistant",
                        "id": "msg_01",
                        "model": "some-model",
                        "content": [
                            {
                                "type": "text",
                                "text": "hi",
                                "cache_control": {"type": "ephemeral"},
                                "citations": None,
                            },
                            {
                                "type": "web_search_tool_result_v9",
                                "tool_use_id": "srv_1",
                                "content": [{"type": "x", "url": "https://example.com"}],
                                "nested": {"deep": [[], {}, None, False]},
                            },
                            {
                                "type": "image",
                                "source": {"type": "file_v2", "file_id": "file_1"},
                                "alt": "a picture",
                            },
                        ],
                    }
                ]
            ).encode()
        ),
    )
    yield (
        "binary",
        "inline bytes: all 256 byte values, empty data, a PDF header",
        [
            wire.Message(
                role="user",
                content=[
                    wire.ImageBlock(source=wire.Base64Source(media_type="x/all", data=ALL_BYTES)),
                    wire.ImageBlock(source=wire.Base64Source(media_type="x/empty", data=b"")),
                    wire.DocumentBlock(
                        source=wire.Base64Source(
                            media_type="application/pdf", data=b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"
                        )
                    ),
                ],
            )
        ],
    )
    yield (
        "unicode",
        "Unicode edge cases in text, tool names, tool input keys and values",
        [
            wire.Message(role="user", content=[wire.TextBlock(text=s) for s in UNICODE]),
            wire.Message(
                role="assistant",
                content=[
                    wire.ToolUseBlock(
                        id="call_é😀",
                        name="工具",
                        input={s or "(empty)": s for s in UNICODE},
                    )
                ],
            ),
            *[wire.Message(role="user", content=s) for s in UNICODE],
        ],
    )
    yield (
        "numbers",
        "integers within 53 bits and floats every JSON reader holds and spells alike",
        [
            wire.Message(
                role="assistant",
                content=[
                    wire.ToolUseBlock(
                        id="n",
                        name="numbers",
                        input={
                            "ints": [
                                0,
                                1,
                                -1,
                                127,
                                128,
                                -32,
                                -33,
                                255,
                                256,
                                65535,
                                65536,
                                2**31,
                                -(2**31) - 1,
                                2**32,
                                2**53 - 1,
                                -(2**53 - 1),
                            ],
                            "floats": [
                                0.1,
                                0.5,
                                -2.75,
                                3.141592653589793,
                                1e-7,
                                2.5e-5,
                                5e-324,
                                123456.789,
                            ],
                        },
                    )
                ],
            )
        ],
    )
    yield (
        "numbers-float-spelling",
        "floats JavaScript reads as integers (1.0, -0.0) or spells otherwise (1e21, 1.5e300)",
        [
            wire.Message(
                role="assistant",
                content=[
                    wire.ToolUseBlock(
                        id="f",
                        name="floats",
                        input={
                            "floats": [
                                1.0,
                                -0.0,
                                0.0,
                                1e21,
                                2.0**60,
                                1.5e300,
                                1.7976931348623157e308,
                            ]
                        },
                    )
                ],
            )
        ],
    )
    tool_turn = wire.Message(
        role="assistant",
        content=[
            wire.ThinkingBlock(thinking="Add them.", signature="sig=="),
            wire.TextBlock(text="Let me add."),
            wire.ToolUseBlock(id="call_1", name="add", input={"a": 1, "b": 2}),
        ],
    )
    yield (
        "model-response",
        "one ModelResponse with thinking, text and a tool call, and full usage",
        wire.ModelResponse(
            message=tool_turn,
            stop_reason="tool_use",
            usage={
                "input_tokens": 1200,
                "output_tokens": 35,
                "cache_read_input_tokens": 1024,
                "cache_creation_input_tokens": 0,
            },
        ),
    )
    yield (
        "model-responses",
        "a list of ModelResponses: defaults, unknown stop reason, provider id, model and "
        "creation time, unknown keys",
        [
            wire.ModelResponse(message=wire.Message(role="assistant", content="hi")),
            wire.ModelResponse(
                message=wire.Message(role="assistant", content=""),
                stop_reason="some_future_reason",
                usage={},
            ),
            wire.json.decode(
                b'{"message":{"role":"assistant","content":"ok"},"stop_reason":"end_turn",'
                b'"usage":{"output_tokens":2},"id":"resp_1","model":"m-1"}',
                type=wire.ModelResponse,
            ),
            wire.ModelResponse(
                message=wire.Message(role="assistant", content="hi"),
                usage={"input_tokens": 3, "output_tokens": 1},
                id="chatcmpl-1",
                model="gpt-4o-2024-08-06",
                created=1722000000,
                extra=wire.Extra({"from_provider": "openai_chat", "system_fingerprint": "fp_1"}),
            ),
        ],
    )


def _kind(value: Any) -> str:
    if isinstance(value, wire.ModelResponse):
        return "ModelResponse"
    if isinstance(value, wire.Message):
        return "Message"
    if value and isinstance(value[0], wire.ModelResponse):
        return "list[ModelResponse]"
    return "list[Message]"


def _js_reencodes(value: Any) -> bool:
    """Whether JavaScript can write ``value`` (parsed JSON) back byte for byte: no float that it
    reads as an integer (``1.0``, ``-0.0``) or spells otherwise (``1e21`` as ``1e+21``)."""
    if isinstance(value, float):
        return not value.is_integer() and abs(value) < 1e21
    if isinstance(value, dict):
        return all(_js_reencodes(v) for v in value.values())
    if isinstance(value, list):
        return all(_js_reencodes(v) for v in value)
    return True


def vectors() -> list[tuple[str, str, Any]]:
    """Every vector, hand-written ones first."""
    out = [*hand_vectors(), *block_vectors()]
    names = [name for name, _, _ in out]
    if len(set(names)) != len(names):
        raise ValueError(
            f"duplicate vector names: {sorted(n for n in names if names.count(n) > 1)}"
        )
    return out


def build() -> dict[str, bytes]:
    """The contents of every file under tests/vectors/ this script writes, by file name."""
    files: dict[str, bytes] = {}
    index = []
    for name, description, value in vectors():
        data = wire.json.encode(value, canonical=True)
        files[f"{name}.json"] = data
        files[f"{name}.msgpack"] = wire.msgpack.encode(value, canonical=True)
        index.append(
            {
                "name": name,
                "description": description,
                "type": _kind(value),
                "js_reencode": _js_reencodes(json.loads(data)),
            }
        )
    doc = {
        "version": 1,
        "format": "canonical JSON and MessagePack, one value each",
        "vectors": index,
    }
    files["index.json"] = (json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode()
    files["schema.json"] = (json.dumps(json_schema(), indent=1, ensure_ascii=False) + "\n").encode()
    return files


def written(directory: Path = HERE) -> dict[str, bytes]:
    """The vector files now in ``directory`` (what `build` would write there)."""
    return {
        p.name: p.read_bytes()
        for p in sorted(directory.iterdir())
        if p.suffix in (".json", ".msgpack")
    }


def main(directory: Path = HERE) -> int:
    """Rewrite the vectors in ``directory``: stale ones removed, every file written anew."""
    files = build()
    for name in written(directory):
        if name not in files:
            (directory / name).unlink()
    for name, data in files.items():
        (directory / name).write_bytes(data)
    print(f"wrote {len(files)} files ({len(files) // 2 - 1} vectors) to {directory}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
