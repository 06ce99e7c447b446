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
    "OPENAI_OPTIONS",
    "options_for_anthropic",
    "options_for_openai",
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


def options_for_anthropic(options: dict[str, Any], policy: Unsupported) -> dict[str, Any]:
    """``options`` as Messages API keys (a new dict); see the module docstring."""
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
            if value is not None:
                out["stop_sequences"] = [value] if type(value) is str else value
        elif key == "parallel_tool_calls":
            pass  # folded into tool_choice below
        elif key == "n" and value == 1:
            pass  # one choice is what this API returns
        elif value is not None:
            policy.report(path, f"the option {key!r}")
    if parallel is False:
        choice = out.setdefault("tool_choice", {"type": "auto"})
        choice["disable_parallel_tool_use"] = True
    return out


def _tool_for_anthropic(tool: Any, path: str, policy: Unsupported) -> Any:
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


def _choice_for_anthropic(choice: Any, path: str, policy: Unsupported) -> Any:
    if type(choice) is str:
        if choice in _ANTHROPIC_CHOICE:
            return {"type": _ANTHROPIC_CHOICE[choice]}
        policy.report(path, f"tool_choice {choice!r}")
        return None
    if type(choice) is dict and "function" in choice:
        return {"type": "tool", "name": choice["function"].get("name")}
    return dict(choice) if type(choice) is dict else choice


def options_for_openai(options: dict[str, Any], policy: Unsupported) -> dict[str, Any]:
    """``options`` as Chat Completions keys (a new dict); see the module docstring."""
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
        elif value is not None:
            policy.report(path, f"the option {key!r}")
    return out


def _tool_for_openai(tool: Any, path: str, policy: Unsupported) -> Any:
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
        if tool[key] is not None:
            policy.report(f"{path}.{key}", f"the tool key {key!r}")
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
