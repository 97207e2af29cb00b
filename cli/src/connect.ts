import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ConfigError, connectBus, identityOfCreds, isPermissionViolation, loadBusConfig, type Bus, type BusConfig } from "@warden/bus";
import { DEFAULT_WARDEN_HOME, IdentityError, openWardenHome, type WardenHome } from "@warden/identity";
import { CliError, EXIT_FAILED, EXIT_UNREACHABLE } from "./errors.js";
import type { CommandIo } from "./io.js";

export function busConfig(env: NodeJS.ProcessEnv, overrides: Partial<Record<keyof BusConfig, string>> = {}): BusConfig {
  try {
    return loadBusConfig({ ...env, ...overrides });
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError("INVALID_REQUEST", err.message, EXIT_FAILED);
    throw err;
  }
}

/** WARDEN_HOME, or ./.warden under the command's working directory. */
export function wardenHomeDir(io: Pick<CommandIo, "env" | "cwd">): string {
  const dir = io.env["WARDEN_HOME"];
  return resolve(io.cwd, dir === undefined || dir === "" ? DEFAULT_WARDEN_HOME : dir);
}

/** The home `warden up` provisioned, or undefined when there is none (no env.json). */
export function existingHome(io: Pick<CommandIo, "env" | "cwd">): WardenHome | undefined {
  const dir = wardenHomeDir(io);
  if (!existsSync(join(dir, "env.json"))) return undefined;
  try {
    return openWardenHome(dir);
  } catch (err) {
    if (err instanceof IdentityError) throw new CliError("INVALID_REQUEST", err.message);
    throw err;
  }
}

/** Who a command connects as: a named identity, else the admin (operator commands) or nobody. */
export interface Who {
  /** `--as NAME` (or the principal a caller command acts as). */
  readonly name?: string;
  /** `--creds FILE`: another identity's credentials, outside WARDEN_HOME. */
  readonly creds?: string;
  /** Whom to use when no name is given. */
  readonly fallback?: "admin";
  /** The name is the command's default (no --as or --principal given): NATS_CREDS then wins over it. */
  readonly defaulted?: boolean;
}

/**
 * The connection settings for one identity, by one rule (README "Configuration"): `--creds FILE`
 * first; else NATS_CREDS, unless `--as`/`--principal` names someone else, whose credentials then
 * come from WARDEN_HOME/env.json (said on stderr, never silently); else the named identity's
 * credentials in WARDEN_HOME (the URL from there too unless NATS_URL is set). With no credentials
 * for the name, the command says so and fails: it never connects as someone else.
 */
export function connectionFor(io: Pick<CommandIo, "env" | "cwd" | "err">, who: Who): { config: BusConfig; identity: string | undefined } {
  const home = existingHome(io);
  const url = nonEmpty(io.env["NATS_URL"]) ?? nonEmpty(home?.env().url);
  const withCreds = (file: string, identity: string | undefined) => {
    if (!existsSync(file)) throw new CliError("NOT_FOUND", `credentials file ${file} does not exist`);
    return { config: busConfig(io.env, { NATS_CREDS: file, ...(url ? { NATS_URL: url } : {}) }), identity };
  };
  const asked = who.defaulted === true ? undefined : who.name;
  if (who.creds !== undefined) {
    if (!existsSync(who.creds)) throw new CliError("NOT_FOUND", `credentials file ${who.creds} does not exist`);
    return withCreds(who.creds, asked ?? identityInFile(who.creds) ?? who.name);
  }
  const envCreds = nonEmpty(io.env["NATS_CREDS"]);
  if (envCreds !== undefined) {
    const named = identityInFile(envCreds);
    if (asked === undefined || asked === named) return withCreds(envCreds, named ?? who.name);
    if (home?.identity(asked) === undefined) {
      throw new CliError(
        "FORBIDDEN",
        `NATS_CREDS (${envCreds}) holds ${named ?? "unnamed"} credentials, not ${asked}'s, and WARDEN_HOME has none of ${asked}'s: unset NATS_CREDS, drop --as/--principal, or pass --creds FILE`,
      );
    }
    io.err(`warden: acting as ${asked} with its credentials from ${home.dir} (NATS_CREDS, ${named ?? "unnamed"}'s, is not used when --as or --principal names someone)`);
  }
  const name = who.name ?? (who.fallback === "admin" ? "admin" : undefined);
  if (home === undefined) {
    if (url !== undefined) return { config: busConfig(io.env), identity: name };
    throw new CliError(
      "UNAVAILABLE",
      `no Warden found: ${wardenHomeDir(io)}/env.json does not exist. Start one with \`npm start\` (or \`warden up\`), set WARDEN_HOME to its folder, or set NATS_URL and NATS_CREDS`,
      EXIT_UNREACHABLE,
    );
  }
  if (name === undefined) throw new CliError("INVALID_REQUEST", "say who acts: --as NAME");
  const entry = home.identity(name);
  if (entry === undefined) {
    throw new CliError(
      "NOT_FOUND",
      `no identity named ${JSON.stringify(name)} in ${home.dir}/env.json: mint one with \`warden principal add ${name} --kind human|agent\`, or pass --creds FILE`,
    );
  }
  if (entry.revokedAt !== undefined) throw new CliError("FORBIDDEN", `identity ${name} was revoked at ${entry.revokedAt}`);
  return { config: busConfig(io.env, { NATS_CREDS: entry.creds, ...(url ? { NATS_URL: url } : {}) }), identity: name };
}

/** The identity a credentials file names (its user JWT's name). */
function identityInFile(file: string): string | undefined {
  try {
    return identityOfCreds(readFileSync(file));
  } catch (err) {
    throw new CliError("NOT_FOUND", `cannot read credentials file ${file}: ${(err as Error).message}`);
  }
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === "" ? undefined : v;
}

/** Connects; failing to is exit code 2 with one clear line (an authentication failure says so). */
export async function openBus(config: BusConfig, name: string): Promise<Bus> {
  try {
    return await connectBus(config, name);
  } catch (err) {
    const message = (err as Error).message;
    if (isPermissionViolation(err)) {
      throw new CliError("FORBIDDEN", `NATS at ${config.NATS_URL} refused these credentials (${message})`, EXIT_FAILED);
    }
    throw new CliError(
      "UNAVAILABLE",
      `cannot reach NATS at ${config.NATS_URL} (${message}); start Warden with \`npm start\` or set NATS_URL`,
      EXIT_UNREACHABLE,
    );
  }
}

/** Runs a command body with a connection as `who`, drained afterwards. */
export async function withBus<T>(io: Pick<CommandIo, "env" | "cwd" | "err">, who: Who, body: (bus: Bus, identity: string | undefined) => Promise<T>): Promise<T> {
  const { config, identity } = connectionFor(io, who);
  const bus = await openBus(config, `warden-cli${identity ? `-${identity}` : ""}`);
  try {
    return await body(bus, identity);
  } finally {
    await bus.close();
  }
}
