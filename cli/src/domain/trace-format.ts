import type { CallTrace, TraceStep } from "@warden/projections";
import { cut, TEXT_WIDTH } from "../output.js";
import { middleCut, shortHash, wrapTokens } from "./short-forms.js";

const PREVIEW = 120;

/** How a trace is printed: `wide` is one line per event with full hashes and times (`--wide`). */
export interface TraceTextOptions {
  readonly wide?: boolean;
  /** The narrow form's line width (default 100). */
  readonly width?: number;
}

/** The details of a step worth a glance, as `key=value` pairs; `short` shortens hashes. */
export function stepPairs(s: TraceStep, short = false): string[] {
  const f: [string, unknown][] = [];
  if (s.args !== undefined) f.push(["args", cut(s.args, PREVIEW)]);
  if (s.intent !== undefined) {
    f.push(["goal", s.intent.goal]);
    if (s.intent.rationale !== undefined) f.push(["why", cut(s.intent.rationale, PREVIEW)]);
    if (s.intent.expectedEffect !== undefined) f.push(["expects", cut(s.intent.expectedEffect, PREVIEW)]);
  }
  if (s.onBehalfOf !== undefined) f.push(["for", s.onBehalfOf]);
  if (s.undoes !== undefined) f.push(["undoes", s.undoes]);
  if (s.editedArgs !== undefined) f.push(["editedArgs", cut(s.editedArgs, PREVIEW)]);
  if (s.session !== undefined) f.push(["session", s.session]);
  if (s.decision !== undefined) f.push(["decision", s.decision]);
  if (s.ruleIds !== undefined && s.ruleIds.length > 0) f.push(["rules", s.ruleIds.join(",")]);
  if (s.policyVersion !== undefined) f.push(["policy", s.policyVersion]);
  if (s.approvalId !== undefined) f.push(["approval", s.approvalId]);
  if (s.approver !== undefined) f.push(["approver", s.approver]);
  if (s.argsHash !== undefined) f.push(["argsHash", short ? shortHash(s.argsHash) : s.argsHash]);
  if (s.expiresAt !== undefined) f.push(["expires", s.expiresAt]);
  if (s.ok !== undefined) f.push(["ok", s.ok]);
  if (s.durationMs !== undefined) f.push(["ran", `${round(s.durationMs)}ms`]);
  if (s.resultPreview !== undefined) f.push(["result", cut(s.resultPreview, PREVIEW)]);
  if (s.artifacts !== undefined) f.push(["artifacts", s.artifacts.map((a) => `${a.id}(${a.bytes}B)`).join(",")]);
  if (s.error !== undefined) f.push(["error", `${s.error.code}: ${s.error.message}`]);
  if (s.undo !== undefined) f.push(["undo", cut(s.undo, PREVIEW)]);
  if (s.turn !== undefined) f.push(["turn", s.turn], ["tools", (s.tools ?? []).join(",") || "-"], ["hidden", s.hidden ?? 0]);
  if (s.reason !== undefined) f.push(["reason", s.reason]);
  // JSON is already one token; other text with spaces is quoted so each pair reads as one
  return f.map(([k, v]) => `${k}=${k !== "args" && k !== "editedArgs" && k !== "result" && k !== "undo" && typeof v === "string" && /\s/.test(v) ? JSON.stringify(v) : String(v)}`);
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

export function round(ms: number): string {
  return ms >= 10 ? String(Math.round(ms)) : String(Math.round(ms * 10) / 10);
}
