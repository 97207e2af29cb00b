/**
 * The bench's rows: a label, the value as printed, and for the metrics issue 12 sets a target, the
 * target as checks on the value's numbers, so a compare run can judge the medians the same way.
 */
export interface Check {
  /** Which number of the value (e.g. 0 = p50, 1 = p99 of "p50 / p99"). */
  readonly index: number;
  readonly op: "<=" | ">=";
  readonly limit: number;
}

export interface Target {
  readonly text: string;
  readonly checks: readonly Check[];
}

export interface Row {
  readonly label: string;
  readonly value: string;
  readonly target?: Target;
}

/** What one round prints and, with `--json FILE`, hands to a compare run. */
export interface RoundReport {
  readonly mode: "quick" | "full";
  /** Which processes ran (round.ts layoutText); absent in reports of benches before issue 27. */
  readonly layout?: string;
  readonly at: string;
  readonly node: string;
  readonly natsServer: string;
  readonly loadStart: readonly number[];
  readonly loadEnd: readonly number[];
  /** The metrics with a target, in the order. */
  readonly targets: readonly Row[];
  readonly details: readonly Row[];
}

// a number on its own, not the digits of a name such as "p50"
const NUMBER = /(?<![A-Za-z\d.])-?\d+(?:\.\d+)?/g;

/** The value with its i-th number replaced by `by(i, token)`. */
export function replaceNumbers(value: string, by: (i: number, token: string) => string): string {
  let i = 0;
  return value.replace(NUMBER, (token) => by(i++, token));
}

export function numbersOf(value: string): number[] {
  return [...value.matchAll(NUMBER)].map((m) => Number(m[0]));
}

/** ✓ when every check holds, "gap" when one fails, "?" when the value has no such number. */
export function metMark(target: Target | undefined, nums: readonly number[]): string {
  if (target === undefined) return "";
  let met = true;
  for (const c of target.checks) {
    const n = nums[c.index];
    if (n === undefined || Number.isNaN(n)) return "?";
    if (c.op === "<=" ? n > c.limit : n < c.limit) met = false;
  }
  return met ? "✓" : "gap";
}

/** A label with its run-dependent numbers (rates, counts) blanked: the same row in every round. */
export function rowKey(label: string): string {
  return label.replace(NUMBER, "#");
}

/** Plain text columns; the first column left-aligned, the rest too (values are mixed text). */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n") + "\n";
}

export function loadText(load: readonly number[]): string {
  return load.map((l) => l.toFixed(2)).join(" ");
}

export function headerLine(r: Pick<RoundReport, "mode" | "at" | "node" | "natsServer" | "loadStart" | "loadEnd">): string {
  return `Warden bench (${r.mode}; ${r.at}) · node ${r.node} · nats-server ${r.natsServer} · load average (1/5/15 min) ${loadText(r.loadStart)} at start, ${loadText(r.loadEnd)} at end`;
}

export function layoutLine(r: Pick<RoundReport, "layout">): string {
  return `layout ${r.layout ?? "not reported"}`;
}

export function printRound(r: RoundReport): string {
  const targets = formatTable(
    ["metric", "value", "target", "met?"],
    r.targets.map((row) => [row.label, row.value, row.target?.text ?? "", metMark(row.target, numbersOf(row.value))]),
  );
  const details = formatTable(
    ["detail", "value"],
    r.details.map((row) => [row.label, row.value]),
  );
  return `\n${headerLine(r)}\n${layoutLine(r)}\n\n${targets}\n${details}`;
}
