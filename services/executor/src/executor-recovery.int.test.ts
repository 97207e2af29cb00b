import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readEvent, silentLogger } from "@warden/bus";
import { newId, type ToolCallFinished, type ToolCallStarted, type ToolPolicyChecked } from "@warden/contracts/events";
import { argsHash } from "@warden/contracts/json";
import { append, eventually, policyChecked, waitForAck, waitForEvent } from "@warden/testing";
import { useExecutorHarness, useRunningExecutor } from "../test-support/executor-harness.js";
import { defineTool, type ExecutableTool } from "./define-tool.js";
import { startExecutor } from "./start-executor.js";

const runs = new Map<string, number>();
const count = (callId: string) => runs.get(callId) ?? 0;
/** The first run of each call hangs until aborted (the crash window); later runs return at once. */
function recTool(domain: string, capability: string, idempotent: boolean, timeoutMs = 10_000) {
  return defineTool({
    name: `${domain}.${capability}`,
    version: "1.0.0",
    title: capability,
    description: `Use when testing recovery of a ${idempotent ? "re-runnable" : "run-once"} write after a crash.`,
    grade: "write",
    idempotent,
    timeoutMs,
    input: z.strictObject({ n: z.int() }),
    handler: async ({ n }, ctx) => {
      runs.set(ctx.callId, count(ctx.callId) + 1);
      if (count(ctx.callId) === 1 && domain === "crash") {
        await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
      }
      return { n, attempt: ctx.attempt };
    },
  });
}

/** A claim written by an executor that is gone (or still running, if its deadline is ahead). */
function ghostClaim(pc: ToolPolicyChecked, tool: ExecutableTool, deadline: Date): ToolCallStarted {
  return {
    ...pc,
    type: "ToolCallStarted",
    eventId: newId(),
    ts: new Date().toISOString(),
    causationId: pc.eventId,
    data: {
      executorId: "ghost",
      version: tool.descriptor.version,
      descriptorHash: tool.descriptorHash,
      argsHash: argsHash(pc.data.args),
      authorizedBy: { type: "ToolPolicyChecked", eventId: pc.eventId },
      deadline: deadline.toISOString(),
    },
  };
}

/** The result the claimant of `ghost` recorded before it went. */
function ghostFinished(ghost: ToolCallStarted, output: number): ToolCallFinished {
  return {
    ...ghost,
    type: "ToolCallFinished",
    eventId: newId(),
    causationId: ghost.eventId,
    data: { ok: true, output, truncated: false, outputBytes: 1, artifacts: [], durationMs: 1, executorId: "ghost", attempt: 1 },
  };
}

describe("executor: a call someone else claimed", () => {
  const idem = recTool("rec", "idem", true);
  const once = recTool("rec", "once", false);
  const t = useRunningExecutor((_nats, bus) => ({ bus, log: silentLogger(), domain: "rec", tools: [idem, once], executorId: "rec-1", claimGraceMs: 200 }));

  /** A call of `tool` whose claimant's deadline passed a second ago, with no result recorded. */
  async function leftByGhost(tool: ExecutableTool, n: number) {
    const pc = policyChecked(tool, { n });
    const ghost = ghostClaim(pc, tool, new Date(Date.now() - 1_000));
    await append(t.bus, ghost);
    await append(t.bus, pc);
    return { pc, ghost };
  }

  it("re-runs an idempotent tool whose claimant left no result, as a second attempt under the old claim", async () => {
    const { pc, ghost } = await leftByGhost(idem, 1);
    const finished = await waitForEvent(t.bus, "rec", pc.callId, "ToolCallFinished");
    expect(finished).toMatchObject({ causationId: ghost.eventId, data: { ok: true, executorId: "rec-1", output: { n: 1 } } });
    expect(finished.data.attempt).toBeGreaterThanOrEqual(2);
    expect(count(pc.callId)).toBe(1);
    expect((await readEvent(t.bus, "rec", pc.callId, "ToolCallStarted"))?.eventId).toBe(ghost.eventId);
  });

  it("records ToolCallOutcomeUnknown for any other tool and does not run it", async () => {
    const { pc, ghost } = await leftByGhost(once, 2);
    const unknown = await waitForEvent(t.bus, "rec", pc.callId, "ToolCallOutcomeUnknown");
    expect(unknown).toMatchObject({ causationId: ghost.eventId, data: { startedEventId: ghost.eventId, executorId: "rec-1" } });
    expect(unknown.data.reason).toMatch(/ghost/);
    expect(await readEvent(t.bus, "rec", pc.callId, "ToolCallFinished")).toBeUndefined();
    expect(count(pc.callId)).toBe(0);
  });

  it("leaves a claimed call alone once its result is recorded", async () => {
    const pc = policyChecked(once, { n: 3 });
    const ghost = ghostClaim(pc, once, new Date(Date.now() - 1_000));
    await append(t.bus, ghost);
    await append(t.bus, ghostFinished(ghost, 3));
    const seq = await append(t.bus, pc);
    await waitForAck(t.bus, "executor-allowed-rec", seq);
    expect(await readEvent(t.bus, "rec", pc.callId, "ToolCallOutcomeUnknown")).toBeUndefined();
    expect(count(pc.callId)).toBe(0);
  });

  it("waits for a claimant still inside its deadline and takes its result, without running the call", async () => {
    const pc = policyChecked(once, { n: 4 });
    const ghost = ghostClaim(pc, once, new Date(Date.now() + 5_000));
    await append(t.bus, ghost);
    const seq = await append(t.bus, pc);
    // the executor holds the call (un-acked) while the claimant may still be running
    await eventually(async () => {
      const info = await t.bus.jsm.consumers.info("WARDEN_CALLS", "executor-allowed-rec");
      expect(info.delivered.stream_seq).toBeGreaterThanOrEqual(seq);
      expect(info.num_ack_pending).toBe(1);
    });
    expect(await readEvent(t.bus, "rec", pc.callId, "ToolCallOutcomeUnknown")).toBeUndefined();
    await append(t.bus, ghostFinished(ghost, 4));
    await waitForAck(t.bus, "executor-allowed-rec", seq);
    expect(await readEvent(t.bus, "rec", pc.callId, "ToolCallOutcomeUnknown")).toBeUndefined();
    expect(count(pc.callId)).toBe(0);
  });
});

describe("executor: an executor that dies mid-run", () => {
  const h = useExecutorHarness();
  // long enough that the doomed executor cannot time out and finish before its connection dies,
  // even on a loaded CI machine (regression: flaky under load with 1 s)
  const idem = recTool("crash", "idem", true, 4_000);
  const once = recTool("crash", "once", false, 4_000);
  const opts = { log: silentLogger(), domain: "crash", tools: [idem, once], ackWaitMs: 3_000, claimGraceMs: 200 };

  it("has its idempotent call re-run by another executor and its other call marked outcome unknown", async () => {
    const bus = await h.nats.bus("observer");
    const doomedBus = await h.nats.bus("doomed");
    await startExecutor({ ...opts, bus: doomedBus, executorId: "doomed" });
    const a = policyChecked(idem, { n: 1 });
    const b = policyChecked(once, { n: 2 });
    await append(bus, a);
    await append(bus, b);
    const startedA = await waitForEvent(bus, "crash", a.callId, "ToolCallStarted");
    const startedB = await waitForEvent(bus, "crash", b.callId, "ToolCallStarted");
    expect([startedA.data.executorId, startedB.data.executorId]).toEqual(["doomed", "doomed"]);
    // the claim is appended before the handler starts: the process dies once both handlers run
    // (regression: closing at the claim raced the handler on a loaded CI machine)
    await eventually(() => {
      expect(count(a.callId)).toBe(1);
      expect(count(b.callId)).toBe(1);
    });
    // the process dies: no result, no ack
    await doomedBus.nc.close();

    await h.start({ ...opts, bus: await h.nats.bus("survivor"), executorId: "survivor" });
    const finished = await waitForEvent(bus, "crash", a.callId, "ToolCallFinished", 25_000);
    expect(finished).toMatchObject({ causationId: startedA.eventId, data: { ok: true, executorId: "survivor" } });
    expect(finished.data.attempt).toBeGreaterThanOrEqual(2);
    expect(count(a.callId)).toBe(2);

    const unknown = await waitForEvent(bus, "crash", b.callId, "ToolCallOutcomeUnknown", 25_000);
    expect(unknown.data).toMatchObject({ startedEventId: startedB.eventId, executorId: "survivor" });
    expect(unknown.data.reason).toMatch(/doomed/);
    expect(await readEvent(bus, "crash", b.callId, "ToolCallFinished")).toBeUndefined();
    expect(count(b.callId)).toBe(1);
  }, 60_000);
});
