import { expect } from "vitest";
import { startDeployment, type Deployment, type DeploymentOptions } from "./deployment.js";
import type { PhaseOptions, PhaseResult } from "./phase.js";
import { appendRow, type ReportRow } from "./report.js";
import { StreamScan } from "./stream-scan.js";

/** Reads a scenario's size from the environment, so a run can be made longer or shorter. */
export const sizeFromEnv = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);

/** The failover target of issue 9: calls flow again within 10 s of losing the stream leader. */
export const FAILOVER_TARGET_MS = 10_000;

/** A call is stuck once nothing happened to it for 45 s: a killed service's messages come back after a 30 s ack wait. */
export const LONG_PHASE = { settleTimeoutMs: 180_000, settleIdleMs: 45_000, history: true } satisfies Partial<PhaseOptions>;

/** Runs `body` on a fresh deployment and stops it however the body ends; `cleanup` runs first (e.g. heal a cut network). */
export async function withDeployment<T>(o: DeploymentOptions, body: (d: Deployment, scan: StreamScan) => Promise<T>, cleanup?: () => void): Promise<T> {
  const d = await startDeployment(o);
  try {
    return await body(d, new StreamScan(d.admin));
  } finally {
    cleanup?.();
    await d.stop();
  }
}

/** Appends the scenario's row to the run's report (CHAOS_REPORT_FILE), printed as one table at the end. */
export function report(row: ReportRow): void {
  appendRow(process.env["CHAOS_REPORT_FILE"], row);
}

/** What every scenario must end with; soft, so one run reports every broken promise at once. */
export function expectSound(r: Pick<PhaseResult, "calls" | "history">): void {
  expect.soft(r.calls.lost, "acknowledged requests the stream does not hold").toEqual([]);
  expect.soft(r.calls.unrecordedEffects, "run-once side effects with no ToolCallFinished or ToolCallLateResult").toEqual([]);
  expect.soft(r.calls.effectlessResults, "calls that finished ok with no side effect behind them").toEqual([]);
  expect.soft(r.calls.stuck, "calls with no ending").toEqual([]);
  expect.soft(r.calls.duplicates, "calls that ended more than once").toEqual([]);
  expect.soft(r.calls.doubleEffects, "run-once side effects that happened twice").toEqual([]);
  expect.soft(r.history?.projectorLag, "projector behind the stream's end").toBe(0);
  expect.soft(r.history?.audit, "warden audit --verify").toBe("clean");
  expect.soft(r.history?.replay, "warden replay").toBe("equal");
  expect.soft(r.history?.dlqRepeats, "poison copied to the DLQ more than once by one stage").toBe(0);
  expect(r.calls.calls).toBeGreaterThan(0);
}
