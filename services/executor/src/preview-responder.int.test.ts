import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { requestRpc, silentLogger, type Bus } from "@warden/bus";
import { executorPreviewSubject } from "@warden/contracts/subjects";
import { append, policyChecked } from "@warden/testing";
import { useRunningExecutor } from "../test-support/executor-harness.js";
import { defineTool } from "./define-tool.js";

/** A write whose dry run says whom it ran for and with which args. */
const rename = defineTool({
  name: "crm.rename",
  version: "1.0.0",
  title: "Rename an account",
  description: "Use when an account's name must change; the old name is kept in its history.",
  grade: "write",
  input: z.strictObject({ id: z.string(), name: z.string() }),
  handler: ({ id, name }) => ({ id, name }),
  preview: (args, ctx) => ({ args, principal: ctx.principal, onBehalfOf: ctx.onBehalfOf }),
});

describe("executor: dry runs for the approval card", () => {
  const t = useRunningExecutor(async (nats) => ({ bus: await nats.connectAs({ kind: "executor", name: "crm-1", domains: ["crm"] }), log: silentLogger(), domain: "crm", tools: [rename] }));
  let approverBus: Bus;

  beforeAll(async () => {
    approverBus = await t.nats.connectAs({ kind: "service", name: "approver", role: "approver" });
  });

  const ask = (callId: string, over: Record<string, unknown> = {}) =>
    requestRpc(approverBus, executorPreviewSubject("crm"), { callId, tool: rename.descriptor.name, version: "1.0.0", descriptorHash: rename.descriptorHash, args: { id: "a1", name: "Acme" }, principal: "alice", ...over }, 10_000);

  it("runs the dry run for whom and with what args the policy's decision says, whatever the request claims", async () => {
    const waiting = policyChecked(rename, { id: "a1", name: "Acme" }, { principal: "alice", mode: "llm", decision: "require_approval" });
    await append(t.bus, waiting);
    const forged = await ask(waiting.callId, { principal: "bob", onBehalfOf: "bob", args: { id: "a2", name: "Other" } });
    expect(forged).toMatchObject({ ok: true, value: { data: { args: { id: "a1", name: "Acme" }, principal: "alice", onBehalfOf: "alice" } } });
  });

  it("refuses a dry run for a call with no decision waiting for approval", async () => {
    expect(await ask("no-such-call")).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
    const allowed = policyChecked(rename, { id: "a1", name: "Acme" }, { principal: "alice", mode: "plan", decision: "deny" });
    await append(t.bus, allowed);
    expect(await ask(allowed.callId)).toMatchObject({ ok: false, error: { code: "NOT_FOUND", message: expect.stringContaining("waiting for approval") } });
  });
});
