import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadManifestDir, loadSkillsDir, type LoadedManifest } from "@warden/adapters";
import { knowsSyncInterval, openWardenHome, parseNatsServerVersion, renderAuthConfig, renderJetStreamDurability, type NatsServerVersion } from "@warden/identity";
import { findNatsServerBinary, natsServerVersionText } from "@warden/local-nats";
import type { PROVISION_OPTIONS } from "../command-list.js";
import { EXIT_OK, usageError } from "../errors.js";
import type { Command } from "../io.js";
import { emit } from "../output.js";
import { approverSigningKey, provisionIdentities } from "../up/identities.js";
import { notaryHomeDir, notarySigningKey } from "../up/notary-key.js";

const ROUTE_USER = "warden-route";

/**
 * `warden provision --out DIR [--demo] [--url URLS] [--routes h:p,...] [--owner UID:GID]`:
 * everything a cluster needs, offline (no NATS contacted), for servers Warden does not start
 * itself: DIR is a WARDEN_HOME (keys, credentials, env.json); DIR/server holds the nodes' auth
 * files; DIR/identities/<name>/ one folder per identity to mount into its container. Re-running
 * keeps existing keys and credentials and mints only what is missing.
 */
export const provisionCommand: Command<typeof PROVISION_OPTIONS> = async ({ values }, io) => {
  const owner = parseOwner(values.owner);
  const dir = resolve(io.cwd, values.out);
  const home = openWardenHome(dir);
  if (values.url !== undefined) home.setUrl(values.url);
  const approver = approverSigningKey(home);
  const notary = notarySigningKey(home, notaryHomeDir(io.env, dir));
  const manifestsDir = io.env["WARDEN_MANIFESTS_DIR"];
  const manifests: LoadedManifest[] = manifestsDir && existsSync(manifestsDir) ? await loadManifestDir(manifestsDir) : [];
  const skillsDir = io.env["WARDEN_SKILLS_DIR"];
  const skills = skillsDir && existsSync(skillsDir) ? await loadSkillsDir(skillsDir) : [];
  const entries = await provisionIdentities(home, { demo: values.demo ?? false, manifests, skills });

  const serverDir = join(dir, "server");
  mkdirSync(serverDir, { recursive: true });
  writeFileSync(join(serverDir, "auth.conf"), renderAuthConfig(await home.jwts(), home.root.system.getPublicKey()), { mode: 0o644 });
  const nats = natsVersionFor(values["nats-version"], io.env);
  writeFileSync(join(serverDir, "jetstream.conf"), renderJetStreamDurability(nats.version, nats.source), { mode: 0o644 });
  const routes = values.routes?.split(",").map((r) => r.trim()).filter((r) => r !== "") ?? [];
  if (routes.length > 0) {
    const secret = routeSecret(dir);
    const lines = [
      `authorization { user: ${ROUTE_USER}, password: ${JSON.stringify(secret)} }`,
      `routes [ ${routes.map((r) => JSON.stringify(`nats-route://${ROUTE_USER}:${secret}@${r}`)).join(", ")} ]`,
      "",
    ];
    // the route secret lets a node join the cluster: readable by the server only
    writeFileSync(join(serverDir, "cluster.conf"), lines.join("\n"), { mode: 0o640 });
  }

  const keysFile = `${home.env().approverPublicKeys.join("\n")}\n`;
  const notaryKeysFile = `${home.env().notaryPublicKeys.join("\n")}\n`;
  for (const entry of entries) {
    const idDir = join(dir, "identities", entry.spec.name);
    mkdirSync(idDir, { recursive: true, mode: 0o700 });
    // the home keeps each identity's credentials in this folder already; an older home elsewhere
    if (resolve(entry.creds) !== join(idDir, "nats.creds")) copyFileSync(entry.creds, join(idDir, "nats.creds"));
    chmodSync(join(idDir, "nats.creds"), 0o600);
    writeFileSync(join(idDir, "approver-public-keys"), keysFile, { mode: 0o644 });
    writeFileSync(join(idDir, "notary-public-keys"), notaryKeysFile, { mode: 0o644 });
    if (entry.spec.kind === "service" && entry.spec.role === "approver") {
      writeFileSync(join(idDir, "approver.pem"), approver.privateKeyPem, { mode: 0o600 });
    }
    if (entry.spec.kind === "service" && entry.spec.role === "notary") {
      writeFileSync(join(idDir, "notary.pem"), notary.privateKeyPem, { mode: 0o600 });
    }
    if (owner !== undefined) for (const f of ["", "nats.creds", "approver-public-keys", "notary-public-keys", "approver.pem", "notary.pem"]) chownIfExists(join(idDir, f), owner);
  }
  const names = entries.map((e) => e.spec.name);
  emit(io, values.json ?? false, { ok: true, home: dir, server: serverDir, natsVersion: nats.shown, syncAlways: nats.syncAlways, identities: names }, () =>
    [
      `provisioned ${dir}`,
      `  server auth  ${serverDir}/auth.conf${routes.length > 0 ? ", cluster.conf" : ""}`,
      `  jetstream    ${serverDir}/jetstream.conf: ${nats.summary}`,
      `  identities   ${names.join(", ")}`,
    ].join("\n"),
  );
  return EXIT_OK;
};

/** The release production runs (docker-compose.yml's image), assumed when nothing says otherwise. */
const DEFAULT_NATS_VERSION = "2.12";

/**
 * Which nats-server the nodes run: `--nats-version`, else the one installed on this machine, else
 * the release production runs. jetstream.conf is written for it (sync_interval from 2.10 on).
 */
function natsVersionFor(flag: string | undefined, env: NodeJS.ProcessEnv): { version: NatsServerVersion; source: string; shown: string; syncAlways: boolean; summary: string } {
  let version: NatsServerVersion | undefined;
  let source: string;
  if (flag !== undefined) {
    version = parseNatsServerVersion(flag);
    if (version === undefined) throw usageError(`--nats-version must be a release like 2.12 or 2.9.10, not ${JSON.stringify(flag)}`);
    source = "from --nats-version";
  } else {
    const binary = findNatsServerBinary(env);
    const text = natsServerVersionText(binary);
    version = text === undefined ? undefined : parseNatsServerVersion(text);
    source = version === undefined ? "assumed: no nats-server on the provisioning machine" : `found at ${binary}`;
  }
  version ??= parseNatsServerVersion(DEFAULT_NATS_VERSION)!;
  const shown = `${version.major}.${version.minor}.${version.patch}`;
  const syncAlways = knowsSyncInterval(version);
  const summary = `${syncAlways ? "sync_interval: always" : "no sync_interval (needs 2.10+): development only"} for nats-server ${shown} (${source})`;
  return { version, source, shown, syncAlways, summary };
}

function routeSecret(dir: string): string {
  const path = join(dir, "keys", "route-secret");
  if (existsSync(path)) return readFileSync(path, "utf8").trim();
  const secret = randomBytes(24).toString("base64url");
  writeFileSync(path, secret, { mode: 0o600 });
  return secret;
}

function parseOwner(value: string | undefined): { uid: number; gid: number } | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d+):(\d+)$/.exec(value);
  if (!m) throw usageError(`--owner must be UID:GID, not ${JSON.stringify(value)}`);
  return { uid: Number(m[1]), gid: Number(m[2]) };
}

function chownIfExists(path: string, o: { uid: number; gid: number }): void {
  if (existsSync(path)) chownSync(path, o.uid, o.gid);
}
