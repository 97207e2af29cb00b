import { decodeJson, kvPutJson, type Bus } from "@warden/bus";
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
import type { KV } from "@warden/bus";

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
