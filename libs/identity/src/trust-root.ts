import { createAccount, createOperator, encodeAccount, encodeOperator, encodeUser, fmtCreds, createUser, fromSeed, type KeyPair } from "@nats-io/jwt";
import type { Account } from "@nats-io/jwt";
import {
  ACCOUNT_CLIENTS,
  ACCOUNT_SYSTEM,
  ACCOUNT_WARDEN,
  CLIENT_EXPORTS,
  permissionsOf,
  type IdentitySpec,
} from "@warden/contracts/permissions";
import { accountLimitsOf, DEFAULT_LIMITS, userLimitsOf, type Limits } from "./limits.js";

/**
 * The keys that make Warden's identities: an operator, and the system, Warden and clients
 * accounts it signs. Whoever holds an account's seed can mint users of that account, so the seeds
 * live only where identities are provisioned (WARDEN_HOME/keys, 0600).
 */
export interface TrustRoot {
  readonly operator: KeyPair;
  readonly system: KeyPair;
  readonly warden: KeyPair;
  readonly clients: KeyPair;
}

export interface TrustSeeds {
  readonly operator: string;
  readonly system: string;
  readonly warden: string;
  readonly clients: string;
}

const UNLIMITED = { subs: -1, data: -1, payload: -1 };
// the system account: the server's own traffic and revocation pushes, left open
const SYSTEM_ACCOUNT_LIMITS = { ...UNLIMITED, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1 };
const JETSTREAM_LIMITS = { mem_storage: -1, disk_storage: -1, streams: -1, consumer: -1 };
/** Long enough for a read that waits for a call's outcome (the SDK asks again after that). */
const RESPONSE_TTL_NS = 2 * 60 * 1_000_000_000;

export function createTrustRoot(): TrustRoot {
  return { operator: createOperator(), system: createAccount(), warden: createAccount(), clients: createAccount() };
}

export function trustRootFromSeeds(seeds: TrustSeeds): TrustRoot {
  const kp = (s: string) => fromSeed(new TextEncoder().encode(s));
  return { operator: kp(seeds.operator), system: kp(seeds.system), warden: kp(seeds.warden), clients: kp(seeds.clients) };
}

export function seedsOf(root: TrustRoot): TrustSeeds {
  const seed = (k: KeyPair) => new TextDecoder().decode(k.getSeed());
  return { operator: seed(root.operator), system: seed(root.system), warden: seed(root.warden), clients: seed(root.clients) };
}

export interface AccountJwts {
  readonly operator: string;
  readonly accounts: Readonly<Record<string, string>>;
}

/**
 * The operator and account JWTs a server trusts. `revoked` lists user public keys (with the time
 * they were revoked, in seconds) that the server must refuse from then on; `limits` bound the
 * Warden and clients accounts (limits.ts).
 */
export async function accountJwts(root: TrustRoot, revoked: Readonly<Record<string, number>> = {}, limits: Limits = DEFAULT_LIMITS): Promise<AccountJwts> {
  const signer = { signer: root.operator };
  const wardenPub = root.warden.getPublicKey();
  const wardenRevoked = pick(revoked, (k) => k.startsWith("U"));
  const operator = await encodeOperator("warden", root.operator, { system_account: root.system.getPublicKey() });
  const system = await encodeAccount(ACCOUNT_SYSTEM, root.system, { limits: SYSTEM_ACCOUNT_LIMITS }, signer);
  const warden: Partial<Account> = {
    limits: { ...accountLimitsOf("warden", limits), ...JETSTREAM_LIMITS },
    exports: CLIENT_EXPORTS.map((e) => ({
      name: e.name,
      subject: e.subject,
      type: e.type,
      ...(e.type === "service" ? { response_type: "Singleton" as const, response_threshold: RESPONSE_TTL_NS } : {}),
    })),
    revocations: wardenRevoked,
  };
  const clients: Partial<Account> = {
    limits: accountLimitsOf("clients", limits),
    imports: CLIENT_EXPORTS.map((e) => ({ name: e.name, subject: e.subject, account: wardenPub, type: e.type })),
    revocations: wardenRevoked,
  };
  return {
    operator,
    accounts: {
      [root.system.getPublicKey()]: system,
      [wardenPub]: await encodeAccount(ACCOUNT_WARDEN, root.warden, warden, signer),
      [root.clients.getPublicKey()]: await encodeAccount(ACCOUNT_CLIENTS, root.clients, clients, signer),
    },
  };
}

function pick(r: Readonly<Record<string, number>>, keep: (k: string) => boolean): Record<string, number> {
  return Object.fromEntries(Object.entries(r).filter(([k]) => keep(k)));
}

export interface MintedUser {
  readonly publicKey: string;
  /** A NATS credentials file (user JWT + seed). */
  readonly creds: Uint8Array;
}

/** A user of the account the identity's role lives in, with exactly the role's permissions and its connection limits. */
export async function mintUser(root: TrustRoot, spec: IdentitySpec, limits: Limits = DEFAULT_LIMITS): Promise<MintedUser> {
  const perms = permissionsOf(spec);
  const user = createUser();
  const issuer = perms.account === ACCOUNT_WARDEN ? root.warden : root.clients;
  const jwt = await encodeUser(spec.name, user, issuer, {
    ...userLimitsOf(spec, limits),
    pub: { allow: [...perms.pub.allow], deny: [...perms.pub.deny] },
    sub: { allow: [...perms.sub.allow], deny: [...perms.sub.deny] },
    tags: [`kind:${spec.kind}`],
  });
  return { publicKey: user.getPublicKey(), creds: fmtCreds(jwt, user) };
}

/** A system-account user: pushes account updates (revocations) to a running server. */
export async function mintSystemUser(root: TrustRoot): Promise<Uint8Array> {
  const user = createUser();
  const jwt = await encodeUser("warden-system", user, root.system, UNLIMITED);
  return fmtCreds(jwt, user);
}
