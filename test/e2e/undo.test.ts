import { describe, expect, it } from "vitest";
import { appendEvent, kvGetJson } from "@warden/bus";
import { undoCallIdOf, type ToolCallRequested } from "@warden/contracts/events";
import { BUCKET_DEMO_TICKETS } from "@warden/example-support-desk";
import { callEvents, waitForEvent } from "@warden/testing";
import { z } from "zod";
import { handMadeRequest } from "../support/hand-made-request.js";
import { runWarden } from "../support/cli.js";
import { usualPrincipals } from "../support/usual-principals.js";
import { useTestWarden } from "../support/use-test-warden.js";

/** Undo (issue 16 item 2): a call is undone by the compensation its tool declares, as a governed call of its own, once. */
describe("undo: compensating a call that succeeded", () => {
  const t = useTestWarden({
    demo: true,
    policy: { version: "e2e-undo", principals: { ...usualPrincipals("alice", "planner"), other: { kind: "agent" } } },
  }, async (w) => ({
    planner: await w.agent("planner", { mode: "plan" }),
    other: await w.agent("other", { mode: "plan" }),
  }));

  const submit = (customerId: string) => t.planner.call("ticket.submit", { title: "Refund", body: "by mistake", customerId }, { wait: true, timeoutMs: 20_000 });
  const ticket = async (ticketId: string) => (await kvGetJson(await t.w.bus.kvm.open(BUCKET_DEMO_TICKETS), `ticket.${ticketId}`, z.record(z.string(), z.unknown())))?.value;

  it("withdraws a submitted ticket as a governed call linked to the submit; asking again follows the same undo", async () => {
    const filed = await submit("C-undo");
    expect(filed).toMatchObject({ ok: true, status: "succeeded" });
    const ticketId = (filed.data as { ticketId: string }).ticketId;

    const undone = await t.planner.undo(filed.callId, { wait: true, timeoutMs: 20_000 });
    expect(undone, JSON.stringify(undone)).toMatchObject({ ok: true, status: "succeeded", callId: undoCallIdOf("planner", "ticket", filed.callId), data: { ticketId, withdrawn: true } });
    expect(await ticket(ticketId)).toMatchObject({ withdrawn: true, withdrawnBy: "planner" });
    // the undo went through every gate, and says what it undoes
    const events = await callEvents(t.w.bus, undone.callId);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["ToolCallRequested", "ToolArgsValidated", "ToolPolicyChecked", "ToolCallStarted", "ToolCallFinished"]));
    const request = events.find((e): e is ToolCallRequested => e.type === "ToolCallRequested")!;
    expect(request).toMatchObject({ tool: "ticket.withdraw", principal: "planner", data: { args: { ticketId }, compensates: { callId: filed.callId, domain: "ticket" } } });

    // the trace of each says what undoes what
    const traced = await runWarden(t.w.nats.home.dir, "trace", undone.callId, "--wide");
    expect(traced.out).toContain(`undoes=ticket/${filed.callId}`);
    const original = await runWarden(t.w.nats.home.dir, "trace", filed.callId, "--wide");
    expect(original.out).toContain(`undo=ticket.withdraw({"ticketId":"${ticketId}"})`);

    const again = await t.planner.undo(filed.callId, { wait: true, timeoutMs: 20_000 });
    expect(again).toMatchObject({ ok: true, callId: undone.callId });
    expect((await callEvents(t.w.bus, undone.callId)).filter((e) => e.type === "ToolCallRequested")).toHaveLength(1);
  });

  it("refuses what cannot be undone, saying why: a read, a failed call, another principal's call", async () => {
    const read = await t.planner.call("kb.search", { query: "refund" }, { wait: true, timeoutMs: 20_000 });
    expect(await t.planner.undo(read.callId)).toMatchObject({ ok: false, status: "rejected", error: { code: "NOT_UNDOABLE", message: expect.stringContaining("kb.search declares no compensation") } });
    const failed = await t.planner.call("demo.fail", {}, { wait: true, timeoutMs: 20_000 });
    expect(await t.planner.undo(failed.callId)).toMatchObject({ ok: false, error: { code: "NOT_UNDOABLE", message: expect.stringContaining("has not succeeded") } });
    const filed = await submit("C-theirs");
    expect(await t.other.undo(filed.callId)).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
  });

  it("has the registry refuse a hand-made undo that is not the one the call recorded: other args, another principal, another call id", async () => {
    const filed = await submit("C-forged");
    const forge = async (principal: string, callId: string, args: Record<string, unknown>) => {
      const bus = await t.w.agentBus(principal);
      const req = handMadeRequest({ callId, tool: "ticket.withdraw", principal, mode: "plan", runId: "run-forge", data: { args: args as never, compensates: { callId: filed.callId, domain: "ticket" } } });
      await appendEvent(bus, req);
      return waitForEvent(t.w.bus, "ticket", callId, "ToolCallRejected", 15_000);
    };
    const wrongArgs = await forge("planner", undoCallIdOf("planner", "ticket", filed.callId), { ticketId: "T-someone-else" });
    expect(wrongArgs.data).toMatchObject({ stage: "registry", error: { code: "NOT_UNDOABLE", message: expect.stringContaining("must call ticket.withdraw with") } });
    const notTheirs = await forge("other", `${filed.callId}-x`, { ticketId: (filed.data as { ticketId: string }).ticketId });
    expect(notTheirs.data.error.message).toContain("a call is undone once");
  });

  it("warden undo runs the undo as the requester and prints its result", async () => {
    const filed = await submit("C-cli");
    const r = await runWarden(t.w.nats.home.dir, "undo", filed.callId, "--as", "planner", "--principal", "planner", "--mode", "plan", "--wait", "--json");
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ ok: true, callId: undoCallIdOf("planner", "ticket", filed.callId) });
    const bad = await runWarden(t.w.nats.home.dir, "undo", "no.such", "--as", "planner");
    expect(bad.code).not.toBe(0);
  });
});
