import type { PendingApproval } from "@warden/contracts";

/** The requester's answer: run it, do not run it, or no answer (the call stays pending). */
export type Confirmation = "confirm" | "decline" | "cancel";

/** The form an MCP client shows the session's person (an `elicitation/create`, form mode). */
export interface ConfirmationForm {
  readonly mode: "form";
  readonly message: string;
  readonly requestedSchema: {
    readonly type: "object";
    readonly properties: { readonly confirm: { readonly type: "boolean"; readonly title: string; readonly description: string; readonly default: boolean } };
    readonly required: string[];
  };
  readonly [key: string]: unknown;
}

/**
 * What the person is asked: the tool, its grade and the exact args the approval is bound to (the
 * approver's preview, the one an approval inbox shows), and until when it can be decided.
 */
export function confirmationRequest(approval: PendingApproval, tool: string): ConfirmationForm {
  return {
    mode: "form",
    message:
      `Warden: ${approval.title} (${approval.tool}, a ${approval.grade} call) waits for your confirmation.\n` +
      `Arguments: ${approval.argsPreview}\n` +
      `Reason: ${approval.reason}\n` +
      `Decide before ${approval.expiresAt}; approval ${approval.approvalId}, asked as ${tool}.`,
    requestedSchema: {
      type: "object",
      properties: {
        confirm: { type: "boolean", title: "Run this call", description: "Yes runs it with exactly these arguments; no denies it.", default: false },
      },
      required: ["confirm"],
    },
  };
}

/** Reads the client's answer: accept with confirm=true runs it; accept with false, or decline, denies it. */
export function confirmedBy(answer: { action: string; content?: Record<string, unknown> }): Confirmation {
  if (answer.action === "accept") return answer.content?.["confirm"] === true ? "confirm" : "decline";
  if (answer.action === "decline") return "decline";
  return "cancel";
}
