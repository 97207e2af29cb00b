import { IdentitySpecSchema, SERVICE_ROLES, type IdentitySpecInput } from "@warden/contracts";
import { IdentityError, pushAccountJwts } from "@warden/identity";
import { JSON_OPTION, onePositional, parseCommandArgs } from "../args.js";
import { existingHome, wardenHomeDir } from "../connect.js";
import { CliError, EXIT_OK, usageError } from "../errors.js";
import type { Command, CommandIo } from "../io.js";
import { emit, renderTable } from "../output.js";

const ADD_OPTIONS = { ...JSON_OPTION, kind: { type: "string" }, role: { type: "string" }, domains: { type: "string" } } as const;

/**
 * `warden principal add NAME --kind agent|human|executor|service|auditor`, `principal revoke NAME`,
 * `principal list`: identities are minted from WARDEN_HOME's account keys. A new one works at once
 * (the server checks its signature, no restart); a revoked one is refused from the next connect.
 */
export const principalCommand: Command = async (argv, io) => {
  const [sub, ...rest] = argv;
  if (sub === "add") return add(rest, io);
  if (sub === "revoke") return revoke(rest, io);
  if (sub === "list") return list(rest, io);
  throw usageError("usage: warden principal add NAME --kind agent|human|executor|service|auditor | revoke NAME | list");
};

function home(io: CommandIo) {
  const h = existingHome(io);
  if (h === undefined) throw new CliError("NOT_FOUND", `no Warden home at ${wardenHomeDir(io)}: run \`warden up\` first (or set WARDEN_HOME)`);
  return h;
}

async function add(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, ADD_OPTIONS);
  const name = onePositional(positionals, "NAME");
  const kind = values.kind;
  if (kind === undefined) throw usageError("--kind is required: agent, human, executor (with --domains), service (with --role) or auditor");
  if (name.startsWith("agent-")) throw usageError(`${name}: names starting with agent- are the principals of subagents (agent.<name> tools)`);
  const domains = values.domains?.split(",").map((d) => d.trim()).filter((d) => d !== "") ?? [];
  let input: IdentitySpecInput;
  if (kind === "agent" || kind === "human" || kind === "auditor") input = { kind, name };
  else if (kind === "executor") input = { kind, name, domains };
  else if (kind === "service") {
    const role = values.role as (typeof SERVICE_ROLES)[number] | undefined;
    if (role === undefined || !SERVICE_ROLES.includes(role)) throw usageError(`--role is required for a service: ${SERVICE_ROLES.join(", ")}`);
    input = { kind, name, role };
  } else throw usageError(`unknown --kind ${JSON.stringify(kind)}: agent, human, executor, service or auditor`);
  const spec = IdentitySpecSchema.safeParse(input);
  if (!spec.success) {
    const issue = spec.error.issues[0];
    throw usageError(`invalid identity at ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`);
  }
  const h = home(io);
  try {
    const entry = await h.addIdentity(spec.data);
    emit(io, values.json ?? false, { ok: true, name, kind, creds: entry.creds, publicKey: entry.publicKey }, () =>
      [`${name} (${kind}) may connect now with ${entry.creds}`, `  e.g. npm run warden -- ${kind === "human" ? `approvals --as ${name}` : `tools --principal ${name}`}`].join("\n"),
    );
  } catch (err) {
    if (err instanceof IdentityError) throw new CliError("INVALID_REQUEST", err.message);
    throw err;
  }
  return EXIT_OK;
}

async function revoke(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, JSON_OPTION);
  const name = onePositional(positionals, "NAME");
  const h = home(io);
  if (h.identity(name) === undefined) throw new CliError("NOT_FOUND", `no identity named ${name} in ${h.dir}/env.json`);
  const jwts = await h.revoke(name);
  const url = io.env["NATS_URL"] || h.env().url;
  // the running server learns at once; a restarted one reads the revocation from its config
  await pushAccountJwts(url, await h.systemCreds(), jwts).catch((err: unknown) => {
    throw new CliError("UNAVAILABLE", `revoked in ${h.dir}, but the server at ${url} did not take the update: ${(err as Error).message}`);
  });
  emit(io, values.json ?? false, { ok: true, name, revoked: true }, () => `${name} is revoked: the server refuses its credentials from now on`);
  return EXIT_OK;
}

async function list(argv: string[], io: CommandIo): Promise<number> {
  const { values } = parseCommandArgs(argv, JSON_OPTION);
  const entries = Object.values(home(io).env().identities);
  emit(io, values.json ?? false, { identities: entries }, () =>
    renderTable(entries, [
      { title: "NAME", value: (e) => e.spec.name },
      { title: "KIND", value: (e) => e.spec.kind },
      { title: "STATUS", value: (e) => (e.revokedAt ? `revoked ${e.revokedAt}` : "active") },
      { title: "CREDENTIALS", value: (e) => e.creds },
    ]),
  );
  return EXIT_OK;
}
