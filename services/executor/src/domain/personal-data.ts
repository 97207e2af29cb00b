import type { PersonalDataCounts, PersonalDataKind } from "@warden/contracts/events";
import type { JsonValue } from "@warden/contracts/json";

/**
 * Finds personal data in text by shape, checked where a checksum exists (Luhn for cards, mod 97
 * for IBANs) so order numbers and ids are left alone. A net for what an external read brings
 * back, not a classifier: a name or an address in prose is not found.
 */
const FINDERS: readonly { readonly kind: PersonalDataKind; readonly pattern: RegExp; readonly holds?: (match: string) => boolean }[] = [
  // starts only where a run of address characters starts: tried at every position, a long run
  // with no @ would be scanned again from each (quadratic on a large output)
  { kind: "email", pattern: /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g },
  // in groups of four as written (spaced or not), so text after it is never swallowed into it
  { kind: "iban", pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b/g, holds: ibanHolds },
  // the shapes cards are written in (16 digits in fours, Amex 4-6-5) with a card network's first
  // digit: a 19-digit id or a 13-digit millisecond time is no card, and "… 1111 12/26" still is one
  { kind: "card", pattern: /\b(?:[3-6]\d{3}(?:[ -]?\d{4}){3}|3[47]\d{2}[ -]?\d{6}[ -]?\d{5})\b/g, holds: luhnHolds },
  // international (+ and 8-15 digits), or the North American (555) 123-4567 / 555-123-4567
  { kind: "phone", pattern: /\+\d(?:[ .-]?\(?\d\)?){7,14}|\(?\b\d{3}\)?[ .-]\d{3}[ .-]\d{4}\b/g },
];

/** The value with every piece of personal data its strings hold replaced by its kind's mark (`[email]`), and how many of each. */
export function maskPersonalData<T extends JsonValue>(value: T): { readonly value: T; readonly counts: PersonalDataCounts } {
  const counts: Partial<Record<PersonalDataKind, number>> = {};
  const walk = (v: JsonValue): JsonValue => {
    if (typeof v === "string") return maskText(v, counts);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  // the walk keeps every shape: only strings change, into strings
  return { value: walk(value) as T, counts };
}

/** The text with its personal data masked, counted into `counts`. */
export function maskText(text: string, counts: Partial<Record<PersonalDataKind, number>>): string {
  let out = text;
  for (const f of FINDERS) {
    out = out.replace(f.pattern, (m) => {
      if (f.holds !== undefined && !f.holds(m)) return m;
      counts[f.kind] = (counts[f.kind] ?? 0) + 1;
      return `[${f.kind}]`;
    });
  }
  return out;
}

function luhnHolds(match: string): boolean {
  const digits = match.replace(/[ -]/g, "");
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

function ibanHolds(match: string): boolean {
  const iban = match.replace(/ /g, "");
  if (iban.length < 15 || iban.length > 34) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const n = /\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const d of n) rest = (rest * 10 + (d.charCodeAt(0) - 48)) % 97;
  }
  return rest === 1;
}
