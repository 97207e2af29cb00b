import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { readEvent, silentLogger, type StageContext } from "@warden/bus";
import { newId, type ToolCallStarted } from "@warden/contracts/events";
import { argsHash } from "@warden/contracts/json";
import { append, policyChecked, useTestNats } from "@warden/testing";
import { handlerDeps } from "../test-support/handler-deps.js";
import { defineTool } from "./define-tool.js";
import type { ExecutorDeps } from "./executor-deps.js";
import { handleExhausted } from "./handlers/exhausted.js";

const write = defineTool({
  name: "tired.write",
  version: "1.0.0",
  title: "Write",
  description: "Use when testing what happens when the executor gives up on a call.",
  grade: "write",
  input: z.strictObject({ n: z.int() }),
  handler: ({ n }) => n,
});

describe("executor: a call whose retries ran out", () => {
  const t = useTestNats();
  let deps: ExecutorDeps;
  const sctx = { log: silentLogger() } as StageContext;

  beforeAll(() => {
    deps = handlerDeps(t.bus, { executorId: "tired-1", tools: [write], claimGraceMs: 0 });
  });

  it("is refused with INTERNAL when it was never claimed", async () => {
    const pc = policyChecked(write, { n: 1 });
    await append(t.bus, pc);
    await handleExhausted(deps)(pc, "retries exhausted after 5 deliveries: object store down", sctx);
    const rejected = await readEvent(t.bus, "tired", pc.callId, "ToolCallRejected");
    expect(rejected).toMatchObject({ causationId: pc.eventId, data: { stage: "executor", error: { code: "INTERNAL" } } });
    expect(rejected?.data.error.message).toMatch(/object store down/);
  });

  it("is recorded as outcome unknown when it was claimed and has no result", async () => {
    const pc = policyChecked(write, { n: 2 });
    await append(t.bus, pc);
    const started: ToolCallStarted = {
      ...pc,
      type: "ToolCallStarted",
      eventId: newId(),
      causationId: pc.eventId,
      data: {
        executorId: "tired-1",
        version: "1.0.0",
        descriptorHash: write.descriptorHash,
        argsHash: argsHash({ n: 2 }),
        authorizedBy: { type: "ToolPolicyChecked", eventId: pc.eventId },
        deadline: new Date().toISOString(),
      },
    };
    await append(t.bus, started);
    await handleExhausted(deps)(pc, "retries exhausted", sctx);
    expect(await readEvent(t.bus, "tired", pc.callId, "ToolCallOutcomeUnknown")).toMatchObject({ data: { startedEventId: started.eventId } });
    expect(await readEvent(t.bus, "tired", pc.callId, "ToolCallRejected")).toBeUndefined();
  });

  it("adds nothing to a call the policy did not allow", async () => {
    const pc = policyChecked(write, { n: 3 }, { decision: "require_approval" });
    await append(t.bus, pc);
    await handleExhausted(deps)(pc, "retries exhausted", sctx);
    expect(await readEvent(t.bus, "tired", pc.callId, "ToolCallRejected")).toBeUndefined();
  });
});
