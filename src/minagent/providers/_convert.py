"""Request options between Anthropic Messages and OpenAI Chat Completions (``tools``,
``tool_choice``, stop sequences, token limits).

`Request.options` keeps the source provider's own shape. Each encoder passes through the keys its
API knows, converts the other provider's spelling where there is an exact equivalent, and reports
the rest through the `Unsupported` policy. Shapes are told apart by their content: an OpenAI tool
has a ``function`` object, an Anthropic one does not; an OpenAI ``tool_choice`` is a string or
holds ``function``.
"""

from __future__ import annotations

from typing import Any

from ._base import Unsupported

__all__ = [
    "ANTHROPIC_OPTIONS",
    "GEMINI_OPTIONS",
    "OPENAI_OPTIONS",
    "RESPONSES_OPTIONS",
    "options_for_anthropic",
    "options_for_gemini",
    "options_for_openai",
    "options_for_responses",
]

ANTHROPIC_OPTIONS = frozenset(
    {
        "cache_control",
        "container",
        "diagnostics",
        "inference_geo",
        "max_tokens",
        "metadata",
        "model",
        "output_config",
        "service_tier",
        "speed",
        "stop_sequences",
        "stream",
        "temperature",
        "thinking",
        "tool_choice",
        "tools",
        "top_k",
        "top_p",
        "user_profile_id",
        "workspace_id",
    }
)
"""Top-level request keys of the Messages API besides ``messages`` and ``system``."""

OPENAI_OPTIONS = frozenset(
    {
        "audio",
        "frequency_penalty",
        "function_call",
        "functions",
        "logit_bias",
        "logprobs",
        "max_completion_tokens",
        "max_tokens",
        "metadata",
        "modalities",
        "model",
        "moderation",
        "n",
        "parallel_tool_calls",
        "prediction",
        "presence_penalty",
        "prompt_cache_key",
        "prompt_cache_options",
        "prompt_cache_retention",
        "reasoning_effort",
        "response_format",
        "safety_identifier",
        "seed",
        "service_tier",
        "stop",
        "store",
        "stream",
        "stream_options",
        "temperature",
        "tool_choice",
        "tools",
        "top_logprobs",
        "top_p",
        "user",
        "verbosity",
        "web_search_options",
    }
)
"""Top-level request keys of Chat Completions besides ``messages``."""

_ANTHROPIC_CHOICE = {"auto": "auto", "required": "any", "none": "none"}
_OPENAI_CHOICE = {"auto": "auto", "any": "required", "none": "none"}


def options_for_anthropic(
    options: dict[str, Any], policy: Unsupported, own: bool = False
) -> dict[str, Any]:
    """``options`` as Messages API keys (a new dict); see the module docstring."""
    if own:  # the source provider's own options: written back unchanged
        return dict(options)
    out: dict[str, Any] = {}
    parallel = options.get("parallel_tool_calls")
    for key, value in options.items():
        path = f"$.options.{key}"
        if key == "tools":
            out[key] = [_tool_for_anthropic(t, f"{path}[{i}]", policy) for i, t in enumerate(value)]
            out[key] = [t for t in out[key] if t is not None]
        elif key == "tool_choice":
            choice = _choice_for_anthropic(value, path, policy)
            if choice is not None:
                out[key] = choice
        elif key in ANTHROPIC_OPTIONS:
            out[key] = value
        elif key == "max_completion_tokens":
            out.setdefault("max_tokens", value)
        elif key == "stop":
            if value is None:
                policy.report_key(path, "the option 'stop' (stop_sequences cannot be null)", None)
            else:
                out["stop_sequences"] = [value] if type(value) is str else value
        elif key == "parallel_tool_calls":
            pass  # folded into tool_choice below
        elif key == "n" and value == 1:
            pass  # one choice is what this API returns
        else:
            policy.report_key(path, f"the option {key!r}", value)
    if parallel is False:
        choice = out.setdefault("tool_choice", {"type": "auto"})
        choice["disable_parallel_tool_use"] = True
    return out


def _tool_for_anthropic(tool: Any, path: str, policy: Unsupported) -> Any:
    if type(tool) is dict and tool.get("type") == "function" and "function" not in tool:
        tool = _responses_tool_as_chat(tool)  # a Responses function tool: flat
    if type(tool) is not dict or "function" not in tool:
        return tool
    function = tool["function"]
    if tool.get("type") != "function" or type(function) is not dict:
        policy.report(path, f"a tool of type {tool.get('type')!r}")
        return None
    out: dict[str, Any] = {"name": function.get("name")}
    if "description" in function:
        out["description"] = function["description"]
    out["input_schema"] = function.get("parameters", {"type": "object", "properties": {}})
    if "strict" in function:
        out["strict"] = function["strict"]
    for key in function.keys() - {"name", "description", "parameters", "strict"}:
        policy.report(f"{path}.function.{key}", f"the tool key {key!r}")
    return out


def _responses_tool_as_chat(tool: dict[str, Any]) -> dict[str, Any]:
    """A Responses function tool (``{"type": "function", "name": ..., "parameters": ...}``) in
    the Chat Completions shape; its other keys move along (the caller checks them)."""
    function = {k: v for k, v in tool.items() if k != "type"}
    return {"type": "function", "function": function}


def _choice_for_anthropic(choice: Any, path: str, policy: Unsupported) -> Any:
    if type(choice) is str:
        if choice in _ANTHROPIC_CHOICE:
            return {"type": _ANTHROPIC_CHOICE[choice]}
        policy.report(path, f"tool_choice {choice!r}")
        return None
    if type(choice) is dict and "function" in choice:
        return {"type": "tool", "name": choice["function"].get("name")}
    return dict(choice) if type(choice) is dict else choice


def options_for_openai(
    options: dict[str, Any], policy: Unsupported, own: bool = False
) -> dict[str, Any]:
    """``options`` as Chat Completions keys (a new dict); see the module docstring."""
    if own:  # the source provider's own options: written back unchanged
        return dict(options)
    out: dict[str, Any] = {}
    for key, value in options.items():
        path = f"$.options.{key}"
        if key == "tools":
            tools = [_tool_for_openai(t, f"{path}[{i}]", policy) for i, t in enumerate(value)]
            out[key] = [t for t in tools if t is not None]
        elif key == "tool_choice":
            _choice_for_openai(value, path, policy, out)
        elif key in OPENAI_OPTIONS:
            out[key] = value
        elif key == "stop_sequences":
            out["stop"] = value
        else:
            policy.report_key(path, f"the option {key!r}", value)
    return out


def _tool_for_openai(tool: Any, path: str, policy: Unsupported) -> Any:
    if type(tool) is dict and tool.get("type") == "function" and "function" not in tool:
        return _responses_tool_as_chat(tool)  # a Responses function tool: flat
    if type(tool) is not dict or "function" in tool:
        return tool
    if tool.get("type", "custom") != "custom":
        policy.report(path, f"the server tool {tool.get('type')!r}")
        return None
    function: dict[str, Any] = {"name": tool.get("name")}
    if "description" in tool:
        function["description"] = tool["description"]
    function["parameters"] = tool.get("input_schema")
    if "strict" in tool:
        function["strict"] = tool["strict"]
    for key in tool.keys() - {"name", "description", "input_schema", "strict", "type"}:
        policy.report_key(f"{path}.{key}", f"the tool key {key!r}", tool[key])
    return {"type": "function", "function": function}


def _choice_for_openai(choice: Any, path: str, policy: Unsupported, out: dict[str, Any]) -> None:
    if type(choice) is not dict or "function" in choice:
        out["tool_choice"] = choice
        return
    kind = choice.get("type")
    if kind in _OPENAI_CHOICE:
        out["tool_choice"] = _OPENAI_CHOICE[kind]
    elif kind == "tool":
        out["tool_choice"] = {"type": "function", "function": {"name": choice.get("name")}}
    else:
        policy.report(path, f"tool_choice {kind!r}")
        return
    if choice.get("disable_parallel_tool_use") is True:
        out["parallel_tool_calls"] = False
    for key in choice.keys() - {"type", "name", "disable_parallel_tool_use"}:
        policy.report(f"{path}.{key}", f"the tool_choice key {key!r}")


RESPONSES_OPTIONS = frozenset(
    {
        "background",
        "context_management",
        "conversation",
        "include",
        "instructions",
        "max_output_tokens",
        "max_tool_calls",
        "metadata",
        "model",
        "moderation",
        "parallel_tool_calls",
        "previous_response_id",
        "prompt",
        "prompt_cache_key",
        "prompt_cache_options",
        "prompt_cache_retention",
        "reasoning",
        "safety_identifier",
        "service_tier",
        "store",
        "stream",
        "stream_options",
        "temperature",
        "text",
        "tool_choice",
        "tools",
        "top_logprobs",
        "top_p",
        "truncation",
        "user",
    }
)
"""Top-level request keys of the Responses API besides ``input`` (the openai SDK's
``ResponseCreateParams``)."""

GEMINI_OPTIONS = frozenset(
    {
        "cachedContent",
        "generationConfig",
        "labels",
        "model",
        "safetySettings",
        "systemInstruction",
        "toolConfig",
        "tools",
    }
)
"""Top-level keys of a Gemini ``generateContent`` body besides ``contents``."""

_FOREIGN_TOOL_KEYS = ("function", "input_schema")


def _foreign_tools(tools: Any, also: str = "") -> bool:
    """Whether a ``tools`` list holds a tool of another provider's shape."""
    if type(tools) is not list:
        return False
    for tool in tools:
        if type(tool) is dict and ("function" in tool or "input_schema" in tool or also in tool):
            return True
    return False


def options_for_responses(
    options: dict[str, Any], policy: Unsupported, own: bool = False
) -> dict[str, Any]:
    """``options`` as Responses API keys (a new dict): its own keys pass; ``max_tokens`` /
    ``max_completion_tokens`` become ``max_output_tokens``; Chat Completions and Anthropic
    function tools become Responses function tools; any other key is reported."""
    if own:  # the source provider's own options: written back unchanged
        return dict(options)
    if options.keys() <= RESPONSES_OPTIONS and not _foreign_tools(options.get("tools")):
        return dict(options)  # the common case: the API's own keys and tools
    out: dict[str, Any] = {}
    for key, value in options.items():
        path = f"$.options.{key}"
        if key == "tools" and type(value) is list:
            tools = [_tool_for_responses(t, f"{path}[{i}]", policy) for i, t in enumerate(value)]
            out[key] = [t for t in tools if t is not None]
        elif key in RESPONSES_OPTIONS:
            out[key] = value
        elif key in ("max_tokens", "max_completion_tokens") and "max_output_tokens" not in options:
            out["max_output_tokens"] = value
        else:
            policy.report_key(path, f"the option {key!r} (not a Responses API key)", value)
    return out


def _tool_for_responses(tool: Any, path: str, policy: Unsupported) -> Any:
    if type(tool) is not dict or not any(k in tool for k in _FOREIGN_TOOL_KEYS):
        return tool  # a Responses tool (function, web_search, file_search, ...)
    source = tool.get("function") if "function" in tool else tool
    if type(source) is not dict or ("function" in tool and tool.get("type") != "function"):
        policy.report(path, f"a tool of type {tool.get('type')!r}")
        return None
    out: dict[str, Any] = {"type": "function", "name": source.get("name")}
    if "description" in source:
        out["description"] = source["description"]
    out["parameters"] = source.get("parameters", source.get("input_schema"))
    if "strict" in source:
        out["strict"] = source["strict"]
    known = {"name", "description", "parameters", "input_schema", "strict"}
    if "function" not in tool:
        known.add("type")
    where = f"{path}.function" if "function" in tool else path
    for key in source.keys() - known:
        policy.report_key(f"{where}.{key}", f"the tool key {key!r}", source[key])
    return out


def options_for_gemini(
    options: dict[str, Any], policy: Unsupported, own: bool = False
) -> dict[str, Any]:
    """``options`` as Gemini body keys (a new dict): its own keys pass, tools of another
    provider's shape and any other key are reported (their Gemini spelling lives in
    ``generationConfig`` / ``functionDeclarations``, not converted here)."""
    if own:  # the source provider's own options: written back unchanged
        return dict(options)
    if options.keys() <= GEMINI_OPTIONS and not _foreign_tools(options.get("tools"), "type"):
        return dict(options)  # the common case: the API's own keys and tools
    out: dict[str, Any] = {}
    for key, value in options.items():
        path = f"$.options.{key}"
        if key == "tools" and type(value) is list:
            kept = []
            for i, tool in enumerate(value):
                if type(tool) is dict and any(k in tool for k in (*_FOREIGN_TOOL_KEYS, "type")):
                    policy.report(f"{path}[{i}]", "a tool of another provider's shape")
                else:
                    kept.append(tool)
            out[key] = kept
        elif key in GEMINI_OPTIONS:
            out[key] = value
        else:
            policy.report_key(path, f"the option {key!r} (not a Gemini request key)", value)
    return out
