import { describe, expect, it } from "vitest";
import { type CallMode } from "@warden/contracts/descriptor";
import { PolicyDocumentSchema, type PolicyDocumentInput } from "@warden/contracts/policy";
import { gradedTool } from "../test-support/fixtures.js";
import { toolVisibility } from "./visibility.js";

const doc = (over: Partial<PolicyDocumentInput> = {}) => PolicyDocumentSchema.parse({ version: "t1", principals: { alice: { kind: "human" } }, ...over });
const q = (mode: CallMode) => ({ principal: "alice", mode, flags: {}, scope: null });

describe("toolVisibility", () => {
  it("never shows a send tool to a model, whatever the document says", () => {
    const d = doc({ llm: { showWrite: ["*"] }, rules: [{ id: "open", effect: "allow", reason: "x", match: {} }] });
    const v = toolVisibility(d, gradedTool("customer.message", "send"), q("llm"));
    expect(v).toMatchObject({ visible: false, reason: "send_never_listed_for_llm" });
  });

  it("shows a send tool to a person and a plan, pending approval", () => {
    for (const mode of ["human", "plan"] as const) {
      const v = toolVisibility(doc(), gradedTool("customer.message", "send"), q(mode));
      expect(v).toMatchObject({ visible: true, evaluation: { decision: "require_approval" } });
    }
  });

  it("hides a write tool from a model unless the document opts it in", () => {
    const t = gradedTool("ticket.submit", "write");
    expect(toolVisibility(doc(), t, q("llm"))).toMatchObject({ visible: false, reason: "write_not_opted_in_for_llm" });
    expect(toolVisibility(doc({ llm: { showWrite: ["ticket.*"] } }), t, q("llm"))).toMatchObject({
      visible: true,
      evaluation: { decision: "require_approval" },
    });
  });

  it("shows read tools to a model", () => {
    expect(toolVisibility(doc(), gradedTool("kb.search", "read"), q("llm"))).toMatchObject({ visible: true, evaluation: { decision: "allow" } });
  });

  it("hides a tool whose call would be denied, with the gate as the reason", () => {
    expect(toolVisibility(doc(), gradedTool("kb.reindex", "read", { featureFlag: "kbAdmin" }), q("human"))).toMatchObject({ visible: false, reason: "feature_flag_off" });
    const d = doc({ rules: [{ id: "no-kb", effect: "deny", reason: "closed", match: { domain: "kb" } }] });
    expect(toolVisibility(d, gradedTool("kb.search", "read"), q("human"))).toMatchObject({ visible: false, reason: "policy_denied", ruleIds: ["no-kb"] });
  });

  it("shows a flagged tool only to a principal the document grants the flag, and the request may only hide it", () => {
    const d = doc({ principals: { alice: { kind: "human", flags: { kbAdmin: true } }, bob: { kind: "human" } } });
    const t = gradedTool("kb.reindex", "read", { featureFlag: "kbAdmin" });
    expect(toolVisibility(d, t, q("human"))).toMatchObject({ visible: true });
    expect(toolVisibility(d, t, { ...q("human"), flags: { kbAdmin: false } })).toMatchObject({ visible: false, reason: "feature_flag_off" });
    expect(toolVisibility(d, t, { ...q("human"), principal: "bob", flags: { kbAdmin: true } })).toMatchObject({ visible: false, reason: "feature_flag_off" });
  });

  it("hides every tool from a human-mode view asked for by a principal the document does not name", () => {
    for (const t of [gradedTool("kb.search", "read"), gradedTool("ticket.submit", "write"), gradedTool("customer.message", "send")]) {
      expect(toolVisibility(doc(), t, { ...q("human"), principal: "mallory" })).toMatchObject({
        visible: false,
        reason: "policy_denied",
        ruleIds: ["gate.human_mode_needs_person"],
      });
    }
  });
});
