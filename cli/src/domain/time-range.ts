import { usageError } from "../errors.js";

/** `2030-01-01T00:00:00Z` (any date Date can read), or an age: `90s`, `15m`, `2h`, `7d` before now. */
export function parseTimeBound(what: string, text: string | undefined, now: Date): Date | undefined {
  if (text === undefined) return undefined;
  const age = /^(\d+(?:\.\d+)?)(s|m|h|d)$/.exec(text.trim());
  if (age) {
    const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[age[2] as "s" | "m" | "h" | "d"];
    return new Date(now.getTime() - Number(age[1]) * unit);
  }
  const t = Date.parse(text);
  if (Number.isNaN(t)) throw usageError(`${what} ${JSON.stringify(text)} is neither a time (2030-01-01T00:00:00Z) nor an age (15m, 2h, 7d)`);
  return new Date(t);
}
