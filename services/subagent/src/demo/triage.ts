import type { SubagentDescriptorInput } from "../descriptor.js";

/**
 * The demo's subagent over the support-desk tools. Its grade is `write` (it may fill and submit
 * tickets), so a model that delegates to it waits for a person; its own writes wait too.
 */
export const triageAgent: SubagentDescriptorInput = {
  name: "agent.triage",
  version: "1.0.0",
  title: "Triage a support request",
  description:
    "Use when a customer's support request needs looking into before anyone answers: it reads the conversation, searches the knowledge base, " +
    "drafts or files a ticket where needed, and returns a short summary with a suggested reply.",
  instructions:
    "You triage customer support requests for a support desk. Read the conversation when you are given a session id, search the knowledge base " +
    "for the company's own answer, and file a ticket only when the problem needs follow-up by the team. Never promise refunds or dates the " +
    "articles do not support. Finish with: a one-line summary, the articles you relied on, and a suggested reply to the customer.",
  allowedTools: ["kb.search", "session.fetch", "ticket.fill", "ticket.submit"],
  budget: { maxTurns: 4, maxToolCalls: 6, maxTokens: 30_000, timeoutMs: 90_000 },
  context: "summary",
};
