import type { CallTrace, TraceStep } from "@warden/projections";
import { cut } from "../output.js";

const PREVIEW = 120;

/** The details of a step worth a glance, as `key=value` pairs. */
export function stepDetails(s: TraceStep): string {
  const f: [string, unknown][] = [];
  if (s.args !== undefined) f.push(["args", cut(s.args, PREVIEW)]);
  if (s.intent !== undefined) {
    f.push(["goal", s.intent.goal]);
    if (s.intent.rationale !== undefined) f.push(["why", cut(s.intent.rationale, PREVIEW)]);
    if (s.intent.expectedEffect !== undefined) f.push(["expects", cut(s.intent.expectedEffect, PREVIEW)]);
  }
  if (s.onBehalfOf !== undefined) f.push(["for", s.onBehalfOf]);
  if (s.editedArgs !== undefined) f.push(["editedArgs", cut(s.editedArgs, PREVIEW)]);
  if (s.session !== undefined) f.push(["session", s.session]);
  if (s.decision !== undefined) f.push(["decision", s.decision]);
  if (s.ruleIds !== undefined && s.ruleIds.length > 0) f.push(["rules", s.ruleIds.join(",")]);
  if (s.policyVersion !== undefined) f.push(["policy", s.policyVersion]);
  if (s.approvalId !== undefined) f.push(["approval", s.approvalId]);
  if (s.approver !== undefined) f.push(["approver", s.approver]);
  if (s.argsHash !== undefined) f.push(["argsHash", s.argsHash]);
  if (s.expiresAt !== undefined) f.push(["expires", s.expiresAt]);
  if (s.ok !== undefined) f.push(["ok", s.ok]);
  if (s.durationMs !== undefined) f.push(["ran", `${round(s.durationMs)}ms`]);
  if (s.resultPreview !== undefined) f.push(["result", cut(s.resultPreview, PREVIEW)]);
  if (s.artifacts !== undefined) f.push(["artifacts", s.artifacts.map((a) => `${a.id}(${a.bytes}B)`).join(",")]);
  if (s.error !== undefined) f.push(["error", `${s.error.code}: ${s.error.message}`]);
  if (s.turn !== undefined) f.push(["turn", s.turn], ["tools", (s.tools ?? []).join(",") || "-"], ["hidden", s.hidden ?? 0]);
  if (s.reason !== undefined) f.push(["reason", s.reason]);
  // JSON is already one token; other text with spaces is quoted so each pair reads as one
  return f.map(([k, v]) => `${k}=${k !== "args" && k !== "editedArgs" && k !== "result" && typeof v === "string" && /\s/.test(v) ? JSON.stringify(v) : String(v)}`).join(" ");
}

/** A call's timeline, then its child calls indented under it. */
export function traceText(t: CallTrace, indent = ""): string {
  const head = `${indent}call ${t.callId} ${t.tool} (domain ${t.domain}): ${t.status} after ${round(t.totalMs)}ms, ${t.steps.length} events`;
  const who = `${indent}  by ${t.principal} in ${t.mode} mode, run ${t.correlationId}${t.parentCallId ? `, child of ${t.parentCallId}` : ""}`;
  const typeWidth = Math.max(0, ...t.steps.map((s) => s.type.length));
  const actorWidth = Math.max(0, ...t.steps.map((s) => s.actor.length));
  const lines = t.steps.map(
    (s) => `${indent}  ${`+${round(s.sincePrevMs)}ms`.padStart(9)}  ${s.ts}  ${s.type.padEnd(typeWidth)}  ${s.actor.padEnd(actorWidth)}  ${stepDetails(s)}`.trimEnd(),
  );
  const violations = t.violations.map((v) => `${indent}  VIOLATION ${v.kind} at ${v.type} (seq ${v.seq}): ${v.detail}`);
  const children =
    t.children.length === 0 ? [] : [`${indent}  child calls (${t.children.length}):`, ...t.children.map((c) => traceText(c, `${indent}    `))];
  return [head, who, ...lines, ...violations, ...children].join("\n");
}

/** Messages under a call's subjects that are not valid events (left out of the trace and every model). */
export function unreadableLines(unreadable: readonly { readonly seq: number; readonly subject: string; readonly reason: string }[], indent = ""): string[] {
  return unreadable.map((m) => `${indent}  UNREADABLE seq ${m.seq} ${m.subject}: ${m.reason}`);
}

function round(ms: number): string {
  return ms >= 10 ? String(Math.round(ms)) : String(Math.round(ms * 10) / 10);
}
