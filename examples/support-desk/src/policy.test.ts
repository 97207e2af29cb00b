import { describe, expect, it } from "vitest";
import type { Bus } from "@warden/bus";
import type { CallMode, ToolRecord } from "@warden/contracts/descriptor";
import { decideRequest, evaluatePolicy, lintPolicyDocument, parseDecideRequest, toolVisibility, type HistoryRecord } from "@warden/policy-engine";
import { supportDeskPolicy } from "./policy.js";
import { SUPPORT_DESK_DOMAINS, supportDeskTools } from "./tools.js";

// descriptors only: the bus is never touched here
const tools = supportDeskTools({} as Bus);
const descriptor = (name: string) => {
  const t = SUPPORT_DESK_DOMAINS.flatMap((d) => tools[d]).find((x) => x.descriptor.name === name);
  if (t === undefined) throw new Error(`no demo tool ${name}`);
  return t.descriptor;
};
const records: ToolRecord[] = SUPPORT_DESK_DOMAINS.flatMap((d) => tools[d]).map((t) => ({
  descriptor: t.descriptor,
  descriptorHash: `sha256:${t.descriptor.name}`,
  status: "enabled",
  registeredAt: "2030-01-01T00:00:00.000Z",
  statusChangedAt: "2030-01-01T00:00:00.000Z",
}));
/** Decides a request as `warden policy decide --history` does, from the earlier calls given. */
const decideAfter = (request: Record<string, unknown>, history: HistoryRecord[]) => {
  const req = parseDecideRequest({ at: "2030-01-01T10:30:00.000Z", ...request });
  if (!req.ok) throw new Error(req.error.message);
  const d = decideRequest(supportDeskPolicy, records, req.value, history);
  if (!d.ok) throw new Error(d.error.message);
  return d.value;
};
const decide = (tool: string, principal: string, mode: CallMode, flags: Record<string, boolean> = {}, scope: string | null = null) =>
  evaluatePolicy(supportDeskPolicy, { tool: descriptor(tool), principal, mode, flags, scope });

describe("the support desk's policy", () => {
  it("grants kbAdmin, which kb.reindex needs, to dana and nobody else, whatever a call asks for", () => {
    expect(descriptor("kb.reindex").featureFlag).toBe("kbAdmin");
    expect(decide("kb.reindex", "dana", "human")).toMatchObject({ decision: "allow" });
    expect(decide("kb.reindex", "dana", "plan")).toMatchObject({ decision: "allow" });
    expect(decide("kb.reindex", "dana", "human", { kbAdmin: false })).toMatchObject({ decision: "deny", ruleIds: ["gate.feature_flag"] });
    for (const [principal, mode] of [["alice", "human"], ["bob", "human"], ["support-bot", "llm"], ["support-bot", "plan"], ["mallory", "plan"]] as const) {
      expect(decide("kb.reindex", principal, mode, { kbAdmin: true }), principal).toMatchObject({ decision: "deny", ruleIds: ["gate.feature_flag"] });
    }
  });

  it("keeps kb.reindex out of support-bot's llm view on the ticket page, and still offers the reads and ticket.fill", () => {
    const q = { principal: "support-bot", mode: "llm" as const, flags: {}, scope: "ticket_page" };
    expect(toolVisibility(supportDeskPolicy, descriptor("kb.reindex"), q)).toMatchObject({ visible: false, reason: "feature_flag_off" });
    for (const name of ["kb.search", "session.fetch", "ticket.fill"]) {
      expect(toolVisibility(supportDeskPolicy, descriptor(name), q), name).toMatchObject({ visible: true });
    }
  });

  it("lets the demo's people act in human mode and refuses it to support-bot and to principals it does not name", () => {
    expect(decide("ticket.fill", "alice", "human", {}, "ticket_page")).toMatchObject({ decision: "allow" });
    expect(decide("customer.message", "bob", "human")).toMatchObject({ decision: "require_approval" });
    for (const principal of ["support-bot", "mallory"]) {
      expect(decide("ticket.submit", principal, "human"), principal).toMatchObject({ decision: "deny", ruleIds: ["gate.human_mode_needs_person"] });
    }
  });
});

describe("the support desk's rules over earlier calls", () => {
  const ticket = { tool: "ticket.submit", principal: "support-bot", mode: "plan", runId: "run-1", args: { title: "Broken blender", body: "wants a refund", customerId: "C-1" } };
  const fetched = (o: Partial<HistoryRecord> = {}): HistoryRecord => ({ callId: "f1", tool: "session.fetch", principal: "support-bot", runId: "run-1", args: { id: 1 }, at: "2030-01-01T10:20:00.000Z", outcome: "ok", ...o });

  it("lets support-bot file a ticket unattended in a run that has read a support conversation, and asks a person otherwise", () => {
    expect(decideAfter(ticket, [fetched()])).toMatchObject({ decision: "allow", history: [{ ruleId: "bot.ticket-after-read", holds: false, matched: ["f1"] }] });
    for (const [why, earlier] of [
      ["no read at all", []],
      ["a read in another run", [fetched({ runId: "run-2" })]],
      ["a read that failed", [fetched({ outcome: "failed" })]],
      ["a read still running", [fetched({ outcome: "pending" })]],
      ["a read over an hour ago", [fetched({ at: "2030-01-01T09:29:00.000Z" })]],
    ] as const) {
      expect(decideAfter(ticket, [...earlier]), why).toMatchObject({ decision: "require_approval", ruleIds: ["bot.ticket-after-read"], history: [{ holds: true }] });
    }
    // the rule is support-bot's: a person's plan files as before
    expect(decideAfter({ ...ticket, principal: "alice" }, [])).toMatchObject({ decision: "allow", ruleIds: ["default.write.plan"] });
  });

  it("refuses a fourth message to one customer within the hour, counting those still waiting for approval, and not other customers'", () => {
    const message = { tool: "customer.message", principal: "support-bot", mode: "plan", args: { customerId: "C-9", text: "one more thing" } };
    const sent = (i: number, customerId = "C-9", outcome: HistoryRecord["outcome"] = "ok"): HistoryRecord => ({
      callId: `m${i}`,
      tool: "customer.message",
      principal: "support-bot",
      runId: `run-${i}`,
      args: { customerId, text: "hi" },
      at: `2030-01-01T10:0${i}:00.000Z`,
      outcome,
    });
    // three earlier (one still waiting for a person): the fourth is refused and names them
    const fourth = decideAfter(message, [sent(1), sent(2), sent(3, "C-9", "pending")]);
    expect(fourth).toMatchObject({ decision: "deny", ruleIds: ["messages.per-customer"], history: [{ ruleId: "messages.per-customer", holds: true, count: 3, matched: ["m1", "m2", "m3"] }] });
    // two earlier, or a third that was refused by its approver (released), or to another customer: it waits for a person as every send does
    for (const earlier of [[sent(1), sent(2)], [sent(1), sent(2), sent(3, "C-9", "failed")], [sent(1), sent(2), sent(3, "C-8")]]) {
      expect(decideAfter(message, earlier)).toMatchObject({ decision: "require_approval", ruleIds: ["default.send.plan"] });
    }
  });

  it("passes the lint against its own tools: no warnings, no errors", () => {
    expect(lintPolicyDocument(supportDeskPolicy, { tools: records.map((r) => r.descriptor) })).toEqual([]);
  });
});

