import { z } from "zod";
import { canonicalJson } from "./canonical-json.js";
import type { JsonValue } from "./json.js";

/** `{customerId}`: a top-level argument, by name. */
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_-]{0,63})\}/g;
/** The longest any one argument is shown; the card's args and dry run hold the whole. */
const VALUE_CHARS = 80;
export const APPROVAL_SUMMARY_MAX_CHARS = 400;

/**
 * A tool's one-line summary for the person deciding (`approvalSummary` of its descriptor), in
 * words with the call's arguments by name: `"Send to {customerId}: {text}"`. Braces are only for
 * placeholders, each naming a top-level argument.
 */
export const ApprovalSummaryTemplateSchema = z
  .string()
  .min(1)
  .max(200)
  .refine((t) => !/[\r\n]/.test(t), "an approval summary is one line")
  .refine((t) => t.replace(PLACEHOLDER, "").match(/[{}]/) === null, "braces in an approval summary are only for placeholders naming an argument: {customerId}");

/** The argument names a summary template shows. */
export function approvalSummaryPlaceholders(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

/**
 * The summary of one call: each placeholder replaced by that argument (a string as it is, any
 * other value as canonical JSON; cut to VALUE_CHARS with "…"), an absent one by "(none)". Control
 * characters become spaces, so an argument cannot make the line look like more than one.
 */
export function renderApprovalSummary(template: string, args: JsonValue | undefined): string {
  const bag = args !== null && typeof args === "object" && !Array.isArray(args) ? (args as Record<string, JsonValue>) : {};
  const text = template.replace(PLACEHOLDER, (_, name: string) => {
    const v = Object.hasOwn(bag, name) ? bag[name] : undefined;
    if (v === undefined) return "(none)";
    const shown = (typeof v === "string" ? v : canonicalJson(v)).replace(/\p{Cc}/gu, " ");
    return shown.length <= VALUE_CHARS ? shown : `${shown.slice(0, VALUE_CHARS - 1)}…`;
  });
  return text.length <= APPROVAL_SUMMARY_MAX_CHARS ? text : `${text.slice(0, APPROVAL_SUMMARY_MAX_CHARS - 1)}…`;
}
