import { type QuorumCondition } from "@warden/contracts/policy";
import { canonicalJson, type JsonValue } from "@warden/contracts/json";

/** Whether a quorum entry's `when` holds for a call's args, and the condition read aloud with the value it met. */
export interface ConditionCheck {
  readonly holds: boolean;
  /** `amount is 1500, > 1000` / `amount is 500, not > 1000` / `amount is missing`. */
  readonly text: string;
}

const OPS = [
  ["gt", ">", (v: number, t: number) => v > t],
  ["gte", "≥", (v: number, t: number) => v >= t],
  ["lt", "<", (v: number, t: number) => v < t],
  ["lte", "≤", (v: number, t: number) => v <= t],
] as const;

/**
 * Checks a condition against the call's top-level args: every comparison given must hold. A number
 * comparison holds only for a number (a missing or non-number argument is never over or under a
 * threshold); `equals` compares canonical JSON.
 */
export function checkCondition(c: QuorumCondition, args: JsonValue | undefined): ConditionCheck {
  const wanted = conditionText(c);
  const obj = args !== null && typeof args === "object" && !Array.isArray(args) ? args : undefined;
  const value = obj !== undefined && Object.hasOwn(obj, c.arg) ? obj[c.arg] : undefined;
  if (value === undefined) return { holds: false, text: `${c.arg} is missing, so not ${wanted}` };
  const shown = canonicalJson(value);
  for (const [key, symbol, holds] of OPS) {
    const t = c[key];
    if (t === undefined) continue;
    if (typeof value !== "number" || !holds(value, t)) return { holds: false, text: `${c.arg} is ${cut(shown)}, not ${c.arg} ${symbol} ${t}` };
  }
  if (Object.hasOwn(c, "equals") && shown !== canonicalJson(c.equals ?? null)) return { holds: false, text: `${c.arg} is ${cut(shown)}, not ${wanted}` };
  return { holds: true, text: `${c.arg} is ${cut(shown)}: ${wanted}` };
}

/** `amount > 1000`, `amount ≥ 100 and amount < 1000`, `currency = "EUR"`. */
export function conditionText(c: QuorumCondition): string {
  const parts = OPS.filter(([key]) => c[key] !== undefined).map(([key, symbol]) => `${c.arg} ${symbol} ${c[key]}`);
  if (Object.hasOwn(c, "equals")) parts.push(`${c.arg} = ${cut(canonicalJson(c.equals ?? null))}`);
  return parts.join(" and ");
}

function cut(text: string): string {
  return text.length <= 60 ? text : `${text.slice(0, 59)}…`;
}
