import { readFileSync } from "node:fs";
import { decodeJson, encodeJson, identityOfCreds, isRevisionConflict, type Bus } from "@warden/bus";
import { newId } from "@warden/contracts/events";
import { BUCKET_POLICY, policyChangedSubject } from "@warden/contracts/subjects";
import { fail, ok, type Outcome } from "@warden/contracts/errors";
import {
  EMPTY_POLICY_DOCUMENT,
  POLICY_CHANGE_SCHEMA_VERSION,
  POLICY_DOCUMENT_KEY,
  PolicyDocumentSchema,
  type PolicyChanged,
  type PolicyChangeWhatIf,
  type PolicyDocument,
  type PolicyDocumentInput,
} from "@warden/contracts/policy";
import { canonicalJson, sha256Hex, type JsonObject } from "@warden/contracts/json";
import { diffPolicyDocuments, parsePolicyDocument } from "@warden/policy-engine";
import type { KV } from "@warden/bus";

type Entry = NonNullable<Awaited<ReturnType<KV["get"]>>>;

/** The document in force as stored: its revision, or none (the built-in defaults are in force). */
export interface StoredPolicyDocument {
  readonly document: PolicyDocument;
  /** The `warden_policy` revision of the stored document; undefined when none is stored. */
  readonly revision: number | undefined;
}

export interface PutPolicyOptions {
  /**
   * Store only over this revision of the document in force (0: only when none is stored), as
   * `policy set` does over the one it showed the diff against; another author's change in between
   * refuses the write (POLICY_CONFLICT). Absent: over whatever is stored.
   */
  readonly expectedRevision?: number;
  /** The what-if summary the author was shown, kept in the change record. */
  readonly whatIf?: PolicyChangeWhatIf;
  /** How the author confirmed (default `api`: code that stores a document itself). */
  readonly confirmed?: PolicyChanged["confirmed"];
}

const MAX_ATTEMPTS = 10;

/**
 * Validates a policy document (an object, or JSON / YAML text) and stores it; services reload it.
 * Then records the change on `warden.policy.changed.<author>` (stream WARDEN_POLICY_CHANGES): the
 * author is the identity this connection's credentials name, which the server lets publish only
 * its own subject (the admin excepted: it may publish anything). The document is written with
 * compare-and-set over the one read, so the record's `previousRevision` is the document replaced.
 * A record that cannot be written after the document was stored is an error naming the revision.
 */
export async function putPolicyDocument(
  bus: Bus,
  doc: PolicyDocumentInput | string,
  opts: PutPolicyOptions = {},
): Promise<Outcome<{ document: PolicyDocument; revision: number; change: PolicyChanged }>> {
  const parsed = typeof doc === "string" ? parsePolicyDocument(doc) : validate(doc);
  if (!parsed.ok) return parsed;
  const document = parsed.value;
  const kv = await bus.kvm.open(BUCKET_POLICY);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entry = await kv.get(POLICY_DOCUMENT_KEY);
    const stored = entry !== null && entry.operation === "PUT";
    const inForce = stored ? documentOf(entry) : ok(EMPTY_POLICY_DOCUMENT);
    const current = stored ? entry.revision : 0;
    if (opts.expectedRevision !== undefined && opts.expectedRevision !== current) {
      return conflict(opts.expectedRevision, current);
    }
    let revision: number;
    try {
      revision = entry === null ? await kv.create(POLICY_DOCUMENT_KEY, encodeJson(document)) : await kv.update(POLICY_DOCUMENT_KEY, encodeJson(document), entry.revision);
    } catch (err) {
      if (!isRevisionConflict(err)) throw err;
      if (opts.expectedRevision !== undefined) return conflict(opts.expectedRevision, undefined);
      continue;
    }
    const previous = stored && inForce.ok ? inForce.value : undefined;
    const change: PolicyChanged = {
      v: POLICY_CHANGE_SCHEMA_VERSION,
      type: "PolicyChanged",
      changeId: newId(),
      ts: new Date().toISOString(),
      author: authorOf(bus),
      revision,
      previousRevision: stored ? current : null,
      version: document.version,
      previousVersion: stored ? (previous?.version ?? null) : null,
      documentHash: documentHash(document),
      previousDocumentHash: previous === undefined ? null : documentHash(previous),
      document: JSON.parse(JSON.stringify(document)) as JsonObject,
      changes: diffPolicyDocuments(previous, document).map((c) => c.text),
      ...(opts.whatIf === undefined ? {} : { whatIf: opts.whatIf }),
      confirmed: opts.confirmed ?? "api",
    };
    try {
      // the revision names the change: a retried publish is dropped as a duplicate
      await bus.js.publish(policyChangedSubject(change.author), encodeJson(change), { msgID: `policy-revision-${revision}` });
    } catch (err) {
      return fail("INTERNAL", `policy ${document.version} is stored (revision ${revision}) and in force, but its change record could not be written: ${(err as Error).message}`, { revision });
    }
    return ok({ document, revision, change });
  }
  return fail("POLICY_CONFLICT", `the policy document kept changing while it was being stored (${MAX_ATTEMPTS} attempts)`);
}

/** The stored document, or the built-in defaults when none is stored; an invalid one is an error. */
export async function getPolicyDocument(bus: Bus): Promise<Outcome<PolicyDocument>> {
  const r = await getStoredPolicyDocument(bus);
  return r.ok ? ok(r.value.document) : r;
}

/** The stored document with its revision (none stored: the built-in defaults, no revision); an invalid one is an error. */
export async function getStoredPolicyDocument(bus: Bus): Promise<Outcome<StoredPolicyDocument>> {
  const kv = await bus.kvm.open(BUCKET_POLICY);
  const entry = await kv.get(POLICY_DOCUMENT_KEY);
  if (entry === null || entry.operation !== "PUT") return ok({ document: EMPTY_POLICY_DOCUMENT, revision: undefined });
  const d = documentOf(entry);
  return d.ok ? ok({ document: d.value, revision: entry.revision }) : d;
}

/** `sha256:<hex>` of a document's canonical JSON: what a change record names. */
function documentHash(doc: PolicyDocument): string {
  return `sha256:${sha256Hex(canonicalJson(doc))}`;
}

/**
 * Who this connection acts as: the user its credentials name (what the server authenticated and
 * pins the change subject to); `unauthenticated` on a server without credentials (development).
 */
export function authorOf(bus: Bus): string {
  const creds = bus.config.NATS_CREDS;
  if (creds === undefined || creds === "") return "unauthenticated";
  return identityOfCreds(readFileSync(creds)) ?? "unauthenticated";
}

function conflict(expected: number, found: number | undefined): Outcome<never> {
  const what = found === undefined ? "another change was stored first" : found === 0 ? "none is stored now" : `revision ${found} is in force now`;
  return fail("POLICY_CONFLICT", `the policy document changed since revision ${expected === 0 ? "none" : expected} was read (${what}): look at it again and retry`, {
    expectedRevision: expected,
    ...(found === undefined ? {} : { revision: found }),
  });
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
