import { decodeJson, isNotFound, type Bus } from "@warden/bus";
import { BUCKET_POLICY, parsePolicyChangedSubject, STREAM_POLICY_CHANGES } from "@warden/contracts/subjects";
import { POLICY_DOCUMENT_KEY, PolicyChangedSchema, PolicyDocumentSchema, type PolicyChanged } from "@warden/contracts/policy";
import { validateJson } from "@warden/contracts/json";

export interface PolicyHistory {
  /** The change records, oldest first (the last `limit`). */
  readonly changes: readonly PolicyChanged[];
  /** Revisions of the document the bucket still keeps that no record names. */
  readonly unrecorded: readonly { readonly revision: number; readonly at: string; readonly version: string | null }[];
  /** Messages of the change stream that are not records (bad JSON, schema, or an author other than their subject's). */
  readonly invalid: readonly { readonly seq: number; readonly reason: string }[];
}

/**
 * The policy's change records (WARDEN_POLICY_CHANGES) and the document's revisions the bucket
 * still keeps (its history), matched by revision: a revision no record names was written to the
 * bucket directly. A record is believed only on the subject of its author.
 */
export async function readPolicyChanges(bus: Bus, limit: number): Promise<PolicyHistory> {
  const info = await bus.jsm.streams.info(STREAM_POLICY_CHANGES);
  const changes: PolicyChanged[] = [];
  const invalid: { seq: number; reason: string }[] = [];
  const first = Math.max(info.state.first_seq, info.state.last_seq - limit + 1);
  const truncated = first > info.state.first_seq;
  for (let seq = first; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await bus.jsm.streams.getMessage(STREAM_POLICY_CHANGES, { seq }).catch((err: unknown) => {
      if (isNotFound(err)) return null;
      throw err;
    });
    if (m === null) continue;
    const decoded = decodeJson(m.data);
    const parsed = decoded.ok ? validateJson(PolicyChangedSchema, decoded.value) : undefined;
    if (parsed === undefined || !parsed.ok) {
      invalid.push({ seq, reason: decoded.ok ? `not a PolicyChanged record (${parsed?.ok === false ? parsed.reason : "invalid"})` : decoded.reason });
      continue;
    }
    const author = parsePolicyChangedSubject(m.subject);
    if (author !== parsed.value.author) {
      invalid.push({ seq, reason: `names author ${parsed.value.author} on the subject of ${author ?? m.subject}` });
      continue;
    }
    changes.push(parsed.value);
  }
  const recorded = new Set(changes.map((c) => c.revision));
  const unrecorded: { revision: number; at: string; version: string | null }[] = [];
  const kv = await bus.kvm.open(BUCKET_POLICY);
  const oldest = changes[0]?.revision ?? 0;
  for await (const e of await kv.history({ key: POLICY_DOCUMENT_KEY })) {
    // revisions older than the records read (--limit) are not compared
    if (e.operation !== "PUT" || recorded.has(e.revision) || (truncated && e.revision < oldest)) continue;
    const d = decodeJson(e.value);
    const doc = d.ok ? PolicyDocumentSchema.safeParse(d.value) : undefined;
    unrecorded.push({ revision: e.revision, at: e.created.toISOString(), version: doc?.success ? doc.data.version : null });
  }
  return { changes, unrecorded, invalid };
}
