import type { JsonValue } from "@warden/contracts/json";

/** A check on one argument, at a dotted path: equal to a value, or a string containing a word. */
export type ArgCheck =
  | { readonly path: string; readonly equals: JsonValue }
  | { readonly path: string; readonly includes: string };

/** A prompt and what a model given the view should do with it: call one tool, or nothing. */
export type GoldenCase =
  | { readonly id: string; readonly prompt: string; readonly tool: string; readonly args: readonly ArgCheck[] }
  | { readonly id: string; readonly prompt: string; readonly tool: null };

export interface GoldenSet {
  /** Who the ToolView is compiled for (mode llm). */
  readonly scope: string | null;
  readonly system: string;
  readonly cases: readonly GoldenCase[];
}

/**
 * Golden prompts over the support-desk demo, seen by a model through the llm view on the ticket
 * page: the reads and ticket.fill are offered; ticket.submit, customer.message and kb.reindex are
 * not, so prompts that ask for them must call nothing.
 */
export const SUPPORT_DESK_GOLDEN: GoldenSet = {
  scope: "ticket_page",
  system:
    "You are the assistant of a support agent. Call a tool only when it is needed to answer; otherwise answer directly. " +
    "Never pretend a tool you were not given exists.",
  cases: [
    { id: "kb-refund", prompt: "What do our help articles say about refunds for an item that arrived damaged?", tool: "kb.search", args: [{ path: "query", includes: "refund" }] },
    { id: "kb-password", prompt: "A customer says the password reset email never arrives. What does our knowledge base recommend?", tool: "kb.search", args: [{ path: "query", includes: "password" }] },
    { id: "session-2", prompt: "Show me what was said in support session 2.", tool: "session.fetch", args: [{ path: "id", equals: 2 }] },
    { id: "session-3", prompt: "Read conversation 3 and tell me what the customer is unhappy about.", tool: "session.fetch", args: [{ path: "id", equals: 3 }] },
    {
      id: "fill-priority",
      prompt: "On the ticket draft T-42 I have open, set the priority field to high.",
      tool: "ticket.fill",
      args: [
        { path: "ticketId", equals: "T-42" },
        { path: "fields.priority", equals: "high" },
      ],
    },
    { id: "none-thanks", prompt: "Thanks, that's all for today!", tool: null },
    { id: "none-math", prompt: "What is 17 times 3?", tool: null },
    { id: "none-send", prompt: "Send customer C-7 a message saying their refund went through.", tool: null },
    { id: "none-reindex", prompt: "Rebuild the knowledge base index now.", tool: null },
  ],
};
