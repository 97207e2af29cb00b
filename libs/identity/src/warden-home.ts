import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { TokenSchema } from "@warden/contracts/subjects";
import { IdentitySpecSchema, type IdentitySpec, type IdentitySpecInput } from "@warden/contracts/permissions";
import { z } from "zod";
import { LimitsSchema, type LimitsInput } from "./limits.js";
import { renderServerConfig } from "./server-config.js";
import { accountJwts, createTrustRoot, mintSystemUser, mintUser, seedsOf, trustRootFromSeeds, type AccountJwts, type TrustRoot } from "./trust-root.js";

/**
 * WARDEN_HOME (default ./.warden): the trust root (`keys/`), the server's configuration and store
 * (`nats/`), one folder per identity (`identities/<name>/`: its credentials and, for a service
 * that signs, its key) and `env.json`, the file CLI commands find their connection in. Secrets are
 * written 0600 in 0700 folders, so one identity's folder can be handed to (mounted into, or chowned
 * for) that identity's process alone.
 */

const TrustFileSchema = z.object({ operator: z.string(), system: z.string(), warden: z.string(), clients: z.string() });

const IdentityEntrySchema = z.object({
  spec: IdentitySpecSchema,
  creds: z.string(),
  publicKey: z.string(),
  revokedAt: z.string().optional(),
});
export type IdentityEntry = z.infer<typeof IdentityEntrySchema>;

export const EnvFileSchema = z.object({
  v: z.literal(1),
  /** The NATS URL of the server this home provisioned (or was pointed at). */
  url: z.string(),
  /** Identities by name: what each may do and where its credentials are. */
  identities: z.record(TokenSchema, IdentityEntrySchema),
  /** Approver public keys (base64 SPKI) executors pin. */
  approverPublicKeys: z.array(z.string()).default([]),
  /** Notary public keys (base64 SPKI) auditors pin: checkpoints are verified against these only. */
  notaryPublicKeys: z.array(z.string()).default([]),
  /** User keys replaced by a re-minted identity (its rights changed): refused like revoked ones. */
  retiredKeys: z.record(z.string(), z.string()).default({}),
  /** The JWTs' resource limits (limits.ts): account limits go out with every account JWT, a user's when it is minted. */
  limits: LimitsSchema.default(LimitsSchema.parse({})),
});
export type EnvFile = z.infer<typeof EnvFileSchema>;

export const DEFAULT_WARDEN_HOME = ".warden";

/** An identity's credentials file in its folder (the name `warden provision` mounts too). */
export const IDENTITY_CREDS_FILE = "nats.creds";

export class IdentityError extends Error {
  override readonly name = "IdentityError";
}

export interface WardenHome {
  readonly dir: string;
  readonly root: TrustRoot;
  /** The env file as it is now (identities minted so far). */
  env(): EnvFile;
  /**
   * Mints an identity's credentials (0600) unless it exists with the same spec. A different spec
   * under a taken name is an error, unless `replace`: then the old key is retired (refused by the
   * server from the next configuration or account push) and new credentials are minted.
   */
  addIdentity(spec: IdentitySpecInput, opts?: { replace?: boolean }): Promise<IdentityEntry>;
  identity(name: string): IdentityEntry | undefined;
  /** The identity's own folder (0700), created on first use: its credentials and keys, nothing of another's. */
  identityDir(name: string): string;
  /** Marks an identity revoked; returns the account JWTs to push so the server refuses it. */
  revoke(name: string): Promise<AccountJwts>;
  jwts(): Promise<AccountJwts>;
  /** Writes nats.conf for a server on this host and port; returns its path. */
  writeServerConfig(o: { host: string; port: number; profPort?: number }): Promise<string>;
  setUrl(url: string): void;
  setApproverPublicKeys(keys: readonly string[]): void;
  setNotaryPublicKeys(keys: readonly string[]): void;
  systemCreds(): Promise<Uint8Array>;
  readonly storeDir: string;
  /** Where the home's single server writes its pid (`pid_file` of nats.conf). */
  readonly serverPidFile: string;
}

const SERVER_PID_FILE = "nats-server.pid";

function writeSecret(path: string, data: string | Uint8Array): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, data, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

function ensureDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
}

export interface WardenHomeOptions {
  /** Limits to change (kept in `env.json` from then on); the rest stay as they were, or their defaults. */
  readonly limits?: LimitsInput;
}

/** Opens (or creates) a home: the same keys every time, so credentials handed out stay valid. */
export function openWardenHome(dir: string, options: WardenHomeOptions = {}): WardenHome {
  const home = resolve(dir);
  ensureDir(join(home, "keys"));
  ensureDir(join(home, "identities"));
  const identityDir = (name: string) => {
    const dir = join(home, "identities", TokenSchema.parse(name));
    ensureDir(dir);
    return dir;
  };
  const trustPath = join(home, "keys", "trust.json");
  const envPath = join(home, "env.json");
  let root: TrustRoot;
  if (existsSync(trustPath)) {
    const parsed = TrustFileSchema.safeParse(JSON.parse(readFileSync(trustPath, "utf8")));
    if (!parsed.success) throw new IdentityError(`${trustPath} is not a Warden key file`);
    root = trustRootFromSeeds(parsed.data);
  } else {
    root = createTrustRoot();
    writeSecret(trustPath, JSON.stringify(seedsOf(root), null, 2));
  }
  let env: EnvFile = { v: 1, url: "", identities: {}, approverPublicKeys: [], notaryPublicKeys: [], retiredKeys: {}, limits: LimitsSchema.parse({}) };
  if (existsSync(envPath)) {
    const parsed = EnvFileSchema.safeParse(JSON.parse(readFileSync(envPath, "utf8")));
    if (!parsed.success) throw new IdentityError(`${envPath} is not a Warden env file: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    env = parsed.data;
  }
  const save = () => writeSecret(envPath, `${JSON.stringify(env, null, 2)}\n`);
  if (options.limits !== undefined) {
    env = { ...env, limits: LimitsSchema.parse({ ...env.limits, ...options.limits }) };
    save();
  }
  const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);
  const revoked = () =>
    Object.fromEntries([
      ...Object.entries(env.retiredKeys).map(([key, at]) => [key, seconds(at)] as const),
      ...Object.values(env.identities).flatMap((e) => (e.revokedAt ? [[e.publicKey, seconds(e.revokedAt)] as const] : [])),
    ]);

  return {
    dir: home,
    root,
    storeDir: join(home, "nats", "store"),
    serverPidFile: join(home, "nats", SERVER_PID_FILE),
    env: () => env,
    identity: (name) => env.identities[name],
    identityDir,
    async addIdentity(input, opts = {}) {
      const spec: IdentitySpec = IdentitySpecSchema.parse(input);
      const existing = env.identities[spec.name];
      if (existing !== undefined && !existing.revokedAt) {
        const same = JSON.stringify(existing.spec) === JSON.stringify(spec);
        if (!same && !opts.replace) {
          throw new IdentityError(`identity ${spec.name} already exists as ${existing.spec.kind} with other rights; pick another name or revoke it first`);
        }
        if (same && existsSync(existing.creds)) {
          // a home made before identities had folders: the credentials move into their own
          const own = join(identityDir(spec.name), IDENTITY_CREDS_FILE);
          if (existing.creds === own) return existing;
          renameSync(existing.creds, own);
          const moved: IdentityEntry = { ...existing, creds: own };
          env = { ...env, identities: { ...env.identities, [spec.name]: moved } };
          save();
          return moved;
        }
        if (!same) env = { ...env, retiredKeys: { ...env.retiredKeys, [existing.publicKey]: new Date().toISOString() } };
      }
      const user = await mintUser(root, spec, env.limits);
      const credsPath = join(identityDir(spec.name), IDENTITY_CREDS_FILE);
      writeSecret(credsPath, user.creds);
      const entry: IdentityEntry = { spec, creds: credsPath, publicKey: user.publicKey };
      env = { ...env, identities: { ...env.identities, [spec.name]: entry } };
      save();
      return entry;
    },
    async revoke(name) {
      const existing = env.identities[name];
      if (existing === undefined) throw new IdentityError(`no identity named ${name}`);
      env = { ...env, identities: { ...env.identities, [name]: { ...existing, revokedAt: new Date().toISOString() } } };
      save();
      return accountJwts(root, revoked(), env.limits);
    },
    jwts: () => accountJwts(root, revoked(), env.limits),
    async writeServerConfig({ host, port, profPort }) {
      ensureDir(join(home, "nats", "jwt"));
      ensureDir(join(home, "nats", "store"));
      const path = join(home, "nats", "nats.conf");
      const config = renderServerConfig({
        host,
        port,
        storeDir: join(home, "nats", "store"),
        resolverDir: join(home, "nats", "jwt"),
        jwts: await accountJwts(root, revoked(), env.limits),
        systemAccount: root.system.getPublicKey(),
        pidFile: join(home, "nats", SERVER_PID_FILE),
        ...(profPort === undefined ? {} : { profPort }),
      });
      writeSecret(path, config);
      return path;
    },
    setUrl(url) {
      env = { ...env, url };
      save();
    },
    setApproverPublicKeys(keys) {
      env = { ...env, approverPublicKeys: [...keys] };
      save();
    },
    setNotaryPublicKeys(keys) {
      env = { ...env, notaryPublicKeys: [...keys] };
      save();
    },
    systemCreds: () => mintSystemUser(root),
  };
}
