import { describe, expect, it } from "vitest";
import { drainBacklog, type BacklogResult } from "./support/backlog.js";
import { checkCalls, checkHistory, settle } from "./support/end-state.js";
import { fillStoreDisk, freezeExecutorMidRun, killApproverMidDecision, killStorm, killStreamLeader, replaceFollowerDisk, restartNats, restartNatsWithoutStore, type DiskFullOutcome } from "./support/faults.js";
import { createAgentClient } from "@warden/sdk";
import { AGENT } from "./support/deployment.js";
import { startLoad } from "./support/load.js";
import { peakRssOf, runPhase } from "./support/phase.js";
import { POISON_KINDS, publishPoison, whatTheCallerSees, type PoisonSent } from "./support/poison.js";
import { mib, rowOf } from "./support/report.js";
import { FAILOVER_TARGET_MS, LONG_PHASE, expectSound, report, sizeFromEnv, withDeployment } from "./support/scenario.js";
import { StreamScan } from "./support/stream-scan.js";

/**
 * The long chaos suite (`npm run chaos`): each scenario on its own fresh deployment, every
 * service an OS process with its own identity, agents calling through the SDK throughout. Sizes
 * come from the environment so a run can be made longer or shorter.
 */
const size = sizeFromEnv;
const KILLS = size("CHAOS_KILLS", 60);
const NATS_RESTARTS = size("CHAOS_NATS_RESTARTS", 5);
const FREEZES = size("CHAOS_FREEZES", 5);
const LEADER_KILLS = size("CHAOS_LEADER_KILLS", 3);
const BACKLOG = size("CHAOS_BACKLOG", 100_000);
const MID_DECISION_KILLS = size("CHAOS_MID_DECISION_KILLS", 5);
/** Clocks shifted by minutes on one process at a time (libfaketime). */
const SKEWS = [
  // the claims e1 itself wrote: e2 (on the machine's clock) claims about half of the calls
  { service: "executor-e1", offset: "+5m", minutes: 5, writes: "ToolCallStarted@e1" },
  { service: "executor-e1", offset: "-5m", minutes: -5, writes: "ToolCallStarted@e1" },
  { service: "approver", offset: "+5m", minutes: 5, writes: "ApprovalRequested" },
  { service: "approver", offset: "-5m", minutes: -5, writes: "ApprovalRequested" },
] as const;
/**
 * What an agent may be told of a call asked for while the disk was full: clear and retryable, or
 * stored and still on its way (the end checks hold every stored call to one ending).
 */
const CLEAR_FAILURES = /^(succeeded|failed UNAVAILABLE|pending WAIT_TIMEOUT|still waiting)$/;

const phase = LONG_PHASE;


describe("chaos (long)", () => {
  it(`a storm of ${KILLS} SIGKILLs across every service under mixed load ends every call exactly once`, async () => {
    await withDeployment({ executors: 2 }, async (d, scan) => {
      const r = await runPhase(d, scan, { ...phase, name: `SIGKILL storm ×${KILLS}`, rate: 10, sendShare: 0.2, delayMs: 100 }, () =>
        killStorm(d, { kills: KILLS, gapMs: [500, 1_500] }),
      );
      report(r.row);
      expectSound(r);
      expect.soft(r.agents.maxMs, "an agent learns its call's ending within 10 s of it being recorded").toBeLessThanOrEqual(10_000);
    });
  });

  it(`nats-server kill -9 and restart ×${NATS_RESTARTS} loses no call and no known result`, async () => {
    await withDeployment({ executors: 2 }, async (d, scan) => {
      const r = await runPhase(d, scan, { ...phase, name: `nats kill -9 ×${NATS_RESTARTS}`, rate: 10, sendShare: 0.2, delayMs: 200 }, ({ load }) =>
        restartNats(d, load, { rounds: NATS_RESTARTS, outageMs: 1_000 }),
      );
      report(r.row);
      expectSound(r);
      expect.soft(r.calls.lostResults, "runs whose side effect happened but that ended OutcomeUnknown").toEqual([]);
    });
  });

  it(`an executor frozen mid-run ×${FREEZES} and resumed after the other copy gave up ends each call once`, async () => {
    // short claims so that the other copy gives up on the frozen one within seconds
    await withDeployment({ executors: 2, toolTimeoutMs: 3_000, executorAckWaitMs: 2_000 }, async (d, scan) => {
      const r = await runPhase(d, scan, { ...phase, name: `SIGSTOP/SIGCONT executor ×${FREEZES}`, rate: 5, delayMs: 1_000 }, ({ scan: s }) =>
        freezeExecutorMidRun(d, s, { executor: "executor-e1", executorId: "e1", rounds: FREEZES, frozenLimitMs: 30_000 }),
      );
      report(r.row);
      expectSound(r);
      // the frozen runs did act: audit must be able to show it, as late results next to the endings
      expect.soft(r.calls.lateRunsUnrecorded, "runs that acted after their call ended, with no ToolCallLateResult").toEqual([]);
    });
  });

  it(`on a 3-node cluster, killing the WARDEN_CALLS leader ×${LEADER_KILLS} stops calls for at most 10 s (median of the rounds)`, async () => {
    await withDeployment({ cluster: true, executors: 2 }, async (d, scan) => {
      const r = await runPhase(d, scan, { ...phase, name: `cluster leader kill ×${LEADER_KILLS}`, rate: 5, sendShare: 0.2 }, ({ load }) =>
        killStreamLeader(d, load, { rounds: LEADER_KILLS }),
      );
      const elections = r.faults.map((f) => (f.electedAt === undefined ? "never" : `${((f.electedAt - f.at) / 1000).toFixed(1)}s`));
      report({ ...r.row, notes: `new WARDEN_CALLS leader seen by the admin connection after ${elections.join(", ")} (nats-server's raft election; the admin may itself be reconnecting, so this can lag)` });
      expectSound(r);
      const totals = r.faults.map((f) => (f.recoveredAt === undefined ? Infinity : f.recoveredAt - f.at)).sort((a, b) => a - b);
      expect.soft(totals[Math.floor(totals.length / 2)], `median failover of ${totals.join(", ")} ms`).toBeLessThanOrEqual(FAILOVER_TARGET_MS);
    });
  });

  it("the store's disk filled by another process: nothing acknowledged is lost, calls fail clearly, and flow resumes once space returns", async () => {
    await withDeployment({ executors: 1, storeDiskMiB: 256 }, async (d, scan) => {
      let disk: DiskFullOutcome | undefined;
      const r = await runPhase(d, scan, { ...phase, name: "store disk full", rate: 8, sendShare: 0.2 }, async ({ load }) => {
        disk = await fillStoreDisk(d, load, { holdMs: 8_000, answerMs: 15_000 });
        return [disk.fault];
      });
      const told = Object.entries(disk?.whileFull ?? {}).map(([k, n]) => `${k} ×${n}`).join(", ");
      report({ ...r.row, notes: `while full, agents were told: ${told}; ${disk?.restarted === undefined ? "nats-server stored again by itself once space returned" : `nats-server ${disk.restarted} 15 s after space returned and was restarted`}` });
      expectSound(r);
      expect.soft(Object.keys(disk?.whileFull ?? {}).filter((k) => !CLEAR_FAILURES.test(k)), "what agents were told while the disk was full").toEqual([]);
      expect(r.faults[0]?.recoveredAt, "calls flow again once space returns").toBeDefined();
    });
  });

  it("a single server restarted on a lost store: the history is gone, audit --verify names the missing checkpoints, and calls flow again", async () => {
    await withDeployment({ executors: 1 }, async (d) => {
      const agent = createAgentClient({ bus: await d.agentBus(), principal: AGENT, mode: "plan" });
      const load = startLoad({ agent, rate: 5 });
      let lostAt = 0;
      let faults: Awaited<ReturnType<typeof restartNatsWithoutStore>> = [];
      try {
        await load.waitForSuccesses(10, 60_000);
        // the notary has sealed what came before: its head log (outside the bus) remembers it
        await new Promise((r) => setTimeout(r, 1_000));
        lostAt = Date.now();
        faults = await restartNatsWithoutStore(d, load);
        await load.waitForSuccesses(10, 90_000);
      } finally {
        load.halt();
        await agent.close();
        await load.stop();
      }
      // a scan of the new stream: its sequences start again at 1
      const scan = new StreamScan(d.admin);
      await settle(scan, { timeoutMs: 60_000, idleMs: 45_000 });
      const ackedAfter = load.records.filter((r) => r.acceptedAt !== undefined && r.acceptedAt > lostAt && r.callId !== undefined).map((r) => r.callId!);
      const ackedBefore = load.records.filter((r) => r.acceptedAt !== undefined && r.acceptedAt <= lostAt).length;
      const calls = checkCalls(scan, d.effectsFile, 0, ackedAfter);
      const history = await checkHistory(d, scan);
      report({ ...rowOf("nats store lost", calls, history, faults, d.services.reduce((n, s) => n + s.crashes(), 0), { peakRss: peakRssOf(d) }), notes: `${ackedBefore} calls acknowledged before the store was lost are gone with it (what a single server does not survive); audit --verify: ${history.audit}` });
      expect.soft(calls.lost, "calls acknowledged after the new store was provisioned").toEqual([]);
      expect.soft(calls.stuck, "calls with no ending").toEqual([]);
      expect.soft(calls.duplicates).toEqual([]);
      expect(ackedAfter.length).toBeGreaterThan(0);
      expect(faults[0]?.recoveredAt, "calls flow again on the new store").toBeDefined();
      // nothing was restarted: the projector found its cursor behind and projected the new stream by itself
      expect.soft(history.projectorLag, "projector behind the new stream's end").toBe(0);
      expect.soft(history.replay, "warden replay of the new stream").toBe("equal");
      // the loss is not silent: the notary's chain goes on from its head log, so the checkpoints of the lost history are missing
      expect(history.audit).toMatch(/checkpoint_chain_broken/);
      const audit = await d.cli(["audit", "--verify", "--json"]);
      expect(audit.stdout).toMatch(/checkpoints #0–#\d+ are missing/);
    });
  });

  it("the projector and the notary frozen (SIGSTOP): calls are still decided, warden status names both as behind, and both catch up once resumed", async () => {
    await withDeployment({ executors: 1 }, async (d, scan) => {
      let problems: string[] = [];
      const r = await runPhase(d, scan, { ...phase, name: "projector + notary frozen", rate: 8, sendShare: 0.2 }, async ({ load }) => {
        const frozen = [d.service("projector"), d.service("notary")];
        await Promise.all(frozen.map((s) => s.signal("SIGSTOP")));
        const f = { kind: "SIGSTOP", target: "projector+notary", at: Date.now() };
        d.note("SIGSTOP projector and notary");
        try {
          // long enough for the notary's silence to count (30 s) and the projector to fall 100 events behind
          await load.waitForSuccesses(50, 60_000);
          await new Promise((done) => setTimeout(done, Math.max(0, f.at + 35_000 - Date.now())));
          const status = await d.cli(["status", "--json"]);
          problems = (JSON.parse(status.stdout) as { problems?: string[] }).problems ?? [];
        } finally {
          await Promise.all(frozen.map((s) => s.signal("SIGCONT")));
          d.note("SIGCONT projector and notary");
        }
        return [f];
      });
      report({ ...r.row, notes: `warden status while frozen: ${problems.join(" | ")}` });
      expectSound(r);
      expect.soft(problems.some((p) => /the projector is \d+ events behind/.test(p)), `status names the projector: ${problems.join(" | ")}`).toBe(true);
      expect.soft(problems.some((p) => /the notary has sealed nothing for/.test(p)), `status names the notary: ${problems.join(" | ")}`).toBe(true);
    });
  });

  it(`the approver killed between signing a grant and appending it ×${MID_DECISION_KILLS}: each grant lands once and its call ends once`, async () => {
    await withDeployment({ executors: 2 }, async (d, scan) => {
      let inWindow = 0;
      const r = await runPhase(d, scan, { ...phase, name: `approver killed mid-decision ×${MID_DECISION_KILLS}`, rate: 4, sendShare: 0.6, delayMs: 100 }, async () => {
        const kills = await killApproverMidDecision(d, { rounds: MID_DECISION_KILLS, gapMs: [1_000, 3_000] });
        inWindow = kills.inWindow;
        return kills.faults;
      });
      report({ ...r.row, notes: `the kill fell between the grant's record and its append in ${inWindow} of ${MID_DECISION_KILLS} rounds; agents were told: ${Object.entries(r.outcomes).map(([k, n]) => `${k} ×${n}`).join(", ")}` });
      expectSound(r);
      const grantedTwice = [...scan.calls.values()].filter((c) => c.types.filter((t) => t === "ApprovalGranted").length > 1).map((c) => c.callId);
      expect.soft(grantedTwice, "calls with more than one ApprovalGranted").toEqual([]);
      expect(inWindow, "kills that fell inside the window (the suite proves nothing without one)").toBeGreaterThan(0);
    });
  });

  for (const skew of SKEWS) {
    it(`a clock ${skew.offset} on ${skew.service}: every call ends once, and a call that fails says why`, async () => {
      // two executor copies: a claim one copy writes by its clock is judged by the other's; SIGKILLs of
      // the skewed process make the others take over what it held
      await withDeployment({ executors: 2, skew: { service: skew.service, offset: skew.offset } }, async (d, scan) => {
        const r = await runPhase(d, scan, { ...phase, name: `clock ${skew.offset} on ${skew.service}`, rate: 5, sendShare: 0.3, delayMs: 300 }, () =>
          killStorm({ ...d, services: [d.service(skew.service)] }, { kills: 4, gapMs: [3_000, 5_000] }),
        );
        // the skew was in effect: the events the skewed process wrote carry its clock, the requests the machine's
        const skewMs = scan.medianOffset(skew.writes);
        expect(skewMs, `median offset of ${skew.writes} timestamps`).toBeGreaterThan(skew.minutes * 60_000 - 30_000);
        expect(skewMs).toBeLessThan(skew.minutes * 60_000 + 30_000);
        expect(Math.abs(scan.medianOffset("ToolCallRequested") ?? Infinity)).toBeLessThan(30_000);
        report({ ...r.row, notes: `agents were told: ${Object.entries(r.outcomes).map(([k, n]) => `${k} ×${n}`).join(", ")}` });
        expectSound(r);
        // a skewed clock may refuse a call (an expired grant), never leave it unanswered; a run-once call
        // whose claimant was killed mid-run ends OUTCOME_UNKNOWN, skew or not (as in the storm), at its
        // deadline on the server's clock: a claimant 5 min fast is not waited for 5 min more
        expect.soft(Object.keys(r.outcomes).filter((k) => k === "no answer" || k.startsWith("pending")), "calls whose agents got no clear ending").toEqual([]);
      });
    });
  }

  it("on a 3-node cluster, a follower whose disk was replaced rejoins and catches up, and calls flow again within a failover", async () => {
    await withDeployment({ cluster: true, executors: 1 }, async (d, scan) => {
      let caughtUpMs: number | undefined;
      let led: string[] = [];
      const r = await runPhase(d, scan, { ...phase, name: "cluster follower store lost", rate: 5, sendShare: 0.2 }, async ({ load }) => {
        const out = await replaceFollowerDisk(d, load);
        caughtUpMs = out.caughtUpMs;
        led = out.led;
        return [out.fault];
      });
      const current = caughtUpMs === undefined ? "never caught up" : `was current again ${(caughtUpMs / 1000).toFixed(1)} s after it started on an empty store`;
      report({ ...r.row, notes: `the follower ${current}; when killed it led ${led.length} of the cluster's raft groups: ${led.join(", ") || "none"}` });
      expectSound(r);
      expect(caughtUpMs, "the follower catches up").toBeDefined();
      // the majority kept the stream; but a follower of WARDEN_CALLS may lead stage consumers and
      // buckets, whose elections on nats-server 2.9.10 take 4-9 s: the same bound as a leader's loss
      expect.soft(r.faults[0]!.recoveredAt! - r.faults[0]!.at, `calls after the follower's loss (it led ${led.length} raft groups)`).toBeLessThanOrEqual(FAILOVER_TARGET_MS);
    });
  });

  it("poison of every kind on the request subjects is refused once, and the projector, audit and replay go on", async () => {
    await withDeployment({ executors: 1 }, async (d, scan) => {
      let sent: PoisonSent[] = [];
      const r = await runPhase(d, scan, { ...phase, name: "poison of every kind", rate: 5 }, async ({ load }) => {
        sent = await publishPoison(d.admin, POISON_KINDS);
        await load.waitForSuccesses(5, 30_000);
        return [{ kind: "poison", target: POISON_KINDS.join(","), at: sent[0]!.at }];
      });
      report({ ...r.row, notes: `poison call ids: ${sent.map((p) => `${p.kind} ${p.callId}`).join(", ")}` });
      const endings = Object.fromEntries(sent.map((p) => [p.kind, scan.calls.get(p.callId)?.terminals ?? []]));
      const agent = await d.agentBus();
      const seen = Object.fromEntries(await Promise.all(sent.map(async (p) => [p.kind, await whatTheCallerSees(agent, p.callId)] as const)));
      expect.soft(endings, "each poison request's ending").toEqual(Object.fromEntries(POISON_KINDS.map((k) => [k, ["ToolCallRejected"]])));
      expect.soft(seen, `what each poison request's caller reads of it: ${JSON.stringify(seen)}`).toEqual(Object.fromEntries(POISON_KINDS.map((k) => [k, ["ToolCallRejected"]])));
      expectSound(r);
    });
  });

  it(`a backlog of ${BACKLOG} calls drains with every call ended once, and no service's memory grows with the backlog`, async () => {
    // the same drain at a fifth of the size first: a service that holds only its in-flight work
    // peaks about as high for either; one that buffers the backlog peaks higher for the larger
    const small = await drain(Math.max(1, Math.round(BACKLOG / 5)));
    const large = await drain(BACKLOG);
    for (const [name, bytes] of Object.entries(large.peakRss)) {
      if (name.startsWith("nats")) continue; // the server stores the backlog: it must grow
      // the issue's bound: within 10 % (before the heap bound, registry and policy peaked 55 % higher for 5× the calls)
      const bound = (small.peakRss[name] ?? 0) * 1.1;
      expect.soft(bytes, `${name} peak RSS draining ${BACKLOG} calls (${mib(bytes)}) vs ${small.calls} (${mib(small.peakRss[name] ?? 0)})`).toBeLessThanOrEqual(bound);
    }
  });
});

/** One backlog drain on a fresh deployment, its row reported and its end state checked. */
async function drain(n: number): Promise<BacklogResult> {
  return withDeployment({ executors: 1 }, async (d, scan) => {
    await scan.advance();
    const afterSeq = scan.lastSeq;
    const b = await drainBacklog(d, n);
    await settle(scan, { afterSeq, timeoutMs: 60_000, idleMs: 45_000 });
    const calls = checkCalls(scan, d.effectsFile, afterSeq, b.acked);
    const history = await checkHistory(d, scan, 120_000);
    const rate = b.drainMs > 0 ? Math.round((n / b.drainMs) * 1000) : 0;
    const notes = `published in ${(b.publishMs / 1000).toFixed(1)}s, drained in ${(b.drainMs / 1000).toFixed(1)}s (${rate} calls/s); peak RSS is over the drain alone (each process started for it)`;
    report(rowOf(`backlog ${n}`, calls, history, [], d.services.reduce((sum, s) => sum + s.crashes(), 0), { notes, peakRss: b.peakRss }));
    expect.soft(b.drained, `the backlog of ${n} drained`).toBe(true);
    expectSound({ calls, history });
    return b;
  });
}
