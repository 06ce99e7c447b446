"""Conversion between the Structs and the dataclass reference (`minagent.types`).

``from_reference`` never fails: everything the reference can say, the Structs can say.
``to_reference`` refuses (`ValidationError` with a path) whatever the reference cannot hold
exactly: thinking blocks, images, documents, the provider blocks (``tool_result``, server
tools, ...) and fields (``cache_control``, ``caller``, ...), unknown blocks, extra keys,
``is_error``, a block list of a shape the reference would rewrite. The rule:
``from_reference(to_reference(x)) == x``.
"""

from __future__ import annotations

from typing import Any, overload

from msgspec import UNSET

from .. import types as ref
from .blocks import TextBlock, ToolUseBlock
from .errors import ValidationError
from .messages import Message, ModelResponse

__all__ = ["from_reference", "to_reference"]


@overload
def from_reference(obj: ref.Message) -> Message: ...
@overload
def from_reference(obj: ref.ModelResponse) -> ModelResponse: ...
@overload
def from_reference(obj: list[ref.Message]) -> list[Message]: ...
@overload
def from_reference(obj: list[ref.ModelResponse]) -> list[ModelResponse]: ...
def from_reference(obj: Any) -> Any:
    """Convert reference objects (a Message, a ModelResponse, or a list) to Structs."""
    if isinstance(obj, list):
        return [from_reference(item) for item in obj]
    if isinstance(obj, ref.Message):
        return _message_from(obj)
    if isinstance(obj, ref.ModelResponse):
        return ModelResponse(
            message=_message_from(obj.message), stop_reason=obj.stop_reason, usage=dict(obj.usage)
        )
    raise TypeError(f"expected minagent.types objects, got {type(obj).__name__}")


def _message_from(msg: ref.Message) -> Message:
    content: Any
    if msg.tool_calls:
        content = [TextBlock(msg.content)] if msg.content else []
        content += [ToolUseBlock(tc.id, tc.name, tc.arguments) for tc in msg.tool_calls]
    else:
        content = msg.content
    tool_call_id = UNSET if msg.tool_call_id is None else msg.tool_call_id
    return Message(msg.role, content, tool_call_id)


@overload
def to_reference(obj: Message) -> ref.Message: ...
@overload
def to_reference(obj: ModelResponse) -> ref.ModelResponse: ...
@overload
def to_reference(obj: list[Message]) -> list[ref.Message]: ...
@overload
def to_reference(obj: list[ModelResponse]) -> list[ref.ModelResponse]: ...
def to_reference(obj: Any) -> Any:
    """Convert Structs to reference objects; `ValidationError` if that would lose anything."""
    if isinstance(obj, list):
        return [_to_reference(item, f"$[{i}]") for i, item in enumerate(obj)]
    return _to_reference(obj, "$")


def _to_reference(obj: Any, path: str) -> Any:
    if isinstance(obj, Message):
        return _message_to(obj, path)
    if isinstance(obj, ModelResponse):
        if obj.extra is not UNSET:
            raise _cannot("extra keys", path)
        return ref.ModelResponse(
            message=_message_to(obj.message, f"{path}.message"),
            stop_reason=obj.stop_reason,
            usage=dict(obj.usage),
        )
    raise TypeError(f"expected minagent.wire objects, got {type(obj).__name__}")


def _plain(block: Any, held: tuple[str, ...], path: str) -> None:
    """Refuse a block carrying anything beyond the fields the reference holds (``held``)."""
    if block.extra is not UNSET:
        raise _cannot(f"extra keys ({', '.join(block.extra)})", path)
    for name, key in zip(block.__struct_fields__, block.__struct_encode_fields__, strict=True):
        if name not in held and name != "extra" and getattr(block, name) is not UNSET:
            raise _cannot(key, f"{path}.{key}")


def _cannot(what: str, path: str) -> ValidationError:
    return ValidationError(f"the reference cannot hold {what}", path=path)


def _message_to(msg: Message, path: str) -> ref.Message:
    if msg.extra is not UNSET:
        raise _cannot(f"extra keys ({', '.join(msg.extra)})", path)
    if msg.is_error is not UNSET:
        raise _cannot("is_error", f"{path}.is_error")
    tool_call_id = None if msg.tool_call_id is UNSET else msg.tool_call_id
    content = msg.content
    if isinstance(content, str):
        return ref.Message(role=msg.role, content=content, tool_call_id=tool_call_id)
    text = ""
    calls: list[ref.ToolCall] = []
    for i, block in enumerate(content):
        where = f"{path}.content[{i}]"
        if type(block) is TextBlock and i == 0 and block.text and len(content) > 1:
            _plain(block, ("text",), where)
            text = block.text
        elif type(block) is ToolUseBlock:
            _plain(block, ("id", "name", "input"), where)
            calls.append(ref.ToolCall(id=block.id, name=block.name, arguments=block.input))
        else:
            kind = getattr(block, "type", type(block).__name__)
            raise _cannot(
                f"a {kind!r} block here (only a leading text block before tool_use blocks)", where
            )
    if not calls:
        raise _cannot("a block list without tool_use blocks", f"{path}.content")
    return ref.Message(role=msg.role, content=text, tool_calls=calls, tool_call_id=tool_call_id)
