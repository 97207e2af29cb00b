import { isSafeToken } from "@warden/contracts/subjects";
import { CALL_MODES, TOOL_VIEW_FORMATS, type CallMode, type ToolViewFormat } from "@warden/contracts/descriptor";
import { usageError } from "../errors.js";

/** `k=v,k2=v2` into feature flags; a bare `k` is true. */
export function parseFlags(text: string | undefined): Record<string, boolean> {
  const flags: Record<string, boolean> = {};
  if (text === undefined || text.trim() === "") return flags;
  for (const part of text.split(",")) {
    const [rawKey, rawValue, ...rest] = part.split("=");
    const key = rawKey?.trim() ?? "";
    if (key === "" || rest.length > 0) throw usageError(`--flags: cannot read ${JSON.stringify(part)}; use k=v,k2=v2`);
    const value = rawValue?.trim().toLowerCase();
    if (value === undefined || ["true", "1", "yes", "on"].includes(value)) flags[key] = true;
    else if (["false", "0", "no", "off"].includes(value)) flags[key] = false;
    else throw usageError(`--flags: ${key}=${rawValue} is not a boolean (true/false)`);
  }
  return flags;
}

export function parseMode(text: string | undefined, fallback: CallMode): CallMode {
  if (text === undefined) return fallback;
  if ((CALL_MODES as readonly string[]).includes(text)) return text as CallMode;
  throw usageError(`--mode must be one of ${CALL_MODES.join(", ")}, not ${JSON.stringify(text)}`);
}

export function parseFormat(text: string | undefined, fallback: ToolViewFormat): ToolViewFormat {
  if (text === undefined) return fallback;
  if ((TOOL_VIEW_FORMATS as readonly string[]).includes(text)) return text as ToolViewFormat;
  throw usageError(`--format must be one of ${TOOL_VIEW_FORMATS.join(", ")}, not ${JSON.stringify(text)}`);
}

export function parseToken(what: string, text: string): string {
  if (isSafeToken(text)) return text;
  throw usageError(`${what} ${JSON.stringify(text)} must match ^[A-Za-z0-9_-]{1,128}$`);
}

/** `500ms`, `30s`, `2m`; a bare number is seconds. */
export function parseDuration(what: string, text: string | undefined, fallbackMs: number): number {
  if (text === undefined) return fallbackMs;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw usageError(`${what} ${JSON.stringify(text)} is not a duration (e.g. 500ms, 30s, 2m, 12h)`);
  const n = Number(m[1]);
  const ms = m[2] === "ms" ? n : m[2] === "m" ? n * 60_000 : m[2] === "h" ? n * 3_600_000 : n * 1_000;
  if (ms <= 0) throw usageError(`${what} must be more than zero`);
  return Math.round(ms);
}

/** `--args` is JSON text; absent means no arguments. */
export function parseJsonArgs(text: string | undefined): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw usageError(`--args is not valid JSON: ${(err as Error).message}`);
  }
}
