import { usageError } from "./errors.js";

/**
 * One option as the CLI declares it: the parser (commander) and the help text are both made from
 * this, so what `--help` shows is what is parsed.
 */
export interface OptionSpec {
  readonly type: "string" | "boolean";
  /** The placeholder help shows for a string option's value: `--as NAME`. */
  readonly value?: string;
  readonly description: string;
  /** commander refuses the command without it, before its module is loaded. */
  readonly required?: boolean;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

interface ValueTypes {
  readonly string: string;
  readonly boolean: boolean;
}

type ValueOf<S extends OptionSpec> = ValueTypes[S["type"]];

/** The parsed options, keyed by their long names (`run-id`, not `runId`); required ones are always there. */
export type OptionValues<O extends OptionSpecs> = {
  readonly [K in keyof O as O[K] extends { readonly required: true } ? K : never]: ValueOf<O[K]>;
} & {
  readonly [K in keyof O as O[K] extends { readonly required: true } ? never : K]?: ValueOf<O[K]>;
};

/** What a command's action gets: its parsed options and its positional arguments. */
export interface CommandInput<O extends OptionSpecs> {
  readonly values: OptionValues<O>;
  readonly positionals: readonly string[];
}

export const JSON_OPTION = {
  json: { type: "boolean", description: "print exactly one JSON document (errors too)" },
} as const satisfies OptionSpecs;

/** Which identity's credentials a command uses: `--as NAME` (from WARDEN_HOME) or `--creds FILE`. */
export const WHO_OPTIONS = {
  as: { type: "string", value: "NAME", description: "act as this identity (credentials from WARDEN_HOME/env.json)" },
  creds: { type: "string", value: "FILE", description: "act with this credentials file instead" },
} as const satisfies OptionSpecs;

/** Who is asking, for `tools` and `call`. */
export const CALLER_OPTIONS = {
  mode: { type: "string", value: "MODE", description: "how the caller runs: human, llm or plan (default human)" },
  principal: { type: "string", value: "P", description: 'who asks (default $WARDEN_PRINCIPAL, else "cli")' },
  scope: { type: "string", value: "S", description: "the caller's scope" },
  flags: { type: "string", value: "k=v,k2=v2", description: "feature flags of the caller (a bare k is true)" },
} as const satisfies OptionSpecs;

export function onePositional(positionals: readonly string[], what: string): string {
  const [value, ...rest] = positionals;
  if (value === undefined) throw usageError(`missing ${what}`);
  if (rest.length > 0) throw usageError(`unexpected arguments: ${rest.join(" ")}`);
  return value;
}

/** The principal a command acts as: --principal, else WARDEN_PRINCIPAL, else `cli`. */
export function defaultPrincipal(env: NodeJS.ProcessEnv): string {
  return namedPrincipal(env) ?? "cli";
}

/** WARDEN_PRINCIPAL when set: a principal chosen, unlike the `cli` default (NATS_CREDS wins over that). */
export function namedPrincipal(env: NodeJS.ProcessEnv): string | undefined {
  const p = env["WARDEN_PRINCIPAL"];
  return p === undefined || p === "" ? undefined : p;
}

/**
 * Whose credentials a caller command (call, undo) connects with and which principal it asks as:
 * --as, else the principal named (--principal, WARDEN_PRINCIPAL); with neither, the identity of
 * NATS_CREDS when set, else `cli`.
 */
export function callerOf(values: { readonly as?: string; readonly principal?: string; readonly creds?: string }, env: NodeJS.ProcessEnv) {
  const named = values.principal ?? namedPrincipal(env);
  return {
    who: { name: values.as ?? named ?? "cli", creds: values.creds, defaulted: values.as === undefined && named === undefined },
    /** The principal the call is asked as, once the connection's identity is known. */
    principalFor: (identity: string | undefined) => named ?? identity ?? "cli",
  };
}
