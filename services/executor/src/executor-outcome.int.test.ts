import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { appendEvent, readEvent, readOutcome, silentLogger, type StageContext } from "@warden/bus";
import { nextCallEvent, stampNow, type ToolCallStarted, type ToolPolicyChecked } from "@warden/contracts/events";
import { argsHash } from "@warden/contracts/json";
import { append, eventually, policyChecked, serveFakeRegistry, startTestNats, type TestNats, waitForEvent } from "@warden/testing";
import { useExecutorHarness } from "../test-support/executor-harness.js";
import { handlerDeps } from "../test-support/handler-deps.js";
import { defineTool, type ExecutableTool } from "./define-tool.js";
import type { ExecutorDeps } from "./executor-deps.js";
import { runAndFinish } from "./run-and-finish.js";
import { startExecutor, type Executor } from "./start-executor.js";

const runs = new Map<string, number>();
const entered = new Map<string, () => void>();
const gates = new Map<string, Promise<void>>();
let release: (callId: string) => void = () => undefined;

/** A run-once write whose handler waits for the test to let it finish. */
const gated = defineTool({
  name: "out.write_once",
  version: "1.0.0",
  title: "A gated write",
  description: "Use when testing how a call's one outcome is recorded.",
  grade: "write",
  idempotent: false,
  timeoutMs: 8_000,
  input: z.strictObject({ n: z.int() }),
  handler: async ({ n }, ctx) => {
    runs.set(ctx.callId, (runs.get(ctx.callId) ?? 0) + 1);
    entered.get(ctx.callId)?.();
    await gates.get(ctx.callId);
    return { n };
  },
});

function gate(callId: string): { entered: Promise<void> } {
  let open!: () => void;
  gates.set(callId, new Promise<void>((r) => (open = r)));
  const prev = release;
  release = (id) => (id === callId ? open() : prev(id));
  return { entered: new Promise<void>((r) => entered.set(callId, r)) };
}

function claimOf(pc: ToolPolicyChecked, tool: ExecutableTool, deadline: Date, executorId = "paused-copy"): ToolCallStarted {
  return nextCallEvent(pc, "ToolCallStarted", {
    executorId,
    version: tool.descriptor.version,
    descriptorHash: tool.descriptorHash,
    argsHash: argsHash(pc.data.args),
    authorizedBy: { type: "ToolPolicyChecked", eventId: pc.eventId },
    deadline: deadline.toISOString(),
  }, stampNow());
}

function stageContext(): StageContext {
  return { log: silentLogger(), subject: { domain: "out", callId: "x", types: ["ToolPolicyChecked"] }, streamSeq: 1, deliveryCount: 1, lastAttempt: false, possibleReplay: false, signal: new AbortController().signal };
}

describe("executor: one outcome per call", () => {
  const t = useExecutorHarness();
  let deps: ExecutorDeps;

  beforeAll(() => {
    deps = handlerDeps(t.bus, { executorId: "resumed", tools: [gated], claimGraceMs: 200 });
  });

  async function claimed(deadline: Date) {
    const pc = policyChecked(gated, { n: 1 });
    await append(t.bus, pc);
    const claim = claimOf(pc, gated, deadline);
    expect((await appendEvent(t.bus, claim)).status).toBe("written");
    const prepared = gated.prepare(pc.data.args);
    if (!prepared.ok) throw new Error(prepared.message);
    return { pc, claim, run: { tool: gated, prepared, claim, attempt: 1, args: pc.data.args, onBehalfOf: pc.principal } };
  }

  it("never starts a run whose claim ran out while the executor was paused: the tool did not run, and says so", async () => {
    const { pc, run } = await claimed(new Date(Date.now() - 1_000));
    expect(await runAndFinish(deps, run, stageContext())).toEqual({ kind: "ack" });
    expect(runs.get(pc.callId)).toBeUndefined();
    const outcome = await readOutcome(t.bus, "out", pc.callId);
    expect(outcome).toMatchObject({ type: "ToolCallFinished", data: { ok: false, error: { code: "CLAIM_EXPIRED", retryable: true } } });
  });

  it("does not run a call another copy already ended", async () => {
    const { pc, claim, run } = await claimed(new Date(Date.now() + 60_000));
    const unknown = nextCallEvent(claim, "ToolCallOutcomeUnknown", { reason: "gave up", startedEventId: claim.eventId, executorId: "other" }, stampNow());
    await appendEvent(t.bus, unknown);
    expect(await runAndFinish(deps, run, stageContext())).toEqual({ kind: "ack" });
    expect(runs.get(pc.callId)).toBeUndefined();
    expect((await readOutcome(t.bus, "out", pc.callId))?.eventId).toBe(unknown.eventId);
  });

  it("keeps a result that arrives after another copy recorded outcome unknown as a late result, never a second outcome", async () => {
    const { pc, claim, run } = await claimed(new Date(Date.now() + 60_000));
    const g = gate(pc.callId);
    const running = runAndFinish(deps, run, stageContext());
    await g.entered;
    // the other copy gives up on the claim while this one is (as if) frozen mid-run
    const unknown = nextCallEvent(claim, "ToolCallOutcomeUnknown", { reason: "claimant silent", startedEventId: claim.eventId, executorId: "other" }, stampNow());
    expect((await appendEvent(t.bus, unknown)).status).toBe("written");
    release(pc.callId);
    await running;
    expect((await readOutcome(t.bus, "out", pc.callId))?.eventId).toBe(unknown.eventId);
    expect(await readEvent(t.bus, "out", pc.callId, "ToolCallFinished")).toBeUndefined();
    const late = await readEvent(t.bus, "out", pc.callId, "ToolCallLateResult");
    expect(late).toMatchObject({ causationId: claim.eventId, data: { ok: true, output: { n: 1 }, outcomeType: "ToolCallOutcomeUnknown", outcomeEventId: unknown.eventId, executorId: "resumed" } });
    expect(runs.get(pc.callId)).toBe(1);
  });
});

describe("executor: a server outage while a result is written", () => {
  let nats: TestNats;
  let executor: Executor | undefined;
  let registry: Awaited<ReturnType<typeof serveFakeRegistry>>;

  beforeAll(async () => {
    nats = await startTestNats();
    registry = await serveFakeRegistry(await nats.bus("registry"));
  });
  afterAll(async () => {
    // the test restarted the server: a request still in flight on a connection that lived through
    // the outage may end "connection disconnected" as it drains, which says nothing of the result
    await executor?.stop().catch(() => undefined);
    await registry?.stop().catch(() => undefined);
    await nats?.stop();
  });

  it("records the known result once the server is back, instead of outcome unknown", async () => {
    executor = await startExecutor({ bus: await nats.bus("executor"), log: silentLogger(), domain: "out", tools: [gated], executorId: "steady", claimGraceMs: 200, ackWaitMs: 2_000 });
    const pc = policyChecked(gated, { n: 7 });
    const g = gate(pc.callId);
    await append(await nats.bus("caller"), pc);
    await g.entered;
    // the server dies while the tool runs and stays down past the claim's deadline and longer than
    // three 5 s publish attempts (the old rule); the short ack wait makes the server redeliver the
    // call to the same executor meanwhile, which must wait for its own run, not declare it unknown
    const restarting = nats.crashAndRestart(16_000);
    setTimeout(() => release(pc.callId), 300);
    await restarting;
    const observer = await nats.bus("observer");
    const finished = await waitForEvent(observer, "out", pc.callId, "ToolCallFinished", 20_000);
    expect(finished.data).toMatchObject({ ok: true, output: { n: 7 }, executorId: "steady" });
    await eventually(async () => expect(await readOutcome(observer, "out", pc.callId)).toMatchObject({ type: "ToolCallFinished" }));
    expect(runs.get(pc.callId)).toBe(1);
  }, 60_000);
});

