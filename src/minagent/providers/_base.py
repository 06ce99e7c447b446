"""What every provider adapter shares: the `Request`, the unsupported-content policy, its errors.

Adapters import from here; nothing here knows a provider.
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Callable, Mapping
from typing import Any, Literal, cast

import msgspec

from ..wire import _codec, _depth, _finite, _lossless, _paths, _stack, _values
from ..wire.errors import DecodeError, EncodeError, ValidationError, WireError
from ..wire.extra import Extra
from ..wire.limits import DEFAULT, Limits
from ..wire.messages import Message

__all__ = [
    "BLOCK_HINTS",
    "HINTS",
    "NEW_TURN",
    "RAW_ARGUMENTS",
    "SETTINGS",
    "SOURCE",
    "USAGE_EXTRA",
    "Defaults",
    "DropKind",
    "Dropped",
    "Reasoning",
    "Renames",
    "Request",
    "ResponseFormat",
    "StreamError",
    "Tool",
    "ToolChoice",
    "Unsupported",
    "UnsupportedError",
    "UnsupportedPolicy",
    "as_request",
    "bare",
    "block_hint",
    "block_keys",
    "check_size",
    "decode_json",
    "decode_messages",
    "deep",
    "encode_json",
    "flatten_usage",
    "lowered",
    "prefixed",
    "unflatten_usage",
    "without_keys",
]

SOURCE = "from_provider"
"""The hint key naming the adapter whose decoder produced a message or response (``"openai_chat"``,
...). Everything else in that object's ``extra`` (and in its blocks' ``extra``, and its unknown
blocks) is that provider's own data: its encoder writes it back unchanged, every other encoder maps
it exactly, refuses it by name and path, or drops and lists it; none copies it. A message without
it is in the neutral shape, which is the Anthropic Messages shape (the block catalog's own)."""

NEW_TURN = "new_turn"
"""Hint on the first neutral message of a provider message that followed another message of the
same role (two consecutive user turns): the source's encoder starts a new provider message there
instead of joining it to the previous one."""

HINTS = frozenset({"content_absent", "content_list", "developer", SOURCE, NEW_TURN})
"""Keys an adapter may put in a neutral `Message`'s ``extra`` to remember how the source *spelled*
something, not what it said: ``content_absent: true`` (the provider message had no ``content``
key at all, as opposed to ``null`` or ``""``), ``developer: true`` (an OpenAI ``developer``
message, neutrally a ``system`` message), ``content_list: true`` (an OpenAI Chat response
message whose content was a list of parts), plus `SOURCE` and `NEW_TURN`. The source's encoder
reads them back; every other
encoder ignores them, since they carry no content."""

BLOCK_HINTS = frozenset(
    {"args_absent", "openai_item", "type_absent", "openai_reasoning", "content_list"}
)
"""Keys an adapter may put in a content block's ``extra`` for its own bookkeeping, not content:
``type_absent`` (OpenAI Chat: a tool call without ``type``), ``openai_reasoning`` and
``content_list`` (OpenAI Chat: the message key a reasoning text came from, and whether the
content around it was a list), ``openai_item`` (OpenAI Responses: the item-level keys of the
item a block came from, ``id``, ``status``, ...; it also marks where an item begins),
``args_absent`` (Gemini: a ``functionCall`` without ``args``). The source's encoder reads them
back; every other encoder ignores them (`block_hint`). One exception: on a `ThinkingBlock`,
``openai_item`` holds the whole reasoning item (``encrypted_content`` included), which only
OpenAI Responses can read, so other encoders list it (metadata)."""

RAW_ARGUMENTS = "arguments"
"""The `ToolUseBlock.extra` key holding a tool call's arguments as the raw JSON text it came as,
when ``input`` cannot stand for it exactly: the text is not a JSON object (models do produce
truncated JSON; ``input`` is then ``{}``), or (OpenAI) it parses to ``input`` but is spelled
differently from its compact encoding. An encoder writing arguments as text writes it back
byte-exact as long as ``input`` still equals what the text parses to (``{}`` for an invalid one);
an encoder writing ``input`` as an object refuses a call whose text is not a JSON object."""

USAGE_EXTRA = "usage_extra"
"""The `ModelResponse.extra` key holding the provider usage entries that are not integer
counters (``service_tier: "standard"``, ``cache_creation: null``, ...), by dotted name; see
`flatten_usage`."""

UnsupportedPolicy = Literal["error", "drop"]
"""What an encoder does with content the target format cannot hold: raise, or drop and report."""


class Tool(msgspec.Struct, kw_only=True, gc=False):
    """A function the model may call: every provider's function tool."""

    name: str
    """The function's name."""
    description: str | None = None
    """What it does (``None``: the provider body had none)."""
    parameters: dict[str, Any] | None = None
    """Its arguments as a JSON Schema object (``None``: none given)."""
    strict: bool | None = None
    """Whether the provider must hold the arguments to the schema exactly (``None``: unset)."""


class ToolChoice(msgspec.Struct, kw_only=True, gc=False):
    """Which tools the model may or must call."""

    mode: Literal["auto", "any", "none", "tool"] | None = None
    """``auto`` (the model decides), ``any`` (it must call one), ``none`` (it must not),
    ``tool`` (it must call ``name``); ``None``: the provider's default (only ``parallel`` set)."""
    name: str | None = None
    """The tool it must call, for ``mode="tool"``."""
    parallel: bool | None = None
    """Whether it may call several tools in one turn (``None``: the provider's default)."""


class ResponseFormat(msgspec.Struct, kw_only=True, gc=False):
    """The shape the answer must take."""

    type: Literal["text", "json", "json_schema"]
    """Plain text, any JSON object, or JSON following ``schema``."""
    name: str | None = None
    """The schema's name (``json_schema``; some providers require one)."""
    schema: dict[str, Any] | None = None
    """The JSON Schema the answer follows (``json_schema``)."""
    strict: bool | None = None
    """Whether the provider enforces ``schema`` exactly (``None``: unset)."""


class Reasoning(msgspec.Struct, kw_only=True, gc=False):
    """How much the model thinks before answering: an effort level, a token budget, or both."""

    effort: str | None = None
    """An effort level (``low``, ``medium``, ``high``, ... as the provider names them)."""
    budget_tokens: int | None = None
    """A thinking token budget."""


SETTINGS = (
    "model",
    "max_tokens",
    "temperature",
    "top_p",
    "stop",
    "tools",
    "tool_choice",
    "response_format",
    "reasoning",
    "user",
    "metadata",
    "stream",
)
"""The typed settings of a `Request`, the ones every provider has in some spelling."""


SettingValues = tuple[
    str | None,
    int | None,
    float | None,
    float | None,
    list[str] | None,
    list[Tool] | None,
    ToolChoice | None,
    ResponseFormat | None,
    Reasoning | None,
    str | None,
    dict[str, Any] | None,
    bool | None,
]
"""The types of a `Request`'s typed settings, in `SETTINGS` order (`Request.decoded`)."""

NO_SETTINGS = cast(SettingValues, (None,) * len(SETTINGS))
"""`SettingValues` with every setting unset."""


class Request(msgspec.Struct, kw_only=True, gc=False):
    """A model request in neutral form: the conversation, the settings every provider has, and
    the source provider's other options.

    ``messages`` holds every turn, system prompts included (as ``role: "system"`` messages).
    The typed settings (``model`` ... ``metadata``) are what every provider has; ``None`` means
    unset. ``options`` holds the request's other top-level keys, in the shape of ``provider``
    (the adapter that decoded it), unchanged: that adapter writes them back as they came, every
    other adapter reports them. A request decoded and re-encoded for the same provider is written
    back exactly.
    """

    messages: list[Message]
    """The conversation, in order."""
    model: str | None = None
    """The model to call."""
    max_tokens: int | None = None
    """The most tokens the answer may have."""
    temperature: float | None = None
    """Sampling temperature."""
    top_p: float | None = None
    """Nucleus sampling mass."""
    stop: list[str] | None = None
    """Stop sequences."""
    tools: list[Tool] | None = None
    """The functions the model may call."""
    tool_choice: ToolChoice | None = None
    """Which tools the model may or must call."""
    response_format: ResponseFormat | None = None
    """The shape the answer must take."""
    reasoning: Reasoning | None = None
    """How much the model thinks first."""
    user: str | None = None
    """An id for the end user, for the provider's abuse monitoring."""
    metadata: dict[str, Any] | None = None
    """Key-value tags the provider stores with the request."""
    stream: bool | None = None
    """Whether the answer comes as an event stream (Gemini: the endpoint decides)."""
    options: dict[str, Any] = {}
    """Every other top-level key of the request, as ``provider`` wrote it."""
    provider: str | None = None
    """The adapter that decoded this request (its `SOURCE` name), whose shape ``options`` are
    in; ``None`` for a request built by hand (its options are written as they are)."""
    spelling: dict[str, Any] = {}
    """The source body's keys the typed settings were read from, as they were spelled there
    (``max_completion_tokens`` or ``max_tokens``, ``stop`` as a string or a list, ...). Only the
    ``provider``'s encoder reads it, and only while the settings are unchanged: it writes them
    back byte-exact."""
    decoded: SettingValues = NO_SETTINGS
    """The typed settings as they were decoded (a separate copy of them), in `SETTINGS` order:
    the ``provider``'s encoder writes ``spelling`` back only while the settings still equal
    these. Typed, so that a `Request` stored with msgspec and read back compares equal."""

    def keys(self) -> list[str]:
        """The names of what this request holds besides its messages: its typed settings that
        are set, then its option keys (what a transcript of the messages alone would lose)."""
        return [n for n in SETTINGS if getattr(self, n) is not None] + list(self.options)


DropKind = Literal["content", "metadata"]
"""What a dropped item was: ``content`` (what the model said or was told: text, images, tool
calls, thinking, citations; dropped only under ``unsupported="drop"``) or ``metadata`` (ids,
tiers, counters the target lacks, nulls; dropped and listed under either policy)."""


class Dropped(msgspec.Struct, frozen=True, gc=False):
    """One item an encoder left out: content under ``unsupported="drop"``, or metadata."""

    path: str
    """Where it was, as a JSON path into the neutral input (``$.messages[2].content[0]``)."""
    what: str
    """What it was and why the target cannot hold it (``thinking block with signature``)."""
    kind: DropKind = "content"
    """``content`` or ``metadata`` (see `DropKind`); a gateway may ignore metadata."""


class UnsupportedError(EncodeError):
    """The target format cannot hold this content; ``.path`` says where it is in the input."""


class StreamError(DecodeError):
    """A provider event stream failed: an ``error`` event, bad JSON, or a stream cut mid-event.

    ``.frame`` is the 0-based index of the event at fault; ``.error`` holds the provider's error
    object when the stream sent one. The stream reader keeps everything received before the
    failure: its accumulated response is still available.
    """

    error: object = None
    """The provider's error payload (for an ``error`` event), else ``None``."""
    received: list[Any] = []  # noqa: RUF012 (replaced, never mutated)
    """Events of the failing ``feed`` call decoded before the failure (already applied by an
    accumulator)."""


class Unsupported:
    """Applies an `UnsupportedPolicy` while one request or response is encoded.

    ``report(path, what)`` raises `UnsupportedError` under ``"error"``; under ``"drop"`` it records
    a `Dropped` in ``.dropped`` (and in the caller's list, if one was given) and returns, so the
    encoder skips the item.
    """

    __slots__ = ("dropped", "keep_names", "policy", "renames")

    def __init__(
        self,
        policy: UnsupportedPolicy = "error",
        into: list[Dropped] | None = None,
        renames: Renames | None = None,
    ):
        if policy not in ("error", "drop"):
            raise ValueError(f"unsupported= must be 'error' or 'drop', not {policy!r}")
        self.policy = policy
        self.dropped: list[Dropped] = into if into is not None else []
        self.renames = renames
        """The caller's `Renames` (``encode_request(..., renames=...)``), else one made on first
        use (`renaming`)."""
        self.keep_names = False
        """Set by an encoder writing a request its own adapter decoded: tool names are the
        client's own, written as they came in the tools and the calls alike, never fitted."""

    def renaming(self) -> Renames:
        """The `Renames` this call records tool name and id rewrites in."""
        if self.renames is None:
            self.renames = Renames()
        return self.renames

    def report(self, path: str, what: str) -> None:
        """Refuse (``"error"``) or record (``"drop"``) one item the target cannot hold."""
        if self.policy == "error":
            raise UnsupportedError(f"the target format cannot hold {what}", path=path)
        self.dropped.append(Dropped(path, what))

    def metadata(self, path: str, what: str) -> None:
        """Record metadata the target has no place for (an id, a tier, a counter): never refused,
        under either policy, always listed in ``dropped`` with ``kind="metadata"``."""
        self.dropped.append(Dropped(path, what, "metadata"))

    def report_key(self, path: str, what: str, value: Any, metadata: bool = False) -> None:
        """Like `report`, for a key the target has no place for, holding ``value``.

        Metadata (``metadata=True``), a ``null`` or an empty list (``annotations: []`` on every
        Responses text part) carries no content: it is never refused, under either policy, but it
        is still recorded in ``dropped`` as metadata (``what`` plus `` (null)`` /
        `` (empty list)`` for those), so nothing goes silently.
        """
        if value is None:
            self.metadata(path, what + " (null)")
        elif type(value) is list and not value:
            self.metadata(path, what + " (empty list)")
        elif metadata:
            self.metadata(path, what)
        else:
            self.report(path, what)


Defaults = Mapping[str, Any] | Callable[[str | None], Mapping[str, Any]]
"""Per-call defaults for ``encode_request(..., defaults=...)``: settings and options by name
(``{"max_tokens": 4096}``), or a function of the request's model returning them (a per-model
table: ``lambda model: {"max_tokens": LIMITS.get(model, 4096)}``)."""


def as_request(
    messages: Request | list[Message],
    options: Mapping[str, Any],
    defaults: Defaults | None = None,
) -> Request:
    """The `Request` an ``encode_request(req_or_messages, defaults=..., **options)`` call
    describes.

    Precedence, strongest first: keyword ``options`` (the caller's explicit choice: they set the
    typed settings they name, ``model=``, ``max_tokens=``, ..., and add to or override the
    request's other options); then the request's own values (what the client sent); then
    ``defaults`` (a mapping, or a function of the model name returning one), which fill only a
    typed setting that is unset and an option key that is absent. A gateway passes its fallback
    ``max_tokens`` as a default, so the client's own limit wins.
    """
    if not options and defaults is None and isinstance(messages, Request):
        return messages
    typed = {k: v for k, v in options.items() if k in SETTINGS}
    rest = {k: v for k, v in options.items() if k not in SETTINGS}
    if isinstance(messages, Request):
        req = (
            msgspec.structs.replace(messages, options={**messages.options, **rest}, **typed)
            if options
            else messages
        )
    elif not isinstance(messages, list):
        raise TypeError(f"expected a Request or a list of Message, got {type(messages).__name__}")
    else:
        try:
            req = Request(messages=messages, options=rest, **typed)
        except TypeError as err:
            raise TypeError(f"encode_request: {err}") from None
    if defaults is None:
        return req
    if callable(defaults):
        defaults = defaults(req.model)
    if not isinstance(defaults, Mapping):
        raise TypeError(f"defaults= must be a mapping, not {type(defaults).__name__}")
    fill = {k: v for k, v in defaults.items() if k in SETTINGS}
    fill = {k: v for k, v in fill.items() if getattr(req, k) is None and k not in req.options}
    more = {k: v for k, v in defaults.items() if k not in SETTINGS and k not in req.options}
    if not fill and not more:
        return req
    try:
        return msgspec.structs.replace(req, options={**req.options, **more}, **fill)
    except TypeError as err:  # pragma: no cover (fill holds only Request field names)
        raise TypeError(f"encode_request: {err}") from None


_FIT = re.compile(r"[a-zA-Z0-9_-]+")
_UNFIT = re.compile(r"[^a-zA-Z0-9_-]")
_PATTERNS = {
    "anthropic": (_FIT, _UNFIT, None),
    "gemini": (re.compile(r"[a-zA-Z_][a-zA-Z0-9_.:-]*"), re.compile(r"[^a-zA-Z0-9_.:-]"), "_"),
}
"""Per target: the names it takes (a full match), the characters it refuses, and the prefix
for a name that must not start as it does (Gemini: a letter or ``_`` first)."""


class Renames:
    """Tool names and tool call ids an encoder rewrote to fit its target's patterns.

    The Anthropic Messages API takes tool names matching ``^[a-zA-Z0-9_-]{1,64}$`` and tool use
    ids matching ``^[a-zA-Z0-9_-]+$``; an OpenAI client may send ``weather.get`` and
    ``functions.get_weather:0``. The encoder rewrites such a value (every other character
    becomes ``_``; a value too long, or whose rewrite another value of the same request already
    took, is cut and ends in ``_`` plus 8 hex digits of its SHA-256), the same way in the tools
    list, ``tool_choice``, ``tool_use`` and ``tool_result``, and records it here. Pass one to
    ``encode_request(..., renames=r)`` and then to ``decode_response(data, renames=r)`` (or
    call ``r.restore(response)``): the response's tool calls get the client's own names and ids
    back. The rewrite depends only on the request's own values (no state between calls), so
    each turn of a conversation rewrites its history the same way.

    ``names`` and ``ids`` map each rewritten value to its original.
    """

    __slots__ = ("_ids_taken", "_names_taken", "ids", "names")

    def __init__(self) -> None:
        self._names_taken: set[str] = set()  # every name written so far, rewritten or not
        self._ids_taken: set[str] = set()
        self.names: dict[str, str] = {}
        """Rewritten tool name -> the original."""
        self.ids: dict[str, str] = {}
        """Rewritten tool call id -> the original."""

    def __repr__(self) -> str:
        return f"Renames(names={self.names!r}, ids={self.ids!r})"

    def __bool__(self) -> bool:
        return bool(self.names or self.ids)

    def name(self, value: str, limit: int = 64, target: str = "anthropic") -> str:
        """``value`` as a tool name of at most ``limit`` characters for ``target``
        (``anthropic``: ``^[a-zA-Z0-9_-]+$``; ``gemini``: a letter or ``_``, then letters,
        digits, ``_ . : -``), recorded when changed."""
        return _fit(value, limit, self.names, self._names_taken, _PATTERNS[target])

    def id(self, value: str, limit: int = 0) -> str:
        """``value`` as a tool call id (``limit``: its most characters, 0 for any)."""
        return _fit(value, limit, self.ids, self._ids_taken, _PATTERNS["anthropic"])

    def restore(self, response: Any) -> Any:
        """``response`` (a `ModelResponse`) with the rewritten names and ids of its tool calls
        back to the originals; the same response when nothing was rewritten."""
        if not self.names and not self.ids:
            return response
        content = response.message.content
        if type(content) is not list:
            return response
        changed = False
        blocks = []
        for block in content:
            if getattr(block, "type", None) == "tool_use":
                name = self.names.get(block.name, block.name)
                ident = self.ids.get(block.id, block.id)
                if name != block.name or ident != block.id:
                    block = msgspec.structs.replace(block, name=name, id=ident)
                    changed = True
            blocks.append(block)
        if not changed:
            return response
        message = msgspec.structs.replace(response.message, content=blocks)
        return msgspec.structs.replace(response, message=message)


def _fit(value: str, limit: int, record: dict[str, str], taken: set[str], pattern: Any) -> str:
    """``value`` fitted to ``pattern`` (see `Renames`); a rewrite is recorded in ``record``."""
    fit, unfit, lead = pattern
    if (
        fit.fullmatch(value)
        and (not limit or len(value) <= limit)
        and (value not in record or record[value] == value)
    ):
        taken.add(value)
        return value
    if value in record.values():  # rewritten before in this call: the same rewrite
        for out, original in record.items():
            if original == value:
                return out
    out = unfit.sub("_", value) if value else "_"
    if lead is not None and not fit.match(out[:1]):
        out = lead + out
    if (limit and len(out) > limit) or out in taken or out == value:
        import hashlib  # (rare: only a colliding or overlong rewrite needs it)

        digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        keep = (limit or len(out) + 9) - 9
        out = f"{out[:keep]}_{digest}"
    record[out] = value
    taken.add(out)
    return out


def prefixed(err: WireError, base: str) -> WireError:
    """The same error with its ``$``-rooted path moved under ``base`` (``$.messages``)."""
    return err.under(base)


_ANY = msgspec.json.Decoder()


def check_size(data: Any, limits: Limits = DEFAULT) -> None:
    """Refuse an input longer than ``limits.max_size`` (bytes; characters for a ``str``) with
    `DecodeError`, before any parsing: every adapter's decoders call this first."""
    try:
        size = len(data)
    except TypeError:
        raise DecodeError(f"expected bytes or str, got {type(data).__name__}", path="$") from None
    if size > limits.max_size:
        raise DecodeError(
            f"the input is {size} bytes, longer than the limit of {limits.max_size} "
            "(Limits.max_size)",
            path="$",
        )


_HEADROOM = 4000
"""Extra interpreter frames `deep` allows for one retry: enough for a value as deep as
``Limits.max_depth`` allows, encoded from wherever the caller is on the stack."""


def deep(call: Callable[[], Any]) -> Any:
    """``call()``, retried once with the interpreter's recursion limit raised by `_HEADROOM` if
    it hit the limit (msgspec writes nested values recursively: a tool input as deep as the
    decoder accepts must encode from a deep call stack too, inside a web handler)."""
    try:
        return call()
    except RecursionError:
        pass
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(limit + _HEADROOM)
    try:
        return call()
    except RecursionError:
        raise EncodeError("a value is nested too deep to write") from None
    finally:
        sys.setrecursionlimit(limit)


def decode_json(data: Any, path: str, decoder: Any = _ANY) -> Any:
    """Decode JSON ``data`` with a msgspec ``decoder``, raising our errors located at ``path``.

    Up to CPython 3.11 msgspec's recursion guard counts the caller's frames too: input nested
    close to the default ``max_depth`` (which the encoders write) is decoded again with the
    recursion limit raised by `_HEADROOM`, as `deep` does for writing, where this thread's stack
    holds that many levels (`minagent.wire._stack.room_here`)."""
    try:
        return _decode_json(data, path, decoder)
    except RecursionError:
        limit = sys.getrecursionlimit()
        if _stack.room_here() < limit + _HEADROOM:  # this stack may not hold the raised guard
            raise DecodeError("invalid JSON: nesting too deep", path=path) from None
    sys.setrecursionlimit(limit + _HEADROOM)
    try:
        return _decode_json(data, path, decoder)
    except RecursionError:
        raise DecodeError("invalid JSON: nesting too deep", path=path) from None
    finally:
        sys.setrecursionlimit(limit)


def _decode_json(data: Any, path: str, decoder: Any) -> Any:
    try:
        return decoder.decode(data)
    except msgspec.ValidationError as err:
        raise _paths.relocate(err, path) from None
    except msgspec.DecodeError as err:
        raise DecodeError(f"invalid JSON: {err}", path=path) from None
    except UnicodeDecodeError:  # invalid UTF-8 in bytes, as msgspec < 0.23 reports it
        raise DecodeError("invalid JSON: Invalid UTF-8 encoded string", path=path) from None
    except UnicodeError as err:  # a str holding a lone surrogate, which has no UTF-8 form
        raise DecodeError(f"invalid text: {getattr(err, 'reason', err)}", path=path) from None


def decode_messages(data: Any, path: str, limits: Limits = DEFAULT) -> list[Message]:
    """Decode a JSON array of neutral-shaped messages (the wire codec), errors under ``path``."""
    try:
        result: list[Message] = _codec.JSON.decode(data, list[Message], limits)
    except WireError as err:
        raise prefixed(err, path) from None
    return result


class _NeedsLowering(Exception):
    pass


class Spliced:
    """A JSON string `encode_json` puts into its output after msgspec has written the rest:
    ``"`` + ``head`` + ``body`` + ``"``, with ``body`` (base64 text, often megabytes) copied in
    once, never encoded, escaped or searched. ``head`` (a short prefix such as ``data:image/png;
    base64,``) and ``body`` must be JSON string text with nothing to escape (the callers:
    media types checked by `minagent.providers._helpers`, base64 text)."""

    __slots__ = ("body", "head")

    def __init__(self, body: bytes | memoryview, head: bytes = b"") -> None:
        self.body = body
        self.head = head

    def __repr__(self) -> str:
        return f"Spliced({bytes(self.head)!r}, {len(self.body)} bytes)"


_finite.FLOATLESS.add(Spliced)  # base64 text: the NaN look writes it as None, no walk

_MARK = b"\x00"
"""Where a `Spliced` body goes in msgspec's output: JSON text never holds a raw NUL (msgspec
escapes it in strings, and its decoder refuses one, so no decoded `msgspec.Raw` holds one)."""

_local = threading.local()


def _hook(obj: Any) -> Any:
    if type(obj) is Spliced:
        pieces = getattr(_local, "pieces", None)
        if pieces is None:  # (the fallback, or an encoder not collecting: written whole)
            return msgspec.Raw(b'"' + obj.head + bytes(obj.body) + b'"')
        pieces.append(obj.body)
        return msgspec.Raw(b'"' + obj.head + _MARK + b'"')
    if type(obj) is Extra:
        raise _NeedsLowering
    raise NotImplementedError(f"cannot write objects of type {type(obj).__name__}")


_ENCODER = msgspec.json.Encoder(enc_hook=_hook)
_CAPPED = sys.version_info >= (3, 12)
"""Whether msgspec's guard is a C recursion count `_codec.encode_budget` may cap (3.12+)."""


def _splice(out: bytes, pieces: list[bytes | memoryview]) -> bytes | None:
    """``out`` with each `_MARK` replaced by its piece, in order (None if the marks do not
    match the pieces: the caller writes the pieces whole instead)."""
    joined: list[bytes | memoryview] = []
    find = out.find
    start = 0
    for piece in pieces:
        at = find(_MARK, start)
        if at < 0:  # pragma: no cover (no JSON text holds a raw NUL)
            return None
        joined.append(out[start:at])  # (short: the body without the spliced text)
        joined.append(piece)
        start = at + 1
    if find(_MARK, start) >= 0:  # pragma: no cover
        return None
    joined.append(out[start:])
    return b"".join(joined)


def lowered(value: Any, path: str) -> Any:
    """``value`` (blocks, or a list of them) with every Struct carrying `Extra` data turned into a
    plain dict, ready for msgspec; JSON-unsafe unknown data raises `EncodeError` with its path."""
    return _lossless.lower_located(value, path, _values.json_problem)


def _encode_once(obj: Any, splice: bool = True) -> bytes:
    """One `_ENCODER` call, collecting the `Spliced` pieces in ``_local.pieces`` (``splice``:
    marks for them; else written whole, ``_local.pieces`` None)."""
    _local.pieces = [] if splice else None
    out: bytes = _ENCODER.encode(obj)
    return out


def _encode_deep(obj: Any) -> bytes:
    """``obj`` written after msgspec's capped guard stopped it: refused with the path of the
    first container past the default ``max_depth`` (what decoding refuses), else written again
    with the guard as it was (up to CPython 3.11: with headroom, `deep`)."""
    where = _depth.too_deep(obj, DEFAULT.max_depth)
    if where is not None:
        raise EncodeError(
            f"cannot write JSON: nesting deeper than max_depth={DEFAULT.max_depth} "
            "(decoding refuses it)",
            path=where,
        )
    return deep(lambda: _encode_once(obj))  # type: ignore[no-any-return]


def encode_json(obj: Any) -> bytes:
    """Write ``obj`` (dicts and lists of JSON values and our Structs) as JSON bytes.

    Structs carrying unknown data must already be `lowered`; anything else msgspec cannot write
    raises `EncodeError`, and so do a value nested deeper than the default ``max_depth`` (what
    the adapters' decoders refuse) and a NaN or infinity (msgspec would write ``null``), each
    with its path in ``obj`` (`minagent.wire._finite.refuse_nonfinite`, as the wire codec
    checks: a short output without a ``null`` value needs one byte search, any other output the
    MessagePack look; a search of its own here first would read a long output once more).

    msgspec's recursion guard stops past the default ``max_depth``: up to CPython 3.11 the guard
    is the recursion limit; from 3.12 the thread's C recursion count is lowered for the call
    (`minagent.wire._codec.encode_budget`).

    A `Spliced` value (base64 text, as the adapters write images) is put in after msgspec and
    the NaN check have run over the rest: its text is copied once, never encoded or searched.
    """
    local = _local
    local.pieces = pieces = []
    budget = _codec.encode_budget() if _CAPPED else None  # (up to 3.11: the recursion limit)
    try:
        try:
            out: bytes = (
                _ENCODER.encode(obj)
                if budget is None
                else _codec.run_capped(budget, _ENCODER.encode, obj)
            )
        except RecursionError:  # too deep to read back, or encoded from deep in the stack
            out = _encode_deep(obj)
            pieces = local.pieces
    except _NeedsLowering:
        raise EncodeError("internal: a block with extra keys was not lowered") from None
    except (TypeError, ValueError, OverflowError, NotImplementedError) as err:
        if isinstance(err, EncodeError):
            raise
        raise EncodeError(f"cannot write JSON: {err}") from None
    finally:
        local.pieces = None
    _finite.refuse_nonfinite(obj, out)  # on the output without the spliced text
    if pieces:
        spliced = _splice(out, pieces)
        out = spliced if spliced is not None else _encode_once(obj, splice=False)
    return out


def flatten_usage(
    usage: Mapping[str, Any], rename: Mapping[str, str] | None = None
) -> tuple[dict[str, int], dict[str, Any]]:
    """Split a provider ``usage`` object into integer counters and everything else.

    Nested objects flatten to dotted names (``cache_creation.ephemeral_5m_input_tokens``); an
    integer leaf becomes a counter (renamed through ``rename``, keyed by the dotted provider
    name), any other leaf (a string, ``null``, a float, a list, an empty object) is kept, by its
    dotted name, in the second dict. `unflatten_usage` puts the object back together.
    """
    counters: dict[str, int] = {}
    other: dict[str, Any] = {}
    if rename:
        _flatten(usage, "", rename, counters, other)
        return counters, other
    for key, value in usage.items():  # the common case, inlined: no renames, one level
        if type(value) is int:
            counters[key] = value
        elif type(value) is dict and value:
            _flatten(value, key + ".", {}, counters, other)
        else:
            other[key] = value
    return counters, other


def _flatten(
    obj: Mapping[str, Any],
    prefix: str,
    rename: Mapping[str, str],
    counters: dict[str, int],
    other: dict[str, Any],
) -> None:
    for key, value in obj.items():
        name = prefix + key
        if type(value) is int:
            counters[rename.get(name, name)] = value
        elif type(value) is dict and value:
            _flatten(value, name + ".", rename, counters, other)
        else:
            other[name] = value


def unflatten_usage(
    counters: Mapping[str, int],
    other: Mapping[str, Any] | None = None,
    rename: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The inverse of `flatten_usage` (``rename`` maps neutral names back to provider names)."""
    out: dict[str, Any] = {}
    for items in (counters.items(), (other or {}).items()):
        for name, value in items:
            parts = (rename.get(name, name) if rename else name).split(".")
            node = out
            for part in parts[:-1]:
                child = node.setdefault(part, {})
                if type(child) is not dict:
                    raise ValidationError(f"usage key {name!r} nests under a non-object")
                node = child
            node[parts[-1]] = value
    return out


_CORE: dict[type, frozenset[str]] = {}
"""Per block class: the fields every encoder maps itself (required ones, the tag, ``extra``,
and optional fields that are part of the block's meaning, such as a thinking signature)."""
_OPTIONAL_CORE = frozenset({"signature"})


def _core(cls: type) -> frozenset[str]:
    core = _CORE.get(cls)
    if core is None:
        fields: tuple[str, ...] = getattr(cls, "__struct_fields__", ())
        defaults: tuple[Any, ...] = getattr(cls, "__struct_defaults__", ())
        required = fields[: len(fields) - len(defaults)]
        core = _CORE[cls] = frozenset({*required, "extra", "type"} | (_OPTIONAL_CORE & set(fields)))
    return core


_OPTIONAL: dict[type, tuple[str, ...]] = {}
"""Per block class: its non-core fields, ``extra`` last (when it has one)."""


def _optional(cls: type) -> tuple[str, ...]:
    core = _core(cls)
    fields: tuple[str, ...] = getattr(cls, "__struct_fields__", ())
    names = tuple(n for n in fields if n not in core)
    if "extra" in fields:
        names += ("extra",)
    _OPTIONAL[cls] = names
    return names


def bare(block: Any) -> bool:
    """Whether ``block`` carries nothing beyond its core fields: no optional typed field set
    (``cache_control``, ``citations``, ``caller``, ...) and no ``extra`` (`block_keys` is empty)."""
    names = _OPTIONAL.get(type(block))
    if names is None:
        names = _optional(type(block))
    for name in names:  # noqa: SIM110 (a loop is faster than all() over a generator here)
        if getattr(block, name) is not msgspec.UNSET:
            return False
    return True


def block_hint(key: str, block: Any) -> bool:
    """Whether ``key`` in ``block``'s extra is bookkeeping (`BLOCK_HINTS`) an encoder other than
    its source's may leave out: not ``openai_item`` on a thinking block (a reasoning item)."""
    return key in BLOCK_HINTS and not (
        key == "openai_item" and getattr(block, "type", None) == "thinking"
    )


def block_keys(block: Any) -> dict[str, Any]:
    """The keys a block or source carries beyond its core fields, by wire name: its optional
    typed fields that are set (``cache_control``, ``citations``, ``caller``, ...) and its
    ``extra`` keys. An encoder checks these against what its target can hold."""
    out: dict[str, Any] = {}
    names = _OPTIONAL.get(type(block))
    if names is None:
        names = _optional(type(block))
    for name in names:
        value = getattr(block, name)
        if value is not msgspec.UNSET:
            if name == "extra":
                out.update(value.items())
            else:
                out[name] = value
    return out


def without_keys(block: Any, names: set[str]) -> Any:
    """A copy of ``block`` without the given non-core keys (typed fields unset, extra keys
    removed)."""
    fields = set(getattr(block, "__struct_fields__", ())) - _core(type(block))
    changes: dict[str, Any] = {name: msgspec.UNSET for name in names & fields}
    extra = getattr(block, "extra", msgspec.UNSET)
    if extra is not msgspec.UNSET and names & set(extra):
        kept = {k: v for k, v in extra.items() if k not in names}
        changes["extra"] = Extra._own(kept) if kept else msgspec.UNSET
    return msgspec.structs.replace(block, **changes) if changes else block
