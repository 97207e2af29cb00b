/** The candidate nearest to `word` by edit distance, when it is near enough to be a typo of it. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    if (c === word) continue;
    const d = editDistance(word, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  // a third of the word, at least one edit: `effct` → `effect`, not `id` → `kind`
  return bestDistance <= Math.max(1, Math.floor(word.length / 3)) ? best : undefined;
}

/**
 * The known names closest to a mistyped one, best first: within two edits, or a quarter of the
 * name's length for long names, so `kb.serch` finds `kb.search` and `x` finds nothing.
 */
export function closestNames(name: string, known: Iterable<string>, limit = 3): string[] {
  const within = Math.max(2, Math.floor(name.length / 4));
  const scored: { name: string; d: number }[] = [];
  for (const k of new Set(known)) {
    const d = editDistance(name.toLowerCase(), k.toLowerCase());
    if (d <= within && k !== name) scored.push({ name: k, d });
  }
  return scored
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map((s) => s.name);
}

/** Levenshtein distance (insert, delete, replace; a swap of two neighbours counts as one). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}
