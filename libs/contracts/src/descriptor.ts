import { z } from "zod";
import { canonicalJson, sha256Hex } from "./canonical-json.js";
import { CompensationSchema } from "./compensation.js";
import { DescriptorDataLabelsSchema } from "./data-labels.js";
import { ActionTypeSchema, CHANGING_ACTIONS, LEVEL_NAMES, levelOf, LOOKING_ACTIONS, PermissionLevelSchema, SENDING_ACTIONS } from "./action-type.js";
import { GradeSchema } from "./grades.js";
import { JsonObjectSchema } from "./json.js";
import { TokenSchema, ToolNameSchema, VersionSchema } from "./tokens.js";
import { approvalSummaryPlaceholders, ApprovalSummaryTemplateSchema } from "./approval-summary.js";

/** A tool argument or output contract: a JSON Schema object (validated with ajv at run time). */
export const JsonSchemaObjectSchema = JsonObjectSchema.refine(
  (s) => s["type"] === "object",
  "an inputSchema is a JSON Schema with type: object",
);

export const ToolDescriptorSchema = z.strictObject({
  name: ToolNameSchema,
  version: VersionSchema,
  title: z.string().min(1).max(120),
  /** Written as *when to use it*: the model reads this to choose a tool. */
  description: z.string().min(10).max(2000),
  inputSchema: JsonSchemaObjectSchema,
  outputSchema: JsonObjectSchema.optional(),
  grade: GradeSchema,
  destructive: z.boolean().default(false),
  idempotent: z.boolean().default(false),
  openWorld: z.boolean().default(false),
  /** The call's flags must set this one to true, else the tool is off for that call. */
  featureFlag: TokenSchema.optional(),
  /** The contexts (pages, screens) where the tool applies; empty = everywhere. */
  scopes: z.array(TokenSchema).default([]),
  /** Permission scopes the calling principal must hold. */
  requiredScopes: z.array(z.string().regex(/^[A-Za-z0-9_:-]{1,64}$/)).default([]),
  timeoutMs: z.int().min(1).max(3_600_000).default(10_000),
  maxOutputBytes: z.int().min(1).max(64 * 1024 * 1024).default(4 * 1024 * 1024),
  /** Set by adapters that run a process: `none` = no network (own network namespace), `host` = the host's network. */
  network: z.enum(["none", "host"]).optional(),
  /**
   * Set by adapters for a process its manifest marks `trusted: true`: it runs outside the tools'
   * sandbox (it can read what its Unix user can), so an L1 call is not "inside a sandbox".
   */
  unconfined: z.literal(true).optional(),
  /**
   * Cost units one call uses, counted against the policy's cost budgets (`budgets.ledgers[].cost`);
   * a tool that declares none costs 1 unit per call.
   */
  cost: z.int().min(0).max(1_000_000).optional(),
  /** Names of the secrets the executor injects at run time; their values never travel. */
  secrets: z.array(TokenSchema).optional(),
  /**
   * On whose behalf the tool acts: `caller` when a secret it uses is bound to the calling principal
   * (the credential of the person or agent the call runs for, docs/security.md); `service` or
   * absent when it acts with its executor's own credentials or none. Shown in views and on cards.
   */
  actsAs: z.enum(["caller", "service"]).optional(),
  /**
   * The executor answers a dry run of a call (`preview(args)` of `defineTool`: reads, never
   * writes); the approver puts its answer on the approval card. Absent: no preview.
   */
  preview: z.literal(true).optional(),
  /**
   * The executor checks each output with the tool's own `verify(output, args)` (of `defineTool`)
   * before recording it, and fails the call VERIFY_FAILED when it says the result is wrong.
   */
  verify: z.literal(true).optional(),
  /** What it does, in the Tool Manager's action types (`search`, `delete`, `external_send`, …); must agree with the grade. */
  actionType: ActionTypeSchema.optional(),
  /** Its permission level L0–L5, when declared; else derived from action type, grade and flags (`levelOf`). */
  level: PermissionLevelSchema.optional(),
  /**
   * How a successful call is undone (`warden undo`): another registered tool and its args built
   * from this call's args and output; the undo is a governed call of its own, linked to this one.
   */
  compensation: CompensationSchema.optional(),
  /**
   * What the executor does with personal data (e-mail addresses, phone numbers, payment cards,
   * IBANs) in the tool's results before anything records them: `redact` masks them, `keep` leaves
   * them. Absent: `redact` for an L3 tool (external read), `keep` otherwise ({@link redactsPersonalData}).
   */
  personalData: z.enum(["redact", "keep"]).optional(),
  /**
   * The labels its results carry (docs/policy.md, Data labels): `trusted` takes `untrusted` off an
   * open-world read, `labels` adds others. Absent: only the derived ones ({@link resultLabelsOf}).
   */
  dataLabels: DescriptorDataLabelsSchema.optional(),
  /**
   * The line a person deciding the call reads first, with its arguments by name:
   * `"Send to {customerId}: {text}"` (rendered from the args the grant binds, `renderApprovalSummary`).
   */
  approvalSummary: ApprovalSummaryTemplateSchema.optional(),
});
export type ToolDescriptor = z.infer<typeof ToolDescriptorSchema>;
export type ToolDescriptorInput = z.input<typeof ToolDescriptorSchema>;

export function descriptorHash(descriptor: ToolDescriptor): string {
  return `sha256:${sha256Hex(canonicalJson(descriptor))}`;
}

export interface DescriptorLintIssue {
  readonly rule: string;
  readonly message: string;
}

/** Contradictions a registry refuses: flags that disagree with the grade. */
export function lintDescriptor(d: ToolDescriptor): DescriptorLintIssue[] {
  const issues: DescriptorLintIssue[] = [];
  const a = d.actionType;
  if (a !== undefined && LOOKING_ACTIONS.includes(a) && d.grade !== "read") {
    issues.push({ rule: "action-type-grade", message: `action type ${a} only looks: its grade is read, not ${d.grade}` });
  }
  if (a !== undefined && CHANGING_ACTIONS.includes(a) && d.grade === "read") {
    issues.push({ rule: "action-type-grade", message: `action type ${a} changes something: it cannot be grade read` });
  }
  if (a !== undefined && SENDING_ACTIONS.includes(a) && d.grade !== "send") {
    issues.push({ rule: "action-type-grade", message: `action type ${a} cannot be undone or is seen at once: its grade is send, not ${d.grade}` });
  }
  if (d.level !== undefined) {
    const derived = levelOf({ ...d, level: undefined });
    if (d.level === "L5" && !d.destructive && derived !== "L5") {
      issues.push({ rule: "level-flags", message: "level L5 (destructive_or_admin) is for a destructive tool or an admin, auth or delete action: set destructive, or an action type" });
    }
    // a read changes nothing: the levels that write (L2, L4) would make a read wait for what it never does
    if (d.grade === "read" && (d.level === "L2" || d.level === "L4")) {
      issues.push({ rule: "level-flags", message: `level ${d.level} (${LEVEL_NAMES[d.level]}) writes, and grade read changes nothing: a read is L0, L1 or L3` });
    }
    if (d.level < derived) {
      issues.push({ rule: "level-flags", message: `level ${d.level} (${LEVEL_NAMES[d.level]}) is below what its grade, flags and action type say (${derived}, ${LEVEL_NAMES[derived]}): a level may raise, never lower` });
    }
  }
  if (d.grade === "read" && d.compensation !== undefined) {
    issues.push({ rule: "read-not-compensated", message: "grade read changes nothing: there is nothing for a compensation to undo" });
  }
  if (d.compensation?.tool === d.name) {
    issues.push({ rule: "compensation-not-self", message: `${d.name} cannot be its own compensation: name the tool that undoes it` });
  }
  if (d.grade === "read" && d.destructive) {
    issues.push({ rule: "read-not-destructive", message: "grade read cannot be destructive: nothing changes on a read" });
  }
  if (d.grade === "write" && d.destructive && d.openWorld) {
    issues.push({
      rule: "destructive-open-world-is-send",
      message: "a destructive change seen by outsiders at once cannot be undone: grade it send",
    });
  }
  const declared = d.inputSchema["properties"];
  if (d.approvalSummary !== undefined && declared !== null && typeof declared === "object" && !Array.isArray(declared)) {
    for (const name of approvalSummaryPlaceholders(d.approvalSummary)) {
      if (!Object.hasOwn(declared, name)) issues.push({ rule: "approval-summary-args", message: `approvalSummary shows {${name}}, which the inputSchema does not declare` });
    }
  }
  if (d.grade !== "read" && d.description.length < 20) {
    issues.push({ rule: "describe-side-effects", message: "a write or send tool needs a description of at least 20 characters" });
  }
  return issues;
}
