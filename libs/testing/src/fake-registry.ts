/** Test-only: a stand-in for the registry service, for tests that start an executor without Warden. */
import { kvPutJson, serveRpc, silentLogger, type Bus } from "@warden/bus";
import { BUCKET_TOOLS, QUEUE_REGISTRY, REGISTRY_REGISTER_SUBJECTS, toolKey } from "@warden/contracts/subjects";
import { wardenError } from "@warden/contracts/errors";
import { descriptorHash, ToolDescriptorSchema, type Reply } from "@warden/contracts/descriptor";

/**
 * Answers `warden.registry.register.<domain>` the way the registry does (ToolRecords in KV, conflicts on
 * new content for a known version). `script` may answer an attempt itself (e.g. UNAVAILABLE).
 */
export async function serveFakeRegistry(bus: Bus, script?: (attempt: number) => Reply | undefined) {
  const kv = await bus.kvm.open(BUCKET_TOOLS);
  let attempts = 0;
  const sub = serveRpc(bus, REGISTRY_REGISTER_SUBJECTS, QUEUE_REGISTRY, silentLogger(), async (payload) => {
    attempts++;
    const scripted = script?.(attempts);
    if (scripted) return scripted;
    const { descriptors, initialStatus = "enabled" } = payload as { descriptors: unknown[]; initialStatus?: string };
    const registered = [];
    for (const raw of descriptors) {
      const d = ToolDescriptorSchema.parse(raw);
      const hash = descriptorHash(d);
      const key = toolKey(d.name, d.version);
      const existing = await kv.get(key);
      if (existing?.operation === "PUT") {
        const rec = existing.json<{ descriptorHash: string; status: string }>();
        if (rec.descriptorHash !== hash) return { ok: false, error: wardenError("REGISTRATION_CONFLICT", `${key} has other content`) };
        registered.push({ name: d.name, version: d.version, descriptorHash: hash, status: rec.status, created: false });
        continue;
      }
      const at = new Date().toISOString();
      await kvPutJson(kv, key, { descriptor: d, descriptorHash: hash, status: initialStatus, registeredAt: at, statusChangedAt: at });
      registered.push({ name: d.name, version: d.version, descriptorHash: hash, status: initialStatus, created: true });
    }
    return { ok: true, value: { registered } };
  });
  return {
    attempts: () => attempts,
    async stop() {
      sub.unsubscribe();
      await bus.nc.flush();
    },
  };
}
