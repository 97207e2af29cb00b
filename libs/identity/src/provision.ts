import { type IdentitySpecInput } from "@warden/contracts/permissions";
import { AGENT_DOMAIN, subagentPrincipal } from "@warden/contracts/policy";
import { connect, credsAuthenticator } from "@nats-io/transport-node";
import type { AccountJwts } from "./trust-root.js";

/**
 * The demo's people and agent: who `warden up --demo` provisions besides the services. `cli` is
 * the person at the terminal: the CLI's default principal, so `warden call` works without --principal.
 */
export const DEMO_PEOPLE = ["alice", "bob", "dana", "cli"] as const;
export const DEMO_AGENTS = ["support-bot"] as const;

export interface StandardIdentitiesOptions {
  /** Domains the adapters service runs (from its manifests); no adapters identity when empty. */
  readonly adapterDomains?: readonly string[];
  /** The demo executor's domains and buckets, when the demo runs. */
  readonly demo?: { readonly domains: readonly string[]; readonly buckets: readonly string[] };
  /** Subagent tool names (`agent.*`) the subagent service runs. */
  readonly subagents?: readonly string[];
}

/** The identities one Warden deployment needs: admin, each core service, executors, demo callers. */
export function standardIdentities(o: StandardIdentitiesOptions = {}): IdentitySpecInput[] {
  const specs: IdentitySpecInput[] = [
    { kind: "admin", name: "admin" },
    { kind: "auditor", name: "auditor" },
    { kind: "service", name: "registry", role: "registry" },
    { kind: "service", name: "policy", role: "policy" },
    { kind: "service", name: "approver", role: "approver" },
    { kind: "service", name: "projector", role: "projector" },
    { kind: "service", name: "notary", role: "notary" },
  ];
  if (o.adapterDomains && o.adapterDomains.length > 0) specs.push({ kind: "executor", name: "adapters", domains: [...o.adapterDomains] });
  if (o.subagents && o.subagents.length > 0) {
    specs.push({ kind: "subagent", name: "subagent", domains: [AGENT_DOMAIN], principals: o.subagents.map(subagentPrincipal) });
  }
  if (o.demo) {
    specs.push({ kind: "executor", name: "support-desk", domains: [...o.demo.domains], buckets: [...o.demo.buckets] });
    for (const p of DEMO_PEOPLE) specs.push({ kind: "human", name: p });
    for (const a of DEMO_AGENTS) specs.push({ kind: "agent", name: a });
  }
  return specs;
}

/**
 * Sends updated account JWTs (a revocation) to a running server through the system account; the
 * server applies them at once, without a restart.
 */
export async function pushAccountJwts(url: string, systemCreds: Uint8Array, jwts: AccountJwts): Promise<void> {
  const nc = await connect({ servers: url.split(","), authenticator: credsAuthenticator(systemCreds), name: "warden-provision" });
  try {
    for (const [account, jwt] of Object.entries(jwts.accounts)) {
      const reply = await nc.request(`$SYS.REQ.ACCOUNT.${account}.CLAIMS.UPDATE`, new TextEncoder().encode(jwt), { timeout: 5_000 });
      const text = new TextDecoder().decode(reply.data);
      if (text.includes('"error"')) throw new Error(`the server refused the account update for ${account}: ${text}`);
    }
  } finally {
    await nc.close();
  }
}
