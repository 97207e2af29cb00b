import { z } from "zod";
import type { ToolViewEntry } from "@warden/contracts/descriptor";
import type { JsonObject, JsonValue } from "@warden/contracts/json";
import { openAiTools } from "../domain/openai-tools.js";
import type { ModelClient } from "../model.js";
import type { GoldenSet } from "./golden.js";
import { report, scoreCase, type EvalCall, type EvalReport } from "./score.js";

const CASE_TIMEOUT_MS = 60_000;

/** Whether args fit a JSON Schema, checked through zod; undefined when the schema has no zod form. */
function validator(schema: JsonObject): (args: JsonValue | undefined) => boolean | undefined {
  try {
    const s = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    return (args) => s.safeParse(args).success;
  } catch {
    return () => undefined;
  }
}

function parseArgs(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

/**
 * Asks the model each golden prompt once, with the tools of `view` under wire names, and scores
 * which tools it chose and with what arguments. Nothing is executed.
 */
export async function runEval(model: ModelClient, modelName: string, view: readonly ToolViewEntry[], golden: GoldenSet): Promise<EvalReport> {
  const tools = openAiTools(view);
  const byWire = new Map(view.map((t) => [t.wireName, { name: t.name, valid: validator(t.inputSchema) }]));
  const outcomes = [];
  for (const c of golden.cases) {
    const signal = AbortSignal.timeout(CASE_TIMEOUT_MS);
    try {
      const reply = await model({ model: modelName, messages: [{ role: "system", content: golden.system }, { role: "user", content: c.prompt }], tools }, signal);
      const calls: EvalCall[] = (reply.message.tool_calls ?? []).map((k) => {
        const name = k.type === "function" ? k.function.name : k.custom.name;
        const args = k.type === "function" ? parseArgs(k.function.arguments) : undefined;
        const known = byWire.get(name);
        // an invented name stays as the model wrote it: it counts against precision
        return { tool: known?.name ?? name, args, argsValid: known === undefined || args === undefined ? false : known.valid(args) };
      });
      outcomes.push(scoreCase(c, calls));
    } catch (err) {
      outcomes.push(scoreCase(c, [], (err as Error).message));
    }
  }
  return report(outcomes);
}
