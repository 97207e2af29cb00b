import { describe, expect, it } from "vitest";
import type { Bus } from "@warden/bus";
import type { CallMode } from "@warden/contracts";
import { evaluatePolicy, toolVisibility } from "@warden/policy-engine";
import { supportDeskPolicy } from "./policy.js";
import { SUPPORT_DESK_DOMAINS, supportDeskTools } from "./tools.js";

// descriptors only: the bus is never touched here
const tools = supportDeskTools({} as Bus);
const descriptor = (name: string) => {
  const t = SUPPORT_DESK_DOMAINS.flatMap((d) => tools[d]).find((x) => x.descriptor.name === name);
  if (t === undefined) throw new Error(`no demo tool ${name}`);
  return t.descriptor;
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
