import type { PendingApproval } from "@warden/contracts/approval";

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

/** What a session does with a call that waits for a person. */
export type ConfirmationPath =
  /** ask the person in their client (elicitation); their answer is their decision */
  | "ask"
  /** the requester may confirm, but not from this client: the result says where to */
  | "elsewhere"
  /** someone else decides, or the client cannot ask: the pending result goes back as it is */
  | "none";

export interface ConfirmationContext {
  /** The session's principal and mode. */
  readonly principal: string;
  readonly mode: string;
  /**
   * The client is the person's own process (stdio: they started it). Over HTTP any local process
   * that can reach the port could answer the form, so it never decides there.
   */
  readonly ownProcess: boolean;
  /** The session may ask at all (`confirmInClient`), and the client declared elicitation. */
  readonly mayAsk: boolean;
  /** The approval as the session's own inbox lists it (absent: not theirs to decide). */
  readonly approval: PendingApproval | undefined;
}

/**
 * Whether the session's own person is asked to confirm in the client: only for a call of theirs
 * in mode `human` that the policy lets the requester confirm, and only when the client is their
 * own process.
 */
export function confirmationPath(ctx: ConfirmationContext): ConfirmationPath {
  const { approval } = ctx;
  if (ctx.mode !== "human" || approval === undefined) return "none";
  if (approval.principal !== ctx.principal || !approval.approvers.requesterMayConfirm) return "none";
  if (!ctx.ownProcess) return "elsewhere";
  return ctx.mayAsk ? "ask" : "none";
}

/** What a pending result adds when the requester may confirm, but not from this client. */
export function confirmElsewhereNote(approval: PendingApproval): string {
  return (
    `You may confirm this call yourself, but not from this MCP client: over HTTP Warden takes no confirmation from the client, ` +
    `since any process that reaches its port could answer for you. Confirm or deny it in your inbox (warden inbox --as ${approval.principal}) ` +
    `or with warden approve ${approval.approvalId} --as ${approval.principal}; until then it does not run.`
  );
}
