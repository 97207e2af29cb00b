import type { PersonalDataCounts, PersonalDataKind } from "@warden/contracts/events";
import type { JsonValue } from "@warden/contracts/json";
import type { HandlerResult } from "../run-with-timeout.js";
import { maskPersonalData, maskText } from "./personal-data.js";
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

/**
 * A handler's (or a dry run's) result cleaned before anything records or logs it: its secrets
 * redacted, then, for a tool that masks personal data (`maskPersonal`), that masked and counted.
 */
export function cleanResult(raw: HandlerResult, redactor: Redactor, maskPersonal: boolean): { readonly result: HandlerResult; readonly counts: PersonalDataCounts } {
  const unsecret = redactResult(raw, redactor);
  return maskPersonal ? maskResultPersonalData(unsecret) : { result: unsecret, counts: {} };
}

/** A handler's result with its personal data masked (an L3 tool's default), and how much was found of each kind. */
export function maskResultPersonalData(result: HandlerResult): { readonly result: HandlerResult; readonly counts: PersonalDataCounts } {
  if (result.ok) {
    const json = asRecorded(result.value);
    if (!json.ok) return { result, counts: {} };
    const masked = maskPersonalData(json.value as JsonValue);
    return { result: { ok: true, value: masked.value }, counts: masked.counts };
  }
  const counts: Partial<Record<PersonalDataKind, number>> = {};
  const { message, details, ...rest } = result.error;
  const maskedDetails = details === undefined ? undefined : maskPersonalData(details);
  for (const [kind, n] of Object.entries(maskedDetails?.counts ?? {})) counts[kind as PersonalDataKind] = n;
  const error = { ...rest, message: maskText(message, counts), ...(maskedDetails === undefined ? {} : { details: maskedDetails.value }) };
  return { result: { ok: false, error }, counts };
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
