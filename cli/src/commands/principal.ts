import { IdentitySpecSchema, SERVICE_ROLES, type IdentitySpecInput } from "@warden/contracts/permissions";
import { IdentityError, pushAccountJwts } from "@warden/identity";
import { onePositional, type JSON_OPTION } from "../args.js";
import type { PRINCIPAL_ADD_OPTIONS } from "../command-list.js";
import { existingHome, wardenHomeDir } from "../connect.js";
import { CliError, EXIT_OK, usageError } from "../errors.js";
import type { Command, CommandIo } from "../io.js";
import { emit, renderTable } from "../output.js";

function home(io: CommandIo) {
  const h = existingHome(io);
  if (h === undefined) throw new CliError("NOT_FOUND", `no Warden home at ${wardenHomeDir(io)}: run \`warden up\` first (or set WARDEN_HOME)`);
  return h;
}

/**
 * `warden principal add NAME --kind agent|human|executor|service|auditor|policy-author`: identities are minted
 * from WARDEN_HOME's account keys. A new one works at once (the server checks its signature, no
 * restart).
 */
export const principalAddCommand: Command<typeof PRINCIPAL_ADD_OPTIONS> = async ({ values, positionals }, io) => {
  const name = onePositional(positionals, "NAME");
  const kind = values.kind;
  if (name.startsWith("agent-")) throw usageError(`${name}: names starting with agent- are the principals of subagents (agent.<name> tools)`);
  const domains = values.domains?.split(",").map((d) => d.trim()).filter((d) => d !== "") ?? [];
  let input: IdentitySpecInput;
  if (kind === "agent" || kind === "human" || kind === "auditor" || kind === "policy-author") input = { kind, name };
  else if (kind === "executor") input = { kind, name, domains };
  else if (kind === "service") {
    const role = values.role as (typeof SERVICE_ROLES)[number] | undefined;
    if (role === undefined || !SERVICE_ROLES.includes(role)) throw usageError(`--role is required for a service: ${SERVICE_ROLES.join(", ")}`);
    input = { kind, name, role };
  } else throw usageError(`unknown --kind ${JSON.stringify(kind)}: agent, human, executor, service, auditor or policy-author`);
  const spec = IdentitySpecSchema.safeParse(input);
  if (!spec.success) {
    const issue = spec.error.issues[0];
    throw usageError(`invalid identity at ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`);
  }
  const h = home(io);
  try {
    const entry = await h.addIdentity(spec.data);
    emit(io, values.json ?? false, { ok: true, name, kind, creds: entry.creds, publicKey: entry.publicKey }, () =>
      [
        `${name} (${kind}) may connect now with ${entry.creds}`,
        `  e.g. npx warden ${kind === "human" ? `approvals --as ${name}` : kind === "policy-author" ? `policy set policy.yaml --as ${name}` : `tools --principal ${name}`}`,
      ].join("\n"),
    );
  } catch (err) {
    if (err instanceof IdentityError) throw new CliError("INVALID_REQUEST", err.message);
    throw err;
  }
  return EXIT_OK;
};

/** `warden principal revoke NAME`: refused from the next connect. */
export const principalRevokeCommand: Command<typeof JSON_OPTION> = async ({ values, positionals }, io) => {
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
};

/** `warden principal list`. */
export const principalListCommand: Command<typeof JSON_OPTION> = async ({ values }, io) => {
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
};
