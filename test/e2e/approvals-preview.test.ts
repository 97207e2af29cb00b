import { describe, expect, it } from "vitest";
import { BUCKET_DEMO_TICKETS } from "@warden/example-support-desk";
import type { ApprovalRequested } from "@warden/contracts/events";
import { defineTool } from "@warden/executor";
import { z } from "zod";
import { callEvents } from "@warden/testing";
import { cardIn } from "../support/approval-cards.js";
import { usualPrincipals } from "../support/usual-principals.js";
import { useTestWarden } from "../support/use-test-warden.js";

/** The approval card carries the tool's own dry run (`preview(args)`): what would change, read from the current state. */
describe("approvals: the tool's dry run on the card", () => {
  let previews = 0;

  const t = useTestWarden({
    demo: true,
    policy: {
      version: "e2e-preview",
      principals: usualPrincipals("alice", "support-bot"),
      llm: { showWrite: ["ticket.fill", "notes.fail", "notes.hang"] },
    },
  }, async (w) => {
    const bot = await w.agent("support-bot");
    const alice = await w.approver("alice");
    const note = (name: string, preview: () => Promise<unknown>) =>
      defineTool({
        name,
        version: "1.0.0",
        title: name,
        description: "Use when testing a dry run that does not answer as it should.",
        grade: "write",
        timeoutMs: 2_000,
        input: z.strictObject({ n: z.int() }),
        handler: async ({ n }) => ({ n }),
        preview: async () => {
          previews += 1;
          return preview();
        },
      });
    await w.startExecutor("notes", [
      note("notes.fail", async () => {
        throw new Error("the notes store is down");
      }),
      note("notes.hang", () => new Promise(() => undefined)),
    ]);
    return { bot, alice };
  });

  const cardOf = (callId: string) => cardIn(t.alice, (a) => a.callId === callId, 15_000);
  const fill = (ticketId: string, fields: Record<string, string>) => t.bot.call("ticket.fill", { ticketId, fields }, { mode: "llm", scope: "ticket_page" });

  it("shows the draft as it is and as it would be, from the current state, and the dry run changes nothing", async () => {
    const first = await fill("T-501", { priority: "high" });
    const card = await cardOf(first.callId);
    expect(card.preview).toMatchObject({ data: { ticketId: "T-501", before: {}, after: { priority: "high" }, changed: ["priority"] }, executorId: expect.any(String) });
    // recorded on the ApprovalRequested the person decides on
    const requested = (await callEvents(t.w.bus, first.callId)).find((e): e is ApprovalRequested => e.type === "ApprovalRequested");
    expect(requested?.data.preview).toEqual(card.preview);
    // the dry run wrote no draft
    const tickets = await t.w.bus.kvm.open(BUCKET_DEMO_TICKETS);
    expect(await tickets.get("draft.T-501")).toBeNull();

    expect(await t.alice.approve(card.approvalId, card.argsHash)).toMatchObject({ ok: true });
    expect(await t.bot.awaitCall(first.callId, "ticket.fill", { timeoutMs: 10_000 })).toMatchObject({ ok: true });
    const second = await fill("T-501", { summary: "blender broke" });
    const next = await cardOf(second.callId);
    expect(next.preview?.data).toEqual({ ticketId: "T-501", before: { priority: "high" }, after: { priority: "high", summary: "blender broke" }, changed: ["summary"] });
    expect(await t.alice.deny(next.approvalId, next.argsHash, "not yet")).toMatchObject({ ok: true });
  });

  it("puts a failed or hung dry run on the card as an error, and the call can still be decided", async () => {
    const failing = await t.bot.call("notes.fail", { n: 1 }, { mode: "llm" });
    const failed = await cardOf(failing.callId);
    expect(failed.preview).toEqual({ error: { code: "HANDLER_ERROR", message: "the notes store is down" } });
    const hanging = await t.bot.call("notes.hang", { n: 2 }, { mode: "llm" });
    const hung = await cardOf(hanging.callId);
    expect(hung.preview?.error?.code).toBe("TIMEOUT");
    expect(previews).toBe(2);
    expect(await t.alice.approve(hung.approvalId, hung.argsHash)).toMatchObject({ ok: true });
    expect(await t.bot.awaitCall(hanging.callId, "notes.hang", { timeoutMs: 10_000 })).toMatchObject({ ok: true, data: { n: 2 } });
  });

  it("asks for no dry run of a tool that offers none", async () => {
    const send = await t.bot.call("customer.message", { customerId: "C-9", text: "hi" }, { mode: "plan" });
    const card = await cardOf(send.callId);
    expect(card.preview).toBeUndefined();
  });
});
