import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LoadedManifest } from "@warden/adapters";
import { approverPublicKeyOf, generateApproverKeyPair } from "@warden/approver";
import { BUCKET_DEMO_OUTBOX, BUCKET_DEMO_TICKETS, SUPPORT_DESK_DOMAINS } from "@warden/example-support-desk";
import { standardIdentities, type IdentityEntry, type WardenHome } from "@warden/identity";
import { triageAgent } from "@warden/subagent";

/**
 * The identities one deployment needs (admin, auditor, each service, the adapters of these
 * manifests, and for the demo its executor, subagent, people and agent). An identity whose rights
 * changed (new manifest domains) is re-minted and its old key retired.
 */
export async function provisionIdentities(home: WardenHome, o: { demo: boolean; manifests: readonly LoadedManifest[] }): Promise<IdentityEntry[]> {
  const specs = standardIdentities({
    adapterDomains: o.manifests.map((m) => m.manifest.domain),
    ...(o.demo ? { demo: { domains: SUPPORT_DESK_DOMAINS, buckets: [BUCKET_DEMO_OUTBOX, BUCKET_DEMO_TICKETS] }, subagents: [triageAgent.name] } : {}),
  });
  const entries: IdentityEntry[] = [];
  for (const spec of specs) entries.push(await home.addIdentity(spec, { replace: true }));
  return entries;
}

/** The approver's signing key, made once per home (keys/approver.pem); its public half is what executors pin. */
export function approverSigningKey(home: WardenHome): { privateKeyPem: string; publicKeyDerBase64: string } {
  const path = join(home.dir, "keys", "approver.pem");
  let privateKeyPem: string;
  if (existsSync(path)) privateKeyPem = readFileSync(path, "utf8");
  else {
    privateKeyPem = generateApproverKeyPair().privateKeyPem;
    writeFileSync(path, privateKeyPem, { mode: 0o600 });
  }
  const { publicKeyDerBase64 } = approverPublicKeyOf(privateKeyPem);
  if (!home.env().approverPublicKeys.includes(publicKeyDerBase64)) home.setApproverPublicKeys([publicKeyDerBase64]);
  return { privateKeyPem, publicKeyDerBase64 };
}
