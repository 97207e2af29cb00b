import type { JsonObject } from "@warden/contracts/json";

/** The JSON Schema `format` that marks an argument as a file-system path, confined to the tool's roots. */
export const PATH_FORMAT = "path";

/** Which top-level args are paths: a string property with `format: "path"`, or an array whose `items` have it. */
export interface PathArgs {
  readonly single: readonly string[];
  readonly lists: readonly string[];
}

export function pathArgsOf(inputSchema: JsonObject): PathArgs {
  const props = inputSchema["properties"];
  const single: string[] = [];
  const lists: string[] = [];
  if (props === null || typeof props !== "object" || Array.isArray(props)) return { single, lists };
  for (const [name, schema] of Object.entries(props)) {
    if (isPathSchema(schema)) single.push(name);
    else if (isObject(schema) && isPathSchema(schema["items"])) lists.push(name);
  }
  return { single, lists };
}

function isPathSchema(schema: unknown): boolean {
  return isObject(schema) && schema["format"] === PATH_FORMAT;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
