import { decodeJson, type Bus, type Logger } from "@warden/bus";
import { BUCKET_POLICY, EMPTY_POLICY_DOCUMENT, POLICY_DOCUMENT_KEY, PolicyDocumentSchema, type PolicyDocument } from "@warden/contracts";
import type { KV } from "./kv.js";

type Entry = NonNullable<Awaited<ReturnType<KV["get"]>>>;

export interface PolicyDocumentWatch {
  /** The document in force: approval lifetimes and who may approve come from it. */
  current(): PolicyDocument;
  stop(): void;
}

/**
 * Follows the policy document the policy service stores. A deleted document falls back to the
 * defaults; an invalid one is logged and the last valid one stays in force.
 */
export async function watchPolicyDocument(bus: Bus, log: Logger): Promise<PolicyDocumentWatch> {
  const kv = await bus.kvm.open(BUCKET_POLICY);
  let doc = EMPTY_POLICY_DOCUMENT;
  let revision = 0;
  const apply = (e: Entry) => {
    // the watch replays the value the initial get already applied; revisions keep the order
    if (e.revision <= revision) return;
    revision = e.revision;
    if (e.operation !== "PUT") {
      doc = EMPTY_POLICY_DOCUMENT;
      return;
    }
    const decoded = decodeJson(e.value);
    const parsed = decoded.ok ? PolicyDocumentSchema.safeParse(decoded.value) : undefined;
    if (!parsed?.success) {
      log.error({ revision }, "invalid policy document ignored");
      return;
    }
    doc = parsed.data;
  };
  const iter = await kv.watch({ key: POLICY_DOCUMENT_KEY });
  const initial = await kv.get(POLICY_DOCUMENT_KEY);
  if (initial !== null) apply(initial);
  void (async () => {
    for await (const e of iter) apply(e);
  })();
  return { current: () => doc, stop: () => iter.stop() };
}
