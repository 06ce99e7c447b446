"""`check`: validate Structs built in Python before they are sent.

msgspec does not validate on construction, and the encoders trust what they are given (only
values the format cannot hold are refused): ``Message(role="robot")`` encodes without complaint.
`check` runs the object through the same rules as the decoders, at about the cost of one decode:
it encodes it as MessagePack and decodes the bytes strictly, so anything our own decoder would
refuse is reported with its path.
"""

from __future__ import annotations

from typing import Any

from ._codec import MSGPACK
from .errors import ValidationError
from .messages import Message, ModelResponse

__all__ = ["check"]


def check(obj: Any) -> None:
    """Check a Message, ModelResponse, or list of either, against the protocol.

    Raises `ValidationError` with the JSON path of the first field our decoders would refuse (a
    role outside the four, ``content`` of the wrong type, a tool ``input`` that is not an object,
    a string where bytes belong, ...), and `EncodeError` for a value no format can hold. A value
    JSON alone cannot hold (NaN, ``bytes`` inside a tool input) passes: ``json.encode`` refuses
    it when it is written.
    """
    if isinstance(obj, list):
        first = obj[0] if obj else None
        tp: Any = list[ModelResponse] if isinstance(first, ModelResponse) else list[Message]
    elif isinstance(obj, (Message, ModelResponse)):
        tp = type(obj)
    else:
        raise ValidationError(
            f"Expected a Message, ModelResponse or list of them, got {type(obj).__name__}",
            path="$",
        )
    MSGPACK.decode(MSGPACK.encode(obj, False), tp)
