import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import type { ToolViewEntry } from "@warden/contracts/descriptor";

/** The view as OpenAI tools, under wire names: exactly what the model may call this turn. */
export function openAiTools(view: readonly ToolViewEntry[]): ChatCompletionFunctionTool[] {
  return view.map((t) => ({
    type: "function",
    function: { name: t.wireName, description: t.description, parameters: t.inputSchema },
  }));
}
