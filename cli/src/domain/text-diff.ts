/** A unified diff of two texts, line by line, for people (`policy set` shows the document's). */
export function unifiedDiff(before: string, after: string, labels: { before: string; after: string }, context = 2): string {
  const a = lines(before);
  const b = lines(after);
  if (a.length * b.length > 4_000_000) return `--- ${labels.before}\n+++ ${labels.after}\n(too long to compare line by line: ${a.length} and ${b.length} lines)`;
  const ops = diffOps(a, b);
  if (!ops.some((o) => o.kind !== " ")) return "";
  const out = [`--- ${labels.before}`, `+++ ${labels.after}`];
  // hunks: changed lines with `context` unchanged lines around them
  const keep = ops.map(() => false);
  ops.forEach((o, i) => {
    if (o.kind === " ") return;
    for (let j = Math.max(0, i - context); j <= Math.min(ops.length - 1, i + context); j++) keep[j] = true;
  });
  let i = 0;
  while (i < ops.length) {
    if (!keep[i]) {
      i++;
      continue;
    }
    const start = i;
    while (i < ops.length && keep[i]) i++;
    const hunk = ops.slice(start, i);
    const first = hunk[0]!;
    const oldCount = hunk.filter((o) => o.kind !== "+").length;
    const newCount = hunk.filter((o) => o.kind !== "-").length;
    out.push(`@@ -${first.a + (oldCount === 0 ? 0 : 1)},${oldCount} +${first.b + (newCount === 0 ? 0 : 1)},${newCount} @@`);
    for (const o of hunk) out.push(`${o.kind}${o.text}`);
  }
  return out.join("\n");
}

interface Op {
  readonly kind: " " | "-" | "+";
  readonly text: string;
  /** Lines of each side before this one. */
  readonly a: number;
  readonly b: number;
}

function lines(text: string): string[] {
  const l = text.split("\n");
  if (l.at(-1) === "") l.pop();
  return l;
}

/** A shortest edit script from the longest common subsequence (texts of a few hundred lines). */
function diffOps(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..]
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ kind: " ", text: a[i]!, a: i, b: j });
      i++;
      j++;
    } else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      // a removed line before the line that replaces it
      ops.push({ kind: "-", text: a[i]!, a: i, b: j });
      i++;
    } else {
      ops.push({ kind: "+", text: b[j]!, a: i, b: j });
      j++;
    }
  }
  return ops;
}
