import { toWireName } from "@warden/contracts/subjects";
import { wardenError, type WardenError } from "@warden/contracts/errors";
import { type ToolView } from "@warden/contracts/descriptor";
import { type JsonObject } from "@warden/contracts/json";

/** A tool call as the model wrote it (OpenAI function call). */
export interface ModelToolCall {
  readonly id: string;
  readonly name: string;
  /** JSON text, exactly as the model produced it. */
  readonly arguments: string;
}

export type VettedCall =
  /** `unlisted`: a send the view never lists, which the model named anyway: it is published, and waits for a person. */
  | { readonly kind: "run"; readonly tool: string; readonly args: JsonObject; readonly unlisted: boolean }
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
 * The send of this turn's view the model named: one of the subagent's allowed tools, hidden only
 * because a model is never shown a send. Its call goes to the policy, which makes it wait for a
 * person (default.send.llm): a model may know a send's name, and asking is not running it.
 */
function unlistedSend(view: Pick<ToolView, "hidden">, name: string): string | undefined {
  return view.hidden.find((h) => h.reason === "send_never_listed_for_llm" && (toWireName(h.name) === name || h.name === name))?.name;
}

/**
 * Defence in depth against the model: a call is published only if it names a tool of the view the
 * model was given this turn (or an allowed send the view hides, which then waits for a person),
 * its arguments are a JSON object, and the tool-call budget has room. Any other hidden tool, or an
 * invented name, is "no such tool" to the model.
 */
export function vetToolCall(call: ModelToolCall, view: Pick<ToolView, "tools" | "hidden">, toolCallsLeft: number, maxToolCalls: number): VettedCall {
  const listed = view.tools.find((t) => t.wireName === call.name) ?? view.tools.find((t) => t.name === call.name);
  const send = listed === undefined ? unlistedSend(view, call.name) : undefined;
  const tool = listed?.name ?? send;
  if (tool === undefined) {
    const offered = view.tools.map((t) => t.wireName).join(", ") || "none";
    return refuse(
      wardenError("UNKNOWN_TOOL", `no tool named ${JSON.stringify(call.name)} is available to you; the tools you can call are: ${offered}`),
      "not in the tool view of this turn",
    );
  }
  const parsed = parseArgs(call.arguments);
  if (!parsed.ok) {
    return refuse(
      wardenError("INVALID_ARGS", `the arguments for ${toWireName(tool)} could not be used: ${parsed.reason}; send one JSON object matching its parameters`),
      "malformed arguments",
    );
  }
  if (toolCallsLeft <= 0) {
    return refuse(
      wardenError("BUDGET_EXCEEDED", `the budget of ${maxToolCalls} tool calls is spent; answer with what you have`),
      "over the tool-call budget",
    );
  }
  return { kind: "run", tool, args: parsed.args, unlisted: send !== undefined };
}
