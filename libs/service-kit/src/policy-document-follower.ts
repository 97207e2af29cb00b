import { decodeJson, type Bus, type KvEntry, type Logger } from "@warden/bus";
import { BUCKET_POLICY } from "@warden/contracts/subjects";
import { EMPTY_POLICY_DOCUMENT, POLICY_DOCUMENT_KEY, PolicyDocumentSchema, type PolicyDocument } from "@warden/contracts/policy";
import { validateJson, type JsonFailure } from "@warden/contracts/json";

/** A stored document that was refused, and why (the JSON failure or the schema issue). */
export interface RejectedPolicyDocument {
  readonly revision: number;
  readonly code: JsonFailure | "SCHEMA_INVALID";
  readonly reason: string;
}

export interface PolicyDocumentFollower {
  /** The document in force: the last valid one stored, or the built-in defaults when none is stored. */
  current(): PolicyDocument;
  /** The KV revision the document in force came from; 0 before anything was stored. */
  revision(): number;
  /** Calls `listener` after the document in force changed (stored, replaced or removed); returns what stops it. */
  onChange(listener: () => void): () => void;
  /** The newest stored document when it was refused (the one in force is older); undefined otherwise. */
  invalid(): RejectedPolicyDocument | undefined;
  stop(): void;
}

/**
 * Follows the stored policy document (KV `warden_policy`, key `document`): the one follower of
 * every service that decides or shows with it, so they never disagree. A deleted document falls
 * back to the built-in defaults; an invalid one (written behind the policy service's back) is
 * logged as an error and the last valid one stays in force. Resolves once the stored one is read.
 */
export async function followPolicyDocument(bus: Bus, log: Logger): Promise<PolicyDocumentFollower> {
  const kv = await bus.kvm.open(BUCKET_POLICY);
  let doc = EMPTY_POLICY_DOCUMENT;
  let inForce = 0;
  let seen = 0;
  let rejected: RejectedPolicyDocument | undefined;
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of listeners) listener();
  };
  const apply = (e: KvEntry) => {
    // the watch replays the value the initial get already applied; revisions keep the order
    if (e.revision <= seen) return;
    seen = e.revision;
    if (e.operation !== "PUT") {
      doc = EMPTY_POLICY_DOCUMENT;
      inForce = e.revision;
      rejected = undefined;
      log.info({ version: doc.version, revision: e.revision }, "policy document removed, using built-in defaults");
      changed();
      return;
    }
    const decoded = decodeJson(e.value);
    const parsed = decoded.ok ? validateJson(PolicyDocumentSchema, decoded.value) : decoded;
    if (!parsed.ok) {
      rejected = { revision: e.revision, code: parsed.code, reason: parsed.reason };
      log.error({ revision: e.revision, code: parsed.code, issue: parsed.reason, inForce: doc.version }, "invalid policy document ignored");
      return;
    }
    doc = parsed.value;
    inForce = e.revision;
    rejected = undefined;
    log.info({ version: doc.version, revision: e.revision }, "policy document loaded");
    changed();
  };
  const iter = await kv.watch({ key: POLICY_DOCUMENT_KEY });
  const initial = await kv.get(POLICY_DOCUMENT_KEY);
  if (initial !== null) apply(initial);
  void (async () => {
    for await (const e of iter) apply(e);
  })().catch((err: unknown) => log.error({ err, inForce: doc.version }, "policy document watch ended; the document in force stays"));
  return {
    current: () => doc,
    revision: () => inForce,
    invalid: () => rejected,
    onChange(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    stop: () => iter.stop(),
  };
}
