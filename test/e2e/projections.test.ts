import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kvGetJson } from "@warden/bus";
import { newId } from "@warden/contracts/events";
import { BUCKET_BUDGETS, BUCKET_CALLS, runBudgetKey, STREAM_CALLS } from "@warden/contracts/subjects";
import { type IdentitySpecInput } from "@warden/contracts/permissions";
import { argsHash } from "@warden/contracts/json";
import { BudgetModelSchema } from "@warden/contracts/read-models";
import { CallModelSchema, digestModel, type CallModel } from "@warden/projections";
import { openCursor, readLiveModels, rebuildReadModels, replayStream } from "@warden/projector";
import { eventually } from "@warden/testing";
import type { PolicyDocumentInput } from "@warden/contracts/policy";
import { HANGING_EXECUTOR_ACK_WAIT_MS, hangingTool } from "../support/hanging-executor.js";
import { usualPrincipals } from "../support/usual-principals.js";
import { useTestWarden } from "../support/use-test-warden.js";
import { startTestWarden, type TestWarden } from "../support/warden.js";

const HANGING_EXECUTOR = fileURLToPath(new URL("../support/hanging-executor.ts", import.meta.url));

const POLICY: PolicyDocumentInput = {
  version: "e2e-projections",
  principals: usualPrincipals("alice", "support-bot", "planner"),
  approvalTtlSeconds: { write: 3600, send: 8 },
  // the planner holds more than the default 50 approvals open at once here
  approvalQuota: { maxOpenPerRequester: 200 },
};

async function inBatches<T>(n: number, size: number, run: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i += size) out.push(...(await Promise.all(Array.from({ length: Math.min(size, n - i) }, (_, j) => run(i + j)))));
  return out;
}

describe("projections over real services: call state, inbox and budgets equal a replay of the stream", () => {
  const t = useTestWarden({ demo: true, policy: POLICY }, async (w) => {
    // callers and the approver connect as themselves; the admin connection reads models and the stream
    const agent = await w.agent("support-bot");
    const planner = await w.agent("planner");
    const alice = await w.approver("alice");
    return { agent, planner, alice };
  });

  const model = async (callId: string): Promise<CallModel | undefined> => (await kvGetJson(await t.w.bus.kvm.open(BUCKET_CALLS), callId, CallModelSchema))?.value;

  it("lists an approval in the projected inbox as soon as the caller sees it, until it is decided", async () => {
    const args = { customerId: `C-${newId()}`, text: "inbox" };
    const pending = await t.planner.call("customer.message", args, { mode: "plan" });
    expect(pending.status).toBe("awaiting_approval");
    // no waiting: the inbox catches up with what the caller has seen before it answers
    const inbox = await t.alice.pending();
    expect(inbox.ok && inbox.value.find((p) => p.approvalId === pending.approvalId)).toMatchObject({ callId: pending.callId, tool: "customer.message", principal: "planner" });
    expect(await t.alice.deny(pending.approvalId!, argsHash(args), "not now")).toMatchObject({ ok: true });
    const after = await t.alice.pending();
    expect(after.ok && after.value.some((p) => p.approvalId === pending.approvalId)).toBe(false);
  });

  it("holds the same models, digest for digest, as a replay after hundreds of mixed calls", async () => {
    const runs = Array.from({ length: 8 }, () => newId());
    const ids: Record<string, string[]> = {};
    const track = (kind: string, callId: string) => (ids[kind] ??= []).push(callId);

    const reads = await inBatches(120, 40, (i) => t.agent.call("kb.search", { query: `refund ${i}` }, { mode: "llm", runId: runs[i % runs.length]!, wait: true }));
    reads.forEach((r) => track("succeeded", r.callId));
    // an agent may not claim mode human (gate.human_mode_needs_person): refused by the policy
    const denied = await inBatches(40, 40, (i) => t.agent.call("customer.message", { customerId: `C${i}`, text: "hi" }, { mode: "human", runId: runs[i % 3]!, wait: true }));
    denied.forEach((r) => track("rejected", r.callId));
    const failed = await inBatches(30, 30, (i) => t.agent.call("demo.fail", {}, { mode: "llm", runId: runs[i % 5]!, wait: true }));
    failed.forEach((r) => track("failed", r.callId));
    const unknown = await inBatches(20, 20, () => t.agent.call("kb.nothing_like_this", {}, { mode: "llm", wait: true }));
    unknown.forEach((r) => track("rejected", r.callId));
    // each send decided as soon as it is asked (a third approved, a third denied), the rest left to
    // expire: deciding only after all 60 were asked let the first expire first on a loaded box
    await inBatches(60, 30, async (i) => {
      const args = { customerId: `C-${i}-${newId()}`, text: `message ${i}` };
      const r = await t.planner.call("customer.message", args, { mode: "plan", runId: runs[i % runs.length]! });
      if (i % 3 === 0) {
        expect(await t.alice.approve(r.approvalId!, argsHash(args))).toMatchObject({ ok: true });
        track("succeeded", r.callId);
      } else if (i % 3 === 1) {
        expect(await t.alice.deny(r.approvalId!, argsHash(args), "wrong customer")).toMatchObject({ ok: true });
        track("denied", r.callId);
      } else track("expired", r.callId);
    });
    // crashes: an executor process dies mid-run; another copy finds the claims without results
    // both copies run as the crashy domain's executor identity, as a deployment would run them
    const crashyExecutor: IdentitySpecInput = { kind: "executor", name: "crashy-executor", domains: ["crashy"] };
    const doomed = spawn(process.execPath, [HANGING_EXECUTOR], {
      env: { ...process.env, NATS_URL: t.w.nats.url, NATS_CREDS: await t.w.nats.credsOf(crashyExecutor), WARDEN_APPROVER_PUBLIC_KEYS: t.w.approverKeys.join(",") },
      stdio: ["ignore", "pipe", "ignore"],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        doomed.stdout!.on("data", (b: Buffer) => b.toString().includes("ready") && resolve());
        doomed.once("exit", (code) => reject(new Error(`hanging executor exited ${code}`)));
      });
      const crashing = Array.from({ length: 20 }, (_, i) => t.planner.call("crashy.send_once", { n: i }, { mode: "plan", runId: runs[i % runs.length]!, wait: true, timeoutMs: 30_000 }));
      const started = await eventually(async () => {
        const calls = [...(await readLiveModels(t.w.bus)).maps.calls.values()] as CallModel[];
        const running = calls.filter((m) => m.tool === "crashy.send_once" && m.status === "running");
        expect(running).toHaveLength(20);
        return running;
      }, 20_000);
      doomed.kill("SIGKILL");
      // the survivor connects as the same executor identity as the doomed copy
      await t.w.startExecutor("crashy", [hangingTool(false)], { connectionName: "survivor", executorId: "survivor", claimGraceMs: 200, ackWaitMs: HANGING_EXECUTOR_ACK_WAIT_MS });
      const ended = await Promise.all(crashing);
      expect(ended.map((r) => r.status)).toEqual(Array(20).fill("outcome_unknown"));
      started.forEach((m) => track("outcome_unknown", m.callId));
    } finally {
      doomed.kill("SIGKILL");
    }
    const total = Object.values(ids).flat();
    expect(total.length).toBeGreaterThanOrEqual(290);

    // every call reaches its end in the projected call state
    for (const [status, list] of Object.entries(ids)) {
      await eventually(async () => {
        const models = await Promise.all(list.map(model));
        expect(models.map((m) => m?.status)).toEqual(list.map(() => status));
      }, 20_000);
    }
    const last = (await t.w.bus.jsm.streams.info(STREAM_CALLS)).state.last_seq;
    const cursor = await openCursor(t.w.bus);
    await eventually(async () => expect(await cursor.read()).toBe(last), 20_000);

    // rebuilding into fresh buckets creates them: an operator's (admin) job
    const rebuilt = await rebuildReadModels(t.w.bus, { write: true, suffix: "e2e" });
    expect(rebuilt.toSeq).toBe(last);
    expect(rebuilt.matches).toBe(true);
    expect(rebuilt.live).toEqual(rebuilt.rebuilt);

    // digest for digest: every model of every read model
    const live = await readLiveModels(t.w.bus);
    const replay = await replayStream(t.w.bus, { toSeq: live.cursor });
    for (const name of ["calls", "approvals", "budgets"] as const) {
      const liveDigests = new Map([...live.maps[name]].map(([k, v]) => [k, digestModel(v)]));
      const replayDigests = new Map([...replay.maps[name]].map(([k, v]) => [k, digestModel(v)]));
      expect(liveDigests, name).toEqual(replayDigests);
    }
    const violations = [...live.maps.calls.values()].flatMap((m) => (m as CallModel).violations);
    expect(violations).toEqual([]);

    const run0 = await kvGetJson(await t.w.bus.kvm.open(BUCKET_BUDGETS), runBudgetKey(runs[0]!), BudgetModelSchema);
    expect(run0?.value.counts.requested).toBeGreaterThan(20);
  }, 120_000);
});

describe("run budgets read from the projection", () => {
  let w: TestWarden;
  beforeAll(async () => {
    w = await startTestWarden({ demo: true, policy: { ...POLICY, version: "e2e-budgets", budgets: { maxCallsPerRun: 5 } } });
  });
  afterAll(async () => w.stop());

  it("admits exactly the budget of a run whose calls all arrive at once", async () => {
    const agent = await w.agent("support-bot");
    const runId = newId();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => agent.call("kb.search", { query: `q${i}` }, { mode: "llm", runId, wait: true })));
    expect(results.filter((r) => r.ok)).toHaveLength(5);
    expect(results.filter((r) => r.error?.code === "BUDGET_EXCEEDED")).toHaveLength(15);
    await eventually(async () => {
      const budget = await kvGetJson(await w.bus.kvm.open(BUCKET_BUDGETS), runBudgetKey(runId), BudgetModelSchema);
      expect(budget?.value.counts).toMatchObject({ requested: 20, admitted: 5, succeeded: 5, rejected: 15 });
    });
    // a later call of the run is refused from the projected count alone
    expect((await agent.call("kb.search", { query: "late" }, { mode: "llm", runId, wait: true })).error?.code).toBe("BUDGET_EXCEEDED");
  });
});
