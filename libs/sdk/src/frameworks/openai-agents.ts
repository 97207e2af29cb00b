import { tool, type FunctionTool } from "@openai/agents";
import type { Outcome } from "@warden/contracts/errors";
import type { AgentClient } from "../agent-client.js";
import { createCallLedger, waitsForAPerson, type FrameworkToolsOptions, type PendingWardenCall } from "./call-ledger.js";
import { objectParameters, viewEntries } from "./view-tools.js";

/** A non-strict JSON Schema, as the Agents SDK's `tool()` takes it (`strict: false`). */
type AgentsParameters = Extract<Parameters<typeof tool>[0], { strict: false }>["parameters"];

/** What {@link wardenTools} returns for the OpenAI Agents SDK. */
export interface WardenAgentsTools {
  /** One function tool per entry of the caller's ToolView: `new Agent({ tools })`. */
  readonly tools: FunctionTool[];
  /**
   * The Warden calls interrupted runs wait on, by the Agents SDK's tool call id. To resume in
   * another process, save this beside `result.state.toString()` and pass it as `pending`.
   */
  pendingCalls(): Record<string, PendingWardenCall>;
}

/**
 * The caller's ToolView as `@openai/agents` function tools (names are wire names, schemas the
 * descriptors'). Every tool call is one governed Warden call, made as the client's principal in
 * its mode. A call Warden holds for a person surfaces as the Agents SDK's own approval
 * interruption: once a person has approved it in Warden (`warden approve`, an approval inbox),
 * `result.state.approve(interruption)` and run again; the tool then waits for that same call's end
 * (no second call). Rejecting the interruption in the SDK tells the model it was refused; the
 * Warden approval itself stays open until a person denies it or it expires.
 *
 * @example
 * ```ts
 * import { Agent, run } from "@openai/agents";
 * import { wardenTools } from "@warden/sdk/openai-agents";
 *
 * const warden = await wardenTools(createAgentClient({ bus, principal: "support-bot" }));
 * if (!warden.ok) throw new Error(warden.error.message);
 * const agent = new Agent({ name: "support", instructions: "…", tools: warden.value.tools });
 * let result = await run(agent, "The customer in ticket T-9 wants a refund.");
 * while (result.interruptions.length > 0) {
 *   await waitUntilApprovedInWarden();           // a person decides in Warden
 *   for (const i of result.interruptions) result.state.approve(i);
 *   result = await run(agent, result.state);
 * }
 * ```
 */
export async function wardenTools(client: AgentClient, opts: FrameworkToolsOptions = {}): Promise<Outcome<WardenAgentsTools>> {
  const entries = await viewEntries(client, opts);
  if (!entries.ok) return entries;
  const ledger = createCallLedger(client, opts);
  const tools = entries.value.map((entry) =>
    tool({
      name: entry.wireName,
      description: entry.description,
      parameters: objectParameters(entry.inputSchema) as AgentsParameters,
      strict: false,
      // asking Warden is the only way to know: the call is made here, once, and answered in execute
      needsApproval: async (_ctx, input, toolCallId) => {
        return waitsForAPerson(await ledger.ask(toolCallId, entry, input));
      },
      execute: async (input, _ctx, details) => ledger.finish(details?.toolCall?.callId, entry, input),
    }),
  );
  return { ok: true, value: { tools: tools as FunctionTool[], pendingCalls: () => ledger.pending() } };
}
