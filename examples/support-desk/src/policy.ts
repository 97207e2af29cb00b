import { PolicyDocumentSchema, type PolicyDocument } from "@warden/contracts";

/**
 * The demo's policy: alice is a support lead who approves writes and sends, bob is a person who
 * approves nothing, support-bot is the agent. A model may see (and propose) ticket.fill.
 */
export const supportDeskPolicy: PolicyDocument = PolicyDocumentSchema.parse({
  version: "support-desk-1",
  principals: {
    alice: { kind: "human", approves: ["write", "send"], scopes: ["tickets:write"] },
    bob: { kind: "human" },
    "support-bot": { kind: "agent" },
  },
  llm: { showWrite: ["ticket.fill"] },
});
