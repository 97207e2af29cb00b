import { distance } from "fastest-levenshtein";

/**
 * The known names closest to a mistyped one, best first: within two edits, or a quarter of the
 * name's length for long names, so `kb.serch` finds `kb.search` and `x` finds nothing.
 */
export function closestNames(name: string, known: Iterable<string>, limit = 3): string[] {
  const within = Math.max(2, Math.floor(name.length / 4));
  const scored: { name: string; d: number }[] = [];
  for (const k of new Set(known)) {
    const d = distance(name.toLowerCase(), k.toLowerCase());
    if (d <= within && k !== name) scored.push({ name: k, d });
  }
  return scored
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map((s) => s.name);
}

/** "; did you mean kb.search?" or "; did you mean a, b or c?", empty with nothing close. */
export function didYouMean(names: readonly string[]): string {
  if (names.length === 0) return "";
  const last = names[names.length - 1]!;
  return `; did you mean ${names.length === 1 ? last : `${names.slice(0, -1).join(", ")} or ${last}`}?`;
}
