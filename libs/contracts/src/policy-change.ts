import { z } from "zod";
import { JsonObjectSchema } from "./json.js";
import { TokenSchema } from "./tokens.js";

export const POLICY_CHANGE_SCHEMA_VERSION = 1;

const HashSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/);

/** How a change was confirmed: at the prompt, by `--yes`, or by code that stores a document itself. */
export const POLICY_CHANGE_CONFIRMATIONS = ["prompt", "yes", "api"] as const;

/** The what-if summary the author was shown before the change (`warden policy whatif` over the last day). */
export const PolicyChangeWhatIfSchema = z.object({
  since: z.iso.datetime(),
  until: z.iso.datetime(),
  /** Calls requested in the range. */
  requested: z.int().nonnegative(),
  /** Recorded decisions replayed through the new document. */
  replayed: z.int().nonnegative(),
  /** Of those, the calls whose decision would change. */
  changed: z.int().nonnegative(),
  /** Decisions a history gate made (rate limits, budgets, delegation): counted, not replayed. */
  notReplayed: z.int().nonnegative(),
});
export type PolicyChangeWhatIf = z.infer<typeof PolicyChangeWhatIfSchema>;

/**
 * One change of the policy document, appended to `WARDEN_POLICY_CHANGES` on
 * `warden.policy.changed.<author>` once the document is stored. The author is the subject's token,
 * which only that identity may publish (docs/security.md); a record whose `author` differs from
 * its subject is not a record. `revision` is the `warden_policy` revision the document was stored
 * under, so every stored revision can be matched with the record of who stored it.
 */
export const PolicyChangedSchema = z.strictObject({
  v: z.literal(POLICY_CHANGE_SCHEMA_VERSION),
  type: z.literal("PolicyChanged"),
  changeId: TokenSchema,
  ts: z.iso.datetime(),
  author: TokenSchema,
  /** The `warden_policy` revision of the document stored, and of the one it replaced (null: none stored). */
  revision: z.int().positive(),
  previousRevision: z.int().positive().nullable(),
  version: z.string().min(1),
  previousVersion: z.string().nullable(),
  documentHash: HashSchema,
  previousDocumentHash: HashSchema.nullable(),
  /** The document as stored. */
  document: JsonObjectSchema,
  /** What changed, one line each (`rules: added deny-exports (deny)`), as `policy set` showed it. */
  changes: z.array(z.string()),
  whatIf: PolicyChangeWhatIfSchema.optional(),
  confirmed: z.enum(POLICY_CHANGE_CONFIRMATIONS),
});
export type PolicyChanged = z.infer<typeof PolicyChangedSchema>;
