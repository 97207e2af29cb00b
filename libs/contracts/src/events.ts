import { z } from "zod";
import { ActionTypeSchema, PermissionLevelSchema } from "./action-type.js";
import { CompensationSchema } from "./compensation.js";
import { DataLabelSchema, MAX_RESULT_LABELS, MAX_RUN_LABELS, RunLabelSourceSchema } from "./data-labels.js";
import { WardenErrorSchema } from "./errors.js";
import { CallModeSchema, GradeSchema } from "./grades.js";
import { HistoryFindingSchema, HistoryHoldSchema } from "./history-condition.js";
import { IntentSchema } from "./intent.js";
import { JsonValueSchema } from "./json.js";
import { DecisionSchema } from "./policy-decision.js";
import { BySessionSchema, SessionTermsSchema } from "./session-grant.js";
import { ActivatedSkillSchema } from "./skill.js";
import { TokenSchema, VersionSchema } from "./tokens.js";
import { TraceparentSchema } from "./trace-context.js";

export const EVENT_SCHEMA_VERSION = 1;

export const EVENT_TYPES = [
  "ToolCallRequested",
  "ToolArgsValidated",
  "ToolCallRejected",
  "ToolPolicyChecked",
  "ApprovalRequested",
  "ApprovalGranted",
  "ApprovalDenied",
  "ApprovalExpired",
  "ToolCallStarted",
  "ToolCallFinished",
  "ToolCallOutcomeUnknown",
  "ToolViewCompiled",
  "ToolCallLateResult",
  "ToolCallCancelled",
  "SessionGrantRevoked",
  "ToolResultValidated",
] as const;
export const EventTypeSchema = z.enum(EVENT_TYPES);
export type EventType = z.infer<typeof EventTypeSchema>;

/** Event types whose subject carries one more token (several per call, or the principal). */
export const SUFFIXED_EVENT_TYPES = ["ToolCallRequested", "ToolViewCompiled"] as const satisfies readonly EventType[];

/** Events after which nothing more happens to a call. */
export const TERMINAL_EVENT_TYPES = [
  "ToolCallRejected",
  "ApprovalDenied",
  "ApprovalExpired",
  "ToolCallFinished",
  "ToolCallOutcomeUnknown",
  "ToolCallCancelled",
] as const satisfies readonly EventType[];

const HashSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/);
const IsoTimeSchema = z.iso.datetime();

/**
 * Fields every event carries. `tool` is the name as requested (it may be unknown or a wire name
 * on a ToolCallRequested; later events carry the resolved name).
 */
export const EventEnvelopeSchema = z.object({
  v: z.literal(EVENT_SCHEMA_VERSION),
  eventId: TokenSchema,
  callId: TokenSchema,
  domain: TokenSchema,
  tool: z.string().min(1).max(200),
  principal: TokenSchema,
  mode: CallModeSchema,
  ts: IsoTimeSchema,
  /** The event this one answers; null only on ToolCallRequested (or a refusal of a request whose id cannot be read). */
  causationId: TokenSchema.nullable(),
  /**
   * The hash of the event this one answers (`eventHash` of it as stored; `messageHash` of the
   * bytes of a request the registry cannot read), so a call's events form a hash chain; null
   * only on ToolCallRequested.
   */
  causeHash: HashSchema.nullable(),
  /** The run (a plan, an agent loop, a session) this call belongs to. */
  correlationId: TokenSchema,
  parentCallId: TokenSchema.optional(),
  /**
   * The W3C trace context of the span this event was written in (a stage's span, or the agent's
   * own span on a ToolCallRequested), so every stage's span of a call joins one trace; absent
   * when nobody traces (docs/operations.md "Tracing").
   */
  traceparent: TraceparentSchema.optional(),
});
export type EventEnvelope = z.infer<typeof EventEnvelopeSchema>;

export const CallContextSchema = z.object({
  /** Where the caller is (a page, a screen); matched against a tool's scopes. */
  scope: TokenSchema.nullable(),
  flags: z.record(z.string(), z.boolean()),
});

export const ToolCallRequestedDataSchema = CallContextSchema.extend({
  args: JsonValueSchema,
  /** Pin a version; otherwise the newest enabled version runs. */
  version: VersionSchema.optional(),
  /** Why the caller makes this call (bounded; shown on the approval card, in trace and audit). */
  intent: IntentSchema.optional(),
  /**
   * This call undoes that earlier call (`warden undo`): the registry accepts it only with the
   * call id `undoCallIdOf(principal, domain, callId)` (its requester's, one per call) and the tool and args the original tool's compensation names.
   */
  compensates: z.strictObject({ callId: TokenSchema, domain: TokenSchema }).optional(),
});

/** What a validated call is bound to from here on. */
const BoundCallSchema = z.object({
  version: VersionSchema,
  descriptorHash: HashSchema,
  grade: GradeSchema,
  argsHash: HashSchema,
});

export const ToolArgsValidatedDataSchema = BoundCallSchema.extend(CallContextSchema.shape).extend({
  args: JsonValueSchema,
  /** Set when the request named the tool by its wire name. */
  requestedAs: z.string().optional(),
});

export const REJECTING_STAGES = ["registry", "policy", "approver", "executor"] as const;

export const ToolCallRejectedDataSchema = z.object({
  stage: z.enum(REJECTING_STAGES),
  error: WardenErrorSchema,
  ruleIds: z.array(z.string()).optional(),
  policyVersion: z.string().optional(),
});

/** What the document's shadow rules would have decided (they are evaluated, never deciding). */
export const ShadowDecisionSchema = z.object({
  decision: DecisionSchema,
  /** The rules that would have made that decision, as `ruleIds` would name them. */
  ruleIds: z.array(z.string()).min(1),
  reason: z.string(),
  /** The shadow rules that matched the call. */
  shadowRuleIds: z.array(z.string()).min(1),
});
export type ShadowDecision = z.infer<typeof ShadowDecisionSchema>;

/** Where one ledger's budget was reserved for the call (`budgets.ledgers`), settled at its result. */
export const LedgerReservationSchema = z.object({
  ledger: TokenSchema,
  /** Whose budget: the principal, the team, or `tool-<wire name>`. */
  holder: TokenSchema,
  /** The period the reservation counts in (`2030-01-01` for a day, `2030-01-01T10` for an hour, UTC). */
  period: z.string().min(1).max(40),
  calls: z.int().nonnegative(),
  cost: z.int().nonnegative(),
});
export type LedgerReservation = z.infer<typeof LedgerReservationSchema>;

/** The ledger that refused a call (BUDGET_EXCEEDED): what is left of it and when it starts again. */
export const LedgerExceededSchema = z.object({
  ledger: TokenSchema,
  holder: TokenSchema,
  period: z.string().min(1).max(40),
  /** What is left of each limit the ledger has (calls, cost units) in this period. */
  left: z.object({ calls: z.int().nonnegative().optional(), cost: z.int().nonnegative().optional() }),
  limit: z.object({ calls: z.int().positive().optional(), cost: z.int().positive().optional() }),
  /** What the call needed. */
  needed: z.object({ calls: z.int().nonnegative(), cost: z.int().nonnegative() }),
  resetsAt: IsoTimeSchema,
});
export type LedgerExceeded = z.infer<typeof LedgerExceededSchema>;

export const ToolPolicyCheckedDataSchema = BoundCallSchema.extend({
  /** Carried so an executor can run an allowed call without reading back; bound by argsHash. */
  args: JsonValueSchema,
  decision: DecisionSchema,
  reason: z.string(),
  ruleIds: z.array(z.string()).min(1),
  policyVersion: z.string(),
  /** A deny for a rate limit: how long until the caller's bucket holds a token again. */
  retryAfterMs: z.int().nonnegative().optional(),
  /** Set when shadow rules matched a call the rules decided: what they would have decided. */
  shadow: ShadowDecisionSchema.optional(),
  /** The ledger budgets reserved for an admitted call; released or spent at its result. */
  reservations: z.array(LedgerReservationSchema).min(1).optional(),
  /** A deny for a ledger budget (rule `budget.ledger`): which ledger, what is left, when it resets. */
  exceeded: LedgerExceededSchema.optional(),
  /**
   * Set on a delegated call (it has a parentCallId) the policy admitted: the principal at the top of
   * its checked delegation chain, on whose behalf it runs (its credentials bound to the caller are
   * that principal's). Absent: the call runs for its own principal.
   */
  onBehalfOf: TokenSchema.optional(),
  /** The history conditions the decision evaluated, each with the earlier calls it counted (audit). */
  history: z.array(HistoryFindingSchema).min(1).max(64).optional(),
  /** The history index keys an admitted call was recorded in; settled at its result. */
  historyHolds: z.array(HistoryHoldSchema).min(1).max(64).optional(),
  /**
   * The labels the call's result carries, from the descriptor it was decided with (docs/policy.md,
   * Data labels): when it finishes ok, the run `labelRun` has read them.
   */
  resultLabels: z.array(DataLabelSchema).min(1).max(MAX_RESULT_LABELS).optional(),
  /** The run whose labels the call's result joins and whose labels the decision read: its delegation tree's top run. */
  labelRun: TokenSchema.optional(),
  /**
   * The labels the run had when the call was decided, each with the earlier result that brought it
   * (audit, what-if, the card's reason); empty: read, none. Absent: the decision did not read them.
   */
  runLabels: z.array(RunLabelSourceSchema).max(MAX_RUN_LABELS).optional(),
});

export const ApproverRequirementSchema = z.object({
  /** Only principals of kind human may decide. */
  human: z.boolean(),
  /** The requester may confirm their own call (a person's own button, mode human). */
  requesterMayConfirm: z.boolean(),
});

/** A delegating call above the requested one (a subagent's parent), top first on the card. */
export const DelegationLinkSchema = z.object({
  callId: TokenSchema,
  /** Who made the delegating call (a person, a plan's principal, or another subagent). */
  principal: TokenSchema,
  mode: CallModeSchema,
  /** The agent tool that was called. */
  tool: z.string().min(1).max(200),
});
export type DelegationLink = z.infer<typeof DelegationLinkSchema>;

/** The descriptor's effect flags as the card shows them (they agree with the grade: the registry checks). */
export const ToolFlagsSchema = z.object({ destructive: z.boolean(), openWorld: z.boolean(), idempotent: z.boolean() });

/**
 * The approval card's fields beyond the binding: what the tool is, why it is asked for, on whose
 * behalf, what makes it risky, and who may decide. Optional so cards written before they existed
 * still read; the approver writes them all on every new card.
 */
/**
 * What the tool's own dry run says the call would do (`preview(args)`, run by an executor of its
 * domain as the approval is asked): the tool's claim, shown to the person deciding, never an
 * authority. `error` when the dry run failed or no executor answered in time.
 */
export const ApprovalPreviewSchema = z.object({
  data: JsonValueSchema.optional(),
  error: z.object({ code: z.string(), message: z.string().max(2000) }).optional(),
  /** The executor that answered; absent when none did. */
  executorId: TokenSchema.optional(),
  /**
   * `sha256:` of the canonical JSON of `data`. An L5 call's grant binds it (`previewHash`), and the
   * executor runs the dry run again before the call and refuses PREVIEW_CHANGED when it differs.
   */
  hash: HashSchema.optional(),
});

const ApprovalCardSchema = z.object({
  description: z.string().max(2000).optional(),
  preview: ApprovalPreviewSchema.optional(),
  flags: ToolFlagsSchema.optional(),
  /** The request's intent, copied from its ToolCallRequested. */
  intent: IntentSchema.optional(),
  /** The delegating calls above this one, top first (empty for a direct call). */
  chain: z.array(DelegationLinkSchema).max(8).optional(),
  /** The requester with the chain read aloud: "alice via agent.triage". */
  onBehalfOf: z.string().max(1000).optional(),
  /** `caller` when the tool acts with the credentials of the principal the call runs for (the top of the chain), `service` with its executor's. */
  actsAs: z.enum(["caller", "service"]).optional(),
  /** Why a person should look closely, from the grade, the flags, the mode and the chain. */
  riskReasons: z.array(z.string().max(300)).max(16).optional(),
  /** The principals the policy document lets decide (besides a requester who may confirm). */
  deciders: z.array(TokenSchema).max(200).optional(),
  /** Distinct approvers needed before the call runs (quorum); 1 when absent. */
  quorum: z.int().min(1).max(10).optional(),
  /** What set the quorum: an `approvalQuorum` entry (its id, or `approvalQuorum[i]`) or `default.quorum`, `default.quorum.L5`, and why. */
  quorumRule: z.object({ id: z.string().min(1).max(100), reason: z.string().max(500) }).optional(),
  /** The tool's permission level (declared, or derived from action type, grade and flags). */
  level: PermissionLevelSchema.optional(),
  /** The tool's action type, when its descriptor declares one. */
  actionType: ActionTypeSchema.optional(),
  /** The tool's `approvalSummary` template; readers render it from the args (`renderApprovalSummary`). */
  summaryTemplate: z.string().max(200).optional(),
});

export const ApprovalRequestedDataSchema = BoundCallSchema.extend({
  approvalId: TokenSchema,
  argsPreview: z.string(),
  args: JsonValueSchema,
  title: z.string(),
  expiresAt: IsoTimeSchema,
  approvers: ApproverRequirementSchema,
  reason: z.string(),
  ruleIds: z.array(z.string()),
  policyVersion: z.string(),
  /**
   * Set when no executor of the call's domain had a live heartbeat as the request was made: a
   * grant would wait for one to start (the card says so rather than run the call much later).
   */
  noLiveExecutor: z.literal(true).optional(),
}).extend(ApprovalCardSchema.shape);

export const ApprovalGrantedDataSchema = z.object({
  approvalId: TokenSchema,
  approver: TokenSchema,
  argsHash: HashSchema,
  descriptorHash: HashSchema,
  version: VersionSchema,
  grantedAt: IsoTimeSchema,
  /** The grant must be used before this time. */
  expiresAt: IsoTimeSchema,
  nonce: TokenSchema,
  /** Ed25519 signature (base64) over grantSigningPayload(...). */
  signature: z.string(),
  keyId: z.string(),
  /**
   * Set when the approver granted other args than were asked for: the args that run (their hash
   * is `argsHash`, which the signature binds) and the hash of the requested ones, which the
   * ApprovalRequested keeps.
   */
  edit: z.object({ args: JsonValueSchema, originalArgsHash: HashSchema }).optional(),
  /**
   * Set when the approval needed a quorum: the other people whose grants counted, each with when
   * (`approver` completed it). Signed with the rest.
   */
  coApprovers: z.array(z.object({ approver: TokenSchema, at: IsoTimeSchema })).max(9).optional(),
  /**
   * Set when the approver also granted "for the session": later calls of this principal, mode and
   * tool version whose args meet the terms are granted until `session.expiresAt` without asking
   * (docs/approvals.md). Signed with the rest; the session grant's id is this call's callId.
   */
  session: SessionTermsSchema.optional(),
  /** Set when a session grant covered this call: the approver named is the one who made it. Signed. */
  bySession: BySessionSchema.optional(),
  /**
   * Set on the grant of an L5 call whose card showed the tool's dry run: the hash of that preview
   * (`preview.hash`). Signed; the executor runs the dry run again and refuses PREVIEW_CHANGED when
   * its hash differs, so what runs is what the people approving saw.
   */
  previewHash: HashSchema.optional(),
});

export const ApprovalDeniedDataSchema = z.object({
  approvalId: TokenSchema,
  approver: TokenSchema,
  reason: z.string(),
});

export const ApprovalExpiredDataSchema = z.object({
  approvalId: TokenSchema,
  expiresAt: IsoTimeSchema,
});

export const ToolCallStartedDataSchema = z.object({
  executorId: TokenSchema,
  version: VersionSchema,
  descriptorHash: HashSchema,
  argsHash: HashSchema,
  /** The event that authorised the run: a ToolPolicyChecked allow or an ApprovalGranted. */
  authorizedBy: z.object({ type: z.enum(["ToolPolicyChecked", "ApprovalGranted"]), eventId: TokenSchema }),
  deadline: IsoTimeSchema,
});

export const ArtifactRefSchema = z.object({
  id: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.int().nonnegative(),
  contentType: z.string(),
});
export type ArtifactRef = z.infer<typeof ArtifactRefSchema>;

/** How many targets of each kind a result's effectsObserved keeps, and how long each may be. */
export const EFFECTS_MAX_TARGETS = 50;
export const EFFECTS_MAX_TARGET_CHARS = 300;

const EffectTargetsSchema = z.array(z.string().min(1).max(EFFECTS_MAX_TARGET_CHARS)).max(EFFECTS_MAX_TARGETS);

/**
 * What a run reported it touched (`ctx.effects` of a tool; the adapters report their own): what it
 * read, what it wrote and which outside systems it called (`GET https://host/path`, never a query
 * string or a header). The tool's own claim, for the audit, not an authority; past the bounds the
 * rest is only counted in `dropped`.
 */
export const EffectsObservedSchema = z.object({
  reads: EffectTargetsSchema,
  writes: EffectTargetsSchema,
  external: EffectTargetsSchema,
  /** Targets reported past EFFECTS_MAX_TARGETS of their kind, not kept. */
  dropped: z.int().min(1).optional(),
});
export type EffectsObserved = z.infer<typeof EffectsObservedSchema>;

/** The kinds of personal data the executor masks in results, with the mark each is replaced by (`[email]`). */
export const PERSONAL_DATA_KINDS = ["email", "phone", "card", "iban"] as const;
export type PersonalDataKind = (typeof PERSONAL_DATA_KINDS)[number];
export const PersonalDataCountsSchema = z.object({
  email: z.int().min(1).optional(),
  phone: z.int().min(1).optional(),
  card: z.int().min(1).optional(),
  iban: z.int().min(1).optional(),
});
export type PersonalDataCounts = z.infer<typeof PersonalDataCountsSchema>;
/**
 * A secret a run used and whose it was: the executor's own, or the credential of the principal the
 * call ran for (a secret bound to the caller). Names only.
 */
export const CredentialUseSchema = z.discriminatedUnion("bind", [
  z.strictObject({ secret: TokenSchema, bind: z.literal("executor") }),
  z.strictObject({ secret: TokenSchema, bind: z.literal("principal"), principal: TokenSchema }),
]);
export type CredentialUse = z.infer<typeof CredentialUseSchema>;

export const ToolCallFinishedDataSchema = z.object({
  ok: z.boolean(),
  /** The output, or a valid-JSON preview of it when it went to the object store. */
  output: JsonValueSchema.optional(),
  truncated: z.boolean(),
  outputBytes: z.int().nonnegative(),
  artifacts: z.array(ArtifactRefSchema),
  error: WardenErrorSchema.optional(),
  durationMs: z.number().nonnegative(),
  executorId: TokenSchema,
  /** 1 normally; 2+ when an idempotent tool was re-run after a crash. */
  attempt: z.int().min(1),
  /**
   * How this call is undone, when its tool declares a compensation and the call succeeded: the
   * tool and the args built from this call's args and whole output (`warden undo` calls it).
   */
  undo: CompensationSchema.optional(),
  /** What the run reported it read, wrote and called; absent when it reported nothing. */
  effectsObserved: EffectsObservedSchema.optional(),
  /**
   * How many pieces of personal data of each kind the executor masked in the result before it was
   * recorded (an L3 tool's default, `personalData` of its descriptor); absent when none was found.
   */
  personalDataRedacted: PersonalDataCountsSchema.optional(),
  /** Which credentials the run used and whose they were (names only, never values); absent when it used none. */
  credentials: z.array(CredentialUseSchema).max(EFFECTS_MAX_TARGETS).optional(),
});

export const ToolCallOutcomeUnknownDataSchema = z.object({
  reason: z.string(),
  startedEventId: TokenSchema,
  executorId: TokenSchema,
});

/** The checks a result goes through before it is recorded, in this order. */
export const RESULT_CHECKS = ["outputSchema", "verify"] as const;

/**
 * What the executor of the call's domain found when it checked a run's output before recording it:
 * against the tool's `outputSchema`, then with the tool's own `verify(output, args)`. Written after
 * the run and before the outcome (both answer the claim), on its own subject, only when the tool
 * has a check and its run returned an output. The outcome is still ToolCallFinished, which fails
 * OUTPUT_INVALID / VERIFY_FAILED when a check did (`error` here is that error); this event is the
 * record of the check itself (docs/architecture.md, "Verification").
 */
export const ToolResultValidatedDataSchema = z.object({
  /** Every check that ran passed. */
  ok: z.boolean(),
  /** The checks that ran, in order; a failed one ends the list. */
  checks: z.array(z.object({ check: z.enum(RESULT_CHECKS), ok: z.boolean(), message: z.string().max(2000).optional() })).min(1).max(RESULT_CHECKS.length),
  /** The error the call's result records when a check failed. */
  error: WardenErrorSchema.optional(),
  executorId: TokenSchema,
  /** The run it checked (2+ for an idempotent tool re-run after a crash; one record per call: the first check written stays). */
  attempt: z.int().min(1),
});

/**
 * A result that arrived after the call already had its outcome (a copy of the executor was paused
 * past its claim while another recorded OutcomeUnknown): kept for the audit, never a second outcome.
 */
export const ToolCallLateResultDataSchema = ToolCallFinishedDataSchema.extend({
  /** The outcome the call already had when this result arrived. */
  outcomeEventId: TokenSchema,
  outcomeType: z.enum(["ToolCallFinished", "ToolCallOutcomeUnknown", "ToolCallRejected"]),
});

/**
 * A call stopped before it started, by its requester or an operator (`warden cancel`). Written by
 * the approver on the call's ToolCallStarted subject, so the server keeps either the claim or the
 * cancel, never both: a cancelled call can never start, a started one can no longer be cancelled.
 */
export const ToolCallCancelledDataSchema = z.object({
  /** Who cancelled: the identity the server let publish the cancel request. */
  by: TokenSchema,
  /**
   * `requester`: the call's own principal; `operator`: a principal the policy document names
   * operator; `approver`: a person whose grant of the call is revoked before it was used.
   */
  as: z.enum(["requester", "operator", "approver"]),
  reason: z.string().max(2000),
  /** The call's approval, when it had one: the cancel closes it (read models key approvals by it). */
  approvalId: TokenSchema.optional(),
});

/**
 * A session grant withdrawn before it expired (`warden revoke CALL_ID --session`), by the person
 * who made it or an operator. Written by the approver on the subjects of the call the session
 * grant was made on (its id): no later call is granted by it, and an executor refuses a grant it
 * gave that has not run yet.
 */
export const SessionGrantRevokedDataSchema = z.object({
  approvalId: TokenSchema,
  by: TokenSchema,
  as: z.enum(["approver", "operator"]),
  reason: z.string().max(2000),
});

/**
 * What a model was shown on one turn of a subagent's loop (recorded on the subagent's own call),
 * so an auditor sees exactly which tools the model could choose from and why others were hidden.
 * Its subject adds the turn: `warden.call.<domain>.<callId>.ToolViewCompiled.t<turn>`.
 */
export const ToolViewCompiledDataSchema = z.object({
  turn: z.int().min(1),
  /** The principal and mode the view was compiled for (the subagent's own, mode llm). */
  viewPrincipal: TokenSchema,
  viewMode: CallModeSchema,
  policyVersion: z.string(),
  tools: z.array(z.object({ name: z.string(), wireName: z.string(), version: z.string(), grade: GradeSchema })),
  hidden: z.array(z.object({ name: z.string(), reason: z.string(), detail: z.string() })),
  /**
   * The skills whose instructions the model was given (matched against the task, with why); their
   * scripts appear in `tools` only where the view shows them. Absent: no skill was activated.
   */
  skills: z.array(ActivatedSkillSchema).optional(),
});

function event<T extends (typeof EVENT_TYPES)[number], D extends z.ZodType>(type: T, data: D) {
  return EventEnvelopeSchema.extend({ type: z.literal(type), data });
}

export const ToolCallRequestedSchema = event("ToolCallRequested", ToolCallRequestedDataSchema);
export const ToolArgsValidatedSchema = event("ToolArgsValidated", ToolArgsValidatedDataSchema);
export const ToolCallRejectedSchema = event("ToolCallRejected", ToolCallRejectedDataSchema);
export const ToolPolicyCheckedSchema = event("ToolPolicyChecked", ToolPolicyCheckedDataSchema);
export const ApprovalRequestedSchema = event("ApprovalRequested", ApprovalRequestedDataSchema);
export const ApprovalGrantedSchema = event("ApprovalGranted", ApprovalGrantedDataSchema);
export const ApprovalDeniedSchema = event("ApprovalDenied", ApprovalDeniedDataSchema);
export const ApprovalExpiredSchema = event("ApprovalExpired", ApprovalExpiredDataSchema);
export const ToolCallStartedSchema = event("ToolCallStarted", ToolCallStartedDataSchema);
export const ToolCallFinishedSchema = event("ToolCallFinished", ToolCallFinishedDataSchema);
export const ToolCallOutcomeUnknownSchema = event("ToolCallOutcomeUnknown", ToolCallOutcomeUnknownDataSchema);
export const ToolViewCompiledSchema = event("ToolViewCompiled", ToolViewCompiledDataSchema);
export const ToolCallLateResultSchema = event("ToolCallLateResult", ToolCallLateResultDataSchema);
export const ToolCallCancelledSchema = event("ToolCallCancelled", ToolCallCancelledDataSchema);
export const SessionGrantRevokedSchema = event("SessionGrantRevoked", SessionGrantRevokedDataSchema);
export const ToolResultValidatedSchema = event("ToolResultValidated", ToolResultValidatedDataSchema);

export const WardenEventSchema = z.discriminatedUnion("type", [
  ToolCallRequestedSchema,
  ToolArgsValidatedSchema,
  ToolCallRejectedSchema,
  ToolPolicyCheckedSchema,
  ApprovalRequestedSchema,
  ApprovalGrantedSchema,
  ApprovalDeniedSchema,
  ApprovalExpiredSchema,
  ToolCallStartedSchema,
  ToolCallFinishedSchema,
  ToolCallOutcomeUnknownSchema,
  ToolViewCompiledSchema,
  ToolCallLateResultSchema,
  ToolCallCancelledSchema,
  SessionGrantRevokedSchema,
  ToolResultValidatedSchema,
]);

export type ToolCallRequested = z.infer<typeof ToolCallRequestedSchema>;
export type ToolArgsValidated = z.infer<typeof ToolArgsValidatedSchema>;
export type ToolCallRejected = z.infer<typeof ToolCallRejectedSchema>;
export type ToolPolicyChecked = z.infer<typeof ToolPolicyCheckedSchema>;
export type ApprovalRequested = z.infer<typeof ApprovalRequestedSchema>;
export type ApprovalGranted = z.infer<typeof ApprovalGrantedSchema>;
export type ApprovalDenied = z.infer<typeof ApprovalDeniedSchema>;
export type ApprovalExpired = z.infer<typeof ApprovalExpiredSchema>;
export type ToolCallStarted = z.infer<typeof ToolCallStartedSchema>;
export type ToolCallFinished = z.infer<typeof ToolCallFinishedSchema>;
export type ToolCallOutcomeUnknown = z.infer<typeof ToolCallOutcomeUnknownSchema>;
export type ToolViewCompiled = z.infer<typeof ToolViewCompiledSchema>;
export type ToolCallLateResult = z.infer<typeof ToolCallLateResultSchema>;
export type ToolCallCancelled = z.infer<typeof ToolCallCancelledSchema>;
export type SessionGrantRevoked = z.infer<typeof SessionGrantRevokedSchema>;
export type ToolResultValidated = z.infer<typeof ToolResultValidatedSchema>;
export type WardenEvent = z.infer<typeof WardenEventSchema>;
export type EventOfType<T extends EventType> = Extract<WardenEvent, { type: T }>;
export type EventData<T extends EventType> = EventOfType<T>["data"];

export const EVENT_SCHEMAS = {
  ToolCallRequested: ToolCallRequestedSchema,
  ToolArgsValidated: ToolArgsValidatedSchema,
  ToolCallRejected: ToolCallRejectedSchema,
  ToolPolicyChecked: ToolPolicyCheckedSchema,
  ApprovalRequested: ApprovalRequestedSchema,
  ApprovalGranted: ApprovalGrantedSchema,
  ApprovalDenied: ApprovalDeniedSchema,
  ApprovalExpired: ApprovalExpiredSchema,
  ToolCallStarted: ToolCallStartedSchema,
  ToolCallFinished: ToolCallFinishedSchema,
  ToolCallOutcomeUnknown: ToolCallOutcomeUnknownSchema,
  ToolViewCompiled: ToolViewCompiledSchema,
  ToolCallLateResult: ToolCallLateResultSchema,
  ToolCallCancelled: ToolCallCancelledSchema,
  SessionGrantRevoked: SessionGrantRevokedSchema,
  ToolResultValidated: ToolResultValidatedSchema,
} as const satisfies Record<EventType, z.ZodType>;
