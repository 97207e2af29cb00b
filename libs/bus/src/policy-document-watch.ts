import { BUCKET_POLICY, EMPTY_POLICY_DOCUMENT, POLICY_DOCUMENT_KEY, PolicyDocumentSchema, type PolicyDocument } from "@warden/contracts";
import type { KvEntry } from "@nats-io/kv";
import type { Bus } from "./bus.js";
import { decodeJson } from "./codec.js";
import type { Logger } from "./logger.js";

export interface PolicyDocumentWatch {
  /** The document in force. */
  current(): PolicyDocument;
  stop(): void;
}

/**
 * Follows the stored policy document (KV `warden_policy`, key `document`). A deleted document
 * falls back to the built-in defaults; an invalid one written behind the policy service's back is
 * logged and the last valid one stays in force.
 */
export async function watchPolicyDocument(bus: Bus, log: Logger): Promise<PolicyDocumentWatch> {
  const kv = await bus.kvm.open(BUCKET_POLICY);
  let doc = EMPTY_POLICY_DOCUMENT;
  let revision = 0;
  const apply = (e: KvEntry) => {
    // the watch replays the value the initial get already applied; revisions keep the order
    if (e.revision <= revision) return;
    revision = e.revision;
    if (e.operation !== "PUT") {
      doc = EMPTY_POLICY_DOCUMENT;
      log.info({ version: doc.version }, "policy document removed, using built-in defaults");
      return;
    }
    const decoded = decodeJson(e.value);
    const parsed = decoded.ok ? PolicyDocumentSchema.safeParse(decoded.value) : undefined;
    if (!parsed?.success) {
      log.error({ revision }, "invalid policy document ignored");
      return;
    }
    doc = parsed.data;
    log.info({ version: doc.version, revision }, "policy document loaded");
  };
  const iter = await kv.watch({ key: POLICY_DOCUMENT_KEY });
  const initial = await kv.get(POLICY_DOCUMENT_KEY);
  if (initial !== null) apply(initial);
  void (async () => {
    for await (const e of iter) apply(e);
  })();
  return { current: () => doc, stop: () => iter.stop() };
}
