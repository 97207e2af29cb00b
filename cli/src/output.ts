import type { CommandIo } from "./io.js";

/** With --json a command prints exactly one JSON document; otherwise text for people. */
export function emit(io: CommandIo, json: boolean, doc: unknown, text: () => string): void {
  io.out(json ? JSON.stringify(doc, null, 2) : text());
}

export function emitError(io: CommandIo, json: boolean, code: string, message: string): void {
  if (json) io.out(JSON.stringify({ ok: false, error: { code, message } }, null, 2));
  else io.err(`warden: ${message}`);
}

export interface Column<R> {
  readonly title: string;
  readonly value: (row: R) => string;
  /** Longer values are cut with an ellipsis. */
  readonly max?: number;
}

/** A plain aligned text table; the last column is not padded. */
export function renderTable<R>(rows: readonly R[], columns: readonly Column<R>[]): string {
  const cells = rows.map((r) => columns.map((c) => cut(oneLine(c.value(r)), c.max)));
  const widths = columns.map((c, i) => Math.max(c.title.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: readonly string[]) =>
    values.map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!))).join("  ").trimEnd();
  return [line(columns.map((c) => c.title)), ...cells.map(line)].join("\n");
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ");
}

export function cut(text: string, max: number | undefined): string {
  if (max === undefined || text.length <= max) return text;
  return `${text.slice(0, Math.max(0, max - 1))}…`;
}

export function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? "undefined";
}
