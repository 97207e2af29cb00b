import { PolicyDocumentSchema, type PolicyDocument } from "@warden/contracts/policy";

/**
 * The demo's policy: alice is a support lead who approves writes and sends, bob is a person who
 * approves nothing, cli is whoever runs `warden` without --principal (approves nothing), dana maintains the knowledge base (the only one granted kbAdmin, which
 * kb.reindex needs), support-bot is the agent. A model may see (and propose) ticket.fill.
 * Feature flags come from here, per principal: a call may turn a granted flag off, never on.
 *
 * Two rules over earlier calls (docs/policy.md, History conditions): support-bot files a ticket
 * unattended only in a run that has read a support conversation (session.fetch finished ok), else
 * a person looks first; and nobody sends one customer more than three messages an hour (messages
 * waiting for approval count, so a queue of them cannot pass the limit).
 */
export const supportDeskPolicy: PolicyDocument = PolicyDocumentSchema.parse({
  version: "support-desk-4",
  principals: {
    alice: { kind: "human", approves: ["write", "send"], scopes: ["tickets:write"] },
    bob: { kind: "human" },
    cli: { kind: "human" },
    dana: { kind: "human", flags: { kbAdmin: true } },
    "support-bot": { kind: "agent" },
  },
  llm: { showWrite: ["ticket.fill"] },
  rules: [
    {
      id: "bot.ticket-after-read",
      match: { tool: "ticket.submit", principal: "support-bot" },
      when: { history: { scope: "run", within: "1h", calls: { tool: "session.fetch", outcome: "ok" }, absent: true } },
      effect: "require_approval",
      reason: "support-bot files a ticket without having read a support conversation in this run: a person looks first",
    },
    {
      id: "messages.per-customer",
      match: { tool: "customer.message" },
      when: { history: { scope: "principal", within: "1h", calls: { tool: "customer.message" }, same: ["customerId"], count: { max: 3 } } },
      effect: "deny",
      reason: "at most 3 messages to one customer per sender and hour, those waiting for approval included",
    },
  ],
});
