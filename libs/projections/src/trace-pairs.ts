import { cut, type TraceStep } from "./trace.js";

/** A value in a step's details is cut to this many characters. */
const PREVIEW = 120;

/** Hex digits a shortened hash keeps: enough to tell the hashes of one trace apart. */
export const SHORT_HASH_HEX = 8;

/** `sha256:c557889a…` for `sha256:c557889a<56 more>`; anything that is not such a hash unchanged. */
export function shortHash(hash: string): string {
  const m = /^(sha256:)?([0-9a-f]{64})$/.exec(hash);
  if (m === null) return hash;
  return `${m[1] ?? ""}${m[2]!.slice(0, SHORT_HASH_HEX)}…`;
}

/**
 * The details of a step worth a glance, as `key=value` pairs; `short` shortens hashes. Shared by
 * `warden trace`'s text and every HTML timeline (the CLI's file, the inbox's Calls page).
 */
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
  if (s.durationMs !== undefined) f.push(["ran", `${roundMs(s.durationMs)}ms`]);
  if (s.resultPreview !== undefined) f.push(["result", cut(s.resultPreview, PREVIEW)]);
  if (s.artifacts !== undefined) f.push(["artifacts", s.artifacts.map((a) => `${a.id}(${a.bytes}B)`).join(",")]);
  if (s.error !== undefined) f.push(["error", `${s.error.code}: ${s.error.message}`]);
  if (s.undo !== undefined) f.push(["undo", cut(s.undo, PREVIEW)]);
  if (s.credentials !== undefined) f.push(["credentials", s.credentials.join(",")]);
  if (s.effects !== undefined) {
    if (s.effects.reads.length > 0) f.push(["read", cut(s.effects.reads.join(", "), PREVIEW)]);
    if (s.effects.writes.length > 0) f.push(["wrote", cut(s.effects.writes.join(", "), PREVIEW)]);
    if (s.effects.external.length > 0) f.push(["called", cut(s.effects.external.join(", "), PREVIEW)]);
    // reported past the bounds: only counted
    if (s.effects.dropped !== undefined) f.push(["effectsDropped", s.effects.dropped]);
  }
  if (s.personalDataRedacted !== undefined) {
    f.push(["masked", Object.entries(s.personalDataRedacted).map(([kind, n]) => `${n} ${kind}`).join(", ")]);
  }
  if (s.turn !== undefined) f.push(["turn", s.turn], ["tools", (s.tools ?? []).join(",") || "-"], ["hidden", s.hidden ?? 0]);
  if (s.reason !== undefined) f.push(["reason", s.reason]);
  // JSON is already one token; other text with spaces is quoted so each pair reads as one
  return f.map(([k, v]) => `${k}=${k !== "args" && k !== "editedArgs" && k !== "result" && k !== "undo" && typeof v === "string" && /\s/.test(v) ? JSON.stringify(v) : String(v)}`);
}

/** Milliseconds as a short number: whole from 10 up, one decimal below. */
export function roundMs(ms: number): string {
  return ms >= 10 ? String(Math.round(ms)) : String(Math.round(ms * 10) / 10);
}
