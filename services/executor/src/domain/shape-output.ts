import { MAX_OUTPUT_DEPTH } from "@warden/contracts/subjects";
import { wardenError, type WardenError } from "@warden/contracts/errors";
import { previewJson, sha256Hex, valueDepthExceeds, type JsonValue } from "@warden/contracts/json";

export type ShapedOutput =
  /** Small enough to travel in the event. */
  | { readonly kind: "inline"; readonly output: JsonValue; readonly bytes: number }
  /** Goes to the object store; the event keeps a valid-JSON preview. */
  | {
      readonly kind: "artifact";
      readonly json: Uint8Array;
      readonly bytes: number;
      readonly sha256: string;
      readonly preview: JsonValue;
      /** The whole output, parsed (for a check that needs it). */
      readonly value: JsonValue;
    }
  | { readonly kind: "error"; readonly error: WardenError; readonly bytes: number };

/** A check of the output as it will be recorded (the tool's outputSchema): the error to record instead, or undefined. */
export type OutputCheck = (output: JsonValue) => WardenError | undefined;

/**
 * Decides how a handler's return value is recorded: inline, as an artifact with a preview, or
 * as an error (not JSON, over the tool's output cap, nested deeper than MAX_OUTPUT_DEPTH, or
 * refused by `check`).
 * `undefined` is recorded as null.
 */
export function shapeOutput(value: unknown, maxOutputBytes: number, previewBytes: number, check?: OutputCheck): ShapedOutput {
  let text: string | undefined;
  try {
    text = JSON.stringify(value === undefined ? null : value);
  } catch (err) {
    // a stack overflow while serialising is depth, said as such (a cycle is a TypeError)
    if (err instanceof RangeError && valueDepthExceeds(value, MAX_OUTPUT_DEPTH)) return tooDeep(0);
    return { kind: "error", bytes: 0, error: wardenError("OUTPUT_INVALID", `the output is not JSON-serialisable: ${(err as Error).message}`) };
  }
  if (text === undefined) {
    return { kind: "error", bytes: 0, error: wardenError("OUTPUT_INVALID", `the output is not JSON-serialisable (a ${typeof value})`) };
  }
  const json = Buffer.from(text, "utf8");
  const bytes = json.byteLength;
  if (bytes > maxOutputBytes) {
    return {
      kind: "error",
      bytes,
      error: wardenError("OUTPUT_TOO_LARGE", `the output is ${bytes} bytes of JSON, over the tool's limit of ${maxOutputBytes}`, {
        bytes,
        maxOutputBytes,
      }),
    };
  }
  // parsed back so the event holds exactly what JSON keeps (no undefined members, Dates as strings)
  const parsed = JSON.parse(text) as JsonValue;
  // deeper output would make its ToolCallFinished TOO_DEEP for every reader: the caller would wait for nothing
  if (valueDepthExceeds(parsed, MAX_OUTPUT_DEPTH)) return tooDeep(bytes);
  const refused = check?.(parsed);
  if (refused !== undefined) return { kind: "error", bytes, error: refused };
  if (bytes <= previewBytes) return { kind: "inline", output: parsed, bytes };
  return { kind: "artifact", json, bytes, sha256: sha256Hex(json), preview: previewJson(parsed, previewBytes) as JsonValue, value: parsed };
}

function tooDeep(bytes: number): ShapedOutput {
  const error = wardenError("OUTPUT_INVALID", `the output is JSON nested deeper than ${MAX_OUTPUT_DEPTH} levels, more than Warden's readers accept`, {
    maxDepth: MAX_OUTPUT_DEPTH,
  });
  return { kind: "error", bytes, error };
}
