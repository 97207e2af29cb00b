import { PolicyDocumentSchema, type PolicyDocument } from "@warden/contracts";

/**
 * The demo's policy: alice is a support lead who approves writes and sends, bob is a person who
 * approves nothing, cli is whoever runs `warden` without --principal (approves nothing), dana maintains the knowledge base (the only one granted kbAdmin, which
 * kb.reindex needs), support-bot is the agent. A model may see (and propose) ticket.fill.
 * Feature flags come from here, per principal: a call may turn a granted flag off, never on.
 */
export const supportDeskPolicy: PolicyDocument = PolicyDocumentSchema.parse({
  version: "support-desk-3",
  principals: {
    alice: { kind: "human", approves: ["write", "send"], scopes: ["tickets:write"] },
    bob: { kind: "human" },
    cli: { kind: "human" },
    dana: { kind: "human", flags: { kbAdmin: true } },
    "support-bot": { kind: "agent" },
  },
  llm: { showWrite: ["ticket.fill"] },
});
