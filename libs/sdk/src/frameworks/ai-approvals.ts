import { createHash } from "node:crypto";
import type { ModelMessage } from "ai";
import { MAX_IDEMPOTENCY_KEY_LENGTH, type ApprovalRequested } from "@warden/contracts/events";

/**
 * An app's answer to one of the AI SDK's approval requests, read from the message history the app
 * sends back (`tool-approval-response` in the last tool message, matched to its
 * `tool-approval-request` and tool call).
 */
export interface AppApprovalAnswer {
  /** The AI SDK's approval id (not Warden's). */
  readonly approvalId: string;
  readonly toolCallId: string;
  /** The wire name the model called (`ticket__fill`). */
  readonly toolName: string;
  /** The tool call's input as the history holds it: what the person was shown. */
  readonly input: unknown;
  readonly approved: boolean;
  readonly reason?: string;
}

type ContentPart = Exclude<ModelMessage["content"], string>[number];

function partsOf(message: ModelMessage): readonly ContentPart[] {
  return typeof message.content === "string" ? [] : message.content;
}

/**
 * The answers of the last message to manual approval requests, as the AI SDK itself collects them
 * (it reads approval responses only from the last message, a tool message). Automatic approvals
 * and responses whose request or tool call is not in the history are left out.
 */
export function appApprovalAnswers(messages: readonly ModelMessage[]): AppApprovalAnswer[] {
  const last = messages.at(-1);
  if (last?.role !== "tool") return [];
  const requests = new Map<string, { toolCallId: string; isAutomatic: boolean }>();
  const calls = new Map<string, { toolName: string; input: unknown }>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const part of partsOf(message)) {
      if (part.type === "tool-approval-request") requests.set(part.approvalId, { toolCallId: part.toolCallId, isAutomatic: part.isAutomatic === true });
      if (part.type === "tool-call") calls.set(part.toolCallId, { toolName: part.toolName, input: part.input });
    }
  }
  const answers: AppApprovalAnswer[] = [];
  for (const part of partsOf(last)) {
    if (part.type !== "tool-approval-response") continue;
    const request = requests.get(part.approvalId);
    const call = request === undefined || request.isAutomatic ? undefined : calls.get(request.toolCallId);
    if (request === undefined || call === undefined) continue;
    answers.push({
      approvalId: part.approvalId,
      toolCallId: request.toolCallId,
      toolName: call.toolName,
      input: call.input,
      approved: part.approved,
      ...(part.reason === undefined ? {} : { reason: part.reason }),
    });
  }
  return answers;
}

/** Whether the history holds the app's answer to an approval request for this tool call. */
export function answeredInApp(messages: readonly ModelMessage[], toolCallId: string): boolean {
  return appApprovalAnswers(messages).some((a) => a.toolCallId === toolCallId);
}

/**
 * What the AI SDK's approval request says (its `reason`, `part.approval.requestReason` in
 * `useChat`): the card's summary, why a person must decide, the Warden approval id and who may
 * decide it.
 */
export function approvalRequestText(requested: ApprovalRequested): string {
  const d = requested.data;
  const deciders = d.deciders === undefined || d.deciders.length === 0 ? "" : `; may decide: ${d.deciders.join(", ")}`;
  return `${d.title}: ${d.argsPreview}. Why a person: ${d.reason}. Warden approval ${d.approvalId}${deciders}.`;
}

/**
 * The idempotency key of one AI SDK tool call of a chat: the chat and the tool call id (a model's
 * id may repeat across chats), hashed when the two together are longer than a key may be.
 */
export function aiToolCallKey(chatId: string, toolCallId: string): string {
  const key = `ai-sdk:${chatId}:${toolCallId}`;
  return key.length <= MAX_IDEMPOTENCY_KEY_LENGTH ? key : `ai-sdk:${createHash("sha256").update(JSON.stringify([chatId, toolCallId])).digest("base64url")}`;
}
