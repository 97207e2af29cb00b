import { appendFileSync, existsSync, readFileSync } from "node:fs";
import type { CallCheck, HistoryCheck } from "./end-state.js";
import type { Fault } from "./faults.js";

/** One scenario's line in the chaos table. */
export interface ReportRow {
  readonly scenario: string;
  readonly calls: number;
  readonly acked: number;
  readonly lost: number;
  /** Side effects with no recorded result, plus results with no side effect. */
  readonly unrecordedEffects: number;
  readonly terminal: number;
  readonly stuck: number;
  readonly duplicates: number;
  readonly doubleEffects: number;
  readonly outcomeUnknown: number;
  readonly lostResults: number;
  readonly slowestMs?: number;
  readonly audit?: string;
  readonly replay?: string;
  readonly projectorLag?: number;
  readonly dlqRepeats?: number;
  /** Restarts of processes that died on their own (not killed by the suite). */
  readonly crashes: number;
  readonly faults: number;
  /** Milliseconds from each fault until a call asked for after it succeeded; null if none did. */
  readonly recoveryMs: readonly (number | null)[];
  /** The longest an agent went on waiting after its call had ended in the stream. */
  readonly agentWaitMaxMs?: number;
  /** Highest peak resident memory (VmHWM) of each process over the scenario, in bytes, by process name. */
  readonly peakRss?: Readonly<Record<string, number>>;
  /** Scenario-specific measurements (drain rate, what agents were told). */
  readonly notes?: string;
}

export function rowOf(
  scenario: string,
  calls: CallCheck,
  history: HistoryCheck | undefined,
  faults: readonly Fault[],
  crashes: number,
  extra: { agentWaitMaxMs?: number; notes?: string; peakRss?: Readonly<Record<string, number>> } = {},
): ReportRow {
  return {
    scenario,
    calls: calls.calls,
    acked: calls.acked,
    lost: calls.lost.length,
    unrecordedEffects: calls.unrecordedEffects.length + calls.effectlessResults.length,
    terminal: calls.terminal,
    stuck: calls.stuck.length,
    duplicates: calls.duplicates.length,
    doubleEffects: calls.doubleEffects.length,
    outcomeUnknown: calls.outcomeUnknown,
    lostResults: calls.lostResults.length,
    slowestMs: calls.slowestMs,
    ...(history === undefined
      ? {}
      : { audit: history.audit, replay: history.replay, projectorLag: history.projectorLag, dlqRepeats: history.dlqRepeats }),
    crashes,
    faults: faults.length,
    recoveryMs: faults.map((f) => (f.recoveredAt === undefined ? null : f.recoveredAt - f.at)),
    ...extra,
  };
}

export const mib = (bytes: number): string => `${Math.round(bytes / 2 ** 20)} MiB`;

/** The largest process's peak in the table; every process's in the notes below it. */
function largestPeak(peaks: Readonly<Record<string, number>> | undefined): string {
  const top = Object.entries(peaks ?? {}).sort((a, b) => b[1] - a[1])[0];
  return top === undefined ? "-" : `${top[0]} ${mib(top[1])}`;
}

function seconds(ms: number | null): string {
  return ms === null ? "never" : `${(ms / 1000).toFixed(1)}s`;
}

/** Up to six faults one by one, more as median and worst. */
export function recoveryText(ms: readonly (number | null)[]): string {
  if (ms.length === 0) return "-";
  if (ms.length <= 6) return ms.map(seconds).join(" ");
  const known = ms.filter((x): x is number => x !== null).sort((a, b) => a - b);
  const never = ms.length - known.length;
  const median = known.length === 0 ? null : known[Math.floor(known.length / 2)]!;
  const worst = known.length === 0 ? null : known[known.length - 1]!;
  return `n=${ms.length} p50 ${seconds(median)} max ${seconds(worst)}${never > 0 ? ` (${never} never)` : ""}`;
}

const COLUMNS: readonly [string, (r: ReportRow) => string][] = [
  ["scenario", (r) => r.scenario],
  ["calls", (r) => String(r.calls)],
  ["acked", (r) => String(r.acked ?? "-")],
  ["lost", (r) => String(r.lost ?? "-")],
  ["terminal", (r) => String(r.terminal)],
  ["stuck", (r) => String(r.stuck)],
  ["duplicates", (r) => String(r.duplicates)],
  ["double side effects", (r) => String(r.doubleEffects)],
  ["unrecorded effects", (r) => String(r.unrecordedEffects ?? "-")],
  ["unknown", (r) => String(r.outcomeUnknown)],
  ["lost results", (r) => String(r.lostResults)],
  ["crashes", (r) => String(r.crashes)],
  ["recovery per fault", (r) => recoveryText(r.recoveryMs)],
  ["slowest call", (r) => (r.slowestMs === undefined ? "-" : seconds(r.slowestMs))],
  ["agent wait after end", (r) => (r.agentWaitMaxMs === undefined ? "-" : seconds(r.agentWaitMaxMs))],
  ["peak RSS (largest)", (r) => largestPeak(r.peakRss)],
  ["audit --verify", (r) => r.audit ?? "-"],
  ["replay", (r) => r.replay ?? "-"],
];

/** A plain-text table, one line per scenario, then each scenario's notes. */
export function renderTable(rows: readonly ReportRow[]): string {
  const cells = rows.map((r) => COLUMNS.map(([, f]) => f(r)));
  const widths = COLUMNS.map(([h], i) => Math.max(h.length, ...cells.map((c) => Math.min(c[i]!.length, 60))));
  const line = (xs: readonly string[]) => xs.map((x, i) => (x.length > 60 ? `${x.slice(0, 57)}...` : x).padEnd(widths[i]!)).join(" | ").trimEnd();
  const out = [line(COLUMNS.map(([h]) => h)), widths.map((w) => "-".repeat(w)).join("-|-"), ...cells.map(line)];
  const details = rows.flatMap((r) => [
    ...(r.notes ? [`${r.scenario}: ${r.notes}`] : []),
    ...(r.peakRss && Object.keys(r.peakRss).length > 0
      ? [`${r.scenario}: peak RSS ${Object.entries(r.peakRss).map(([name, bytes]) => `${name} ${mib(bytes)}`).join(", ")}`]
      : []),
    ...((r.audit?.length ?? 0) > 60 ? [`${r.scenario}: audit ${r.audit}`] : []),
    ...((r.replay?.length ?? 0) > 60 ? [`${r.scenario}: replay ${r.replay}`] : []),
  ]);
  return [...out, ...(details.length > 0 ? ["", ...details] : [])].join("\n");
}

/** Rows of a run are collected in a JSON-lines file (each test file runs in its own process). */
export function appendRow(file: string | undefined, row: ReportRow): void {
  if (file !== undefined) appendFileSync(file, `${JSON.stringify(row)}\n`);
}

export function readRows(file: string): ReportRow[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as ReportRow);
}
