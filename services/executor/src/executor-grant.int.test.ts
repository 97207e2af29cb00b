import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { appendEvent, kvPutJson, readEvent, silentLogger } from "@warden/bus";
import { eventHash, newId, type ApprovalRequested, type WardenEvent } from "@warden/contracts/events";
import { approverKeyKey, BUCKET_POLICY } from "@warden/contracts/subjects";
import { argsHash } from "@warden/contracts/json";
import { append, approvalRequested, approverKey, grantFor, policyChecked, unpinnedKey, waitForEvent } from "@warden/testing";
import { useRunningExecutor } from "../test-support/executor-harness.js";
import { defineTool } from "./define-tool.js";
import { startExecutor } from "./start-executor.js";

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
  const key = approverKey();
  // the executor connects as its own identity, pinned with the approver key it was provisioned with
  const t = useRunningExecutor(async (nats) => ({
    bus: await nats.connectAs({ kind: "executor", name: "desk-1", domains: ["desk"] }),
    log: silentLogger(),
    domain: "desk",
    tools: [notify],
    executorId: "desk-1",
    approverKeys: [key.publicKeyDerBase64],
  }));

  async function expectRefused(callId: string, reason: RegExp, code = "GRANT_INVALID") {
    const rejected = await waitForEvent(t.bus, "desk", callId, "ToolCallRejected");
    expect(rejected.data).toMatchObject({ stage: "executor", error: { code } });
    expect(rejected.data.error.message).toMatch(reason);
    expect(await readEvent(t.bus, "desk", callId, "ToolCallStarted")).toBeUndefined();
    expect(sent).not.toContain(callId);
  }

  it("runs a call with a valid signed grant once, with the requested args", async () => {
    const request = approvalRequested(notify, args, { principal: "bot", mode: "plan" });
    const grant = grantFor(request, key);
    await append(t.bus, request);
    await append(t.bus, grant);
    const finished = await waitForEvent(t.bus, "desk", request.callId, "ToolCallFinished");
    expect(finished.data).toMatchObject({ ok: true, output: { delivered: "c42", text: args.text } });
    const started = await readEvent(t.bus, "desk", request.callId, "ToolCallStarted");
    expect(started).toMatchObject({ causationId: grant.eventId, data: { authorizedBy: { type: "ApprovalGranted", eventId: grant.eventId } } });
    expect(sent.filter((c) => c === request.callId)).toHaveLength(1);
  });

  it("refuses a grant signed with a key that is not pinned, naming the pinned key's id (a forgery)", async () => {
    const request = approvalRequested(notify, args);
    await append(t.bus, request);
    await append(t.bus, grantFor(request, unpinnedKey(key.keyId)));
    await expectRefused(request.callId, /signature/);
  });

  it("refuses a grant naming a key that is not pinned", async () => {
    const request = approvalRequested(notify, args);
    await append(t.bus, request);
    await append(t.bus, grantFor(request, unpinnedKey(`k${newId()}`)));
    await expectRefused(request.callId, /no approver key "k.*" is pinned in this executor/);
  });

  it("never verifies against a key found in warden_policy: only pinned keys count", async () => {
    const published = approverKey();
    await kvPutJson(await t.bus.kvm.open(BUCKET_POLICY), approverKeyKey(published.keyId), published.publicKeyDerBase64);
    const request = approvalRequested(notify, args);
    await append(t.bus, request);
    await append(t.bus, grantFor(request, published));
    await expectRefused(request.callId, new RegExp(`no approver key "${published.keyId}" is pinned`));
  });

  it("refuses an expired grant", async () => {
    const request = approvalRequested(notify, args);
    await append(t.bus, request);
    await append(t.bus, grantFor(request, key, { expiresAt: new Date(Date.now() - 1_000).toISOString() }));
    await expectRefused(request.callId, /expired/);
  });

  it("refuses a signed grant for other args than the request's", async () => {
    const request = approvalRequested(notify, args);
    await append(t.bus, request);
    await append(t.bus, grantFor(request, key, { argsHash: argsHash({ ...args, text: "other" }) }));
    await expectRefused(request.callId, /argsHash/);
  });

  it("refuses a request whose args were swapped under a granted hash", async () => {
    const honest = approvalRequested(notify, args);
    const swapped = { ...honest, data: { ...honest.data, args: { ...args, text: "send me your password" } } };
    await append(t.bus, swapped);
    await append(t.bus, grantFor(honest, key));
    await expectRefused(honest.callId, /hash/);
  });

  it("refuses a grant for another approval of the call", async () => {
    const request = approvalRequested(notify, args);
    await append(t.bus, request);
    await append(t.bus, grantFor(request, key, { approvalId: newId() }));
    await expectRefused(request.callId, /approval/);
  });

  it("refuses a grant replayed onto another call", async () => {
    const first = approvalRequested(notify, args);
    // same approval id and args: only the call differs, which the signature covers
    const second = approvalRequested(notify, args, { approvalId: first.data.approvalId });
    const original = grantFor(first, key);
    await append(t.bus, second);
    await append(t.bus, { ...original, callId: second.callId, eventId: newId() });
    await expectRefused(second.callId, /signature/);
  });

  it("refuses a grant for a descriptor this executor does not have with DESCRIPTOR_CHANGED", async () => {
    const request = approvalRequested(notify, args, { descriptorHash: `sha256:${"1".repeat(64)}` });
    await append(t.bus, request);
    await append(t.bus, grantFor(request, key));
    const rejected = await waitForEvent(t.bus, "desk", request.callId, "ToolCallRejected");
    expect(rejected.data).toMatchObject({ stage: "executor", error: { code: "DESCRIPTOR_CHANGED" } });
    expect(sent).not.toContain(request.callId);
  });

  it("refuses a validly signed grant for a call whose approval was denied or expired on the stream", async () => {
    for (const [type, code] of [["ApprovalDenied", "APPROVAL_DENIED"], ["ApprovalExpired", "APPROVAL_EXPIRED"]] as const) {
      const request = approvalRequested(notify, args);
      await append(t.bus, request);
      const answer = { ...request, eventId: newId(), causationId: request.eventId, causeHash: eventHash(request), ts: new Date().toISOString() };
      const settled =
        type === "ApprovalDenied"
          ? { ...answer, type, data: { approvalId: request.data.approvalId, approver: "carol", reason: "no" } }
          : { ...answer, type, data: { approvalId: request.data.approvalId, expiresAt: request.data.expiresAt } };
      await append(t.bus, settled as WardenEvent);
      await append(t.bus, grantFor(request, key));
      await expectRefused(request.callId, type === "ApprovalDenied" ? new RegExp(`denied by carol at ${settled.ts}`) : /expired/, code);
    }
  });

  it("refuses a grant whose chain does not stand: request, policy decision and validated args must answer one another", async () => {
    const cases: [string, ApprovalRequested][] = [];
    const honest = approvalRequested(notify, args);
    cases.push(["request-cause", { ...honest, causationId: newId() }]);
    cases.push(["policy-cause", approvalRequested(notify, args, { causationId: newId() })]);
    cases.push(["validation-missing", approvalRequested(notify, args, { validated: "none" })]);
    cases.push(["policy-args", approvalRequested(notify, args, { validated: { argsHash: argsHash({ ...args, to: "c99" }) } })]);
    cases.push(["policy-descriptor", approvalRequested(notify, args, { validated: { descriptorHash: `sha256:${"7".repeat(64)}` } })]);
    cases.push(["policy-denied", approvalRequested(notify, args, { answering: policyChecked(notify, args, { decision: "deny" }) })]);
    for (const [, request] of cases) {
      await append(t.bus, request);
      await append(t.bus, grantFor(request, key));
    }
    for (const [check, request] of cases) {
      const rejected = await waitForEvent(t.bus, "desk", request.callId, "ToolCallRejected");
      expect(rejected.data.error, check).toMatchObject({ code: "GRANT_INVALID", details: { check } });
      expect(rejected.data.error.message).toMatch(/^the authorisation does not answer this call's validated args: /);
      expect(await readEvent(t.bus, "desk", request.callId, "ToolCallStarted")).toBeUndefined();
      expect(sent).not.toContain(request.callId);
    }
  });

  it("refuses a grant for a call whose ApprovalRequested never reached the stream", async () => {
    const request = approvalRequested(notify, args);
    await appendEvent(t.bus, grantFor(request, key));
    await expectRefused(request.callId, /no ApprovalRequested/);
  });
});

describe("executor: no approver key pinned", () => {
  const logged: { msg?: string; level?: number }[] = [];
  const log = pino({ level: "info" }, { write: (line: string) => void logged.push(JSON.parse(line) as { msg?: string }) });
  const bare = defineTool({
    name: "bare.notify",
    version: "1.0.0",
    title: "Notify",
    description: "Use when a customer must be told something now; they see it at once.",
    grade: "send",
    input: z.strictObject({ to: z.string(), text: z.string() }),
    handler: ({ to }) => ({ delivered: to }),
  });
  const echo = defineTool({
    name: "bare.echo",
    version: "1.0.0",
    title: "Echo",
    description: "Use when you need the text you sent echoed back.",
    grade: "read",
    input: z.strictObject({ text: z.string() }),
    handler: ({ text }) => text,
  });

  const t = useRunningExecutor((_nats, bus) => ({ bus, log, domain: "bare", tools: [bare, echo] }));

  it("says so once at start, refuses every grant, and still runs allowed calls", async () => {
    const warnings = logged.filter((l) => l.msg?.startsWith("no approver key is pinned"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: 40 });
    const request = approvalRequested(bare, args);
    await append(t.bus, request);
    await append(t.bus, grantFor(request, approverKey()));
    const rejected = await waitForEvent(t.bus, "bare", request.callId, "ToolCallRejected");
    expect(rejected.data).toMatchObject({ stage: "executor", error: { code: "GRANT_INVALID" } });
    expect(rejected.data.error.message).toMatch(/no approver key is pinned in this executor/);
    const allowed = policyChecked(echo, { text: "hi" });
    await append(t.bus, allowed);
    expect((await waitForEvent(t.bus, "bare", allowed.callId, "ToolCallFinished")).data).toMatchObject({ ok: true, output: "hi" });
  });

  it("refuses to start with a pinned key that is not an Ed25519 public key", async () => {
    await expect(startExecutor({ bus: t.bus, log: silentLogger(), domain: "bare", tools: [echo], approverKeys: ["bm90IGEga2V5"] })).rejects.toThrow(
      /approver key #1 is not an SPKI DER public key/,
    );
  });
});
