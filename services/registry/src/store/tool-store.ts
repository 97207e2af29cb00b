import { kvCreateJson, kvGetJson, kvUpdateJson } from "@warden/bus";
import { toolKey, toolKeyPrefix, ToolNameSchema, VersionSchema } from "@warden/contracts/subjects";
import { fail, ok, type Outcome } from "@warden/contracts/errors";
import { ToolRecordSchema, type RegisteredTool, type ToolRecord, type ToolStatus } from "@warden/contracts/descriptor";
import type { ParsedDescriptor } from "../domain/parse-descriptors.js";
import { checkSameContent, newToolRecord, withStatus } from "../domain/registration.js";
import type { KV } from "@warden/bus";

/** Compare-and-set loops give up after this many lost races: someone is hammering one key. */
const MAX_CAS_ATTEMPTS = 10;

function registered(r: ToolRecord, created: boolean): RegisteredTool {
  return { name: r.descriptor.name, version: r.descriptor.version, descriptorHash: r.descriptorHash, status: r.status, created };
}

/**
 * Stores descriptor versions. Conflicts are checked for the whole batch before anything is
 * written; each new version is then created with a KV create (expected revision 0), so two
 * registries racing on one version cannot overwrite each other: the loser compares content.
 */
export async function registerDescriptors(kv: KV, batch: readonly ParsedDescriptor[], initialStatus: ToolStatus, now = new Date()): Promise<Outcome<RegisteredTool[]>> {
  const existing = await Promise.all(batch.map((p) => kvGetJson(kv, toolKey(p.descriptor.name, p.descriptor.version), ToolRecordSchema)));
  for (const [i, p] of batch.entries()) {
    const e = existing[i];
    if (e === undefined) continue;
    const same = checkSameContent(e.value, p);
    if (!same.ok) return same;
  }
  const out: RegisteredTool[] = [];
  for (const [i, p] of batch.entries()) {
    const r = await registerOne(kv, p, existing[i]?.value, initialStatus, now);
    if (!r.ok) return r;
    out.push(r.value);
  }
  return ok(out);
}

async function registerOne(kv: KV, p: ParsedDescriptor, known: ToolRecord | undefined, initialStatus: ToolStatus, now: Date): Promise<Outcome<RegisteredTool>> {
  const key = toolKey(p.descriptor.name, p.descriptor.version);
  let current = known;
  for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
    if (current !== undefined) {
      const same = checkSameContent(current, p);
      return same.ok ? ok(registered(current, false)) : same;
    }
    const record = newToolRecord(p, initialStatus, now);
    if (await kvCreateJson(kv, key, record)) return ok(registered(record, true));
    // another registry created it between our read and our create: compare with theirs
    current = (await kvGetJson(kv, key, ToolRecordSchema))?.value;
  }
  return fail("INTERNAL", `the ${key} entry in the tools bucket exists but cannot be read as a ToolRecord`);
}

async function keysOf(kv: KV, name: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const k of await kv.keys(toolKeyPrefix(name))) keys.push(k);
  return keys.sort();
}

/**
 * Enables or disables one version, or every version of a name when no version is given.
 * Each change is a compare-and-set on the entry's revision, retried when another writer won.
 */
export async function updateToolStatus(
  kv: KV,
  req: { readonly name: string; readonly version?: string | undefined; readonly status: ToolStatus },
  now = new Date(),
): Promise<Outcome<ToolRecord[]>> {
  if (!ToolNameSchema.safeParse(req.name).success) return fail("INVALID_REQUEST", `${JSON.stringify(req.name)} is not a tool name (<domain>.<capability>)`);
  if (req.version !== undefined && !VersionSchema.safeParse(req.version).success) {
    return fail("INVALID_REQUEST", `${JSON.stringify(req.version)} is not a version (MAJOR.MINOR.PATCH)`);
  }
  const keys = req.version === undefined ? await keysOf(kv, req.name) : [toolKey(req.name, req.version)];
  const out: ToolRecord[] = [];
  for (const key of keys) {
    const r = await setOne(kv, key, req.status, now);
    if (!r.ok) return r;
    if (r.value !== undefined) out.push(r.value);
  }
  if (out.length === 0) {
    const what = req.version === undefined ? req.name : `${req.name}@${req.version}`;
    return fail("NOT_FOUND", `no registered tool ${what}`, { name: req.name, ...(req.version === undefined ? {} : { version: req.version }) });
  }
  return ok(out);
}

async function setOne(kv: KV, key: string, status: ToolStatus, now: Date): Promise<Outcome<ToolRecord | undefined>> {
  for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
    const e = await kvGetJson(kv, key, ToolRecordSchema);
    if (e === undefined) return ok(undefined);
    const next = withStatus(e.value, status, now);
    if (next === undefined) return ok(e.value);
    if (await kvUpdateJson(kv, key, next, e.revision)) return ok(next);
  }
  return fail("UNAVAILABLE", `the status of ${key} kept changing under us; try again`);
}
