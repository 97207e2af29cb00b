import { readFileSync } from "node:fs";
import type { Bus } from "@warden/bus";
import { STREAM_DLQ } from "@warden/contracts/subjects";
import { openCursor } from "@warden/projector";
import type { Deployment } from "./deployment.js";
import type { StreamScan } from "./stream-scan.js";
import { SEND_TOOL, WRITE_TOOL } from "./chaos-executor.js";

const RUN_ONCE_TOOLS: ReadonlySet<string> = new Set([WRITE_TOOL, SEND_TOOL]);

/** The calls of one scenario, as the stream and the side-effect file tell it. */
export interface CallCheck {
  readonly calls: number;
  /** Calls the server acknowledged to an agent (its publish ack) in the scope. */
  readonly acked: number;
  /** Acknowledged call ids the stream holds no request for: a stored request was lost. */
  readonly lost: readonly string[];
  /**
   * Run-once side effects with no record of them: a call id the stream does not know (a run outside
   * Warden), or a call with neither a ToolCallFinished nor a ToolCallLateResult.
   */
  readonly unrecordedEffects: readonly string[];
  /** Calls of the run-once tools that finished ok with no side effect behind them: a result that did not happen. */
  readonly effectlessResults: readonly string[];
  /** Calls with exactly one terminal event. */
  readonly terminal: number;
  /** Calls with no terminal event once the system settled. */
  readonly stuck: readonly string[];
  /** Calls with more than one terminal event. */
  readonly duplicates: readonly string[];
  /** Calls whose run-once side effect happened more than once. */
  readonly doubleEffects: readonly string[];
  readonly outcomeUnknown: number;
  /** Calls whose side effect happened but that ended OutcomeUnknown: a known result was lost. */
  readonly lostResults: readonly string[];
  /** Of the lost results, those with no ToolCallLateResult: a run that ended after the call did, and left no trace. */
  readonly lateRunsUnrecorded: readonly string[];
  /** The longest a call took from its request to its ending, as the server stored them. */
  readonly slowestMs: number;
}

/** The history as an auditor sees it: projector, `warden audit --verify`, `warden replay`, the DLQ. */
export interface HistoryCheck {
  readonly streamLastSeq: number;
  /** How far the projector's cursor is behind the stream's end once it had time to catch up. */
  readonly projectorLag: number;
  readonly auditClean: boolean;
  readonly audit: string;
  readonly replayEqual: boolean;
  readonly replay: string;
  /** DLQ copies of one stream message by one stage beyond the first (poison recorded more than once). */
  readonly dlqRepeats: number;
  readonly dlqCopies: number;
}

export interface SettleOptions {
  /** Only calls requested after this sequence count. */
  readonly afterSeq?: number;
  readonly timeoutMs: number;
  /**
   * A call without an ending counts as stuck once nothing was stored for it for this long. It
   * must exceed the longest legitimate pause: a message held by a killed service is delivered
   * again only after its consumer's ack wait (30 s for the core stages).
   */
  readonly idleMs: number;
  /** After every call ended, how long to keep looking for a second terminal event. */
  readonly graceMs?: number;
}

/** Waits until every call requested in the scope has ended (or nothing moves any more). */
export async function settle(scan: StreamScan, o: SettleOptions): Promise<void> {
  const deadline = Date.now() + o.timeoutMs;
  for (;;) {
    await scan.advance();
    const open = scan.requested(o.afterSeq).filter((c) => c.terminals.length === 0);
    const moving = open.filter((c) => Date.now() - c.lastAt <= o.idleMs);
    if (moving.length === 0 || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  // a frozen or late executor may still write a second ending: give it the chance to show
  await new Promise((r) => setTimeout(r, o.graceMs ?? 2_000));
  await scan.advance();
}

/**
 * Counts per call: every request an agent was told is stored is in the stream, exactly one ending
 * each, and every run-once side effect matches one recorded result (and the other way round).
 * `acked`: the call ids agents got a publish ack for in the scope.
 */
export function checkCalls(scan: StreamScan, effectsFile: string, afterSeq = 0, acked: readonly string[] = []): CallCheck {
  const calls = scan.requested(afterSeq);
  const effects = effectCounts(effectsFile);
  const inScope = new Set(calls.map((c) => c.callId));
  const recorded = (id: string) => {
    const c = scan.calls.get(id);
    return c !== undefined && (c.types.includes("ToolCallFinished") || c.types.includes("ToolCallLateResult"));
  };
  const lost = calls.filter(
    (c) => (effects.get(c.callId) ?? 0) > 0 && c.terminals.includes("ToolCallOutcomeUnknown") && !c.terminals.includes("ToolCallFinished"),
  );
  return {
    calls: calls.length,
    acked: acked.length,
    lost: acked.filter((id) => scan.calls.get(id)?.requestSeq === undefined),
    // an effect of a call the stream does not know is reported whatever the scope: nothing ran it through Warden
    unrecordedEffects: [...effects.keys()].filter((id) => (inScope.has(id) || !scan.calls.has(id)) && !recorded(id)),
    effectlessResults: calls.filter((c) => RUN_ONCE_TOOLS.has(c.tool ?? "") && c.finishedOk === true && !effects.has(c.callId)).map((c) => c.callId),
    terminal: calls.filter((c) => c.terminals.length === 1).length,
    // what a stuck call got as far as says which stage dropped it
    stuck: calls.filter((c) => c.terminals.length === 0).map((c) => `${c.callId} ${c.tool ?? "(unreadable)"} (${c.types.join(", ")})`),
    duplicates: calls.filter((c) => c.terminals.length > 1).map((c) => `${c.callId} (${c.terminals.join(", ")})`),
    doubleEffects: [...effects].filter(([id, n]) => n > 1 && inScope.has(id)).map(([id, n]) => `${id} ×${n}`),
    outcomeUnknown: calls.filter((c) => c.terminals.includes("ToolCallOutcomeUnknown")).length,
    lostResults: lost.map((c) => c.callId),
    lateRunsUnrecorded: lost.filter((c) => !c.types.includes("ToolCallLateResult")).map((c) => c.callId),
    slowestMs: calls.reduce((m, c) => (c.endedAt !== undefined && c.requestedAt !== undefined ? Math.max(m, c.endedAt - c.requestedAt) : m), 0),
  };
}

function effectCounts(file: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const callId = line.split(" ")[0];
    if (callId) counts.set(callId, (counts.get(callId) ?? 0) + 1);
  }
  return counts;
}

/** However fast it moves, a projector that needs longer than this to reach the stream's end is behind. */
const CATCH_UP_LIMIT_MS = 15 * 60_000;

/**
 * Lets the projector catch up to the stream's end (waited for while it moves; `catchUpMs` is how
 * long it may stand still), then runs the operator's own checks with
 * the built CLI as the admin: `audit --verify` must find nothing and `replay` must rebuild every
 * model with the live digests, at the stream's last sequence (not a cursor stuck before it).
 */
export async function checkHistory(d: Deployment, scan: StreamScan, catchUpMs = 30_000): Promise<HistoryCheck> {
  await scan.advance();
  const last = scan.lastSeq;
  const cursor = await openCursor(d.admin);
  // a projector still moving is waited for (a 100k backlog leaves it minutes behind the drain);
  // one that stops moving for `catchUpMs` is behind for good
  const givesUpAt = Date.now() + CATCH_UP_LIMIT_MS;
  let at = await cursor.read();
  let movedAt = Date.now();
  while (at < last && Date.now() - movedAt < catchUpMs && Date.now() < givesUpAt) {
    await new Promise((r) => setTimeout(r, 250));
    const now = await cursor.read();
    if (now > at) movedAt = Date.now();
    at = now;
  }
  const audit = await d.cli(["audit", "--verify", "--json"]);
  const parsedAudit = parseJson(audit.stdout) as
    | { verified?: boolean; findings?: { callId: string; kind?: string; detail?: string }[]; evidence?: { findings?: { callId?: string; kind?: string; detail?: string }[] }; error?: { message?: string } }
    | undefined;
  // the evidence's findings (checkpoints, hashes, signatures) are listed apart from the calls' invariants
  const auditDoc =
    parsedAudit === undefined
      ? undefined
      : { ...parsedAudit, findings: [...(parsedAudit.findings ?? []), ...(parsedAudit.evidence?.findings ?? []).map((f) => ({ ...f, callId: f.callId ?? "-" }))] };
  const auditClean = audit.code === 0 && auditDoc?.verified === true;
  const auditText =
    auditDoc?.verified === undefined
      ? `crashed (exit ${audit.code}): ${auditDoc?.error?.message?.slice(0, 200) ?? lastLine(audit.stderr + audit.stdout)}`
      : auditClean
        ? "clean"
        : `${auditDoc.findings?.length ?? "?"} findings: ${summariseFindings(auditDoc.findings ?? [])}${firstFinding(auditDoc.findings ?? [])}`;
  const replay = await d.cli(["replay", "--json"]);
  const replayDoc = parseJson(replay.stdout) as { matches?: boolean; toSeq?: number; liveCursor?: number; error?: { message?: string } } | undefined;
  const replayEqual = replay.code === 0 && replayDoc?.matches === true && replayDoc.toSeq === last;
  const replayText =
    replayDoc === undefined || replayDoc.toSeq === undefined
      ? `crashed (exit ${replay.code}): ${replayDoc?.error?.message?.slice(0, 200) ?? lastLine(replay.stderr + replay.stdout)}`
      : replayEqual
        ? "equal"
        : `matches=${String(replayDoc.matches)} at seq ${replayDoc.toSeq} of ${last} (live cursor ${replayDoc.liveCursor})`;
  const dlq = await dlqCopies(d.admin);
  return {
    streamLastSeq: last,
    projectorLag: Math.max(0, last - at),
    auditClean,
    audit: auditText,
    replayEqual,
    replay: replayText,
    dlqRepeats: dlq.repeats,
    dlqCopies: dlq.copies,
  };
}

function summariseFindings(findings: readonly { kind?: string; detail?: string }[]): string {
  const byKind = new Map<string, number>();
  for (const f of findings) {
    const k = f.kind ?? f.detail?.slice(0, 60) ?? "?";
    byKind.set(k, (byKind.get(k) ?? 0) + 1);
  }
  return [...byKind].map(([k, n]) => `${k} ×${n}`).join("; ");
}

function firstFinding(findings: readonly { callId: string; kind?: string; detail?: string }[]): string {
  const f = findings[0];
  return f === undefined ? "" : ` (first: ${f.callId} ${f.kind ?? ""}: ${(f.detail ?? "").slice(0, 160)})`;
}

/** Every DLQ copy's stage and original sequence, from its headers (payloads are not needed). */
async function dlqCopies(bus: Bus): Promise<{ copies: number; repeats: number }> {
  const info = await bus.jsm.streams.info(STREAM_DLQ);
  const seen = new Map<string, number>();
  let copies = 0;
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await bus.jsm.streams.getMessage(STREAM_DLQ, { seq }).catch(() => undefined);
    if (m === undefined || m === null) continue;
    copies++;
    const key = `${m.header?.get("Warden-Dlq-Stage") ?? "?"}#${m.header?.get("Warden-Dlq-Seq") ?? `dlq${seq}`}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return { copies, repeats: [...seen.values()].reduce((sum, n) => sum + (n - 1), 0) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function lastLine(text: string): string {
  const lines = text.trim().split("\n").filter((l) => l.trim() !== "");
  return (lines.find((l) => /RangeError|Error:|warden:/.test(l)) ?? lines.at(-1) ?? "(no output)").slice(0, 200);
}
