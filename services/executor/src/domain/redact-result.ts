import type { JsonValue } from "@warden/contracts";
import type { HandlerResult } from "../run-with-timeout.js";
import type { Redactor } from "./redactor.js";

/** A handler's result with its secrets taken out: the value, or the error's message and details. */
export function redactResult(result: HandlerResult, redactor: Redactor): HandlerResult {
  if (redactor.empty) return result;
  if (result.ok) return { ok: true, value: redactor.value(toJsonLike(result.value)) };
  const { message, details, ...rest } = result.error;
  return { ok: false, error: { ...rest, message: redactMessage(message, redactor), ...(details === undefined ? {} : { details: redactor.value(details) }) } };
}

/** A long thrown message is cut (with "…") before it gets here: a secret's start at the cut is redacted too. */
function redactMessage(message: string, redactor: Redactor): string {
  if (!message.endsWith("…")) return redactor.text(message);
  return `${redactor.text(message.slice(0, -1), true)}…`;
}

/** What the output will be once serialised (Dates as strings, toJSON applied), so the walk sees the strings that get recorded. */
function toJsonLike(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? value : (JSON.parse(text) as JsonValue);
  } catch {
    // not serialisable: shapeOutput fails the call with OUTPUT_INVALID and records no output
    return value;
  }
}
