import { canonicalJson, sha256Hex } from "./canonical-json.js";
import { WardenEventSchema, type WardenEvent } from "./events.js";
import { compileCheck, UnsupportedSchemaError, type CompiledCheck } from "./compiled-check.js";
import { parseJsonGuarded, validateJson, type GuardedParse } from "./json-guard.js";

/**
 * The hash an event is answered by (the answer's `causeHash`): sha256 of its canonical JSON, as
 * `sha256:<hex>`. An auditor computes it from the bytes stored, `eventHash(JSON.parse(bytes))`
 * (or {@link messageHash}); a writer from the event it holds, which gives the same value when that
 * is the whole stored event: one read with {@link validateEventJson} (as every reader of
 * `@warden/bus` does), or one built in memory and written as it is.
 */
export function eventHash(event: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(event))}`;
}

/**
 * What an event answers: the id and the hash of its cause, always together (an event's
 * `causationId` and `causeHash`). `eventId` is null only when the answered message is not an
 * event an id can be read from (the registry's refusal of an unreadable request).
 */
export interface EventCause {
  readonly eventId: string | null;
  readonly hash: string;
}

/** An event as the cause of the next one; `event` must be whole (see {@link eventHash}). */
export function causeOf(event: WardenEvent): EventCause {
  return { eventId: event.eventId, hash: eventHash(event) };
}

/**
 * The hash a stored message is answered by, from its bytes alone: {@link eventHash} of its JSON
 * when the bytes are JSON that `parseJsonGuarded` reads (UTF-8, at most MAX_JSON_DEPTH deep) and
 * canonical JSON can write (finite numbers), else sha256 of the bytes themselves. For every event
 * Warden writes this is `eventHash(JSON.parse(bytes))`; the bytes' own hash is what the registry's
 * refusal of a request it cannot read as JSON answers.
 */
export function messageHash(data: Uint8Array): string {
  const json = parseJsonGuarded(data);
  if (json.ok) {
    try {
      return eventHash(json.value);
    } catch (err) {
      // JSON.parse reads 1e999 as Infinity, which canonical JSON refuses: hash the bytes instead
      if (!(err instanceof TypeError)) throw err;
    }
  }
  return `sha256:${sha256Hex(data)}`;
}

/**
 * Reads decoded JSON as an event, and refuses (SCHEMA_INVALID) one the schema would not keep
 * whole: members it does not know (zod drops them) or a `__proto__` key. So the event a service
 * goes on with is exactly the stored one, and the hash its answer names is the one an auditor
 * computes from the stored bytes; a member no service reads is refused, never carried unread.
 */
export function validateEventJson(json: unknown): GuardedParse<WardenEvent> {
  // events Warden's services wrote go through the schema compiled into one predicate, which says
  // true only where zod would accept the event unchanged (issue 12: zod was the largest validation
  // cost of every hop); a request (an agent's) and anything the predicate doubts go to zod
  const type = typeof json === "object" && json !== null ? (json as { type?: unknown }).type : undefined;
  if (type !== "ToolCallRequested" && compiledEventCheck()?.(json, 1, Number.MAX_SAFE_INTEGER) === true) return { ok: true, value: json as WardenEvent };
  return validateEventJsonWithZod(json);
}

/** {@link validateEventJson} by zod alone: the reference the compiled check is tested against. */
export function validateEventJsonWithZod(json: unknown): GuardedParse<WardenEvent> {
  const parsed = validateJson(WardenEventSchema, json);
  if (!parsed.ok || sameJson(parsed.value, json)) return parsed;
  const stray = strayMember(json, parsed.value, "");
  const what = stray === undefined ? `the ${parsed.value.type} does not read back as stored` : `${stray} is not part of a ${parsed.value.type}`;
  return { ok: false, code: "SCHEMA_INVALID", reason: `${what}: an event carries only the members its schema knows` };
}

/**
 * Whether two JSON values have the same canonical JSON (a member whose value is undefined counts
 * as absent), compared in place: cheaper than writing both out on every event a stage reads.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  // loops without closures or key arrays beyond Object.keys: this runs on every event every stage
  // reads, and the filtered copies were a third of validateEventJson's time (issue 12)
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let defined = 0;
  for (const k of Object.keys(x)) {
    if (x[k] === undefined) continue;
    defined++;
    if (!Object.hasOwn(y, k) || !sameJson(x[k], y[k])) return false;
  }
  for (const k of Object.keys(y)) if (y[k] !== undefined) defined--;
  return defined === 0;
}

/** The path of the first member of `raw` that `kept` lacks, for the refusal's reason. */
function strayMember(raw: unknown, kept: unknown, path: string): string | undefined {
  if (raw === null || typeof raw !== "object" || kept === null || typeof kept !== "object") return undefined;
  for (const key of Object.keys(raw)) {
    const at = path === "" ? key : `${path}.${key}`;
    if (!Object.hasOwn(kept, key)) return at;
    const inner = strayMember((raw as Record<string, unknown>)[key], (kept as Record<string, unknown>)[key], at);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

let eventCheck: CompiledCheck | null | undefined;

/** The event schema compiled, once; null when it uses something the compiler does not mirror (zod then checks every event). */
export function compiledEventCheck(): CompiledCheck | null {
  if (eventCheck === undefined) {
    try {
      eventCheck = compileCheck(WardenEventSchema);
    } catch (err) {
      if (!(err instanceof UnsupportedSchemaError)) throw err;
      eventCheck = null;
    }
  }
  return eventCheck;
}
