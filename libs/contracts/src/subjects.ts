import { EVENT_TYPES, type EventType, type WardenEvent } from "./events.js";
import { sha256Hex } from "./canonical-json.js";
import { isSafeToken } from "./tokens.js";

/** Every subject, stream, consumer and bucket name Warden uses is built here and only here. */
export const STREAM_CALLS = "WARDEN_CALLS";
export const STREAM_DLQ = "WARDEN_DLQ";
export const CALLS_SUBJECT_ROOT = "warden.call";
export const CALLS_SUBJECTS = "warden.call.>";
export const DLQ_SUBJECT_ROOT = "warden.dlq";
/** The notary's signed checkpoints over WARDEN_CALLS, one subject, in the order written. */
export const STREAM_NOTARY = "WARDEN_NOTARY";
export const NOTARY_CHECKPOINT_SUBJECT = "warden.notary.checkpoint";
/** Request: the notary signs an export's trailer (its digest and the chain's head when it answers). */
export const NOTARY_EXPORT_SEAL_SUBJECT = "warden.notary.seal-export";
export const DLQ_SUBJECTS = "warden.dlq.>";
/**
 * Every change of the policy document, with who made it: `warden.policy.changed.<author>`, the
 * author being the identity the server let publish there (docs/policy.md, Set).
 */
export const STREAM_POLICY_CHANGES = "WARDEN_POLICY_CHANGES";
export const POLICY_CHANGED_SUBJECT_ROOT = "warden.policy.changed";
export const POLICY_CHANGED_SUBJECTS = "warden.policy.changed.*";

export const BUCKET_TOOLS = "warden_tools";
export const BUCKET_POLICY = "warden_policy";
export const BUCKET_CALLS = "warden_calls";
export const BUCKET_APPROVALS = "warden_approvals";
export const BUCKET_BUDGETS = "warden_budgets";
/**
 * Executor heartbeats: key `<domain>` is written every few seconds by each live executor of that
 * domain; the bucket's max age (EXECUTOR_HEARTBEAT_TTL_S, the server's clock) drops a domain whose
 * executors all stopped. Read by the policy (fast UNAVAILABLE) and the approver (the card's flag).
 */
export const BUCKET_EXECUTORS = "warden_executors";
/** How long a heartbeat counts: a few heartbeats' worth, so a slow executor is not taken for dead. */
export const EXECUTOR_HEARTBEAT_TTL_S = 15;
/** How often an executor writes its heartbeat. */
export const EXECUTOR_HEARTBEAT_INTERVAL_MS = 3_000;

/**
 * Where each person's durable deliveries of approval requests stand: key `<approver>.<durable>`
 * holds the stream sequence of the last request that app acknowledged. Written by the approver only.
 */
export const BUCKET_APPROVER_CURSORS = "warden_approver_cursors";
/** The approver's own decision locks (compare-and-set makes a decision single-use); not a read model. */
export const BUCKET_APPROVAL_LOCKS = "warden_approval_locks";
/** The projector's progress: key PROJECTOR_CURSOR_KEY holds the last stream sequence applied to every read model. */
export const BUCKET_PROJECTOR = "warden_projector";
export const PROJECTOR_CURSOR_KEY = "cursor";
/** `warden_projector` key naming the projector copy that projects now (the others stand by). */
export const PROJECTOR_LEASE_KEY = "lease";
/** The read-model buckets a projector keeps, in a fixed order. */
export const READ_MODEL_BUCKETS = [BUCKET_CALLS, BUCKET_APPROVALS, BUCKET_BUDGETS] as const;
export const OBJECT_STORE_ARTIFACTS = "warden_artifacts";
/**
 * Skills (docs/skills.md): key `<name>.<version>` holds a SkillRecord. Written by the admin only
 * (`warden skills add`); every Warden-account service may read it (the subagent activates skills
 * from it, the adapters check a skill folder against it before running its scripts).
 */
export const BUCKET_SKILLS = "warden_skills";

/**
 * Request-reply services. Where a subject carries a principal, approver or domain token, NATS
 * permissions pin that token to the caller's identity (docs/security.md), so the token is who asks.
 */
export const SUBJECT_REGISTRY_LIST = "warden.registry.list";
/**
 * The registry's announcement that what callers may see may have changed (a tool registered,
 * enabled or disabled, a new policy document): a cue to ask for one's view again, never the view
 * itself. Plain NATS (at most once), published by every registry copy; exported to the clients
 * account as a stream.
 */
export const SUBJECT_REGISTRY_CHANGED = "warden.registry.changed";
export const REGISTRY_REGISTER_SUBJECTS = "warden.registry.register.*";
export const REGISTRY_STATUS_SUBJECTS = "warden.registry.status.*";
export const REGISTRY_VIEW_SUBJECTS = "warden.registry.view.*";
/** A person's own calls, listed or traced whole: `warden.registry.calls.<principal>` (own-calls.ts). */
export const OWN_CALLS_SUBJECTS = "warden.registry.calls.*";
/** Built, matched and parsed from one root: `warden.calls.<principal>.<domain>.<callId>`. */
const CALL_READ_ROOT = "warden.calls";
export const CALL_READ_SUBJECTS = `${CALL_READ_ROOT}.*.*.*`;
export const APPROVER_PENDING_SUBJECTS = "warden.approver.pending.*";
/** A dry run of a call, answered by an executor of the domain: `warden.executor.preview.<domain>`. */
export const EXECUTOR_PREVIEW_SUBJECTS = "warden.executor.preview.*";
/** A person's durable deliveries of approval requests: `warden.approver.deliver.<approver>.<durable>`. */
const APPROVER_DELIVER_ROOT = "warden.approver.deliver";
export const APPROVER_DELIVER_SUBJECTS = `${APPROVER_DELIVER_ROOT}.*.*`;
/**
 * A new approval request, told to one person who may decide it: `warden.approver.notify.<approver>.<approvalId>`.
 * Plain NATS (at most once, a cue: the inbox and durable deliveries are the record), published by
 * the approver for exactly the people the policy document lets decide it; exported to the clients
 * account as a stream, each person's permissions pinning the approver token.
 */
export const APPROVER_NOTIFY_SUBJECTS = "warden.approver.notify.*.*";
export const SUBJECT_DECIDE_ROOT = "warden.decide";
/** `warden.cancel.<principal>.<callId>`: a requester's (or an operator's) cancel of a call not yet started. */
export const SUBJECT_CANCEL_ROOT = "warden.cancel";
export const CANCEL_SUBJECTS = `${SUBJECT_CANCEL_ROOT}.*.*`;
export const QUEUE_REGISTRY = "warden-registry";
export const QUEUE_APPROVER = "warden-approver";

export class UnsafeTokenError extends Error {
  override readonly name = "UnsafeTokenError";
  constructor(what: string, value: unknown) {
    super(`${what} ${JSON.stringify(value)} is not a safe subject token (^[A-Za-z0-9_-]{1,128}$)`);
  }
}

function token(what: string, value: string): string {
  if (!isSafeToken(value)) throw new UnsafeTokenError(what, value);
  return value;
}

/**
 * The executor's outcomes of a call share one subject, so the server keeps only the first: a
 * result, an outcome-unknown, or the executor's refusal. Two copies of an executor (one paused
 * past its claim, one recovering it) cannot both end the call.
 */
export const OUTCOME_SLOT = "Outcome";
export const OUTCOME_EVENT_TYPES = ["ToolCallFinished", "ToolCallOutcomeUnknown", "ToolCallRejected"] as const satisfies readonly EventType[];
export type OutcomeEventType = (typeof OUTCOME_EVENT_TYPES)[number];

/**
 * The claim and the cancel of a call share the ToolCallStarted subject, so the server keeps the
 * first: a cancelled call can never start, a started one can no longer be cancelled.
 */
export const CLAIM_SLOT = "ToolCallStarted";
export const CLAIM_EVENT_TYPES = ["ToolCallStarted", "ToolCallCancelled"] as const satisfies readonly EventType[];

/** The subject token an event type is stored under (its name, the shared outcome slot, or the claim slot). */
function slotOfType(type: EventType): string {
  if (type === "ToolCallFinished" || type === "ToolCallOutcomeUnknown") return OUTCOME_SLOT;
  return type === "ToolCallCancelled" ? CLAIM_SLOT : type;
}

/**
 * `warden.call.<domain>.<callId>.<EventType>`; a request adds `.<principal>`, a ToolViewCompiled
 * adds `.t<turn>` (the `suffix` argument). ToolCallFinished and ToolCallOutcomeUnknown live in the
 * shared `Outcome` slot; a ToolCallRejected here is a stage's refusal (the executor's refusals are
 * outcomes: outcomeSubject).
 */
export function callEventSubject(domain: string, callId: string, type: EventType, suffix?: string): string {
  const base = `${CALLS_SUBJECT_ROOT}.${token("domain", domain)}.${token("callId", callId)}.${slotOfType(type)}`;
  if (type === "ToolCallRequested" || type === "ToolViewCompiled") {
    if (suffix === undefined) throw new Error(`a ${type} subject needs its last token`);
    return `${base}.${token(type === "ToolCallRequested" ? "principal" : "turn", suffix)}`;
  }
  return base;
}

/** The one subject every executor outcome of a call is appended on. */
export function outcomeSubject(domain: string, callId: string): string {
  return `${CALLS_SUBJECT_ROOT}.${token("domain", domain)}.${token("callId", callId)}.${OUTCOME_SLOT}`;
}

/** True for an event stored in the outcome slot. */
export function isOutcomeEvent(event: WardenEvent): boolean {
  return (
    event.type === "ToolCallFinished" ||
    event.type === "ToolCallOutcomeUnknown" ||
    (event.type === "ToolCallRejected" && event.data.stage === "executor")
  );
}

/** The last subject token of an event that has one (the principal, or `t<turn>`). */
export function eventSubjectSuffix(event: WardenEvent): string | undefined {
  if (event.type === "ToolCallRequested") return event.principal;
  if (event.type === "ToolViewCompiled") return `t${event.data.turn}`;
  return undefined;
}

/** The subject an event is appended on; a decoder accepts an event only from exactly this subject. */
export function subjectOfEvent(event: WardenEvent): string {
  if (isOutcomeEvent(event)) return outcomeSubject(event.domain, event.callId);
  return callEventSubject(event.domain, event.callId, event.type, eventSubjectSuffix(event));
}

/** A call's request, whoever its principal: `warden.call.<domain>.<callId>.ToolCallRequested.*`. */
export function callRequestedAnySubject(domain: string, callId: string): string {
  return `${CALLS_SUBJECT_ROOT}.${token("domain", domain)}.${token("callId", callId)}.ToolCallRequested.*`;
}

/** A call's request under any domain: finds the domain (and requester) of a call known only by its id. */
export function callRequestedAnyDomainSubject(callId: string): string {
  return `${CALLS_SUBJECT_ROOT}.*.${token("callId", callId)}.ToolCallRequested.*`;
}

/** One call's whole history. */
export function callHistorySubject(domain: string, callId: string): string {
  return `${CALLS_SUBJECT_ROOT}.${token("domain", domain)}.${token("callId", callId)}.>`;
}

/** Every event of a call id under any domain: finds the domain of a call known only by its id. */
export function callAnyDomainSubject(callId: string): string {
  return `${CALLS_SUBJECT_ROOT}.*.${token("callId", callId)}.>`;
}

/** What a stage consumes: one event type (the outcome slot for an outcome), optionally one domain. */
export function stageFilterSubject(type: EventType, domain?: string): string {
  const d = domain === undefined ? "*" : token("domain", domain);
  return type === "ToolCallRequested" || type === "ToolViewCompiled"
    ? `${CALLS_SUBJECT_ROOT}.${d}.*.${type}.*`
    : `${CALLS_SUBJECT_ROOT}.${d}.*.${slotOfType(type)}`;
}

export interface ParsedCallSubject {
  readonly domain: string;
  readonly callId: string;
  /** The event types that may be stored on this subject (several for the outcome slot). */
  readonly types: readonly EventType[];
  /** The last token of a ToolCallRequested subject. */
  readonly principal?: string;
  /** The last token of a ToolViewCompiled subject (`t<turn>`). */
  readonly turn?: string;
}

export function parseCallSubject(subject: string): ParsedCallSubject | undefined {
  const parts = subject.split(".");
  if (parts[0] !== "warden" || parts[1] !== "call") return undefined;
  const [, , domain, callId, slot, principal, ...rest] = parts;
  if (rest.length > 0 || !isSafeToken(domain) || !isSafeToken(callId)) return undefined;
  if (slot === OUTCOME_SLOT) {
    return principal === undefined ? { domain, callId, types: OUTCOME_EVENT_TYPES } : undefined;
  }
  if (slot === CLAIM_SLOT) return principal === undefined ? { domain, callId, types: CLAIM_EVENT_TYPES } : undefined;
  if (!(EVENT_TYPES as readonly string[]).includes(slot ?? "") || slotOfType(slot as EventType) !== slot) return undefined;
  const eventType = slot as EventType;
  if (eventType === "ToolCallRequested") {
    if (!isSafeToken(principal)) return undefined;
    return { domain, callId, types: [eventType], principal };
  }
  if (eventType === "ToolViewCompiled") {
    if (!isSafeToken(principal) || !/^t\d+$/.test(principal)) return undefined;
    return { domain, callId, types: [eventType], turn: principal };
  }
  if (principal !== undefined) return undefined;
  return { domain, callId, types: [eventType] };
}

export function decideSubject(approver: string, approvalId: string): string {
  return `${SUBJECT_DECIDE_ROOT}.${token("approver", approver)}.${token("approvalId", approvalId)}`;
}

export const DECIDE_SUBJECTS = `${SUBJECT_DECIDE_ROOT}.*.*`;

export function cancelSubject(principal: string, callId: string): string {
  return `${SUBJECT_CANCEL_ROOT}.${token("principal", principal)}.${token("callId", callId)}`;
}

/**
 * The `count` tokens after `root` in a subject (or key) that is exactly `root` and those tokens,
 * each a safe token; undefined for anything else. Every parse of a subject Warden builds is this.
 */
function safeTokensAfter(subject: string, root: string, count: 2): [string, string] | undefined;
function safeTokensAfter(subject: string, root: string, count: 3): [string, string, string] | undefined;
function safeTokensAfter(subject: string, root: string, count: number): string[] | undefined {
  if (!subject.startsWith(`${root}.`)) return undefined;
  const tokens = subject.slice(root.length + 1).split(".");
  return tokens.length === count && tokens.every((t) => isSafeToken(t)) ? tokens : undefined;
}

export function parseCancelSubject(subject: string): { principal: string; callId: string } | undefined {
  const tokens = safeTokensAfter(subject, SUBJECT_CANCEL_ROOT, 2);
  return tokens && { principal: tokens[0], callId: tokens[1] };
}

export function parseDecideSubject(subject: string): { approver: string; approvalId: string } | undefined {
  const tokens = safeTokensAfter(subject, SUBJECT_DECIDE_ROOT, 2);
  return tokens && { approver: tokens[0], approvalId: tokens[1] };
}

export function dlqSubject(stage: string): string {
  return `${DLQ_SUBJECT_ROOT}.${token("stage", stage)}`;
}

/** Durable consumer names. */
export function consumerName(stage: string, domain?: string): string {
  return domain === undefined ? token("stage", stage) : `${token("stage", stage)}-${token("domain", domain)}`;
}

/** KV key of one descriptor version: `<domain>.<capability>.<major>.<minor>.<patch>`. */
export function toolKey(name: string, version: string): string {
  return `${name}.${version}`;
}

export function toolKeyPrefix(name: string): string {
  return `${name}.>`;
}

/** `warden_skills` key of one skill version. */
export function skillKey(name: string, version: string): string {
  return `${token("skill name", name)}.${version}`;
}

/** `warden_policy` key of an approver's public key. */
export function approverKeyKey(keyId: string): string {
  return `approver-key.${token("keyId", keyId)}`;
}

/** `warden_budgets` key of one run's call count. */
export function runBudgetKey(runId: string): string {
  return `run.${token("runId", runId)}`;
}

/** `warden_budgets` key of the child calls counted against one delegating (subagent) call. */
export function delegationBudgetKey(callId: string): string {
  return `delegation.${token("callId", callId)}`;
}

/**
 * `warden_budgets` key of a token bucket the policy stage keeps: `rate.<principal>` or
 * `rate.<principal>.<bucket>` (a per-tool entry, or `principal-budget`).
 */
export function rateBucketKey(principal: string, bucket?: string): string {
  return bucket === undefined ? `rate.${token("principal", principal)}` : `rate.${token("principal", principal)}.${token("bucket", bucket)}`;
}

/** `warden_budgets` keys of the policy's ledger budgets: `ledger.<ledger id>.<holder>`. */
export const LEDGER_KEY_PREFIX = "ledger";

/** `warden_budgets` key of one ledger of one holder (a principal, a team, `tool-<wire name>`). */
export function ledgerKey(ledger: string, holder: string): string {
  return `${LEDGER_KEY_PREFIX}.${token("ledger", ledger)}.${token("holder", holder)}`;
}

/** `warden_budgets` keys of the policy's history index (history conditions of rules): `history.<digest>`. */
export const HISTORY_KEY_PREFIX = "history";

/** The index key of one condition, scope holder and correlated values, by the 32 hex digits of their digest. */
export function historyIndexKey(digestHex: string): string {
  if (!/^[0-9a-f]{32}$/.test(digestHex)) throw new Error(`history index digest must be 32 hex digits, got ${JSON.stringify(digestHex)}`);
  return `${HISTORY_KEY_PREFIX}.${digestHex}`;
}

/** `warden_budgets` keys of the policy's run labels (docs/policy.md, Data labels): `labels.<digest of the run id>`. */
export const RUN_LABELS_KEY_PREFIX = "labels";

/** The key of one run's labels, by the 32 hex digits of its run id's digest. */
export function runLabelsKey(digestHex: string): string {
  if (!/^[0-9a-f]{32}$/.test(digestHex)) throw new Error(`run labels digest must be 32 hex digits, got ${JSON.stringify(digestHex)}`);
  return `${RUN_LABELS_KEY_PREFIX}.${digestHex}`;
}

/** `ledger.<id>.<holder>` parsed; undefined for any other key. */
export function parseLedgerKey(key: string): { ledger: string; holder: string } | undefined {
  const tokens = safeTokensAfter(key, LEDGER_KEY_PREFIX, 2);
  return tokens && { ledger: tokens[0], holder: tokens[1] };
}

/** The record of a policy change by `author`: `warden.policy.changed.<author>`. */
export function policyChangedSubject(author: string): string {
  return `${POLICY_CHANGED_SUBJECT_ROOT}.${token("author", author)}`;
}

/** The author token of a policy change record's subject; undefined for any other subject. */
export function parsePolicyChangedSubject(subject: string): string | undefined {
  if (!subject.startsWith(`${POLICY_CHANGED_SUBJECT_ROOT}.`)) return undefined;
  const author = subject.slice(POLICY_CHANGED_SUBJECT_ROOT.length + 1);
  return isSafeToken(author) ? author : undefined;
}

/** `warden_budgets` key of one tool's counters; a name that is not a plain dotted token is keyed by its hash. */
export function toolBudgetKey(tool: string): string {
  return /^[A-Za-z0-9_-]{1,128}(\.[A-Za-z0-9_-]{1,128}){0,3}$/.test(tool) ? `tool.${tool}` : `tool.=${sha256Hex(tool).slice(0, 32)}`;
}

/** `warden_budgets` key of one principal's counters. */
export function principalBudgetKey(principal: string): string {
  return `principal.${token("principal", principal)}`;
}

/** A fresh bucket a replay rebuilds a read model into, e.g. `warden_calls_rebuild`. */
export function rebuildBucketName(bucket: string, suffix: string): string {
  return `${bucket}_${token("suffix", suffix)}`;
}

/**
 * The reply-inbox prefix of one identity: `_INBOX.<identity>`. A client may subscribe only under
 * its own prefix, so the replies to another client's requests (call reads, pending approvals,
 * decisions) never reach it; connectBus takes the identity from the credentials' user JWT.
 */
export function inboxPrefixOf(identity: string): string {
  return `_INBOX.${token("identity", identity)}`;
}

/** Registers one domain's tools: `warden.registry.register.<domain>`. */
export function registryRegisterSubject(domain: string): string {
  return `warden.registry.register.${token("domain", domain)}`;
}

/** Enables or disables one domain's tools: `warden.registry.status.<domain>`. */
export function registryStatusSubject(domain: string): string {
  return `warden.registry.status.${token("domain", domain)}`;
}

/** The ToolView of the asking principal: `warden.registry.view.<principal>`. */
export function registryViewSubject(principal: string): string {
  return `warden.registry.view.${token("principal", principal)}`;
}

/**
 * The domain token of a call read that names no domain (`warden.calls.<principal>._.<callId>`):
 * the registry finds the domain of the principal's own request. No domain can be `_` (a domain
 * neither starts nor ends with `_`), so it never names one.
 */
export const ANY_DOMAIN = "_";

/** The subject of one principal's request under a call id, in whichever domain: what `ANY_DOMAIN` reads look up. */
export function requestOfCallSubjects(principal: string, callId: string): string {
  return `${CALLS_SUBJECT_ROOT}.*.${token("callId", callId)}.ToolCallRequested.${token("principal", principal)}`;
}

/** Every request subject of one principal, whichever domain and call: what its call list is found from. */
export function requestsOfPrincipalSubject(principal: string): string {
  return `${CALLS_SUBJECT_ROOT}.*.*.ToolCallRequested.${token("principal", principal)}`;
}

/** The asking person's own calls, listed or one traced whole: `warden.registry.calls.<principal>`. */
export function ownCallsSubject(principal: string): string {
  return `warden.registry.calls.${token("principal", principal)}`;
}

/** The events of one of the asking principal's own calls: `warden.calls.<principal>.<domain>.<callId>`. */
export function callReadSubject(principal: string, domain: string, callId: string): string {
  return `${CALL_READ_ROOT}.${token("principal", principal)}.${token("domain", domain)}.${token("callId", callId)}`;
}

/** The pending approvals as one approver sees them: `warden.approver.pending.<approver>`. */
export function executorPreviewSubject(domain: string): string {
  return `warden.executor.preview.${token("domain", domain)}`;
}

export function approverPendingSubject(approver: string): string {
  return `warden.approver.pending.${token("approver", approver)}`;
}

/** One durable delivery of a person's approval requests: `warden.approver.deliver.<approver>.<durable>`. */
export function approverDeliverSubject(approver: string, durable: string): string {
  return `${APPROVER_DELIVER_ROOT}.${token("approver", approver)}.${token("durable", durable)}`;
}

/** One person's notice of one new approval request: `warden.approver.notify.<approver>.<approvalId>`. */
export function approverNotifySubject(approver: string, approvalId: string): string {
  return `warden.approver.notify.${token("approver", approver)}.${token("approvalId", approvalId)}`;
}

/** Every notice one person receives: `warden.approver.notify.<approver>.*`. */
export function approverNotifyFilter(approver: string): string {
  return `warden.approver.notify.${token("approver", approver)}.*`;
}

/** `warden.approver.deliver.<approver>.<durable>` parsed; undefined for anything else. */
export function parseApproverDeliverSubject(subject: string): { approver: string; durable: string } | undefined {
  const tokens = safeTokensAfter(subject, APPROVER_DELIVER_ROOT, 2);
  return tokens && { approver: tokens[0], durable: tokens[1] };
}

/** `warden_approver_cursors` key of one person's durable delivery. */
export function approverCursorKey(approver: string, durable: string): string {
  return `${token("approver", approver)}.${token("durable", durable)}`;
}

/** The last token of a per-identity request subject (`warden.registry.view.<principal>` -> principal). */
export function lastSubjectToken(subject: string): string | undefined {
  const last = subject.slice(subject.lastIndexOf(".") + 1);
  return isSafeToken(last) ? last : undefined;
}

/** `warden.calls.<principal>.<domain>.<callId>` parsed; undefined for anything else. */
export function parseCallReadSubject(subject: string): { principal: string; domain: string; callId: string } | undefined {
  const tokens = safeTokensAfter(subject, CALL_READ_ROOT, 3);
  return tokens && { principal: tokens[0], domain: tokens[1], callId: tokens[2] };
}
