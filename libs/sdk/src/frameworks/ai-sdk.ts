import { jsonSchema, tool, type JSONSchema7, type Tool } from "ai";
import type { Outcome } from "@warden/contracts";
import type { AgentClient } from "../agent-client.js";
import { createCallLedger, type FrameworkToolsOptions, type PendingWardenCall } from "./call-ledger.js";
import { objectParameters, viewEntries } from "./view-tools.js";

/** What {@link wardenTools} returns for the Vercel AI SDK. */
export interface WardenAiTools {
  /** The caller's ToolView as an `ai` tool set, keyed by wire name: `generateText({ tools })`. */
  readonly tools: Record<string, Tool>;
  /** Calls waiting for a person, by the AI SDK's tool call id (their result told the model PENDING). */
  pendingCalls(): Record<string, PendingWardenCall>;
}

/**
 * The caller's ToolView as Vercel AI SDK tools (`ai`): each tool call is one governed Warden call
 * as the client's principal, its result rendered by `toModelMessage`. A call Warden holds for a
 * person answers the model `PENDING … approvalId …` (the AI SDK's own tool approval is not wired
 * to Warden's: see docs/integrations.md); `pendingCalls()` names those calls, and
 * `client.awaitCall(callId, tool)` reads their end once a person decided.
 *
 * @example
 * ```ts
 * import { generateText, stepCountIs } from "ai";
 * import { wardenTools } from "@warden/sdk/ai";
 *
 * const warden = await wardenTools(createAgentClient({ bus, principal: "support-bot" }));
 * if (!warden.ok) throw new Error(warden.error.message);
 * const { text } = await generateText({ model, tools: warden.value.tools, stopWhen: stepCountIs(5), prompt: "…" });
 * ```
 */
export async function wardenTools(client: AgentClient, opts: FrameworkToolsOptions = {}): Promise<Outcome<WardenAiTools>> {
  const entries = await viewEntries(client, opts);
  if (!entries.ok) return entries;
  const ledger = createCallLedger(client, opts);
  const tools: Record<string, Tool> = {};
  for (const entry of entries.value) {
    tools[entry.wireName] = tool({
      description: entry.description,
      // the registry checked it is a JSON Schema; the two JSON types differ only in how they spell it
      inputSchema: jsonSchema<Record<string, unknown>>(objectParameters(entry.inputSchema) as JSONSchema7),
      // no waiting for a person inside a step: a call held for one is answered PENDING at once
      execute: async (input, { toolCallId }) => ledger.finish(toolCallId, entry, input, { waitForPerson: false }),
    });
  }
  return { ok: true, value: { tools, pendingCalls: () => ledger.pending() } };
}
