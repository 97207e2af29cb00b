import { wardenError, type JsonObject, type ToolViewEntry, type WardenError } from "@warden/contracts";

/** A tool call as the model wrote it (OpenAI function call). */
export interface ModelToolCall {
  readonly id: string;
  readonly name: string;
  /** JSON text, exactly as the model produced it. */
  readonly arguments: string;
}

export type VettedCall =
  | { readonly kind: "run"; readonly entry: ToolViewEntry; readonly args: JsonObject }
  /** Never published: the model gets `error` back; `why` is for the record. */
  | { readonly kind: "refuse"; readonly error: WardenError; readonly why: string };

function refuse(error: WardenError, why: string): VettedCall {
  return { kind: "refuse", error, why };
}

function parseArgs(text: string): { ok: true; args: JsonObject } | { ok: false; reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(text.trim() === "" ? "{}" : text);
  } catch (err) {
    return { ok: false, reason: `they are not valid JSON (${(err as Error).message})` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { ok: false, reason: "they are not a JSON object" };
  return { ok: true, args: value as JsonObject };
}

/**
 * Defence in depth against the model: a call runs only if it names a tool of the view the model
 * was given this turn, its arguments are a JSON object, and the tool-call budget has room.
 * A hidden tool, a `send`, or an invented name are all "no such tool" to the model.
 */
export function vetToolCall(call: ModelToolCall, view: readonly ToolViewEntry[], toolCallsLeft: number, maxToolCalls: number): VettedCall {
  const entry = view.find((t) => t.wireName === call.name) ?? view.find((t) => t.name === call.name);
  if (entry === undefined) {
    const offered = view.map((t) => t.wireName).join(", ") || "none";
    return refuse(
      wardenError("UNKNOWN_TOOL", `no tool named ${JSON.stringify(call.name)} is available to you; the tools you can call are: ${offered}`),
      "not in the tool view of this turn",
    );
  }
  const parsed = parseArgs(call.arguments);
  if (!parsed.ok) {
    return refuse(
      wardenError("INVALID_ARGS", `the arguments for ${entry.wireName} could not be used: ${parsed.reason}; send one JSON object matching its parameters`),
      "malformed arguments",
    );
  }
  if (toolCallsLeft <= 0) {
    return refuse(
      wardenError("BUDGET_EXCEEDED", `the budget of ${maxToolCalls} tool calls is spent; answer with what you have`),
      "over the tool-call budget",
    );
  }
  return { kind: "run", entry, args: parsed.args };
}
