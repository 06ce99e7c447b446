// A second implementation checks minagent's golden vectors (tests/vectors/), in JavaScript.
//
// For every vector listed in index.json:
//   1. the MessagePack file (@msgpack/msgpack) decodes to the same value as the JSON file
//      (JSON.parse), MessagePack bin data matching the JSON's base64 text;
//   2. both validate (ajv, draft 2020-12) against schema.json, as the vector's type;
//   3. both re-encode, keys sorted by code point, to exactly the file's bytes (canonical form),
//      except vectors whose "js_reencode" is false: they hold floats JavaScript reads as
//      integers (1.0, -0.0) or spells otherwise (1e21 as 1e+21), said on a line of its own;
// and schema.json rejects a few invalid messages. Prints one line per check, then
// "N passed, N failed"; exits 1 if anything failed.
//
// Run: cd tests/node && npm ci && node check_vectors.mjs

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";

import { decode, encode } from "@msgpack/msgpack";
import Ajv2020 from "ajv/dist/2020.js";

const here = dirname(fileURLToPath(import.meta.url));
const vectors = process.argv[2] ?? join(here, "..", "vectors");
const index = JSON.parse(readFileSync(join(vectors, "index.json"), "utf8"));
const schema = JSON.parse(readFileSync(join(vectors, "schema.json"), "utf8"));

const ajv = new Ajv2020({ allErrors: true, strict: true });
ajv.addSchema(schema);
const ref = (name) => ({ $ref: `${schema.$id}#/$defs/${name}` });
const validators = {
  "list[Message]": ajv.compile({ type: "array", items: ref("Message") }),
  "list[ModelResponse]": ajv.compile({ type: "array", items: ref("ModelResponse") }),
  Message: ajv.compile(ref("Message")),
  ModelResponse: ajv.compile(ref("ModelResponse")),
};
const root = ajv.getSchema(schema.$id);

let passed = 0;
let failed = 0;
function check(name, ok, detail = "") {
  if (ok) {
    passed += 1;
    console.log(`ok   ${name}`);
  } else {
    failed += 1;
    console.log(`FAIL ${name}${detail ? `: ${detail}` : ""}`);
  }
}

// MessagePack bin data as the JSON side spells it: standard base64 with padding.
function binAsBase64(value) {
  if (value instanceof Uint8Array) return Buffer.from(value).toString("base64");
  if (Array.isArray(value)) return value.map(binAsBase64);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, binAsBase64(v)]));
  }
  return value;
}

// Keys in code point order (what "canonical" means), not JavaScript's UTF-16 order.
function byCodePoint(a, b) {
  const x = [...a].map((c) => c.codePointAt(0));
  const y = [...b].map((c) => c.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort(byCodePoint);
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

// Objects rebuilt with their keys inserted in code point order; @msgpack/msgpack writes keys in
// insertion order (JavaScript would put integer-like keys first: the vectors have none).
function sortedKeys(value) {
  if (value instanceof Uint8Array) return value;
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort(byCodePoint);
    return Object.fromEntries(keys.map((k) => [k, sortedKeys(value[k])]));
  }
  return value;
}

function firstError(validate) {
  const e = validate.errors?.[0];
  return e ? `${e.instancePath || "/"} ${e.message}` : "";
}

for (const vector of index.vectors) {
  const jsonBytes = readFileSync(join(vectors, `${vector.name}.json`));
  const packed = readFileSync(join(vectors, `${vector.name}.msgpack`));
  const fromJson = JSON.parse(jsonBytes.toString("utf8"));
  const fromMsgpack = decode(packed);
  const validate = validators[vector.type];

  check(
    `${vector.name}: MessagePack decodes to the JSON value`,
    isDeepStrictEqual(binAsBase64(fromMsgpack), fromJson),
  );
  check(`${vector.name}: JSON valid as ${vector.type}`, validate(fromJson), firstError(validate));
  check(
    `${vector.name}: MessagePack valid as ${vector.type}`,
    validate(binAsBase64(fromMsgpack)),
    firstError(validate),
  );
  check(`${vector.name}: valid against the schema's root`, root(fromJson), firstError(root));
  if (!vector.js_reencode) {
    console.log(`n/a  ${vector.name}: canonical re-encoding skipped: floats JavaScript reads as integers or spells otherwise`);
    continue;
  }
  check(
    `${vector.name}: canonical JSON re-encodes byte for byte`,
    Buffer.from(canonicalJson(fromJson), "utf8").equals(jsonBytes),
  );
  check(
    `${vector.name}: canonical MessagePack re-encodes byte for byte`,
    Buffer.from(encode(sortedKeys(fromMsgpack))).equals(packed),
  );
}

const invalid = {
  "unknown role": [{ role: "robot", content: "hi" }],
  "message without role": [{ content: "hi" }],
  "text block without text": [{ role: "user", content: [{ type: "text" }] }],
  "text that is a number": [{ role: "user", content: [{ type: "text", text: 1 }] }],
  "tool_use input that is an array": [
    { role: "assistant", content: [{ type: "tool_use", id: "a", name: "b", input: [] }] },
  ],
  "block without type": [{ role: "user", content: [{ text: "hi" }] }],
  "usage counter that is a string": { message: { role: "assistant" }, usage: { n: "1" } },
  "is_error null": [{ role: "tool", content: "x", tool_call_id: "t", is_error: null }],
};
for (const [what, value] of Object.entries(invalid)) {
  check(`schema rejects: ${what}`, !root(value));
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
