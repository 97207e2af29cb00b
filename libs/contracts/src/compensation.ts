import { z } from "zod";
import { canonicalJson } from "./canonical-json.js";
import { fail, ok, type Outcome } from "./errors.js";
import { JsonObjectSchema, type JsonObject, type JsonValue } from "./json.js";
import { ToolNameSchema } from "./tokens.js";

/**
 * How a tool's effect is undone: by calling `tool` (a registered tool, governed as any call) with
 * `args` built from the original call. In `args`, a string `"$args.<path>"` or `"$output.<path>"`
 * stands for that member of the original call's args or output (any JSON value); `"$$…"` is the
 * literal string `"$…"`; everything else is taken as written. Declarative, so the registry, the
 * SDK and a manifest agree on the undo without running the tool's code.
 */
export const CompensationSchema = z.strictObject({
  tool: ToolNameSchema,
  args: JsonObjectSchema,
});
export type Compensation = z.infer<typeof CompensationSchema>;

/** What a compensation's references read: the original call's validated args and its output. */
export interface CompensationSource {
  readonly args: JsonValue;
  readonly output: JsonValue | undefined;
}

const REF = /^\$(args|output)((?:\.[A-Za-z0-9_-]+)*)$/;

/** The args of the call that undoes the original, or why they cannot be made (a reference to nothing). */
export function compensationArgs(c: Compensation, source: CompensationSource): Outcome<JsonObject> {
  const missing: string[] = [];
  const fill = (v: JsonValue): JsonValue => {
    if (typeof v === "string") {
      if (v.startsWith("$$")) return v.slice(1);
      const ref = REF.exec(v);
      if (ref === null) return v;
      const found = lookup(ref[1] === "args" ? source.args : source.output, ref[2]!.split(".").slice(1));
      if (found === undefined) missing.push(v);
      return found ?? null;
    }
    if (Array.isArray(v)) return v.map(fill);
    if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  const args = fill(c.args) as JsonObject;
  if (missing.length > 0) return fail("NOT_UNDOABLE", `the undo of this call needs ${missing.join(", ")}, which the call did not record`);
  return ok(args);
}

function lookup(root: JsonValue | undefined, path: readonly string[]): JsonValue | undefined {
  let at: JsonValue | undefined = root;
  for (const key of path) {
    if (at === null || typeof at !== "object" || Array.isArray(at) || !Object.hasOwn(at, key)) return undefined;
    at = (at as JsonObject)[key];
  }
  return at;
}

/** Whether two args are the same JSON (key order aside). */
export function sameArgs(a: JsonValue, b: JsonValue): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
