"""The content/metadata policy, written once: what every encoder does with data it has no place for.

*Content* is what the model said or was told: text, images, tool calls, thinking, citations.
Losing content is refused by default (`UnsupportedError`) and dropped only under
``unsupported="drop"``, always listed. *Metadata* is ids, tiers, counters the target lacks,
nulls: losing it never raises; it is listed in ``dropped`` with ``kind="metadata"``, and a gateway
can ignore that list.

Provenance decides who may write what back. Every decoder other than Anthropic's tags the
messages and responses it produces with the `SOURCE` hint; the neutral shape (no hint) is the
Anthropic Messages shape. An encoder writes the unnamed data of its own provider back unchanged,
and hands every other provider's unnamed data to `foreign_key` / `foreign_block` here, which
classify it by these tables: never copied into the target body.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Set
from typing import Any, Protocol, TypeVar, cast

import msgspec
from msgspec import UNSET

from ..wire import _stack
from ..wire._stack import runs_roomy
from ..wire.blocks import UnknownBlock
from ..wire.errors import ValidationError
from ..wire.extra import Extra
from ..wire.limits import DEFAULT, Limits
from ..wire.messages import Message, ModelResponse
from ._base import (
    HINTS,
    NO_SETTINGS,
    SETTINGS,
    SOURCE,
    USAGE_EXTRA,
    Defaults,
    Dropped,
    Renames,
    Request,
    SettingValues,
    Tool,
    ToolChoice,
    Unsupported,
    UnsupportedError,
    UnsupportedPolicy,
    as_request,
    block_hint,
    block_keys,
    check_size,
    flatten_usage,
)
from ._base import NEW_TURN as NEW_TURN
from ._base import RAW_ARGUMENTS as RAW_ARGUMENTS
from ._base import bare as bare
from ._base import decode_json as decode_json
from ._base import decode_messages as decode_messages
from ._base import encode_json as encode_json
from ._base import lowered as lowered
from ._base import prefixed as prefixed
from ._base import unflatten_usage as unflatten_usage
from ._base import without_keys as without_keys
from ._helpers import MISSING as MISSING
from ._helpers import a as a
from ._helpers import b64_exact as b64_exact
from ._helpers import base64_json as base64_json
from ._helpers import base64_source as base64_source
from ._helpers import base64_text as base64_text
from ._helpers import block_kind
from ._helpers import data_url as data_url
from ._helpers import extra_dict as extra_dict
from ._helpers import extra_or_unset as extra_or_unset
from ._helpers import json_text as json_text
from ._helpers import parse_arguments as parse_arguments
from ._helpers import parse_data_url as parse_data_url
from ._helpers import tool_arguments as tool_arguments
from ._helpers import want_dict as want_dict
from ._helpers import want_list as want_list
from ._helpers import want_str as want_str

__all__ = [
    "ANTHROPIC_FOREIGN_STOP",
    "ANTHROPIC_STOP_REASONS",
    "BUDGET_EFFORTS",
    "CONTENT_KEYS",
    "CONTENT_OPTIONS",
    "EFFORT_BUDGETS",
    "HINTS",
    "OPENAI_MODES",
    "SOURCE",
    "USAGE_EXTRA",
    "Decoder",
    "RequestEncoder",
    "ResponseDecoder",
    "ResponseEncoder",
    "SettingsReader",
    "block_extra",
    "block_hint",
    "block_keys",
    "block_kind",
    "decoder",
    "encode_settings",
    "enum_stop_reason",
    "flatten_usage",
    "foreign_block",
    "foreign_extra",
    "foreign_key",
    "foreign_usage",
    "has_keys",
    "is_int",
    "is_number",
    "is_own",
    "is_str",
    "is_strings",
    "kept_keys",
    "merged",
    "message_keys",
    "put_openai_choice",
    "request_encoder",
    "response_encoder",
    "source_of",
    "tagged",
    "take_openai_choice",
    "take_same",
    "take_tools",
    "tool_from",
    "tool_ok",
    "typed_fields",
    "typed_settings",
    "uncached",
    "unknown_block",
    "usage_in",
    "usage_object",
    "with_fields",
]

CONTENT_KEYS = frozenset(
    {
        "annotations",
        "audio",
        "candidates",
        "choices",
        "citations",
        "function_call",
        "reasoning",
        "reasoning_content",
        "reasoning_details",
        "refusal",
        "search_results",
        "tool_calls",
    }
)
"""Keys, at any level, that hold content (citations, a refusal, audio, reasoning, further choices
or candidates, ...). Every other key a target has no place for is metadata."""


def source_of(extra: Any) -> str | None:
    """The `SOURCE` hint of an ``extra`` (a message's or a response's), or None (neutral)."""
    if extra is UNSET or SOURCE not in extra:  # (Mapping.get is slow on Extra)
        return None
    source = extra[SOURCE]
    return source if type(source) is str else None


def is_own(extra: Any, name: str, neutral: bool = False) -> bool:
    """Whether the object carrying ``extra`` came from the adapter ``name`` (or, with
    ``neutral=True``, carries no `SOURCE` hint: the Anthropic adapter owns the neutral shape)."""
    if extra is UNSET or SOURCE not in extra:  # (the hot path: no Mapping.get on Extra)
        return neutral
    return extra[SOURCE] == name or (neutral and type(extra[SOURCE]) is not str)


def foreign_key(policy: Unsupported, path: str, what: str, key: str, value: Any) -> None:
    """Report ``key`` (``what`` says where it was) that the target cannot hold: refused (or
    dropped) when it is content, listed as metadata otherwise."""
    policy.report_key(path, what, value, metadata=key not in CONTENT_KEYS)


def foreign_extra(
    policy: Unsupported,
    extra: Mapping[str, Any],
    path: str,
    what: str,
    skip: frozenset[str] = frozenset(),
) -> None:
    """`foreign_key` for every key of ``extra`` but the hints and ``skip``."""
    for key, value in extra.items():
        if key not in skip and key not in HINTS:
            foreign_key(policy, f"{path}.{key}", f"{what} {key!r}", key, value)


def foreign_block(policy: Unsupported, path: str, kind: str, source: str | None) -> None:
    """Report a whole block of another provider (an unknown block, a part type the target has
    no place for): content, refused unless ``unsupported="drop"``."""
    origin = f" from {source}" if source else ""
    policy.report(path, f"a {kind!r} block{origin} (no such block here)")


def tagged(extra: dict[str, Any], blocks: Any, name: str) -> Any:
    """The ``extra`` of a message decoded by adapter ``name``: ``extra`` plus the `SOURCE` hint
    when the message carries any unnamed data (a key of its own, a block with ``extra``, an
    unknown block), else ``UNSET`` (a plain message is neutral)."""
    if not extra and type(blocks) is list:
        for block in blocks:
            if type(block) is UnknownBlock or getattr(block, "extra", UNSET) is not UNSET:
                break
        else:
            return UNSET
    elif not extra:
        return UNSET
    extra[SOURCE] = name
    return Extra._own(extra)


def unknown_block(data: dict[str, Any], path: str) -> UnknownBlock:
    """``data`` (a whole provider object with a string ``type``) as an `UnknownBlock`; a
    `ValidationError` at ``path`` when it cannot be one (no string ``type``, or the ``type`` of a
    block this protocol names, with the wrong fields)."""
    kind = data.get("type")
    if type(kind) is not str:
        raise ValidationError("expected a string 'type'", path=path + ".type")
    try:
        return UnknownBlock(Extra._own(data))
    except (TypeError, ValueError) as err:
        raise ValidationError(f"not a valid {kind!r} object: {err}", path=path) from None


# --- typed request settings -------------------------------------------------------------------


def is_str(value: Any) -> bool:
    """Whether ``value`` is a JSON string."""
    return type(value) is str


def is_int(value: Any) -> bool:
    """Whether ``value`` is a JSON integer (not a boolean)."""
    return type(value) is int


def is_number(value: Any) -> bool:
    """Whether ``value`` is a JSON number (not a boolean)."""
    return type(value) is int or type(value) is float


def is_strings(value: Any) -> bool:
    """Whether ``value`` is a JSON array of strings."""
    return type(value) is list and all(type(v) is str for v in value)


def has_keys(value: Any, required: Set[str], optional: Set[str] = frozenset()) -> bool:
    """Whether ``value`` is an object with every ``required`` key and no key outside
    ``required`` and ``optional``."""
    return type(value) is dict and required <= value.keys() <= required | optional


def decoded_request(
    messages: list[Any],
    options: dict[str, Any],
    name: str,
    read: Callable[[dict[str, Any]], SettingsReader],
) -> Request:
    """The `Request` adapter ``name`` decoded: ``read`` moves its typed settings out of
    ``options``; their spelling and a separate copy of them are kept for its encoder."""
    settings = read(options)
    return Request(
        messages=messages,
        options=settings.options,
        provider=name,
        spelling=settings.spelling,
        decoded=_settings_tuple(
            read(msgspec.json.decode(msgspec.json.encode(settings.spelling))).fields
        )
        if settings.spelling
        else NO_SETTINGS,
        **settings.fields,
    )


class SettingsReader:
    """Moves the option keys an adapter maps exactly out of ``options`` into typed settings.

    ``take(key, field, ok, convert)``: when ``options[key]`` passes ``ok``, it is removed from
    ``options``, kept as spelled in ``spelling``, and ``convert(value)`` becomes the setting
    ``field``. Keys that fail stay in ``options`` (the provider's own, written back as they are).
    """

    __slots__ = ("fields", "options", "spelling")

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        self.fields: dict[str, Any] = {}
        self.spelling: dict[str, Any] = {}

    def take(
        self,
        key: str,
        field: str,
        ok: Callable[[Any], bool],
        convert: Callable[[Any], Any] = lambda value: value,
    ) -> bool:
        """Map ``options[key]`` to ``field`` when it passes ``ok``; whether it did."""
        if key not in self.options or field in self.fields:
            return False
        value = self.options[key]
        if not ok(value):
            return False
        self.fields[field] = convert(value)
        self.spelling[key] = self.options.pop(key)
        return True


T_co = TypeVar("T_co", covariant=True)

_SETTING_VALUES = operator.attrgetter(*SETTINGS)
"""A `Request`'s typed settings as one tuple, in `SETTINGS` order."""


def _settings_tuple(fields: dict[str, Any]) -> SettingValues:
    return cast(SettingValues, tuple(fields.get(name) for name in SETTINGS))


def typed_settings(request: Any) -> dict[str, Any]:
    """The typed settings a `Request` has set, by field name."""
    return {name: getattr(request, name) for name in SETTINGS if getattr(request, name) is not None}


def encode_settings(
    request: Any,
    name: str,
    read: Callable[[dict[str, Any]], SettingsReader],
    write: Callable[[dict[str, Any], Unsupported], dict[str, Any]],
    policy: Unsupported,
) -> dict[str, Any]:
    """The top-level body keys of ``request`` for adapter ``name`` (its messages aside).

    For a request ``name`` decoded, with its settings unchanged, the keys are written back as
    they were spelled, its options as they came; with a setting changed, ``write`` spells the
    settings anew. For a request built by hand, its options are written as they are and
    ``write`` spells the settings over them. For another adapter's request, ``write`` spells the
    settings and each of its options is reported (another provider's spelling is never
    copied).
    """
    if request.provider == name:
        if _SETTING_VALUES(request) == request.decoded:  # unchanged: as it was spelled
            spelling = request.spelling
            return merged(dict(spelling), request.options) if spelling else dict(request.options)
        return merged(write(typed_settings(request), policy), request.options)
    typed = typed_settings(request)
    body = write(typed, policy)
    if request.provider is None:  # by hand: its options as they are, the typed settings win
        return merged(dict(request.options), body)
    for key, value in request.options.items():
        what = f"the {request.provider} option {key!r} (no spelling here)"
        policy.report_key(f"$.options.{key}", what, value, metadata=key not in CONTENT_OPTIONS)
    return body


CONTENT_OPTIONS = frozenset(
    {
        "audio",
        "cachedContent",
        "function_call",
        "functions",
        "instructions",
        "modalities",
        "prediction",
        "response_format",
        "system",
        "systemInstruction",
        "text",
        "tool_choice",
        "toolConfig",
        "tools",
    }
)
"""Request options that tell the model something (tools, a system prompt, an answer shape):
another provider's such option the target cannot spell is content, refused by default. Every
other option (seed, penalties, tiers, stream options, ...) is a setting, listed as metadata."""


def merged(body: dict[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """``body`` with ``options`` added; an object both hold is merged one level deep (Gemini's
    ``generationConfig``: some keys typed settings, the rest options)."""
    if not body:
        return dict(options)
    for key, value in options.items():
        mine = body.get(key)
        if type(mine) is dict and type(value) is dict:
            body[key] = {**mine, **value}
        else:
            body[key] = value
    return body


ANTHROPIC_STOP_REASONS = frozenset(
    {
        "end_turn",
        "max_tokens",
        "stop_sequence",
        "tool_use",
        "pause_turn",
        "refusal",
        "model_context_window_exceeded",
    }
)
"""A Messages response's ``stop_reason`` values (``anthropic.types.StopReason``)."""
ANTHROPIC_FOREIGN_STOP = {
    "incomplete": "max_tokens",
    "failed": "end_turn",
    "cancelled": "end_turn",
    "RECITATION": "refusal",
    "LANGUAGE": "refusal",
    "OTHER": "refusal",
}
"""Another provider's stop reasons outside `ANTHROPIC_STOP_REASONS` (a Responses
``incomplete:<why>`` by ``incomplete``) -> the Anthropic value a client reads alike; anything
else is ``end_turn``."""


def enum_stop_reason(
    reason: str,
    allowed: frozenset[str],
    table: Mapping[str, str],
    fallback: str,
    policy: Unsupported,
) -> str:
    """Another provider's neutral ``stop_reason`` as a value of the target's enum
    (``allowed``): kept when it is one, else ``table``'s (its ``incomplete:<why>`` by the key
    ``incomplete``), else ``fallback``; a changed value is listed as metadata at
    ``$.stop_reason`` (a stop reason is a label, not content)."""
    if reason in allowed:
        return reason
    key = "incomplete" if reason.startswith("incomplete:") and reason not in table else reason
    out = table.get(key, fallback)
    policy.metadata("$.stop_reason", f"the stop reason {reason!r} (written as {out!r})")
    return out


def with_fields(response: Any, fields: Mapping[str, Any]) -> Any:
    """``response`` with the typed ``id`` / ``model`` / ``created`` it lacks taken from
    ``fields`` (an ``encode_response(..., id=..., model=...)`` call); another field name is a
    ``TypeError``."""
    if not fields:
        return response
    changes = {}
    for key, value in fields.items():
        if key not in ("id", "model", "created"):
            raise TypeError(f"encode_response() got an unexpected field {key!r}")
        if getattr(response, key) is UNSET:
            changes[key] = value
    return msgspec.structs.replace(response, **changes) if changes else response


# --- keys a target keeps or reports ------------------------------------------------------------


def kept_keys(
    keys: Mapping[str, Any],
    allowed: frozenset[str],
    own: bool,
    policy: Unsupported,
    path: str,
    what: str = "the message key {}",
    block: Any = None,
) -> dict[str, Any]:
    """The keys to write: all of them when they are the target's own (``own``), else the
    ``allowed`` ones; every other key is reported with `foreign_key` (``what`` names it, ``{}``
    standing for the key; for a ``block``: "the key ... on a <type> block"). Message hints
    (`HINTS`) are never written; for a ``block``, its bookkeeping hints (`block_hint`) are left
    out unreported unless they are its own."""
    out: dict[str, Any] = {}
    for key, value in keys.items():
        if block is None and key in HINTS:
            continue
        if own or key in allowed:
            out[key] = value
        elif block is None:
            foreign_key(policy, f"{path}.{key}", what.format(repr(key)), key, value)
        elif not block_hint(key, block):
            what_key = f"the key {key!r} on a {block_kind(block)} block"
            foreign_key(policy, f"{path}.{key}", what_key, key, value)
    return out


def message_keys(
    message: Any, name: str, allowed: frozenset[str], policy: Unsupported, path: str
) -> dict[str, Any]:
    """`kept_keys` of a message's ``extra`` for adapter ``name``."""
    extra = message.extra
    if extra is UNSET:
        return {}
    return kept_keys(extra, allowed, is_own(extra, name), policy, path)


def block_extra(
    block: Any,
    allowed: frozenset[str],
    own: bool,
    policy: Unsupported,
    path: str,
    keys: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """`kept_keys` of a block's keys beyond its core fields (`block_keys`, or ``keys``)."""
    if keys is None:
        keys = block_keys(block)
    if not keys:
        return {}
    return kept_keys(keys, allowed, own, policy, path, "", block)


# --- usage -----------------------------------------------------------------------------------


def uncached(counters: dict[str, int], sign: int) -> None:
    """Neutral ``input_tokens`` counts uncached input (as Anthropic does); OpenAI's and Gemini's
    input counts include the cache reads: subtract (``sign=-1``) or add back (``sign=1``)."""
    if "input_tokens" in counters and "cache_read_input_tokens" in counters:
        counters["input_tokens"] += sign * counters["cache_read_input_tokens"]


def foreign_usage(
    counters: Mapping[str, int],
    other: Any,
    names: frozenset[str],
    policy: Unsupported,
) -> dict[str, int]:
    """Another provider's usage for a target whose counters are ``names`` (neutral names): those
    counters; every other counter and usage entry listed as metadata."""
    kept = {}
    for name, value in counters.items():
        if name in names:
            kept[name] = value
        else:
            policy.metadata(f"$.usage.{name}", f"the usage counter {name!r}")
    if type(other) is dict:
        for name in other:
            policy.metadata(f"$.usage_extra.{name}", f"the usage entry {name!r}")
    elif other is not None:
        policy.metadata("$.usage_extra", "a usage that is not an object")
    return kept


# --- the adapter contract: one signature per function, written once -----------------------------


class Decoder(Protocol[T_co]):
    """``decode_request`` / ``decode_response``: bytes (or text) in, the neutral value out."""

    def __call__(self, data: Any, /, *, limits: Limits = DEFAULT) -> T_co: ...


class RequestEncoder(Protocol):
    """``encode_request``: a `Request` (or messages plus keyword settings and options) out as a
    request body. ``defaults``: settings used only where the request has none (`as_request`);
    ``renames``: a `Renames` that records the tool names and ids rewritten for the target."""

    def __call__(
        self,
        request: Request | list[Message],
        /,
        *,
        unsupported: UnsupportedPolicy = "error",
        dropped: list[Dropped] | None = None,
        defaults: Defaults | None = None,
        renames: Renames | None = None,
        **options: Any,
    ) -> bytes: ...


class ResponseDecoder(Protocol):
    """``decode_response``: bytes (or text) in, a `ModelResponse` out; with ``renames`` (the
    `Renames` its request was encoded with), tool calls get the client's names and ids back."""

    def __call__(
        self, data: Any, /, *, limits: Limits = DEFAULT, renames: Renames | None = None
    ) -> ModelResponse: ...


class ResponseEncoder(Protocol):
    """``encode_response``: a `ModelResponse` out as a response body (``fields``: the top-level
    keys it lacks, such as ``id=`` and ``model=``)."""

    def __call__(
        self,
        response: ModelResponse,
        /,
        *,
        unsupported: UnsupportedPolicy = "error",
        dropped: list[Dropped] | None = None,
        **fields: Any,
    ) -> bytes: ...


def _named(function: Any, body: Any, name: str) -> None:
    function.__doc__ = body.__doc__
    function.__module__ = body.__module__
    function.__name__ = function.__qualname__ = name


def decoder(read: Callable[[Any, Limits], T_co], name: str) -> Decoder[T_co]:
    """An adapter's public decoder ``name`` over ``read(data, limits)``: the size limit is
    checked first (`check_size`), for every adapter alike."""

    def decode(data: Any, /, *, limits: Limits = DEFAULT) -> T_co:
        if type(data) is not bytes or len(data) > limits.max_size:
            check_size(data, limits)  # raises for an input too long (or without a length)
        return read(data, limits)

    _named(decode, read, name)
    return runs_roomy(decode)


def request_encoder(write: Callable[[Request, Unsupported], bytes]) -> RequestEncoder:
    """An adapter's public ``encode_request`` over ``write(request, policy)``."""

    def encode_request(
        request: Request | list[Message],
        /,
        *,
        unsupported: UnsupportedPolicy = "error",
        dropped: list[Dropped] | None = None,
        defaults: Defaults | None = None,
        renames: Renames | None = None,
        **options: Any,
    ) -> bytes:
        if options or defaults is not None or type(request) is not Request:
            request = as_request(request, options, defaults)
        policy = Unsupported(unsupported, dropped, renames)
        if _stack.fits(None):  # (`runs_roomy`, without sizing a Request)
            return write(request, policy)
        return _stack.elsewhere(write, request, policy)

    _named(encode_request, write, "encode_request")
    return encode_request


def response_encoder(
    write: Callable[[ModelResponse, Unsupported, dict[str, Any]], bytes],
) -> ResponseEncoder:
    """An adapter's public ``encode_response`` over ``write(response, policy, fields)``."""

    def encode_response(
        response: ModelResponse,
        /,
        *,
        unsupported: UnsupportedPolicy = "error",
        dropped: list[Dropped] | None = None,
        **fields: Any,
    ) -> bytes:
        return write(response, Unsupported(unsupported, dropped), fields)

    _named(encode_response, write, "encode_response")
    return runs_roomy(encode_response)


# --- OpenAI's tool choice (Chat Completions and Responses spell it alike but for the name) -------

OPENAI_MODES = {"auto": "auto", "required": "any", "none": "none"}
"""OpenAI ``tool_choice`` strings -> `ToolChoice.mode`."""
OPENAI_MODES_BACK = {v: k for k, v in OPENAI_MODES.items()}


def take_openai_choice(
    reader: SettingsReader, named: Callable[[Any], Any], name_of: Callable[[Any], str]
) -> None:
    """Read ``tool_choice`` (a mode string, or the object ``named`` accepts, whose tool
    ``name_of`` gives) and ``parallel_tool_calls`` into one `ToolChoice`."""
    mode: Any = None
    name = None
    ok = lambda v: v in OPENAI_MODES if type(v) is str else named(v)  # noqa: E731
    if reader.take("tool_choice", "tool_choice", ok):
        choice = reader.fields.pop("tool_choice")
        if type(choice) is str:
            mode = OPENAI_MODES[choice]
        else:
            mode, name = "tool", name_of(choice)
    parallel = None
    if reader.take("parallel_tool_calls", "parallel", lambda v: type(v) is bool):
        parallel = reader.fields.pop("parallel")
    if mode is not None or parallel is not None:
        reader.fields["tool_choice"] = ToolChoice(mode=mode, name=name, parallel=parallel)


def put_openai_choice(choice: ToolChoice, named: Callable[[str], Any], out: dict[str, Any]) -> None:
    """Write a `ToolChoice` as OpenAI's ``tool_choice`` (``named(name)`` for one tool) and
    ``parallel_tool_calls``."""
    if choice.mode == "tool":
        out["tool_choice"] = named(choice.name or "")
    elif choice.mode is not None:
        out["tool_choice"] = OPENAI_MODES_BACK[choice.mode]
    if choice.parallel is not None:
        out["parallel_tool_calls"] = choice.parallel


# --- response usage and typed fields ------------------------------------------------------------


def usage_in(extra: dict[str, Any], key: str, names: Mapping[str, str]) -> dict[str, int]:
    """Pop the usage object ``key`` from a response's ``extra``: its integer counters (renamed by
    ``names``, input uncached), the rest kept in ``extra["usage_extra"]`` (a ``null`` or
    another non-object value as it came)."""
    if key not in extra:
        return {}
    usage = extra.pop(key)
    if type(usage) is not dict:
        extra[USAGE_EXTRA] = usage
        return {}
    counters, other = flatten_usage(usage, names)
    uncached(counters, -1)
    if other:
        extra[USAGE_EXTRA] = other
    return counters


def typed_fields(extra: dict[str, Any], spec: tuple[tuple[str, str, type], ...]) -> dict[str, Any]:
    """Pop the response keys that are typed `ModelResponse` fields: ``spec`` lists (provider key,
    field, type); a value of another type stays in ``extra``."""
    typed: dict[str, Any] = {}
    for key, field, kind in spec:
        if key in extra and type(extra[key]) is kind:
            typed[field] = extra.pop(key)
    return typed


# --- settings every adapter reads alike -------------------------------------------------------

_SAME = {
    "model": is_str,
    "max_tokens": is_int,
    "temperature": is_number,
    "top_p": is_number,
    "user": is_str,
    "metadata": lambda v: type(v) is dict,
    "stream": lambda v: type(v) is bool,
}


def take_same(reader: SettingsReader, names: tuple[str, ...]) -> None:
    """Take the options spelled exactly like the neutral settings ``names`` (``model``,
    ``temperature``, ...), each checked for its JSON type."""
    for name in names:
        reader.take(name, name, _SAME[name])


def tool_ok(tool: Any, required: set[str], schema: str) -> bool:
    """Whether ``tool`` is a function tool a `Tool` holds exactly: the ``required`` keys, a
    string ``name``, and at most a string ``description``, an object ``schema`` and a boolean
    ``strict`` besides."""
    return (
        has_keys(tool, required, {"name", "description", schema, "strict"} - required)
        and is_str(tool["name"])
        and is_str(tool.get("description", ""))
        and type(tool.get(schema, {})) is dict
        and type(tool.get("strict", True)) is bool
    )


def tool_from(tool: Mapping[str, Any], schema: str) -> Tool:
    """The `Tool` of a function tool `tool_ok` accepted (its JSON Schema under ``schema``)."""
    return Tool(
        name=tool["name"],
        description=tool.get("description"),
        parameters=tool.get(schema),
        strict=tool.get("strict"),
    )


def take_tools(
    reader: SettingsReader, ok: Callable[[Any], bool], convert: Callable[[Any], Tool]
) -> None:
    """Take ``tools`` when every tool passes ``ok``: all of them as `Tool`s, or none."""
    reader.take(
        "tools",
        "tools",
        lambda v: type(v) is list and all(map(ok, v)),
        lambda v: [convert(t) for t in v],
    )


def usage_object(
    counters: Mapping[str, int], other: Mapping[str, Any], rename: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """`unflatten_usage`, with a usage whose names collide refused as `UnsupportedError`."""
    try:
        return unflatten_usage(counters, other, rename)
    except ValidationError as err:
        raise UnsupportedError(err.message, path="$.usage") from None


def response_decoder(read: Callable[[Any, Limits], ModelResponse]) -> ResponseDecoder:
    """An adapter's public ``decode_response`` over ``read(data, limits)``: `decoder`, plus the
    ``renames`` a gateway passes to give the client its own tool names and ids back."""
    plain = decoder(read, "decode_response")

    def decode_response(
        data: Any, /, *, limits: Limits = DEFAULT, renames: Renames | None = None
    ) -> ModelResponse:
        response = plain(data, limits=limits)
        return response if renames is None else renames.restore(response)

    _named(decode_response, read, "decode_response")
    return decode_response


def tool_fields(tool: Tool, schema: str, empty: Any = None, strict: bool = True) -> dict[str, Any]:
    """A `Tool` as a provider's function declaration: ``name``, ``description`` when set, its
    JSON Schema under ``schema`` (``empty`` when it has none: ``None`` leaves the key out), and
    ``strict`` when set (``strict=False``: the target has no such key)."""
    out: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        out["description"] = tool.description
    parameters = tool.parameters if tool.parameters is not None else empty
    if parameters is not None:
        out[schema] = parameters
    if strict and tool.strict is not None:
        out["strict"] = tool.strict
    return out


EFFORT_BUDGETS = {
    "minimal": 1024,
    "low": 1024,
    "medium": 2048,
    "high": 4096,
    "xhigh": 8192,
    "max": 16384,
}
"""Reasoning effort -> thinking token budget, for a target that spells reasoning by budget
(Anthropic ``thinking.budget_tokens``, Gemini ``thinkingBudget``). The values are LiteLLM's
(``DEFAULT_REASONING_EFFORT_*_THINKING_BUDGET``), so a gateway switched to minagent asks the
model for the same thinking; 1024 is Anthropic's smallest budget. ``none`` means no thinking
(`budget`: 0)."""

BUDGET_EFFORTS = ((4096, "high"), (2048, "medium"), (0, "low"))
"""Thinking budget -> effort, for a target that spells reasoning by effort: the highest level
whose `EFFORT_BUDGETS` budget the budget reaches (``low`` / ``medium`` / ``high``, the levels
every OpenAI reasoning model takes); a budget of 0 (thinking off) is ``none``."""


def effort(reasoning: Any, policy: Unsupported) -> Any:
    """A `Reasoning`'s effort, for a target that spells reasoning by effort: its own effort (a
    budget beside it is listed as metadata), else the one its budget reaches (`BUDGET_EFFORTS`);
    a negative budget (Gemini's "dynamic") has no effort here (``None``, listed)."""
    tokens = reasoning.budget_tokens
    if reasoning.effort is not None:
        if tokens is not None:
            policy.metadata("$.reasoning.budget_tokens", "a reasoning budget beside an effort")
        return reasoning.effort
    if tokens is None:
        return None
    if tokens == 0:
        return "none"
    if tokens < 0:
        policy.metadata("$.reasoning.budget_tokens", f"the thinking budget {tokens} (no effort)")
        return None
    return next(level for floor, level in BUDGET_EFFORTS if tokens >= floor)


def budget(reasoning: Any, policy: Unsupported) -> Any:
    """A `Reasoning`'s token budget, for a target that spells reasoning by budget: its own
    budget (an effort beside it is listed as metadata), else the one its effort names
    (`EFFORT_BUDGETS`; ``none``: 0); an effort not in the table has none (``None``, listed)."""
    if reasoning.budget_tokens is not None:
        if reasoning.effort is not None:
            policy.metadata("$.reasoning.effort", "a reasoning effort beside a budget")
        return reasoning.budget_tokens
    level = reasoning.effort
    if level is None:
        return None
    if level == "none":
        return 0
    tokens = EFFORT_BUDGETS.get(level)
    if tokens is None:
        policy.metadata("$.reasoning.effort", f"the reasoning effort {level!r} (no budget)")
    return tokens


def spelled_alike(
    fields: Mapping[str, Any], names: tuple[str, ...]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Split neutral settings into the body keys a target spells like the neutral ``names``,
    and the rest (for the target to spell)."""
    same = {k: v for k, v in fields.items() if k in names}
    return same, {k: v for k, v in fields.items() if k not in names}
