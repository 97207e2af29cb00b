import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { readEvent, silentLogger, type Bus } from "@warden/bus";
import { argsHash, newId } from "@warden/contracts";
import { startTestNats, type TestNats } from "../../../test/support/nats.js";
import {
  append,
  approvalRequested,
  grantFor,
  publishApproverKey,
  serveFakeRegistry,
  unpublishedKey,
  waitForEvent,
  type ApproverKey,
} from "../test/harness.js";
import { defineTool } from "./define-tool.js";
import { startExecutor, type Executor } from "./start-executor.js";

const sent: string[] = [];
const notify = defineTool({
  name: "desk.notify",
  version: "1.0.0",
  title: "Notify a customer",
  description: "Use when a customer must be told something now; they see it at once.",
  grade: "send",
  openWorld: true,
  input: z.strictObject({ to: z.string(), text: z.string() }),
  handler: ({ to, text }, ctx) => {
    sent.push(ctx.callId);
    return { delivered: to, text };
  },
});
const args = { to: "c42", text: "your refund is on its way" };

describe("executor: running granted calls", () => {
  let nats: TestNats;
  let bus: Bus;
  let executor: Executor;
  let key: ApproverKey;
  let registry: Awaited<ReturnType<typeof serveFakeRegistry>>;

  beforeAll(async () => {
    nats = await startTestNats();
    bus = await nats.bus();
    registry = await serveFakeRegistry(bus);
    key = await publishApproverKey(bus);
    executor = await startExecutor({ bus, log: silentLogger(), domain: "desk", tools: [notify], executorId: "desk-1" });
  });
  afterAll(async () => {
    await executor?.stop();
    await registry?.stop();
    await nats?.stop();
  });

  async function expectRefused(callId: string, reason: RegExp) {
    const rejected = await waitForEvent(bus, "desk", callId, "ToolCallRejected");
    expect(rejected.data).toMatchObject({ stage: "executor", error: { code: "GRANT_INVALID" } });
    expect(rejected.data.error.message).toMatch(reason);
    expect(await readEvent(bus, "desk", callId, "ToolCallStarted")).toBeUndefined();
    expect(sent).not.toContain(callId);
  }

  it("runs a call with a valid signed grant once, with the requested args", async () => {
    const request = approvalRequested(notify, args, { principal: "bot", mode: "plan" });
    const grant = grantFor(request, key);
    await append(bus, request);
    await append(bus, grant);
    const finished = await waitForEvent(bus, "desk", request.callId, "ToolCallFinished");
    expect(finished.data).toMatchObject({ ok: true, output: { delivered: "c42", text: args.text } });
    const started = await readEvent(bus, "desk", request.callId, "ToolCallStarted");
    expect(started).toMatchObject({ causationId: grant.eventId, data: { authorizedBy: { type: "ApprovalGranted", eventId: grant.eventId } } });
    expect(sent.filter((c) => c === request.callId)).toHaveLength(1);
  });

  it("refuses a grant signed with a key the approver never published (a forgery)", async () => {
    const request = approvalRequested(notify, args);
    await append(bus, request);
    await append(bus, grantFor(request, unpublishedKey(key.keyId)));
    await expectRefused(request.callId, /signature/);
  });

  it("refuses a grant naming an unknown key", async () => {
    const request = approvalRequested(notify, args);
    await append(bus, request);
    await append(bus, grantFor(request, unpublishedKey(`k${newId()}`)));
    await expectRefused(request.callId, /no approver key/);
  });

  it("refuses an expired grant", async () => {
    const request = approvalRequested(notify, args);
    await append(bus, request);
    await append(bus, grantFor(request, key, { expiresAt: new Date(Date.now() - 1_000).toISOString() }));
    await expectRefused(request.callId, /expired/);
  });

  it("refuses a signed grant for other args than the request's", async () => {
    const request = approvalRequested(notify, args);
    await append(bus, request);
    await append(bus, grantFor(request, key, { argsHash: argsHash({ ...args, text: "other" }) }));
    await expectRefused(request.callId, /argsHash/);
  });

  it("refuses a request whose args were swapped under a granted hash", async () => {
    const honest = approvalRequested(notify, args);
    const swapped = { ...honest, data: { ...honest.data, args: { ...args, text: "send me your password" } } };
    await append(bus, swapped);
    await append(bus, grantFor(honest, key));
    await expectRefused(honest.callId, /hash/);
  });

  it("refuses a grant for another approval of the call", async () => {
    const request = approvalRequested(notify, args);
    await append(bus, request);
    await append(bus, grantFor(request, key, { approvalId: newId() }));
    await expectRefused(request.callId, /approval/);
  });

  it("refuses a grant replayed onto another call", async () => {
    const first = approvalRequested(notify, args);
    // same approval id and args: only the call differs, which the signature covers
    const second = approvalRequested(notify, args, { approvalId: first.data.approvalId });
    const original = grantFor(first, key);
    await append(bus, second);
    await append(bus, { ...original, callId: second.callId, eventId: newId() });
    await expectRefused(second.callId, /signature/);
  });

  it("refuses a grant for a descriptor this executor does not have with DESCRIPTOR_CHANGED", async () => {
    const request = approvalRequested(notify, args, { descriptorHash: `sha256:${"1".repeat(64)}` });
    await append(bus, request);
    await append(bus, grantFor(request, key));
    const rejected = await waitForEvent(bus, "desk", request.callId, "ToolCallRejected");
    expect(rejected.data).toMatchObject({ stage: "executor", error: { code: "DESCRIPTOR_CHANGED" } });
    expect(sent).not.toContain(request.callId);
  });
});
