import { TOOL_NAME_PATTERN } from "./tokens.js";

/** OpenAI function names allow `^[a-zA-Z0-9_-]{1,64}$`; dots are illegal, so `.` becomes `__`. */
export const WIRE_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

export function toWireName(toolName: string): string {
  return toolName.replace(".", "__");
}

/** Maps a wire name back; undefined when it cannot be the wire name of a valid tool name. */
export function fromWireName(wireName: string): string | undefined {
  if (!WIRE_NAME_PATTERN.test(wireName)) return undefined;
  const idx = wireName.indexOf("__");
  if (idx <= 0) return undefined;
  const name = `${wireName.slice(0, idx)}.${wireName.slice(idx + 2)}`;
  return TOOL_NAME_PATTERN.test(name) && toWireName(name) === wireName ? name : undefined;
}

/** Accepts a tool name or a wire name and returns the tool name, or undefined. */
export function resolveToolName(nameOrWire: string): string | undefined {
  if (TOOL_NAME_PATTERN.test(nameOrWire)) return nameOrWire;
  return fromWireName(nameOrWire);
}

export interface WireNameProblem {
  readonly name: string;
  readonly wireName: string;
  readonly problem: "not_round_trip" | "collision" | "invalid_wire_name";
  readonly other?: string;
}

/** Checks a set of tool names maps to distinct, valid, round-trip-safe wire names. */
export function checkWireNames(names: readonly string[]): WireNameProblem[] {
  const problems: WireNameProblem[] = [];
  const seen = new Map<string, string>();
  for (const name of names) {
    const wireName = toWireName(name);
    if (!WIRE_NAME_PATTERN.test(wireName)) problems.push({ name, wireName, problem: "invalid_wire_name" });
    else if (fromWireName(wireName) !== name) problems.push({ name, wireName, problem: "not_round_trip" });
    const other = seen.get(wireName);
    if (other !== undefined && other !== name) problems.push({ name, wireName, problem: "collision", other });
    seen.set(wireName, name);
  }
  return problems;
}
