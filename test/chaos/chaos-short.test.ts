import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDeployment, type Deployment } from "./support/deployment.js";
import { checkCalls, checkHistory } from "./support/end-state.js";
import { freezeExecutorMidRun, killStorm, restartNats } from "./support/faults.js";
import { peakRssOf, runPhase, type PhaseOptions, type PhaseResult } from "./support/phase.js";
import { POISON_KINDS, publishPoison, whatTheCallerSees, type PoisonSent } from "./support/poison.js";
import { renderTable, rowOf, type ReportRow } from "./support/report.js";
import { StreamScan } from "./support/stream-scan.js";
import { effectOutsideWarden, forgetEffect, rebuildCallStreamWithout } from "./support/tamper.js";

/**
 * The short chaos run CI does on every change: one deployment (a secured nats-server, every
 * service and two executor copies as OS processes), one fault of each cheap kind in turn, and
 * after each the calls of that phase must all end exactly once with no run-once side effect
 * twice. `npm run chaos` runs the long suite (test/chaos/long.chaos.ts).
 */
// a call is stuck once nothing happened to it for 35 s: a killed service's messages come back after a 30 s ack wait
const common = { rate: 8, settleTimeoutMs: 60_000, settleIdleMs: 35_000, history: false } satisfies Partial<PhaseOptions>;

function expectEveryCallEndedOnce(r: Pick<PhaseResult, "calls">): void {
  expect.soft(r.calls.lost, "acknowledged requests the stream does not hold").toEqual([]);
  expect.soft(r.calls.unrecordedEffects, "run-once side effects with no ToolCallFinished or ToolCallLateResult").toEqual([]);
  expect.soft(r.calls.effectlessResults, "calls that finished ok with no side effect behind them").toEqual([]);
  expect.soft(r.calls.stuck, "calls with no ending").toEqual([]);
  expect.soft(r.calls.duplicates, "calls that ended twice").toEqual([]);
  expect.soft(r.calls.doubleEffects, "run-once side effects that happened twice").toEqual([]);
  expect(r.calls.calls).toBeGreaterThan(0);
}

describe("chaos (short): every call ends exactly once through every kind of fault", () => {
  let d: Deployment;
  let scan: StreamScan;
  const rows: ReportRow[] = [];
  /** Every call id an agent was told the server stored, over all phases. */
  const acked: string[] = [];
  const phase = async (...args: Parameters<typeof runPhase>): Promise<PhaseResult> => {
    const r = await runPhase(...args);
    acked.push(...r.acked);
    rows.push(r.row);
    return r;
  };

  beforeAll(async () => {
    // a claim lasts 3 s, so the other executor copy gives up on a frozen one within seconds
    d = await startDeployment({ executors: 2, toolTimeoutMs: 3_000, executorAckWaitMs: 2_000 });
    scan = new StreamScan(d.admin);
  }, 60_000);

  afterAll(async () => {
    if (rows.length > 0) process.stdout.write(`\nchaos (short)\n${renderTable(rows)}\n`);
    await d?.stop();
  }, 60_000);

  it("a SIGKILL of every service (each started again at once) leaves no call unended or ended twice", async () => {
    const r = await phase(d, scan, { ...common, name: "SIGKILL each service", sendShare: 0.25 }, () =>
      killStorm(d, { kills: d.services.length, gapMs: [200, 600] }),
    );
    expectEveryCallEndedOnce(r);
    expect(r.faults.every((f) => f.recoveredAt !== undefined), "calls flow again after every kill").toBe(true);
  }, 120_000);

  it("a nats-server kill -9 and restart on the same store loses no call and no known result", async () => {
    const r = await phase(d, scan, { ...common, name: "nats kill -9", delayMs: 200 }, ({ load }) =>
      restartNats(d, load, { rounds: 1, outageMs: 1_000 }),
    );
    expectEveryCallEndedOnce(r);
    // a run that finished while the server was briefly away still records its result
    expect.soft(r.calls.lostResults, "runs whose side effect happened but that ended OutcomeUnknown").toEqual([]);
    expect(r.faults[0]?.recoveredAt, "calls flow again after the restart").toBeDefined();
  }, 120_000);

  it("an executor frozen mid-run (SIGSTOP) and resumed after the other copy gave up on it ends its call once", async () => {
    const r = await phase(d, scan, { ...common, name: "SIGSTOP/SIGCONT executor", delayMs: 1_000 }, ({ scan: s }) =>
      freezeExecutorMidRun(d, s, { executor: "executor-e1", executorId: "e1", rounds: 1, frozenLimitMs: 20_000 }),
    );
    expectEveryCallEndedOnce(r);
    // the frozen run did act: audit must be able to show it, as a late result next to the ending
    expect.soft(r.calls.lateRunsUnrecorded, "runs that acted after their call ended, with no ToolCallLateResult").toEqual([]);
  }, 120_000);

  it("a request of every poison kind is refused with a ToolCallRejected its caller sees, and calls flow on", async () => {
    let sent: PoisonSent[] = [];
    const r = await phase(d, scan, { ...common, name: "poison of every kind" }, async ({ load }) => {
      sent = await publishPoison(d.admin, POISON_KINDS);
      await load.waitForSuccesses(3, 30_000);
      return [{ kind: "poison", target: POISON_KINDS.join(","), at: sent[0]!.at }];
    });
    const endings = Object.fromEntries(sent.map((p) => [p.kind, scan.calls.get(p.callId)?.terminals ?? []]));
    const agent = await d.agentBus();
    const seen = Object.fromEntries(await Promise.all(sent.map(async (p) => [p.kind, await whatTheCallerSees(agent, p.callId)] as const)));
    expect.soft(endings).toEqual(Object.fromEntries(POISON_KINDS.map((k) => [k, ["ToolCallRejected"]])));
    expect.soft(seen, `what each poison request's caller reads of it: ${JSON.stringify(seen)}`).toEqual(Object.fromEntries(POISON_KINDS.map((k) => [k, ["ToolCallRejected"]])));
    expectEveryCallEndedOnce(r);
  }, 120_000);

  it("after all of it, audit --verify is clean and replay rebuilds the live models up to the stream's end", async () => {
    const h = await checkHistory(d, scan);
    const all = checkCalls(scan, d.effectsFile, 0, acked);
    rows.push(rowOf("all phases", all, h, [], d.services.reduce((n, s) => n + s.crashes(), 0), { peakRss: peakRssOf(d) }));
    expect(all.acked, "every call an agent asked for was acknowledged, so the loss check below has something to check").toBeGreaterThan(20);
    expectEveryCallEndedOnce({ calls: all });
    expect.soft(h.projectorLag, "projector behind the stream's end").toBe(0);
    expect.soft(h.audit).toBe("clean");
    expect.soft(h.replay).toBe("equal");
    expect(h.dlqRepeats, "poison copied to the DLQ more than once by one stage").toBe(0);
  }, 120_000);

  // a check that cannot fail proves nothing: each end check is shown failing once, on purpose
  it("the end checks go red when an acknowledged request is lost, a side effect went around Warden, or a result had no effect", async () => {
    await Promise.all(d.services.map((s) => s.signal("SIGTERM")));
    const finished = [...scan.calls.values()].find((c) => c.finishedOk === true && acked.includes(c.callId));
    if (finished === undefined) throw new Error("no call finished ok to tamper with");
    const victim = acked.find((id) => id !== finished.callId)!;
    const before = checkCalls(scan, d.effectsFile, 0, acked);
    expect([before.lost, before.unrecordedEffects, before.effectlessResults]).toEqual([[], [], []]);

    const rebuilt = await rebuildCallStreamWithout(d.admin, victim);
    expect(rebuilt.dropped).toBe(1);
    effectOutsideWarden(d.effectsFile, "call-run-outside-warden");
    forgetEffect(d.effectsFile, finished.callId);
    const fresh = new StreamScan(d.admin);
    await fresh.advance();
    const after = checkCalls(fresh, d.effectsFile, 0, acked);
    expect(after.lost, "the request the admin dropped").toEqual([victim]);
    expect(after.unrecordedEffects, "the side effect nothing in the stream ran").toEqual(["call-run-outside-warden"]);
    expect(after.effectlessResults, "the call that finished ok whose effect was removed").toEqual([finished.callId]);
  }, 120_000);
});
