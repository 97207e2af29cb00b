import type { JsonValue } from "@warden/contracts";
import type { HandlerResult } from "../run-with-timeout.js";
import type { Redactor } from "./redactor.js";

/** A handler's result with its secrets taken out: the value, or the error's message and details. */
export function redactResult(result: HandlerResult, redactor: Redactor): HandlerResult {
  if (redactor.empty) return result;
  if (result.ok) {
    const json = asRecorded(result.value);
    // not serialisable (a cycle, a bigint): shapeOutput fails the call with OUTPUT_INVALID and records no output
    return json.ok ? { ok: true, value: redactor.value(json.value) } : result;
  }
  const { message, details, ...rest } = result.error;
  return { ok: false, error: { ...rest, message: redactMessage(message, redactor), ...(details === undefined ? {} : { details: redactor.value(details) }) } };
}

/** A long thrown message is cut (with "…") before it gets here: a secret's start at the cut is redacted too. */
function redactMessage(message: string, redactor: Redactor): string {
  if (!message.endsWith("…")) return redactor.text(message);
  return `${redactor.text(message.slice(0, -1), true)}…`;
}

/** The output as it will be recorded (Dates as strings, toJSON applied), so the walk sees the strings that get recorded. */
function asRecorded(value: unknown): { ok: true; value: unknown } | { ok: false } {
  try {
    const text = JSON.stringify(value);
    return { ok: true, value: text === undefined ? value : (JSON.parse(text) as JsonValue) };
  } catch {
    return { ok: false };
  }
}
