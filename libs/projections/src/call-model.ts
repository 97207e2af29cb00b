import { z } from "zod";
import { EventTypeSchema, REJECTING_STAGES } from "@warden/contracts/events";
import { CallModeSchema, GradeSchema, IntentSchema } from "@warden/contracts/descriptor";
import { DecisionSchema } from "@warden/contracts/policy";
import { JsonValueSchema } from "@warden/contracts/json";
import { CALL_STATES } from "./call-state.js";
import { ViolationSchema } from "./violations.js";

const ApprovalPartSchema = z.object({
  approvalId: z.string(),
  argsHash: z.string(),
  descriptorHash: z.string(),
  version: z.string(),
  requestedAt: z.string(),
  expiresAt: z.string(),
  requesterMayConfirm: z.boolean(),
  requestEventId: z.string(),
  outcome: z.enum(["granted", "denied", "expired"]).optional(),
  approver: z.string().optional(),
  decidedAt: z.string().optional(),
  denialReason: z.string().optional(),
  grantExpiresAt: z.string().optional(),
  grantEventId: z.string().optional(),
  /** Set when the approver granted edited args: their hash, which the run must carry (the request keeps the original). */
  editedArgsHash: z.string().optional(),
});

/**
 * `warden_calls` under the callId: one call's state, folded from its events in stream order.
 * Holds what an auditor asks first — who, what, which rule, who approved which args, what ran,
 * what it returned — and every integrity violation seen.
 */
export const CallModelSchema = z.object({
  callId: z.string(),
  domain: z.string(),
  /** The resolved tool name once validated; the name as requested before. */
  tool: z.string(),
  requestedTool: z.string().optional(),
  principal: z.string(),
  mode: CallModeSchema,
  correlationId: z.string(),
  parentCallId: z.string().optional(),
  status: z.enum(CALL_STATES),
  /** ts of the first and the last event applied. */
  firstTs: z.string(),
  lastTs: z.string(),
  requestedAt: z.string().optional(),
  argsPreview: z.string().optional(),
  scope: z.string().nullable().optional(),
  flags: z.record(z.string(), z.boolean()).optional(),
  /** Why the caller made the call, as its request said (the caller's claim). */
  intent: IntentSchema.optional(),
  version: z.string().optional(),
  grade: GradeSchema.optional(),
  descriptorHash: z.string().optional(),
  argsHash: z.string().optional(),
  decision: z
    .object({
      decision: DecisionSchema,
      ruleIds: z.array(z.string()),
      reason: z.string(),
      policyVersion: z.string(),
      eventId: z.string(),
      ts: z.string(),
      /** What the document's shadow rules would have decided (they never decide). */
      shadow: z.object({ decision: DecisionSchema, ruleIds: z.array(z.string()), shadowRuleIds: z.array(z.string()) }).optional(),
    })
    .optional(),
  approval: ApprovalPartSchema.optional(),
  run: z
    .object({
      executorId: z.string(),
      startedAt: z.string(),
      deadline: z.string(),
      argsHash: z.string(),
      authorizedBy: z.object({ type: z.enum(["ToolPolicyChecked", "ApprovalGranted"]), eventId: z.string() }),
    })
    .optional(),
  result: z
    .object({
      ok: z.boolean(),
      finishedAt: z.string(),
      durationMs: z.number(),
      outputBytes: z.int(),
      truncated: z.boolean(),
      /** A valid-JSON preview of the output, at most OUTPUT_SUMMARY_BYTES. */
      outputPreview: JsonValueSchema.optional(),
      artifacts: z.array(z.object({ id: z.string(), sha256: z.string(), bytes: z.int() })),
      error: z.object({ code: z.string(), message: z.string() }).optional(),
      attempt: z.int(),
      executorId: z.string(),
    })
    .optional(),
  outcomeUnknown: z.object({ at: z.string(), reason: z.string(), executorId: z.string() }).optional(),
  /** A run's result that arrived after the call already had its outcome; it does not change the outcome. */
  lateResult: z
    .object({ at: z.string(), ok: z.boolean(), executorId: z.string(), afterType: z.string(), errorCode: z.string().optional() })
    .optional(),
  /** Set when the call was cancelled before it started. */
  cancelled: z.object({ by: z.string(), as: z.enum(["requester", "operator", "approver"]), reason: z.string(), at: z.string() }).optional(),
  rejection: z
    .object({ stage: z.enum(REJECTING_STAGES), code: z.string(), message: z.string(), ruleIds: z.array(z.string()).optional(), at: z.string() })
    .optional(),
  /** ToolViewCompiled events seen (one per subagent turn). */
  viewTurns: z.int().nonnegative(),
  /** Child calls (their ToolCallRequested names this call as parentCallId), in stream order. */
  children: z.array(z.string()),
  events: z.array(z.object({ seq: z.int(), type: EventTypeSchema, eventId: z.string(), ts: z.string() })),
  violations: z.array(ViolationSchema),
  /** The last stream sequence applied to this model. */
  seq: z.int().nonnegative(),
});
export type CallModel = z.infer<typeof CallModelSchema>;
