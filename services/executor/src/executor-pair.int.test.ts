import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { readEvent, silentLogger } from "@warden/bus";
import { append, approvalRequested, approverKey, grantFor, policyChecked, waitForEvent } from "@warden/testing";
import { useExecutorHarness } from "../test-support/executor-harness.js";
import { defineTool } from "./define-tool.js";

const runs = new Map<string, number>();
const count = defineTool({
  name: "pair.count",
  version: "1.0.0",
  title: "Count",
  description: "Use when testing that a call runs exactly once.",
  grade: "write",
  input: z.strictObject({ i: z.int() }),
  handler: async ({ i }, ctx) => {
    runs.set(ctx.callId, (runs.get(ctx.callId) ?? 0) + 1);
    // widen the window in which a second runner could slip in
    await new Promise((r) => setTimeout(r, 5));
    return i;
  },
});

describe("two executors of one domain", () => {
  const key = approverKey();
  const t = useExecutorHarness();

  beforeAll(async () => {
    for (const id of ["pair-a", "pair-b"]) {
      await t.start({ bus: await t.nats.bus(id), log: silentLogger(), domain: "pair", tools: [count], executorId: id, concurrency: 8, approverKeys: [key.publicKeyDerBase64] });
    }
  });

  it("share the work and run every call exactly once", async () => {
    const calls = Array.from({ length: 200 }, (_, i) => policyChecked(count, { i }));
    await Promise.all(calls.map((pc) => append(t.bus, pc)));
    const finished = await Promise.all(calls.map((pc) => waitForEvent(t.bus, "pair", pc.callId, "ToolCallFinished", 20_000)));
    expect(finished.every((f) => f.data.ok)).toBe(true);
    expect(calls.map((pc) => runs.get(pc.callId))).toEqual(calls.map(() => 1));
    const by = new Set(finished.map((f) => f.data.executorId));
    expect([...by].every((id) => id === "pair-a" || id === "pair-b")).toBe(true);
  });

  it("never both run a call that reaches them twice at once (allowed and granted): the Started append decides", async () => {
    const calls = Array.from({ length: 40 }, (_, i) => {
      const pc = policyChecked(count, { i });
      // a request answering the allow: both of the call's authorisations stand on the same chain
      const request = approvalRequested(count, { i }, { answering: pc });
      return { request, pc, grant: grantFor(request, key) };
    });
    await Promise.all(calls.map(async (c) => {
      await append(t.bus, c.request);
      await append(t.bus, c.grant);
    }));
    for (const c of calls) {
      const finished = await waitForEvent(t.bus, "pair", c.pc.callId, "ToolCallFinished", 20_000);
      expect(finished.data.ok).toBe(true);
    }
    expect(calls.map((c) => runs.get(c.pc.callId))).toEqual(calls.map(() => 1));
    for (const c of calls) {
      expect(await readEvent(t.bus, "pair", c.pc.callId, "ToolCallOutcomeUnknown")).toBeUndefined();
      expect(await readEvent(t.bus, "pair", c.pc.callId, "ToolCallRejected")).toBeUndefined();
    }
  }, 30_000);
});
