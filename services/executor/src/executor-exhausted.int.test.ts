import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { readEvent, silentLogger, type Bus, type StageContext } from "@warden/bus";
import { newId, type ToolCallStarted } from "@warden/contracts/events";
import { argsHash } from "@warden/contracts/json";
import { append, policyChecked, startTestNats, type TestNats } from "@warden/testing";
import { pinApproverKeys } from "./approver-keys.js";
import { ArtifactWriter } from "./artifacts.js";
import { defineTool } from "./define-tool.js";
import type { ExecutorDeps } from "./executor-deps.js";
import { SecretStore } from "./secret-store.js";
import { handleExhausted } from "./handlers/exhausted.js";
import { watchBusSteadiness } from "./bus-steadiness.js";
import { createServerClock } from "./server-clock.js";

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
  let nats: TestNats;
  let bus: Bus;
  let deps: ExecutorDeps;
  const sctx = { log: silentLogger() } as StageContext;

  beforeAll(async () => {
    nats = await startTestNats();
    bus = await nats.bus();
    deps = {
      bus,
      executorId: "tired-1",
      tools: new Map([[write.descriptor.name, write]]),
      artifacts: new ArtifactWriter(bus),
      approverKeys: pinApproverKeys([]),
      stopping: new AbortController().signal,
      secrets: SecretStore.none(),
      claimGraceMs: 0,
      serverClock: createServerClock(),
      busSteadiness: watchBusSteadiness(bus),
      claimCatchUpMs: 6_000,
      runningCalls: new Set(),
    };
  });
  afterAll(async () => nats?.stop());

  it("is refused with INTERNAL when it was never claimed", async () => {
    const pc = policyChecked(write, { n: 1 });
    await append(bus, pc);
    await handleExhausted(deps)(pc, "retries exhausted after 5 deliveries: object store down", sctx);
    const rejected = await readEvent(bus, "tired", pc.callId, "ToolCallRejected");
    expect(rejected).toMatchObject({ causationId: pc.eventId, data: { stage: "executor", error: { code: "INTERNAL" } } });
    expect(rejected?.data.error.message).toMatch(/object store down/);
  });

  it("is recorded as outcome unknown when it was claimed and has no result", async () => {
    const pc = policyChecked(write, { n: 2 });
    await append(bus, pc);
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
    await append(bus, started);
    await handleExhausted(deps)(pc, "retries exhausted", sctx);
    expect(await readEvent(bus, "tired", pc.callId, "ToolCallOutcomeUnknown")).toMatchObject({ data: { startedEventId: started.eventId } });
    expect(await readEvent(bus, "tired", pc.callId, "ToolCallRejected")).toBeUndefined();
  });

  it("adds nothing to a call the policy did not allow", async () => {
    const pc = policyChecked(write, { n: 3 }, { decision: "require_approval" });
    await append(bus, pc);
    await handleExhausted(deps)(pc, "retries exhausted", sctx);
    expect(await readEvent(bus, "tired", pc.callId, "ToolCallRejected")).toBeUndefined();
  });
});
