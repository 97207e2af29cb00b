import { jsonSchema, tool, type JSONSchema7, type ModelMessage, type Tool, type ToolApprovalStatus } from "ai";
import { type Outcome } from "@warden/contracts/errors";
import { type ToolViewEntry } from "@warden/contracts/descriptor";
import { argsHash } from "@warden/contracts/json";
import type { AgentClient } from "../agent-client.js";
import type { ApproverClient } from "../approver-client.js";
import { aiToolCallKey, answeredInApp, appApprovalAnswers, approvalRequestText, type AppApprovalAnswer } from "./ai-approvals.js";
import { createCallLedger, waitsForAPerson, type FrameworkToolsOptions, type PendingWardenCall } from "./call-ledger.js";
import { objectParameters, viewEntries } from "./view-tools.js";

export type { AppApprovalAnswer } from "./ai-approvals.js";

/** Options of the Vercel AI SDK's {@link wardenTools}. */
export interface WardenAiToolsOptions extends FrameworkToolsOptions {
  /**
   * The conversation the tool calls belong to (`useChat`'s chat id). Each tool call's Warden call
   * id is derived from it and the AI SDK's tool call id, so whichever process serves the next turn
   * of the chat finds the same Warden call (nothing to keep between requests, no second call).
   * @default the client's runId (one chat per client)
   */
  readonly chatId?: string;
}

/**
 * `toolApproval` for `generateText` / `streamText`: a tool call Warden holds for a person becomes
 * the AI SDK's approval request (`'user-approval'`, its reason the card's summary and the Warden
 * approval id); every other call runs as it is (`undefined`).
 */
export type WardenToolApproval = (options: {
  readonly toolCall: { readonly toolCallId: string; readonly toolName: string; readonly input: unknown };
  readonly messages: ModelMessage[];
}) => Promise<ToolApprovalStatus>;

/** What {@link WardenAiTools.decide} did with one of the app's answers. */
export type AppDecision = AppApprovalAnswer &
  (
    | {
        /** Warden recorded the person's grant or denial on the call's approval. */
        readonly status: "recorded";
        readonly callId: string;
        readonly wardenApprovalId: string;
      }
    | {
        /**
         * Warden did not take it (`refusal` as {@link DecisionOutcome}: `NOT_AUTHORISED` when the
         * policy does not let this person decide, `ALREADY_DECIDED`, `EXPIRED`, `ARGS_HASH_MISMATCH`,
         * `UNAVAILABLE`, …). An approval refused other than `ALREADY_DECIDED` reaches the model as
         * denied, with this message; the Warden call keeps waiting for someone who may decide.
         */
        readonly status: "refused";
        readonly callId: string;
        readonly wardenApprovalId: string;
        readonly refusal: string;
        readonly message: string;
      }
    | {
        /** No Warden approval waits on this tool call (not a Warden tool, or a call that did not ask for a person). */
        readonly status: "not-waiting";
        readonly message: string;
      }
  );

/** What {@link wardenTools} returns for the Vercel AI SDK. */
export interface WardenAiTools {
  /** The caller's ToolView as an `ai` tool set, keyed by wire name: `streamText({ tools })`. */
  readonly tools: Record<string, Tool>;
  /** Pass as `toolApproval` to `generateText` / `streamText`: see {@link WardenToolApproval}. */
  readonly toolApproval: WardenToolApproval;
  /**
   * Records the app's answers in the last message (`addToolApprovalResponse` in `useChat`, or a
   * `tool-approval-response` you added) as `approver`'s Warden decisions on the same calls: a grant
   * bound to the hash of the input the person was shown, or a denial with their reason (or "denied
   * in the app"). Call it with the messages, before `streamText` resumes with them; only calls
   * this agent asked for that wait for a person are decided (nothing is asked for here). Warden
   * checks that `approver` may decide each one. Never throws.
   */
  decide(messages: readonly ModelMessage[], by: { readonly approver: ApproverClient }): Promise<AppDecision[]>;
  /** Calls waiting for a person, by the AI SDK's tool call id. */
  pendingCalls(): Record<string, PendingWardenCall>;
}

/**
 * The caller's ToolView as Vercel AI SDK tools (`ai`): each tool call is one governed Warden call
 * as the client's principal, its result rendered by `toModelMessage`. With `toolApproval`, a call
 * Warden holds for a person surfaces as the AI SDK's own approval request (`tool-approval-request`;
 * in `useChat` a tool part in state `approval-requested`); the app's answer, recorded as a
 * person's Warden decision by `decide`, resumes that same call: approved, the tool waits for its
 * end and the model gets the result; denied, the model gets the reason. Without `toolApproval`,
 * such a call answers the model `PENDING … approvalId …` at once. Trust model: docs/integrations.md.
 *
 * @example
 * ```ts
 * import { convertToModelMessages, createUIMessageStreamResponse, streamText, toUIMessageStream } from "ai";
 * import { wardenTools } from "@warden/sdk/ai";
 *
 * // POST /api/chat: the signed-in person's approver client, made with their Warden credentials
 * const warden = await wardenTools(agent, { chatId });
 * if (!warden.ok) throw new Error(warden.error.message);
 * const messages = await convertToModelMessages(uiMessages);
 * await warden.value.decide(messages, { approver: approverOf(session.user) });
 * const result = streamText({ model, messages, tools: warden.value.tools, toolApproval: warden.value.toolApproval });
 * return createUIMessageStreamResponse({ stream: toUIMessageStream({ stream: result.stream }) });
 * ```
 */
export async function wardenTools(client: AgentClient, opts: WardenAiToolsOptions = {}): Promise<Outcome<WardenAiTools>> {
  const entries = await viewEntries(client, opts);
  if (!entries.ok) return entries;
  const chatId = opts.chatId ?? client.runId;
  const ledger = createCallLedger(client, { ...opts, callKey: (toolCallId) => aiToolCallKey(chatId, toolCallId) });
  const byWireName = new Map(entries.value.map((e) => [e.wireName, e]));
  /** Approvals Warden did not take, by tool call id: the resumed run tells the model they were denied. */
  const refused = new Map<string, string>();

  const tools: Record<string, Tool> = {};
  for (const entry of entries.value) {
    tools[entry.wireName] = tool({
      description: entry.description,
      // the registry checked it is a JSON Schema; the two JSON types differ only in how they spell it
      inputSchema: jsonSchema<Record<string, unknown>>(objectParameters(entry.inputSchema) as JSONSchema7),
      // answered in the app: the person decided, so wait for the call's end; else a call held for a person answers PENDING
      execute: async (input, { toolCallId, messages }) =>
        ledger.finish(toolCallId, entry, input, { waitForPerson: answeredInApp(messages, toolCallId) }),
    });
  }

  const toolApproval: WardenToolApproval = async ({ toolCall, messages }) => {
    const entry = byWireName.get(toolCall.toolName);
    if (entry === undefined) return undefined;
    // the AI SDK asks again before running an approved call: say no when Warden did not take the approval
    if (answeredInApp(messages, toolCall.toolCallId)) {
      const why = refused.get(toolCall.toolCallId);
      return why === undefined ? undefined : { type: "denied", reason: why };
    }
    const first = await ledger.ask(toolCall.toolCallId, entry, toolCall.input);
    if (!waitsForAPerson(first)) return undefined;
    const events = await client.events(first.callId);
    const requested = events.ok ? events.value.find((e) => e.type === "ApprovalRequested") : undefined;
    return { type: "user-approval", reason: requested === undefined ? `Waits for a person in Warden (approval ${first.approvalId ?? "?"}).` : approvalRequestText(requested) };
  };

  async function decideOne(answer: AppApprovalAnswer, entry: ToolViewEntry | undefined, approver: ApproverClient): Promise<AppDecision> {
    const located = entry === undefined ? undefined : ledger.locate(answer.toolCallId, entry);
    if (located === undefined) return { ...answer, status: "not-waiting", message: `${answer.toolName} is not a Warden tool of this agent` };
    const events = await client.events(located.callId);
    const requested = events.ok ? events.value.find((e) => e.type === "ApprovalRequested") : undefined;
    if (requested?.type !== "ApprovalRequested") {
      const why = events.ok ? "it did not ask for a person" : events.error.message;
      return { ...answer, status: "not-waiting", message: `no Warden approval waits on tool call ${answer.toolCallId}: ${why}` };
    }
    const wardenApprovalId = requested.data.approvalId;
    // the grant covers the input the person was shown; Warden refuses it when that is not what was asked
    const hash = argsHash(answer.input);
    const reply = answer.approved
      ? await approver.approve(wardenApprovalId, hash, answer.reason === undefined ? {} : { reason: answer.reason })
      : await approver.deny(wardenApprovalId, hash, answer.reason ?? `denied by ${approver.approver} in the app`);
    const ids = { callId: located.callId, wardenApprovalId };
    if (reply.ok) {
      if (!answer.approved) ledger.forget(answer.toolCallId);
      return { ...answer, ...ids, status: "recorded" };
    }
    const message = `Warden did not take ${approver.approver}'s ${answer.approved ? "approval" : "denial"} (${reply.refusal}): ${reply.message}`;
    // already decided by someone else: the call's end says what happened, so the tool reads it
    if (reply.refusal !== "ALREADY_DECIDED") refused.set(answer.toolCallId, message);
    return { ...answer, ...ids, status: "refused", refusal: reply.refusal, message };
  }

  return {
    ok: true,
    value: {
      tools,
      toolApproval,
      async decide(messages, { approver }) {
        const out: AppDecision[] = [];
        for (const answer of appApprovalAnswers(messages)) out.push(await decideOne(answer, byWireName.get(answer.toolName), approver));
        return out;
      },
      pendingCalls: () => ledger.pending(),
    },
  };
}
