import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LoadedManifest } from "@warden/adapters";
import { skillDomain } from "@warden/contracts/descriptor";
import { generateSigningKeyPair, publicKeyOf } from "@warden/service-kit";
import { BUCKET_DEMO_OUTBOX, BUCKET_DEMO_TICKETS, SUPPORT_DESK_DOMAINS } from "@warden/example-support-desk";
import { standardIdentities, type IdentityEntry, type WardenHome } from "@warden/identity";
import type { LoadedSkill } from "@warden/skills";
import { triageAgent } from "@warden/subagent";

/**
 * The identities one deployment needs (admin, auditor, each service, the adapters of these
 * manifests and skills, and for the demo its executor, subagent, people and agent). An identity whose rights
 * changed (new manifest domains) is re-minted and its old key retired.
 */
export async function provisionIdentities(
  home: WardenHome,
  o: { demo: boolean; manifests: readonly LoadedManifest[]; skills?: readonly LoadedSkill[] },
): Promise<IdentityEntry[]> {
  const specs = standardIdentities({
    adapterDomains: [
      ...o.manifests.map((m) => m.manifest.domain),
      // a skill's scripts run as tools of its own domain; a skill without scripts needs no executor
      ...(o.skills ?? []).filter((s) => s.frontMatter.tools.length > 0).map((s) => skillDomain(s.frontMatter.name)),
    ],
    ...(o.demo ? { demo: { domains: SUPPORT_DESK_DOMAINS, buckets: [BUCKET_DEMO_OUTBOX, BUCKET_DEMO_TICKETS] }, subagents: [triageAgent.name] } : {}),
  });
  const entries: IdentityEntry[] = [];
  for (const spec of specs) entries.push(await home.addIdentity(spec, { replace: true }));
  return entries;
}

interface HomeKey {
  readonly privateKeyPem: string;
  readonly publicKeyDerBase64: string;
}

/** The signing key in this file (0600), made on first use. */
function signingKeyAt(path: string): HomeKey {
  let privateKeyPem: string;
  if (existsSync(path)) privateKeyPem = readFileSync(path, "utf8");
  else {
    privateKeyPem = generateSigningKeyPair().privateKeyPem;
    writeFileSync(path, privateKeyPem, { mode: 0o600 });
  }
  return { privateKeyPem, publicKeyDerBase64: publicKeyOf(privateKeyPem).publicKeyDerBase64 };
}

/**
 * The approver's signing key, in the approver's own folder (identities/approver/approver.pem; a
 * home made before moves its keys/approver.pem there); its public half is what executors pin.
 */
export function approverSigningKey(home: WardenHome): HomeKey {
  const path = join(home.identityDir("approver"), "approver.pem");
  const legacy = join(home.dir, "keys", "approver.pem");
  if (!existsSync(path) && existsSync(legacy)) renameSync(legacy, path);
  const key = signingKeyAt(path);
  if (!home.env().approverPublicKeys.includes(key.publicKeyDerBase64)) home.setApproverPublicKeys([key.publicKeyDerBase64]);
  return key;
}
