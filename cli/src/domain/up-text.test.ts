import { describe, expect, it } from "vitest";
import { PolicyDocumentSchema } from "@warden/contracts";
import { exampleApprover, upText } from "./up-text.js";

describe("upText", () => {
  it("names the URL to export and the demo commands to try", () => {
    const text = upText({
      url: "nats://127.0.0.1:4333",
      startedNats: true,
      storeDir: ".warden/nats",
      services: ["registry", "policy", "approver", "support-desk"],
      demo: true,
      tools: ["kb.search"],
      policyVersion: "demo-1",
      approver: "alice",
    });
    expect(text).toContain("export NATS_URL=nats://127.0.0.1:4333");
    expect(text).toContain("npm run warden -- tools --mode llm --principal support-bot");
    expect(text).toContain("approve <approvalId> --as alice");
    expect(text).toContain("call agent.triage");
    expect(text).toContain("Ctrl-C");
  });

  it("says where NATS came from when it was not started here", () => {
    expect(upText({ url: "nats://x:4222", startedNats: false, services: [], demo: false, tools: [] })).toContain("(from NATS_URL)");
  });
});

describe("exampleApprover", () => {
  it("picks a human who may approve sends", () => {
    const policy = PolicyDocumentSchema.parse({
      version: "1",
      principals: { bot: { kind: "agent" }, lead: { kind: "human", approves: ["write"] }, boss: { kind: "human", approves: ["send"] } },
    });
    expect(exampleApprover(policy)).toBe("boss");
    expect(exampleApprover(undefined)).toBeUndefined();
  });
});
