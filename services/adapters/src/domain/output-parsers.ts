import { fail, ok, type Outcome } from "@warden/contracts/errors";
import { type JsonValue } from "@warden/contracts/json";

export const OUTPUT_PARSERS = ["text", "json", "jsonl"] as const;
export type OutputParser = (typeof OUTPUT_PARSERS)[number];

/** Turns a command's stdout into the call's output: the text, one JSON document, or one per line. */
export function parseOutput(text: string, parser: OutputParser): Outcome<JsonValue> {
  if (parser === "text") return ok(text);
  if (parser === "json") {
    try {
      return ok(JSON.parse(text) as JsonValue);
    } catch (err) {
      return fail("OUTPUT_INVALID", `stdout is not JSON: ${(err as Error).message}`);
    }
  }
  const items: JsonValue[] = [];
  const lines = text.split("\n");
  for (const [i, line] of lines.entries()) {
    if (line.trim() === "") continue;
    try {
      items.push(JSON.parse(line) as JsonValue);
    } catch (err) {
      return fail("OUTPUT_INVALID", `stdout line ${i + 1} is not JSON: ${(err as Error).message}`);
    }
  }
  return ok(items);
}
