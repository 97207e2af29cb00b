import { kvPutJson, type Bus, type Logger } from "@warden/bus";
import {
  BUCKET_POLICY,
  EMPTY_POLICY_DOCUMENT,
  fail,
  ok,
  POLICY_DOCUMENT_KEY,
  PolicyDocumentSchema,
  type Outcome,
  type PolicyDocument,
  type PolicyDocumentInput,
} from "@warden/contracts";
import { parsePolicyDocument } from "@warden/policy-engine";
import { decodeJson } from "@warden/bus";
import type { KV } from "./kv.js";

type Entry = NonNullable<Awaited<ReturnType<KV["get"]>>>;

/** Validates a policy document (an object, or JSON / YAML text) and stores it; services reload it. */
export async function putPolicyDocument(
  bus: Bus,
  doc: PolicyDocumentInput | string,
): Promise<Outcome<{ document: PolicyDocument; revision: number }>> {
  const parsed = typeof doc === "string" ? parsePolicyDocument(doc) : validate(doc);
  if (!parsed.ok) return parsed;
  const kv = await bus.kvm.open(BUCKET_POLICY);
  const revision = await kvPutJson(kv, POLICY_DOCUMENT_KEY, parsed.value);
  return ok({ document: parsed.value, revision });
}

/** The stored document, or the built-in defaults when none is stored; an invalid one is an error. */
export async function getPolicyDocument(bus: Bus): Promise<Outcome<PolicyDocument>> {
  const kv = await bus.kvm.open(BUCKET_POLICY);
  const entry = await kv.get(POLICY_DOCUMENT_KEY);
  if (entry === null || entry.operation !== "PUT") return ok(EMPTY_POLICY_DOCUMENT);
  return documentOf(entry);
}

function validate(doc: unknown): Outcome<PolicyDocument> {
  const r = PolicyDocumentSchema.safeParse(doc);
  if (r.success) return ok(r.data);
  const issues = r.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
  return fail("INVALID_REQUEST", `invalid policy document: ${issues.join("; ")}`, { issues });
}

function documentOf(entry: Entry): Outcome<PolicyDocument> {
  const decoded = decodeJson(entry.value);
  if (!decoded.ok) return fail("INTERNAL", `stored policy document is not JSON: ${decoded.reason}`);
  const r = validate(decoded.value);
  return r.ok ? r : fail("INTERNAL", `stored ${r.error.message}`);
}

export interface PolicyDocumentWatch {
  /** The document in force. */
  current(): PolicyDocument;
  stop(): void;
}

/**
 * Follows the stored document. A deleted document falls back to the defaults; an invalid one
 * written behind our back is logged and the last valid one stays in force.
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
      log.info({ version: doc.version }, "policy document removed, using built-in defaults");
      return;
    }
    const r = documentOf(e);
    if (!r.ok) {
      log.error({ err: r.error, revision }, "invalid policy document ignored");
      return;
    }
    doc = r.value;
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
