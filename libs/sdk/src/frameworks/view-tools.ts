import { fail, type Outcome } from "@warden/contracts/errors";
import { type ToolViewEntry } from "@warden/contracts/descriptor";
import { type JsonObject } from "@warden/contracts/json";
import type { AgentClient } from "../agent-client.js";
import type { FrameworkToolsOptions } from "./call-ledger.js";

/** A tool's JSON Schema with an object root, as function-calling APIs require. */
export function objectParameters(schema: JsonObject): JsonObject & { type: "object"; properties: JsonObject } {
  const properties = schema["properties"];
  return {
    ...schema,
    type: "object",
    properties: typeof properties === "object" && properties !== null && !Array.isArray(properties) ? properties : {},
  };
}

/** The entries of the client's view (its mode, the options' scope and flags) that a framework turns into tools. */
export async function viewEntries(client: AgentClient, opts: FrameworkToolsOptions): Promise<Outcome<ToolViewEntry[]>> {
  const view = await client.toolView({ format: "openai", scope: opts.scope ?? null, flags: { ...(opts.flags ?? {}) } });
  if (!view.ok) return fail(view.error.code, `the ToolView could not be read: ${view.error.message}`);
  return { ok: true, value: view.value.view.tools };
}
