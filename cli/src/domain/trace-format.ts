import { roundMs as round, stepPairs, type CallTrace, type TraceStep } from "@warden/projections";
import { TEXT_WIDTH } from "../output.js";
import { middleCut, wrapTokens } from "./short-forms.js";

/** How a trace is printed: `wide` is one line per event with full hashes and times (`--wide`). */
export interface TraceTextOptions {
  readonly wide?: boolean;
  /** The narrow form's line width (default 100). */
  readonly width?: number;
}

/** The details of a step on one line, full hashes included (`--wide`). */
export function stepDetails(s: TraceStep): string {
  return stepPairs(s).join(" ");
}

/**
 * A call's timeline, then its child calls indented under it. By default every line fits 100
 * columns: no per-event time (the call's start is in its header), hashes shortened, details
 * wrapped under the first and cut where one alone is too long; `wide` prints one line per event
 * with the time and the full details.
 */
export function traceText(t: CallTrace, opts: TraceTextOptions = {}, indent = ""): string {
  return (opts.wide ? wideLines(t, indent) : narrowLines(t, opts.width ?? TEXT_WIDTH, indent)).join("\n");
}

function wideLines(t: CallTrace, indent: string): string[] {
  const head = `${indent}call ${t.callId} ${t.tool} (domain ${t.domain}): ${t.status} after ${round(t.totalMs)}ms, ${t.steps.length} events`;
  const who = `${indent}  by ${t.principal} in ${t.mode} mode, run ${t.correlationId}${t.parentCallId ? `, child of ${t.parentCallId}` : ""}`;
  const typeWidth = Math.max(0, ...t.steps.map((s) => s.type.length));
  const actorWidth = Math.max(0, ...t.steps.map((s) => s.actor.length));
  const lines = t.steps.map(
    (s) => `${indent}  ${`+${round(s.sincePrevMs)}ms`.padStart(9)}  ${s.ts}  ${s.type.padEnd(typeWidth)}  ${s.actor.padEnd(actorWidth)}  ${stepDetails(s)}`.trimEnd(),
  );
  return [head, who, ...lines, ...violationLines(t, indent), ...childLines(t, indent, (c, i) => wideLines(c, i))];
}

/** Actors (executor ids can be long) are cut to this in the narrow form, by their middle. */
const ACTOR_MAX = 14;

function narrowLines(t: CallTrace, width: number, indent: string): string[] {
  const more = `${indent}    `;
  const head = wrapTokens(`${indent}call `, [t.callId, t.tool, `(domain ${t.domain}):`, t.status, "after", `${round(t.totalMs)}ms,`, String(t.steps.length), "events"], width, more, 0);
  const whoTokens = ["by", t.principal, "in", t.mode, "mode,", "run", `${t.correlationId},`, ...(t.parentCallId ? ["child", "of", `${t.parentCallId},`] : []), "from", t.steps[0]?.ts ?? "?"];
  const who = wrapTokens(`${indent}  `, whoTokens, width, more, 0);
  const typeWidth = Math.max(0, ...t.steps.map((s) => s.type.length));
  const actors = t.steps.map((s) => middleCut(s.actor, ACTOR_MAX));
  const actorWidth = Math.max(0, ...actors.map((a) => a.length));
  const lines = t.steps.flatMap((s, i) => {
    const prefix = `${indent}  ${`+${round(s.sincePrevMs)}ms`.padStart(7)}  ${s.type.padEnd(typeWidth)}  ${actors[i]!.padEnd(actorWidth)}  `;
    return wrapTokens(prefix, stepPairs(s, true), width, `${indent}      `);
  });
  const violations = violationLines(t, indent).flatMap((l) => wrapTokens("", l.split(" "), width, more, 0));
  return [...head, ...who, ...lines, ...violations, ...childLines(t, indent, (c, i) => narrowLines(c, width, i))];
}

function violationLines(t: CallTrace, indent: string): string[] {
  return t.violations.map((v) => `${indent}  VIOLATION ${v.kind} at ${v.type} (seq ${v.seq}): ${v.detail}`);
}

function childLines(t: CallTrace, indent: string, render: (c: CallTrace, indent: string) => string[]): string[] {
  return t.children.length === 0 ? [] : [`${indent}  child calls (${t.children.length}):`, ...t.children.flatMap((c) => render(c, `${indent}    `))];
}

/** Messages under a call's subjects that are not valid events (left out of the trace and every model). */
export function unreadableLines(unreadable: readonly { readonly seq: number; readonly subject: string; readonly reason: string }[], indent = ""): string[] {
  return unreadable.map((m) => `${indent}  UNREADABLE seq ${m.seq} ${m.subject}: ${m.reason}`);
}
