import { describe, expect, it } from "vitest";
import { PolicyDocumentSchema } from "@warden/contracts/policy";
import { exampleApprover, upText } from "./up-text.js";

describe("upText", () => {
  it("names the URL, the home whose credentials commands use, and the demo commands to try", () => {
    const text = upText({
      url: "nats://127.0.0.1:4333",
      home: "/srv/warden-home",
      identities: ["admin", "alice", "support-bot"],
      startedNats: true,
      storeDir: ".warden/nats",
      services: ["registry", "policy", "approver", "support-desk"],
      demo: true,
      tools: ["kb.search", "skill-refund-check.window"],
      skills: ["refund-check"],
      policyVersion: "demo-1",
      approver: "alice",
    });
    expect(text).toContain("nats://127.0.0.1:4333 (nats-server started here, store .warden/nats)");
    expect(text).toContain("/srv/warden-home (credentials of admin, alice, support-bot)");
    expect(text).toContain("npx warden tools --mode llm --principal support-bot");
    expect(text).toContain("approvals --as alice");
    expect(text).toContain("approve <approvalId> --as alice");
    expect(text).toContain("call agent.triage");
    expect(text).toContain("npx warden inbox --as alice");
    expect(text).toContain("npx warden mcp --as support-bot --print-config claude-desktop");
    expect(text).toContain("Ctrl-C");
  });

  it("names the skills it runs, and shows a call of the demo skill's script", () => {
    const text = upText({ url: "nats://x:4222", startedNats: false, services: ["adapters"], demo: true, tools: ["skill-refund-check.window"], skills: ["refund-check"] });
    expect(text).toMatch(/^ {2}skills {4}refund-check$/m);
    expect(text).toContain("npx warden call skill-refund-check.window");
    expect(upText({ url: "nats://x:4222", startedNats: false, services: [], demo: false, tools: [], skills: [] })).not.toContain("skills");
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
