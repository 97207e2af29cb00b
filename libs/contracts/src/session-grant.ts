import { z } from "zod";
import { canonicalJson } from "./canonical-json.js";
import { JsonValueSchema, type JsonValue } from "./json.js";
import { TokenSchema } from "./tokens.js";

/**
 * The longest a session grant may last, whatever a policy document says: approvers index session
 * grants from the stream's grants of the last this-many seconds.
 */
export const MAX_SESSION_GRANT_SECONDS = 24 * 3600;

/**
 * What one top-level argument of a later call must be for a session grant to cover it: every
 * condition given holds (`{ min: 1, max: 50 }` is a range). One object shape, so that the compiled
 * event check covers the events that carry it.
 */
export const ArgConstraintSchema = z.strictObject({
  equals: JsonValueSchema.optional(),
  oneOf: z.array(JsonValueSchema).optional(),
  prefix: z.string().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
});
export type ArgConstraint = z.infer<typeof ArgConstraintSchema>;

/** Constraints by top-level argument name, as a grant records them; an argument not named may be anything. */
export const ArgsConstraintsSchema = z.record(z.string(), ArgConstraintSchema);
export type ArgsConstraints = z.infer<typeof ArgsConstraintsSchema>;

const CONDITIONS = ["equals", "oneOf", "prefix", "min", "max"] as const;

/** The constraints a person may ask for: named arguments, each with at least one condition, bounded. */
export const ArgsConstraintsRequestSchema = z
  .record(
    z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "an argument name (letters, digits, _ . -)"),
    ArgConstraintSchema.extend({ oneOf: z.array(JsonValueSchema).min(1).max(100).optional(), prefix: z.string().min(1).max(1000).optional() }).refine(
      (c) => CONDITIONS.some((k) => Object.hasOwn(c, k)),
      "a constraint needs one of equals, oneOf, prefix, min, max",
    ),
  )
  .refine((c) => Object.keys(c).length <= 32, "at most 32 constrained arguments");

/** What a person asks for when granting "for the session" (`DecisionRequest.session`). */
export const SessionGrantRequestSchema = z.strictObject({
  /** How long later calls are covered, from the grant; at most the policy document's `sessionGrants.maxTtlSeconds`. */
  ttlSeconds: z.int().min(1).max(MAX_SESSION_GRANT_SECONDS),
  /** What later calls' args must be; none: any args of this tool. */
  args: ArgsConstraintsRequestSchema.optional(),
  /** Later calls may have no top-level argument the call granted now does not have (so none can add `force` or `cc`). */
  closed: z.boolean().optional(),
});
export type SessionGrantRequest = z.infer<typeof SessionGrantRequestSchema>;

/**
 * The terms of a session grant as its ApprovalGranted records and signs them: later calls of the
 * same principal, mode and tool version whose args meet `args` are granted until `expiresAt`.
 */
export const SessionTermsSchema = z.strictObject({
  expiresAt: z.iso.datetime(),
  args: ArgsConstraintsSchema,
  /** Set for a closed session: the only top-level argument names a later call may have. */
  argNames: z.array(z.string()).optional(),
  /**
   * On whose behalf the granted call ran (the top of its delegation chain): a later call is covered
   * only when it runs for the same principal, so one person's grant never spends another's
   * credentials. Absent (older grants): the grant's own principal.
   */
  onBehalfOf: TokenSchema.optional(),
});
export type SessionTerms = z.infer<typeof SessionTermsSchema>;

/** Set on a grant the approver gave because a session grant covered the call. */
export const BySessionSchema = z.strictObject({
  /** The session grant's id: the callId of the call it was granted on. */
  grantId: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/),
  /** That call's approval. */
  approvalId: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/),
});
export type BySession = z.infer<typeof BySessionSchema>;

/** Why args do not meet a session's constraints (and, for a closed one, its argument names), or undefined when they do. */
export function unmetConstraint(constraints: ArgsConstraints, args: JsonValue, argNames?: readonly string[]): string | undefined {
  const obj = args !== null && typeof args === "object" && !Array.isArray(args) ? args : undefined;
  if (argNames !== undefined && obj !== undefined) {
    const extra = Object.keys(obj).find((k) => !argNames.includes(k));
    if (extra !== undefined) return `${extra} is not an argument the approved call had`;
  }
  for (const [name, c] of Object.entries(constraints)) {
    const value = obj !== undefined && Object.hasOwn(obj, name) ? obj[name] : undefined;
    if (value === undefined) return `${name} is missing`;
    if (Object.hasOwn(c, "equals") && canonicalJson(value) !== canonicalJson(c.equals ?? null)) return `${name} is not ${canonicalJson(c.equals ?? null)}`;
    if (c.oneOf !== undefined) {
      const v = canonicalJson(value);
      if (!c.oneOf.some((o) => canonicalJson(o) === v)) return `${name} is not one of ${canonicalJson(c.oneOf)}`;
    }
    if (c.prefix !== undefined && (typeof value !== "string" || !value.startsWith(c.prefix))) return `${name} does not start with ${JSON.stringify(c.prefix)}`;
    if (c.min !== undefined || c.max !== undefined) {
      if (typeof value !== "number") return `${name} is not a number`;
      if (c.min !== undefined && value < c.min) return `${name} is below ${c.min}`;
      if (c.max !== undefined && value > c.max) return `${name} is above ${c.max}`;
    }
  }
  return undefined;
}

/** The constraints as one short line: `customerId = "C-1", amount ≤ 50`. */
export function describeConstraints(constraints: ArgsConstraints, argNames?: readonly string[]): string {
  const closed = argNames === undefined ? "" : `; no arguments but ${argNames.length === 0 ? "none" : argNames.join(", ")}`;
  return `${describeEach(constraints)}${closed}`;
}

function describeEach(constraints: ArgsConstraints): string {
  const parts = Object.entries(constraints).flatMap(([name, c]) => {
    const p: string[] = [];
    if (Object.hasOwn(c, "equals")) p.push(`${name} = ${canonicalJson(c.equals ?? null)}`);
    if (c.oneOf !== undefined) p.push(`${name} in ${canonicalJson(c.oneOf)}`);
    if (c.prefix !== undefined) p.push(`${name} starts with ${JSON.stringify(c.prefix)}`);
    if (c.min !== undefined && c.max !== undefined) p.push(`${c.min} ≤ ${name} ≤ ${c.max}`);
    else if (c.min !== undefined) p.push(`${name} ≥ ${c.min}`);
    else if (c.max !== undefined) p.push(`${name} ≤ ${c.max}`);
    return p.length === 0 ? [`${name} present`] : p;
  });
  return parts.length === 0 ? "any args" : parts.join(", ");
}
