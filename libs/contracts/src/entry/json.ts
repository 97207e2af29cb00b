/** @warden/contracts/json: JSON values, canonical JSON and argsHash, guarded parsing, previews, secret matching. */
export { argsHash, canonicalJson, sha256Hex } from "../canonical-json.js";
export { matchesSecret, secretDigest } from "../secret-match.js";
export { previewJson } from "../preview-json.js";
export { JsonObjectSchema, JsonValueSchema, type JsonObject, type JsonValue } from "../json.js";
export {
  EVENT_FAILURES,
  type EventFailure,
  type GuardedJson,
  type GuardedParse,
  JSON_FAILURES,
  jsonDepthExceeds,
  type JsonFailure,
  type JsonLimits,
  parseJsonGuarded,
  safeParseGuarded,
  validateJson,
  valueDepthExceeds,
} from "../json-guard.js";
