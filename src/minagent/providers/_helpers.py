"""Small helpers shared by the Responses and Gemini adapters (data URLs, extras, tool arguments)."""

from __future__ import annotations

import binascii
import re
from typing import Any

import msgspec
from msgspec import UNSET

from ..wire import _finite
from ..wire.blocks import Base64Source, UnknownBlock, keep_base64, kept_base64
from ..wire.errors import EncodeError, ValidationError
from ..wire.extra import Extra
from ._base import Spliced, deep

__all__ = [
    "MISSING",
    "arguments_exact",
    "b64_exact",
    "base64_json",
    "base64_source",
    "base64_text",
    "block_kind",
    "data_url",
    "extra_dict",
    "extra_or_unset",
    "json_text",
    "parse_arguments",
    "parse_data_url",
    "tool_arguments",
    "want_dict",
    "want_list",
    "want_str",
]

MISSING: Any = object()
"""Marks a key that was absent (as opposed to ``null``)."""

_ENC = msgspec.json.Encoder()
_DEC = msgspec.json.Decoder()


def extra_dict(obj: Any) -> dict[str, Any]:
    """The ``extra`` of a Struct as a new plain dict (empty when unset)."""
    extra = getattr(obj, "extra", UNSET)
    return {} if extra is UNSET else dict(extra.items())


def extra_or_unset(data: dict[str, Any]) -> Any:
    """``Extra`` wrapping ``data`` (not copied), or ``UNSET`` when it is empty."""
    return Extra._own(data) if data else UNSET


def want_dict(value: Any, path: str) -> dict[str, Any]:
    """``value`` if it is a JSON object, else a `ValidationError` at ``path``."""
    if type(value) is not dict:
        raise ValidationError(f"expected an object, got {_kind(value)}", path=path)
    return value


def want_list(value: Any, path: str) -> list[Any]:
    """``value`` if it is a JSON array, else a `ValidationError` at ``path``."""
    if type(value) is not list:
        raise ValidationError(f"expected an array, got {_kind(value)}", path=path)
    return value


def want_str(value: Any, path: str) -> str:
    """``value`` if it is a string, else a `ValidationError` at ``path``."""
    if type(value) is not str:
        raise ValidationError(f"expected a string, got {_kind(value)}", path=path)
    return value


def _kind(value: Any) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number")


def b64_exact(text: str) -> bytes | None:
    """The bytes ``text`` holds in standard base64, if re-encoding them gives ``text`` back.

    One decode and no re-encode: only the padding bits of the last four characters can differ
    (``"QR=="`` reads as ``b"A"``, written ``"QQ=="``), so only those are written again."""
    if "\\" in text:  # a JSON escape, which the decoder below would read
        return None
    try:
        raw: bytes = _BYTES.decode(b'"' + text.encode("ascii") + b'"')
    except (UnicodeEncodeError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    if not raw:
        return raw
    tail = len(raw) - (len(raw) - 1) // 3 * 3  # bytes in the last group of four characters
    return raw if binascii.b2a_base64(raw[-tail:], newline=False) == text[-4:].encode() else None


_BYTES = msgspec.json.Decoder(bytes)


def parse_data_url(url: str) -> Base64Source | None:
    """A ``data:<type>;base64,<data>`` URL as a `Base64Source`, if it reads back exactly; the
    source keeps the base64 text (`Base64Source.base64`), so it is written back as it came."""
    if not url.startswith("data:"):
        return None
    head, comma, payload = url[5:].partition(",")
    if not comma or not head.endswith(";base64"):
        return None
    media_type = head[: -len(";base64")]
    if not media_type or ";" in media_type:
        return None
    return base64_source(media_type, payload)


def base64_source(media_type: str, text: str, extra: Any = UNSET) -> Base64Source | None:
    """A `Base64Source` of canonical standard base64 ``text``, keeping the text (None for any
    other text: the caller keeps it whole, as a URL or unknown data)."""
    raw = b64_exact(text)
    if raw is None:
        return None
    source = Base64Source(media_type, raw, extra)
    keep_base64(source, text)
    return source


def data_url(source: Base64Source) -> Any:
    """A `Base64Source` as a ``data:`` URL, for `encode_json` to write: a `Spliced` whose base64
    (the text the source was read from, or its bytes encoded once) is copied in after msgspec
    has written the rest (a ``str`` when the media type needs JSON escaping)."""
    media = source.media_type
    head = _DATA_URL_HEADS.get(media)
    if head is None:
        if type(media) is not str or _PLAIN_MEDIA.fullmatch(media) is None:
            return f"data:{media};base64,{source.base64}"
        head = b"data:" + media.encode() + b";base64,"
        if len(_DATA_URL_HEADS) < 256:
            _DATA_URL_HEADS[media] = head
    return Spliced(base64_text(source), head)


_DATA_URL_HEADS: dict[str, bytes] = {}
"""``data:<type>;base64,`` for the plain media types met so far (a few: image and PDF types)."""


def base64_json(source: Base64Source) -> Any:
    """``source``'s data as a JSON base64 string, for `encode_json` to write (`Spliced`)."""
    return Spliced(base64_text(source))


def base64_text(source: Base64Source) -> bytes | memoryview:
    """``source``'s base64 as ASCII bytes: the text it was read from while its data is
    unchanged, else its bytes encoded."""
    kept = kept_base64(source)
    if kept is not None:
        return kept
    return binascii.b2a_base64(source.data, newline=False)


_PLAIN_MEDIA = re.compile(r"[A-Za-z0-9!#$&^_.+\-/;= ]*")
"""Media types written into JSON as they are (nothing to escape)."""


def json_text(value: Any) -> str:
    """``value`` as compact JSON text; `EncodeError` (its path inside ``value``) for a NaN or an
    infinity, which msgspec would write as ``null``."""
    try:
        text = _ENC.encode(value).decode("utf-8")
    except RecursionError:  # nested deep, encoded from deep in the stack: more room
        text = deep(lambda: _ENC.encode(value).decode("utf-8"))  # EncodeError if still too deep
    if "null" in text:
        _finite.refuse_nonfinite(value, text.encode())
    return text


def parse_arguments(raw: str) -> tuple[dict[str, Any], str | None]:
    """A function call's ``arguments`` string as (input, raw-to-keep).

    Valid JSON objects whose compact re-encoding is ``raw`` itself give ``(input, None)``; any
    other string (spacing, key order, invalid or truncated JSON, not an object) is kept as ``raw``
    so it goes back byte-exact, with ``input`` the parsed object or ``{}``.
    """
    try:
        value = _DEC.decode(raw)
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        return {}, raw
    if type(value) is not dict:
        return {}, raw
    return (value, None) if json_text(value) == raw else (value, raw)


def arguments_exact(raw: str, value: Any) -> bool:
    """Whether the arguments text ``raw`` is a JSON object equal to ``value`` (so writing
    ``value`` instead changes only its spelling)."""
    try:
        parsed = _DEC.decode(raw)
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        return False
    return type(parsed) is dict and parsed == value


def tool_arguments(block: Any, path: str) -> str:
    """A tool call's ``arguments`` text: the raw text it came as (`RAW_ARGUMENTS` in its
    ``extra``) while ``input`` still equals what that text parses to (``{}`` for text that is not
    a JSON object), else the compact JSON of ``input``. `EncodeError` at ``path`` when ``input``
    cannot be written."""
    extra = block.extra
    raw = extra.get("arguments") if extra is not UNSET else None
    if type(raw) is str:
        parsed, _ = parse_arguments(raw)
        if parsed == block.input:
            return raw
    try:
        return json_text(block.input)
    except EncodeError as err:
        raise EncodeError(err.message, path=path + ".input" + (err.path or "$")[1:]) from None
    except (TypeError, ValueError, OverflowError) as err:
        raise EncodeError(f"cannot write tool input: {err}", path=path + ".input") from None


_SOUNDS_YOU = ("user", "usage", "url", "uri", "uni", "use")
"""Words that start with a vowel letter but a consonant sound: "a user", "a URL"."""


def a(word: str) -> str:
    """``word`` after its indefinite article: ``a thinking``, ``an image``, ``an assistant``,
    ``a user`` (by the sound: `_SOUNDS_YOU`)."""
    vowel = word[:1] in "aeiou" and not word.startswith(_SOUNDS_YOU)
    return ("an " if vowel else "a ") + word


def block_kind(block: Any) -> str:
    """A block's wire ``type`` (the real one, for unknown blocks)."""
    if type(block) is UnknownBlock:
        return block.type
    return str(type(block).type)
