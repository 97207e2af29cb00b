import { createAgentClient } from "@warden/sdk";
import { startApproverBot } from "./approver-bot.js";
import { AGENT, APPROVER_PERSON, type Deployment } from "./deployment.js";
import { checkCalls, checkHistory, settle, type CallCheck, type HistoryCheck } from "./end-state.js";
import { measureRecoveries, type Fault } from "./faults.js";
import { startLoad, type Load } from "./load.js";
import { rowOf, type ReportRow } from "./report.js";
import type { StreamScan } from "./stream-scan.js";

export interface PhaseOptions {
  readonly name: string;
  /** Calls per second the agents ask for while the faults happen. */
  readonly rate: number;
  /** Share of sends (approved by a person) among the calls. */
  readonly sendShare?: number;
  /** How long each run works before its side effect. */
  readonly delayMs?: number;
  /** Settling: overall limit and how long nothing may move before the rest counts as stuck. */
  readonly settleTimeoutMs: number;
  readonly settleIdleMs: number;
  /** Also run the projector, `audit --verify` and `replay` checks. */
  readonly history: boolean;
}

/** How long agents went on waiting after their call had ended in the stream. */
export interface AgentWaits {
  readonly maxMs: number;
  /** Agent calls that came back without their ending (timed out) though the stream has one. */
  readonly missedEndings: number;
  /** The call behind maxMs: when it ended in the stream and when its agent heard. */
  readonly slowest?: { readonly callId: string; readonly endedAt: number; readonly settledAt: number };
}

export function agentWaits(load: Load, scan: StreamScan): AgentWaits {
  let maxMs = 0;
  let missedEndings = 0;
  let slowest: AgentWaits["slowest"];
  for (const r of load.records) {
    const ended = r.callId === undefined ? undefined : scan.calls.get(r.callId)?.endedAt;
    if (ended === undefined || r.settledAt === undefined || r.callId === undefined) continue;
    // a call that came back pending (timed out, or its wait was ended) never told its agent
    if (r.status === "pending") missedEndings++;
    if (r.settledAt - ended > maxMs) {
      maxMs = r.settledAt - ended;
      slowest = { callId: r.callId, endedAt: ended, settledAt: r.settledAt };
    }
  }
  return { maxMs, missedEndings, ...(slowest ? { slowest } : {}) };
}

/** What the slowest agent wait overlapped: the faults from 10 s before its call ended until its agent heard. */
export function slowestWaitNote(agents: AgentWaits, faults: readonly Fault[]): string | undefined {
  const w = agents.slowest;
  if (w === undefined) return undefined;
  const at = (t: number) => `${((t - w.endedAt) / 1000).toFixed(1)}s`;
  const near = faults.filter((f) => f.at >= w.endedAt - 10_000 && f.at <= w.settledAt).map((f) => `${f.kind} ${f.target} at ${at(f.at)}`);
  return `slowest agent wait ${at(w.settledAt)} (call ${w.callId}); faults from 10 s before its end: ${near.length > 0 ? near.join(", ") : "none"}`;
}

export interface PhaseResult {
  readonly row: ReportRow;
  /** The call ids agents were told the server stored. */
  readonly acked: readonly string[];
  readonly calls: CallCheck;
  readonly history?: HistoryCheck;
  readonly faults: readonly Fault[];
  readonly agents: AgentWaits;
  /** What the agents were told, counted by status and error code (`succeeded`, `failed UNAVAILABLE`, …). */
  readonly outcomes: Readonly<Record<string, number>>;
}

export function outcomesOf(load: Load): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of load.records) {
    const what = r.status === undefined ? "no answer" : `${r.status}${r.code === undefined ? "" : ` ${r.code}`}`;
    out[what] = (out[what] ?? 0) + 1;
  }
  return out;
}

/** Each process's highest peak so far (services, executor copies and nats-server nodes), by name. */
export function peakRssOf(d: Deployment): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of [...d.services, ...d.nats.nodes.map((n) => n.process)]) out[p.name] = p.maxPeakRssBytes();
  return out;
}

export interface PhaseContext {
  readonly load: Load;
  readonly scan: StreamScan;
}

/**
 * Runs one chaos phase on a deployment: agents call (and a person approves) throughout, the
 * faults are injected, then the calls asked for during the phase must all end exactly once.
 */
export async function runPhase(d: Deployment, scan: StreamScan, o: PhaseOptions, inject: (ctx: PhaseContext) => Promise<Fault[]>): Promise<PhaseResult> {
  await scan.advance();
  const afterSeq = scan.lastSeq;
  const crashesBefore = d.services.reduce((n, s) => n + s.crashes(), 0);
  const agent = createAgentClient({ bus: await d.agentBus(), principal: AGENT, mode: "plan" });
  const bot = (o.sendShare ?? 0) > 0 ? startApproverBot(await d.approverBus(), APPROVER_PERSON) : undefined;
  const load = startLoad({ agent, rate: o.rate, ...(o.sendShare ? { sendShare: o.sendShare } : {}), ...(o.delayMs ? { delayMs: o.delayMs } : {}) });
  let faults: Fault[] = [];
  try {
    // faults hit a system that is working, not one still warming up
    await load.waitForSuccesses(3, 60_000);
    faults = await inject({ load, scan });
    await measureRecoveries(load, faults);
  } finally {
    load.halt();
    await settle(scan, { afterSeq, timeoutMs: o.settleTimeoutMs, idleMs: o.settleIdleMs });
    // a call whose ending never came back stops waiting here; the stream already says it is stuck
    await agent.close();
    await load.stop();
    await bot?.stop();
  }
  const acked = load.accepted();
  const calls = checkCalls(scan, d.effectsFile, afterSeq, acked);
  const history = o.history ? await checkHistory(d, scan) : undefined;
  const crashes = d.services.reduce((n, s) => n + s.crashes(), 0) - crashesBefore;
  const agents = agentWaits(load, scan);
  const waitNote = slowestWaitNote(agents, faults);
  return { row: rowOf(o.name, calls, history, faults, crashes, { agentWaitMaxMs: agents.maxMs, peakRss: peakRssOf(d), ...(waitNote ? { notes: waitNote } : {}) }), acked, calls, ...(history ? { history } : {}), faults, agents, outcomes: outcomesOf(load) };
}
