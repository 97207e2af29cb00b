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
  /** With a table width: the column may be cut down to this many characters (never below its title) to fit; default never cut. */
  readonly min?: number;
}

/** The width the default text output of `trace` and `audit` keeps to (`--wide` lifts it). */
export const TEXT_WIDTH = 100;

/**
 * A plain aligned text table; the last column is not padded. With `width`, columns that have a
 * `min` are cut (the one furthest above its minimum first) until every line fits, as far as the minimums allow.
 */
export function renderTable<R>(rows: readonly R[], columns: readonly Column<R>[], opts: { readonly width?: number } = {}): string {
  const raw = rows.map((r) => columns.map((c) => cut(oneLine(c.value(r)), c.max)));
  const widths = columns.map((c, i) => Math.max(c.title.length, ...raw.map((row) => row[i]!.length)));
  if (opts.width !== undefined) fitWidths(widths, columns, opts.width);
  const cells = raw.map((row) => row.map((v, i) => cut(v, widths[i])));
  const line = (values: readonly string[]) =>
    values.map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!))).join("  ").trimEnd();
  return [line(columns.map((c) => c.title)), ...cells.map(line)].join("\n");
}

/**
 * Narrows, one character at a time, the column furthest above its minimum until the line fits
 * `width` or nothing more can be cut: long values give up the most, each keeps what it needs.
 */
function fitWidths<R>(widths: number[], columns: readonly Column<R>[], width: number): void {
  const total = () => widths.reduce((n, w) => n + w, 0) + 2 * (widths.length - 1);
  // a title is never cut
  const floor = columns.map((c) => (c.min === undefined ? Number.POSITIVE_INFINITY : Math.max(c.min, c.title.length)));
  while (total() > width) {
    let pick = -1;
    for (let i = 0; i < columns.length; i++) {
      if (widths[i]! <= floor[i]!) continue;
      if (pick === -1 || widths[i]! - floor[i]! > widths[pick]! - floor[pick]!) pick = i;
    }
    if (pick === -1) return;
    widths[pick]!--;
  }
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
