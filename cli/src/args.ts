import { parseArgs, type ParseArgsConfig } from "node:util";
import { usageError } from "./errors.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

export const JSON_OPTION = { json: { type: "boolean" } } as const satisfies Options;

/** Which identity's credentials a command uses: `--as NAME` (from WARDEN_HOME) or `--creds FILE`. */
export const WHO_OPTIONS = { as: { type: "string" }, creds: { type: "string" } } as const satisfies Options;

/** Who is asking, for `tools` and `call`. */
export const CALLER_OPTIONS = {
  mode: { type: "string" },
  principal: { type: "string" },
  scope: { type: "string" },
  flags: { type: "string" },
} as const satisfies Options;

/** node:util parseArgs in strict mode; a bad option is a usage error, not a stack trace. */
export function parseCommandArgs<O extends Options>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (err) {
    throw usageError((err as Error).message);
  }
}

export function onePositional(positionals: string[], what: string): string {
  const [value, ...rest] = positionals;
  if (value === undefined) throw usageError(`missing ${what}`);
  if (rest.length > 0) throw usageError(`unexpected arguments: ${rest.join(" ")}`);
  return value;
}

/** The principal a command acts as: --principal, else WARDEN_PRINCIPAL, else `cli`. */
export function defaultPrincipal(env: NodeJS.ProcessEnv): string {
  const p = env["WARDEN_PRINCIPAL"];
  return p === undefined || p === "" ? "cli" : p;
}
