"""How `minagent.wire.schema`'s shipped ``schema.json`` is generated from the Structs by msgspec.

The package ships the generated document (reading it costs a file read, generating it about
half a second of msgspec and docstring parsing); ``tests/test_schema.py`` checks that the
shipped file is exactly what `generate` gives, and ``python -m minagent.wire._schema_gen``
rewrites it.

msgspec describes the Structs as the strict decoder sees them; the schema describes the wire, so a
few things are rewritten after generation:

- objects allow keys they do not name (the codec keeps them in ``extra``), and the internal
  ``extra`` field is not listed;
- a block or source whose ``type`` is not known is allowed as an object with a string ``type``
  (the codec keeps it whole as an `UnknownBlock` / `UnknownSource`);
- the union of content blocks is a plain ``anyOf`` (no OpenAPI ``discriminator``);
- tool inputs and other free JSON values refer to one recursive ``JsonValue`` definition.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import itertools
import json as _stdjson
import textwrap
from typing import Any

import msgspec

from .blocks import UNKNOWN_TAG, Deep, JsonValue, UnknownBlock, UnknownSource
from .extra import Extra
from .messages import Message, ModelResponse
from .schema import SCHEMA_ID, SHIPPED

__all__ = ["generate"]

_DIALECT = "https://json-schema.org/draft/2020-12/schema"

_JSON_VALUE: dict[str, Any] = {
    "title": "JsonValue",
    "description": "Any JSON value (numbers finite, as JSON requires).",
    "anyOf": [
        {"type": "null"},
        {"type": "boolean"},
        {"type": "integer"},
        {"type": "number"},
        {"type": "string"},
        {"type": "array", "items": {"$ref": "#/$defs/JsonValue"}},
        {"type": "object", "additionalProperties": {"$ref": "#/$defs/JsonValue"}},
    ],
}


def _hook(tp: Any) -> dict[str, Any]:
    if tp is Deep:
        return {"$ref": "#/$defs/JsonValue"}
    if tp is Extra:
        return {"type": "object"}
    raise NotImplementedError(f"no JSON Schema for {tp!r}")


def _field_docs(cls: type) -> dict[str, str]:
    """Field docstrings (a string literal right under an annotated attribute), by field name."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError, SyntaxError):
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for node, after in itertools.pairwise(body):
            if (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                docs[node.target.id] = inspect.cleandoc(after.value.value)
    return docs


def _struct_classes(roots: tuple[Any, ...]) -> dict[str, type]:
    """Every Struct class reachable from ``roots``, by class name (one msgspec.inspect pass:
    each call expands the JSON value union afresh, about a second per root)."""
    found: dict[str, type] = {}

    def walk(info: Any) -> None:
        if isinstance(info, msgspec.inspect.StructType):
            if info.cls.__name__ in found:
                return
            found[info.cls.__name__] = info.cls
            for f in info.fields:
                walk(f.type)
        elif isinstance(info, msgspec.inspect.UnionType):
            for t in info.types:
                walk(t)
        elif isinstance(info, (msgspec.inspect.ListType, msgspec.inspect.SetType)):
            walk(info.item_type)
        elif isinstance(info, msgspec.inspect.DictType):
            walk(info.value_type)

    for info in msgspec.inspect.multi_type_info(roots):
        walk(info)
    return found


def _replace_json_value(node: Any, json_value: Any) -> Any:
    """Replace every copy of the (expanded) JsonValue schema with a reference to its definition."""
    if node == json_value:
        return {"$ref": "#/$defs/JsonValue"}
    if isinstance(node, dict):
        return {k: _replace_json_value(v, json_value) for k, v in node.items()}
    if isinstance(node, list):
        return [_replace_json_value(v, json_value) for v in node]
    return node


def _unknown(kind: str, known: list[str], description: str) -> dict[str, Any]:
    return {
        "title": kind,
        "description": description,
        "type": "object",
        "properties": {"type": {"type": "string", "not": {"enum": known}}},
        "required": ["type"],
    }


def _fix_unions(node: Any, defs: dict[str, Any]) -> Any:
    """Turn msgspec's discriminated unions into plain ``anyOf`` over the known members plus the
    unknown member, whose schema allows any ``type`` the known ones do not name."""
    if isinstance(node, list):
        return [_fix_unions(v, defs) for v in node]
    if not isinstance(node, dict):
        return node
    node = {k: _fix_unions(v, defs) for k, v in node.items()}
    mapping = node.get("discriminator", {}).get("mapping")
    if mapping:
        del node["discriminator"]
        known = sorted(tag for tag in mapping if tag != UNKNOWN_TAG)
        for option in node["anyOf"]:
            ref = option.get("$ref", "")
            name = ref.rsplit("/", 1)[-1]
            if name in (UnknownBlock.__name__, UnknownSource.__name__):
                defs[name] = _unknown(name, known, defs[name].get("description", ""))
    return node


_JSON_KINDS = frozenset(
    type(t)
    for t in msgspec.inspect.type_info(JsonValue).types  # type: ignore[attr-defined]  # a UnionType
)


def _is_json_value(info: Any) -> bool:
    """Whether a type is the JSON value union (told by the kinds of its members)."""
    return isinstance(info, msgspec.inspect.UnionType) and (
        frozenset(type(t) for t in info.types) == _JSON_KINDS
    )


def _components(
    roots: tuple[Any, ...], *, fast: bool = True
) -> tuple[dict[str, Any], dict[str, type]]:
    """msgspec's component schemas for ``roots``, and the Struct classes they describe, by name.

    msgspec writes the JSON value union out in full, `TYPED_LEVELS` deep, at every field that
    uses it (tens of kilobytes each: seconds for the provider catalog); `_replace_json_value`
    folds those copies back into one reference. When msgspec's schema generator class is
    where this version keeps it, ``fast`` has it write the reference directly instead; the
    result is the same (pinned by a test), only sooner.
    """
    try:
        private: Any = importlib.import_module("msgspec._json_schema")
    except ImportError:
        private = None
    needed = ("_SchemaGenerator", "_collect_component_types", "_build_name_map")
    if not fast or private is None or not all(hasattr(private, n) for n in needed):
        components: dict[str, Any] = msgspec.json.schema_components(roots, schema_hook=_hook)[1]
        return components, _struct_classes(roots)

    class Folding(private._SchemaGenerator):  # type: ignore[misc]  # msgspec private, untyped
        def to_schema(self, t: Any, check_ref: bool = True) -> dict[str, Any]:
            if _is_json_value(t):
                return {"$ref": "#/$defs/JsonValue"}
            result: dict[str, Any] = super().to_schema(t, check_ref)
            return result

    component_types = private._collect_component_types(_type_info(roots))
    names = private._build_name_map(component_types)
    gen = Folding(names, _hook, "#/$defs/{name}")
    components = {names[cls]: gen.to_schema(t, False) for cls, t in component_types.items()}
    return components, {names[cls]: cls for cls in component_types}


def _type_info(roots: tuple[Any, ...]) -> tuple[Any, ...]:
    """`msgspec.inspect.multi_type_info` of ``roots``, each type object translated once.

    msgspec translates the JSON value union again at every use, and within it each level's
    inner union twice (as array items and as object values): 2**TYPED_LEVELS copies per field,
    most of the schema's time. Where msgspec keeps its translator class, a subclass remembers
    the translation of each type object it has seen (the same object always translates the
    same); elsewhere the public function runs.
    """
    translator: Any = getattr(msgspec.inspect, "_Translator", None)
    if translator is None or not hasattr(translator, "translate"):
        return msgspec.inspect.multi_type_info(roots)

    class Remembering(translator):  # type: ignore[misc]  # msgspec private, untyped
        def translate(self, typ: Any) -> Any:
            seen = self._seen.get(id(typ))
            if seen is not None and seen[0] is typ:
                return seen[1]
            out = super().translate(typ)
            self._seen[id(typ)] = (typ, out)  # (the object is kept, so its id stays its own)
            return out

    run = Remembering(roots)
    run._seen = {}
    result: tuple[Any, ...] = run.run()
    return result


def generate() -> str:
    """The schema document as compact JSON text (what ``schema.json`` holds)."""
    roots = (list[Message], Message, ModelResponse, list[ModelResponse])
    expanded = msgspec.json.schema(JsonValue, schema_hook=_hook)
    defs, classes = _components(roots)
    for name, schema in defs.items():
        cls = classes.get(name)
        if cls is None:
            continue
        if "description" in schema and cls.__doc__:  # msgspec < 0.20 leaves it indented
            schema["description"] = inspect.cleandoc(cls.__doc__)
        docs = _field_docs(cls)
        wire_names = {f.encode_name: f.name for f in msgspec.structs.fields(cls)}
        props = schema.get("properties", {})
        for wire_name in list(props):
            field = wire_names.get(wire_name)
            if field == "extra":
                del props[wire_name]
            elif field in docs:
                props[wire_name] = {**props[wire_name], "description": docs[field]}
        if "required" in schema:
            schema["required"] = [r for r in schema["required"] if r in props]
        schema.pop("additionalProperties", None)
    defs = _replace_json_value(defs, expanded)
    defs = _fix_unions(defs, defs)
    defs["JsonValue"] = _JSON_VALUE
    message, response = "#/$defs/Message", "#/$defs/ModelResponse"
    doc = {
        "$schema": _DIALECT,
        "$id": SCHEMA_ID,
        "title": "minagent wire protocol, version 1",
        "description": "A transcript (an array of Messages), one Message, one ModelResponse, or "
        "an array of ModelResponses. Every object may carry keys this schema does not name; "
        "decoders keep them and write them back unchanged.",
        "anyOf": [
            {"type": "array", "items": {"$ref": message}},
            {"$ref": message},
            {"$ref": response},
            {"type": "array", "items": {"$ref": response}},
        ],
        "$defs": dict(sorted(defs.items())),
    }
    return _stdjson.dumps(doc)


if __name__ == "__main__":  # rewrite the shipped file
    SHIPPED.write_text(generate() + "\n", encoding="utf-8")
