/**
 * Lines up what checkpoints sealed (expected) with what the stream holds now (actual), both as
 * leaf prefixes in order. Leaves are unique (one message per subject), so matching is by value;
 * what the matched pairs put out of order is found with a longest increasing subsequence.
 */

export interface Alignment {
  /** actual position → expected position, for messages found among the sealed ones. */
  readonly matched: ReadonlyMap<number, number>;
  /** Actual positions of matched messages that sit out of the sealed order. */
  readonly moved: readonly number[];
  /** Expected positions with no message now (removed, or changed: see pairChanges). */
  readonly missing: readonly number[];
  /** Actual positions of messages no checkpoint sealed. */
  readonly unknown: readonly number[];
}

export function alignLeaves(expected: readonly string[], actual: readonly string[]): Alignment {
  const positions = new Map<string, number[]>();
  expected.forEach((leaf, i) => {
    const list = positions.get(leaf);
    if (list === undefined) positions.set(leaf, [i]);
    else list.push(i);
  });
  const matched = new Map<number, number>();
  const unknown: number[] = [];
  const used = new Set<number>();
  actual.forEach((leaf, a) => {
    const e = positions.get(leaf)?.find((i) => !used.has(i));
    if (e === undefined) unknown.push(a);
    else {
      used.add(e);
      matched.set(a, e);
    }
  });
  const missing = expected.map((_, i) => i).filter((i) => !used.has(i));
  const order = [...matched.entries()];
  const keep = new Set(longestIncreasing(order.map(([, e]) => e)).map((k) => order[k]![0]));
  const moved = order.filter(([a]) => !keep.has(a)).map(([a]) => a);
  return { matched, moved, missing, unknown };
}

/** Indexes (into `values`) of one longest strictly increasing subsequence, O(n log n). */
export function longestIncreasing(values: readonly number[]): number[] {
  const tails: number[] = [];
  const prev: number[] = new Array<number>(values.length).fill(-1);
  values.forEach((v, i) => {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (values[tails[mid]!]! < v) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[i] = tails[lo - 1]!;
    tails[lo] = i;
  });
  const out: number[] = [];
  for (let i = tails.length > 0 ? tails[tails.length - 1]! : -1; i !== -1; i = prev[i]!) out.push(i);
  return out.reverse();
}
