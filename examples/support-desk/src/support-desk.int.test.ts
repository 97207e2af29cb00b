import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEvent, silentLogger, type Bus } from "@warden/bus";
import { type ToolCallFinished } from "@warden/contracts/events";
import { BUCKET_TOOLS } from "@warden/contracts/subjects";
import { sha256Hex } from "@warden/contracts/json";
import { readArtifact, type ExecutableTool } from "@warden/executor";
import { append, approvalRequested, approverKey, type ApproverKey, grantFor, policyChecked, serveFakeRegistry, useTestNats, waitForEvent } from "@warden/testing";
import { BUCKET_DEMO_OUTBOX, readOutbox } from "./outbox.js";
import { startSupportDesk, type SupportDesk } from "./start-support-desk.js";
import { BUCKET_DEMO_TICKETS } from "./tickets.js";
import { SUPPORT_DESK_DOMAINS, supportDeskTools } from "./tools.js";

describe("the support desk over a real nats-server", () => {
  const server = useTestNats();
  /** The admin connection: writes what registry, policy and approver would, and reads the results. */
  let bus: Bus;
  let desk: SupportDesk;
  let key: ApproverKey;
  let registry: Awaited<ReturnType<typeof serveFakeRegistry>>;
  let tool: (name: string) => ExecutableTool;

  beforeAll(async () => {
    bus = server.bus;
    registry = await serveFakeRegistry(bus);
    // the desk runs as its executor identity, with the approver key it was provisioned with pinned
    key = approverKey();
    const deskBus = await server.nats.connectAs({ kind: "executor", name: "support-desk", domains: [...SUPPORT_DESK_DOMAINS], buckets: [BUCKET_DEMO_OUTBOX, BUCKET_DEMO_TICKETS] });
    desk = await startSupportDesk({ bus: deskBus, log: silentLogger(), approverKeys: [key.publicKeyDerBase64] });
    const tools = supportDeskTools(bus);
    const byName = new Map(SUPPORT_DESK_DOMAINS.flatMap((d) => tools[d]).map((t) => [t.descriptor.name, t]));
    tool = (name) => byName.get(name)!;
  });
  afterAll(async () => {
    await desk?.stop();
    await registry?.stop();
  });

  async function runAllowed(name: string, args: Parameters<typeof policyChecked>[1]): Promise<ToolCallFinished> {
    const pc = policyChecked(tool(name), args, { principal: "support-bot", mode: "plan" });
    await append(bus, pc);
    return waitForEvent(bus, pc.domain, pc.callId, "ToolCallFinished");
  }

  it("registers every tool of its five domains", async () => {
    expect(desk.executors.map((e) => e.domain).sort()).toEqual([...SUPPORT_DESK_DOMAINS].sort());
    const kv = await bus.kvm.open(BUCKET_TOOLS);
    const keys: string[] = [];
    for await (const k of await kv.keys()) keys.push(k);
    expect(keys.sort()).toEqual([
      "customer.message.1.2.0",
      "demo.big.1.1.0",
      "demo.fail.1.1.0",
      "demo.slow.1.1.0",
      "kb.reindex.1.0.0",
      "kb.search.1.1.0",
      "session.fetch.1.1.0",
      "ticket.fill.1.2.0",
      "ticket.submit.1.2.0",
      "ticket.withdraw.1.1.0",
    ]);
  });

  it("answers kb.search and session.fetch, and fails session.fetch for an unknown session", async () => {
    const found = await runAllowed("kb.search", { query: "password reset", limit: 1 });
    expect(found.data).toMatchObject({ ok: true, output: { articles: [{ id: "KB-003" }] } });
    const turns = await runAllowed("session.fetch", { id: 2 });
    expect(turns.data.output).toEqual(expect.arrayContaining([{ role: "customer", text: "password reset email never arrives" }]));
    const missing = await runAllowed("session.fetch", { id: 404 });
    expect(missing.data).toMatchObject({ ok: false, error: { code: "HANDLER_ERROR", message: "no session 404" } });
  });

  it("fills a ticket draft field by field and submits a ticket, returning its id", async () => {
    await runAllowed("ticket.fill", { ticketId: "T-draft1", fields: { priority: "high" } });
    const filled = await runAllowed("ticket.fill", { ticketId: "T-draft1", fields: { category: "refund" } });
    expect(filled.data.output).toEqual({ ticketId: "T-draft1", draft: { priority: "high", category: "refund" } });
    const submitted = await runAllowed("ticket.submit", { title: "Broken blender", body: "Wants a refund", customerId: "C-1" });
    expect(submitted.data.output).toEqual({ ticketId: `T-${submitted.callId}` });
    // the executor records how the call is undone, built from its output
    expect(submitted.data.undo).toEqual({ tool: "ticket.withdraw", args: { ticketId: `T-${submitted.callId}` } });
  });

  it("sends a customer message only under a grant, and the outbox shows exactly what was sent", async () => {
    const args = { customerId: "C-outbox", text: "Your refund is on its way." };
    const allowedOnly = policyChecked(tool("customer.message"), args);
    await append(bus, allowedOnly);
    const refused = await waitForEvent(bus, "customer", allowedOnly.callId, "ToolCallRejected");
    expect(refused.data.error.code).toBe("GRANT_INVALID");
    expect((await readOutbox(bus)).filter((m) => m.customerId === "C-outbox")).toEqual([]);

    const request = approvalRequested(tool("customer.message"), args, { principal: "support-bot", mode: "plan" });
    await append(bus, request);
    await append(bus, grantFor(request, key));
    const finished = await waitForEvent(bus, "customer", request.callId, "ToolCallFinished");
    expect(finished.data).toMatchObject({ ok: true, output: { delivered: true, messageId: `C-outbox.${request.callId}` } });
    expect((await readOutbox(bus)).filter((m) => m.customerId === "C-outbox")).toEqual([
      expect.objectContaining({ customerId: "C-outbox", text: args.text, callId: request.callId, principal: "support-bot" }),
    ]);
  });

  it("turns demo.fail into HANDLER_ERROR and demo.slow into TIMEOUT", async () => {
    expect((await runAllowed("demo.fail", {})).data).toMatchObject({ ok: false, error: { code: "HANDLER_ERROR" } });
    const slow = await runAllowed("demo.slow", {});
    expect(slow.data).toMatchObject({ ok: false, error: { code: "TIMEOUT" } });
    expect(slow.data.durationMs).toBeLessThan(5_000);
  });

  it("stores demo.big's megabyte as an artifact and keeps a preview in the event", async () => {
    const big = await runAllowed("demo.big", {});
    expect(big.data).toMatchObject({ ok: true, truncated: true });
    const ref = big.data.artifacts[0]!;
    expect(ref.bytes).toBeGreaterThan(900_000);
    const bytes = await readArtifact(bus, ref.id);
    expect(sha256Hex(bytes!)).toBe(ref.sha256);
    expect(Array.isArray(big.data.output)).toBe(true);
    expect(await readEvent(bus, "demo", big.callId, "ToolCallOutcomeUnknown")).toBeUndefined();
  });
});
