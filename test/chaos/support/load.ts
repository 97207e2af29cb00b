import type { AgentClient } from "@warden/sdk";
import { SEND_TOOL, WRITE_TOOL } from "./chaos-executor.js";

/** One call an agent made, as the agent saw it. */
export interface CallRecord {
  readonly requestedAt: number;
  readonly tool: string;
  callId?: string;
  /** Set when the server acknowledged storing the request (the SDK's onAccepted): from then on it must end. */
  acceptedAt?: number;
  settledAt?: number;
  status?: string;
  /** The error code the agent was given, if any. */
  code?: string;
  ok?: boolean;
}

export interface LoadOptions {
  readonly agent: AgentClient;
  /** Calls asked for per second, whether or not earlier ones came back (open loop). */
  readonly rate: number;
  /** No new call while this many are in flight (a caller's own limit). */
  readonly maxInFlight?: number;
  /** Share of calls that are sends (a person approves them); the rest are writes. */
  readonly sendShare?: number;
  /** How long each run works before its side effect (a wider window for faults mid-run). */
  readonly delayMs?: number;
  readonly callTimeoutMs?: number;
}

export interface Load {
  readonly records: readonly CallRecord[];
  /** Call ids whose request the server acknowledged, as the agents were told. */
  accepted(): string[];
  /** Calls that succeeded, as their agents saw it. */
  succeeded(): number;
  /**
   * Resolves with the time a call asked for at or after `t` first succeeded (the system works
   * again), or undefined if none did within `timeoutMs`.
   */
  firstSuccessAfter(t: number, timeoutMs: number): Promise<number | undefined>;
  /** Resolves once `n` more calls succeeded. */
  waitForSuccesses(n: number, timeoutMs: number): Promise<void>;
  /** Stops issuing calls; those in flight go on. */
  halt(): void;
  /** Stops issuing calls and waits for those in flight to come back. */
  stop(): Promise<void>;
}

/**
 * Agents calling through the SDK at a steady rate, each call with fresh args so its side effect
 * is its own. Arrivals do not wait for earlier calls (a call stuck in a fault must not stop the
 * next one from showing that the system works again); a failed call is not re-sent, since a
 * re-send is a new call.
 */
export function startLoad(o: LoadOptions): Load {
  const records: CallRecord[] = [];
  let stopping = false;
  let successes = 0;
  let n = 0;
  const inFlight = new Set<Promise<void>>();
  const waiters = new Set<() => void>();
  const notify = () => waiters.forEach((w) => w());

  const one = async () => {
    const send = o.sendShare !== undefined && Math.random() < o.sendShare;
    const tool = send ? SEND_TOOL : WRITE_TOOL;
    const rec: CallRecord = { requestedAt: Date.now(), tool };
    records.push(rec);
    const args = { n: n++, ...(o.delayMs ? { delayMs: o.delayMs } : {}) };
    try {
      // a send waits through its approval to the end; a write in plan mode runs at once
      const onAccepted = (callId: string) => {
        rec.callId = callId;
        rec.acceptedAt = Date.now();
      };
      const r = await o.agent.call(tool, args, { mode: "plan", wait: send, timeoutMs: o.callTimeoutMs ?? 60_000, onAccepted });
      rec.callId = r.callId;
      rec.status = r.status;
      if (r.error !== undefined) rec.code = r.error.code;
      rec.ok = r.ok;
      if (r.ok) successes++;
    } catch (err) {
      // call() promises a value, never an exception: one that throws is recorded, not fatal to the run
      rec.status = `threw: ${(err as Error).message}`;
      rec.ok = false;
    }
    rec.settledAt = Date.now();
    notify();
  };
  const period = 1000 / o.rate;
  const ticker = setInterval(() => {
    if (stopping || inFlight.size >= (o.maxInFlight ?? 100)) return;
    const p = one().finally(() => inFlight.delete(p));
    inFlight.add(p);
  }, period);

  const until = <T>(check: () => T | undefined, timeoutMs: number): Promise<T | undefined> =>
    new Promise((resolve) => {
      const done = (v: T | undefined) => {
        waiters.delete(poll);
        clearTimeout(timer);
        resolve(v);
      };
      const poll = () => {
        const v = check();
        if (v !== undefined) done(v);
      };
      const timer = setTimeout(() => done(undefined), timeoutMs);
      waiters.add(poll);
      poll();
    });

  return {
    records,
    accepted: () => records.flatMap((r) => (r.acceptedAt !== undefined && r.callId !== undefined ? [r.callId] : [])),
    succeeded: () => successes,
    firstSuccessAfter(t, timeoutMs) {
      return until(() => {
        let best: number | undefined;
        for (const r of records) {
          if (r.ok && r.requestedAt >= t && r.settledAt !== undefined && (best === undefined || r.settledAt < best)) best = r.settledAt;
        }
        return best;
      }, timeoutMs);
    },
    async waitForSuccesses(n, timeoutMs) {
      const target = successes + n;
      const reached = await until(() => (successes >= target ? true : undefined), timeoutMs);
      if (reached === undefined) throw new Error(`only ${successes - (target - n)} of ${n} calls succeeded within ${timeoutMs} ms`);
    },
    halt() {
      stopping = true;
      clearInterval(ticker);
    },
    async stop() {
      stopping = true;
      clearInterval(ticker);
      await Promise.all([...inFlight]);
    },
  };
}
