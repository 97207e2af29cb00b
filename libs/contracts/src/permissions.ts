import { z } from "zod";
import {
  APPROVER_DELIVER_SUBJECTS,
  APPROVER_NOTIFY_SUBJECTS,
  approverNotifyFilter,
  APPROVER_PENDING_SUBJECTS,
  EXECUTOR_PREVIEW_SUBJECTS,
  executorPreviewSubject,
  BUCKET_APPROVAL_LOCKS,
  BUCKET_APPROVER_CURSORS,
  BUCKET_EXECUTORS,
  BUCKET_APPROVALS,
  BUCKET_BUDGETS,
  BUCKET_CALLS,
  BUCKET_POLICY,
  BUCKET_PROJECTOR,
  BUCKET_TOOLS,
  CALL_READ_SUBJECTS,
  CALLS_SUBJECT_ROOT,
  consumerName,
  CANCEL_SUBJECTS,
  CLAIM_SLOT,
  DECIDE_SUBJECTS,
  DLQ_SUBJECTS,
  inboxPrefixOf,
  NOTARY_CHECKPOINT_SUBJECT,
  NOTARY_EXPORT_SEAL_SUBJECT,
  OBJECT_STORE_ARTIFACTS,
  OUTCOME_SLOT,
  policyChangedSubject,
  REGISTRY_VIEW_SUBJECTS,
  OWN_CALLS_SUBJECTS,
  ownCallsSubject,
  STREAM_CALLS,
  SUBJECT_CANCEL_ROOT,
  SUBJECT_DECIDE_ROOT,
  SUBJECT_REGISTRY_CHANGED,
  SUBJECT_REGISTRY_LIST,
} from "./subjects.js";
import { POLICY_DOCUMENT_KEY } from "./policy-document.js";
import { TokenSchema } from "./tokens.js";

/**
 * Who may do what on the bus: the permission matrix of docs/security.md as data. Provisioning
 * turns it into NATS accounts and user JWTs, so the server itself refuses what a role may not do.
 */

export const ACCOUNT_WARDEN = "WARDEN";
export const ACCOUNT_CLIENTS = "CLIENTS";
export const ACCOUNT_SYSTEM = "SYS";

/** The durable consumer each stage owns; only its owner pulls from it and acks. */
export const DURABLE_REGISTRY = "registry-validate";
export const DURABLE_POLICY = "policy-check";
export const DURABLE_APPROVER = "approver-request";
export const DURABLE_PROJECTOR = "projector";
/**
 * The policy's settlement durables: the results that settle a call's ledger reservations, one
 * event type (or the outcome slot) each, since a durable has one filter on every server version.
 */
export const DURABLES_POLICY_SETTLE = {
  Outcome: "policy-settle-outcome",
  ToolCallRejected: "policy-settle-rejected",
  ApprovalDenied: "policy-settle-denied",
  ApprovalExpired: "policy-settle-expired",
} as const;
export const EXECUTOR_STAGES = ["executor-allowed", "executor-granted"] as const;

export const SERVICE_ROLES = ["registry", "policy", "approver", "projector", "notary"] as const;
export type ServiceRole = (typeof SERVICE_ROLES)[number];

export const IDENTITY_KINDS = ["agent", "human", "service", "executor", "subagent", "auditor", "policy-author", "admin"] as const;
export type IdentityKind = (typeof IDENTITY_KINDS)[number];

export const IdentitySpecSchema = z.discriminatedUnion("kind", [
  /** A caller: one user per agent principal (clients account). */
  z.strictObject({ kind: z.literal("agent"), name: TokenSchema }),
  /** A person: calls tools and decides approvals as itself (clients account). */
  z.strictObject({ kind: z.literal("human"), name: TokenSchema }),
  /** A core service; `name` names the instance, `role` what it may do. */
  z.strictObject({ kind: z.literal("service"), name: TokenSchema, role: z.enum(SERVICE_ROLES) }),
  /** Runs the tools of its domains (a domain team's executor, the adapters); may own KV buckets of its own. */
  z.strictObject({
    kind: z.literal("executor"),
    name: TokenSchema,
    domains: z.array(TokenSchema).min(1),
    buckets: z.array(TokenSchema).default([]),
  }),
  /** The subagent service: an executor of its domains that also calls tools as its subagents' principals. */
  z.strictObject({
    kind: z.literal("subagent"),
    name: TokenSchema,
    domains: z.array(TokenSchema).min(1),
    principals: z.array(TokenSchema).min(1),
  }),
  /** Reads everything, writes nothing. */
  z.strictObject({ kind: z.literal("auditor"), name: TokenSchema }),
  /**
   * Reads as the auditor does and changes the policy document, each change recorded under its own
   * name (`warden.policy.changed.<name>`): a person's day-to-day identity for `warden policy set`.
   */
  z.strictObject({ kind: z.literal("policy-author"), name: TokenSchema }),
  /** The operator: creates streams, buckets, the policy document; registers any domain's tools. */
  z.strictObject({ kind: z.literal("admin"), name: TokenSchema }),
]);
export type IdentitySpec = z.infer<typeof IdentitySpecSchema>;
export type IdentitySpecInput = z.input<typeof IdentitySpecSchema>;

export interface SubjectRules {
  readonly allow: readonly string[];
  readonly deny: readonly string[];
}

export interface UserPermissions {
  readonly account: typeof ACCOUNT_WARDEN | typeof ACCOUNT_CLIENTS;
  readonly pub: SubjectRules;
  readonly sub: SubjectRules;
}

/** What the Warden account offers the clients account; everything else stays inside. */
export interface AccountExport {
  readonly name: string;
  readonly subject: string;
  readonly type: "service" | "stream";
}

export const CLIENT_EXPORTS: readonly AccountExport[] = [
  { name: "call-requests", subject: `${CALLS_SUBJECT_ROOT}.*.*.ToolCallRequested.*`, type: "service" },
  { name: "call-reads", subject: CALL_READ_SUBJECTS, type: "service" },
  { name: "tool-views", subject: REGISTRY_VIEW_SUBJECTS, type: "service" },
  { name: "own-calls", subject: OWN_CALLS_SUBJECTS, type: "service" },
  { name: "decisions", subject: DECIDE_SUBJECTS, type: "service" },
  { name: "cancels", subject: CANCEL_SUBJECTS, type: "service" },
  { name: "pending-approvals", subject: APPROVER_PENDING_SUBJECTS, type: "service" },
  { name: "approval-deliveries", subject: APPROVER_DELIVER_SUBJECTS, type: "service" },
  // a person hears only of the approvals they may decide (never the call stream's ApprovalRequested)
  { name: "approval-notices", subject: APPROVER_NOTIFY_SUBJECTS, type: "stream" },
  { name: "registry-changes", subject: SUBJECT_REGISTRY_CHANGED, type: "stream" },
];

const JS = "$JS.API";
const INBOX = "_INBOX.>";

/** The `warden_budgets` keys the projector keeps (`run.<runId>`, `tool.<name>`, `principal.<principal>`: subjects.ts). */
const PROJECTED_BUDGET_PREFIXES = ["run", "tool", "principal"] as const;

const callEvent = (domain: string, type: string) => `${CALLS_SUBJECT_ROOT}.${domain}.*.${type}`;
const kvWrite = (bucket: string) => `$KV.${bucket}.>`;

/**
 * Creating (or changing) a durable, pulling from it and acking its messages: only its owner. The
 * creation goes through the subject that names the durable; the forms that carry the name in the
 * body are refused on the call stream to everyone (see `service`).
 */
function ownDurable(stream: string, durable: string): string[] {
  return [`${JS}.CONSUMER.DURABLE.CREATE.${stream}.${durable}`, `${JS}.CONSUMER.MSG.NEXT.${stream}.${durable}`, `$JS.ACK.${stream}.${durable}.>`];
}

/** Reading streams and buckets (info, direct and stream gets, KV watches); never their config or content. */
const READ_API = [
  `${JS}.INFO`,
  `${JS}.STREAM.INFO.*`,
  `${JS}.STREAM.NAMES`,
  `${JS}.STREAM.LIST`,
  `${JS}.STREAM.MSG.GET.*`,
  `${JS}.DIRECT.GET.>`,
  // KV watches and object reads make short-lived consumers of their own (random names); on the
  // call stream they are denied (see `service`)
  `${JS}.CONSUMER.CREATE.*`,
  `${JS}.CONSUMER.CREATE.*.*.>`,
  `${JS}.CONSUMER.CREATE.*.*`,
  `${JS}.CONSUMER.INFO.*.*`,
  "$JS.FC.>",
];

/** Other stages' durables, which a service that reads the stream must not pull from or ack. */
function otherStageDurables(own: readonly string[]): string[] {
  return [DURABLE_REGISTRY, DURABLE_POLICY, ...Object.values(DURABLES_POLICY_SETTLE), DURABLE_APPROVER, DURABLE_PROJECTOR]
    .filter((d) => !own.includes(d))
    .flatMap((d) => [`${JS}.CONSUMER.MSG.NEXT.${STREAM_CALLS}.${d}`, `$JS.ACK.${STREAM_CALLS}.${d}.>`, `${JS}.CONSUMER.CREATE.${STREAM_CALLS}.${d}`, `${JS}.CONSUMER.CREATE.${STREAM_CALLS}.${d}.>`]);
}

/** The NATS micro services discovery subjects (ADR-32): `warden status` and `nats micro ls` ask on them. */
const SERVICE_DISCOVERY = "$SRV.>";

/**
 * A Warden-account role. On the call stream it may create consumers only through its own
 * durables' subjects: every reader of call histories reads them by direct gets, so no role can
 * create, change or delete another's durable (the forms `CONSUMER.CREATE.WARDEN_CALLS[.<name>…]`
 * cannot tell a reader's consumer from another role's durable, so they are nobody's).
 */
function service(pub: readonly string[], sub: readonly string[], durables: readonly string[]): UserPermissions {
  const consumersOnCallStream = [`${JS}.CONSUMER.CREATE.${STREAM_CALLS}`, `${JS}.CONSUMER.CREATE.${STREAM_CALLS}.>`];
  return {
    account: ACCOUNT_WARDEN,
    pub: {
      allow: [
        ...READ_API,
        ...durables.flatMap((d) => ownDurable(STREAM_CALLS, d)),
        DLQ_SUBJECTS,
        SUBJECT_REGISTRY_LIST,
        // a responder answers on inboxes (its own account's, and clients' remapped `_R_.` replies);
        // NATS' allow_responses would do too, but tracks every reply subject the connection
        // receives, pulled JetStream messages included, which measurably slows the server
        "_INBOX.>",
        "_R_.>",
        ...pub,
      ],
      // an allow list: stream/consumer changes, deletes and purges are simply never listed
      deny: [...otherStageDurables(durables), ...consumersOnCallStream],
    },
    // every Warden process answers the NATS micro discovery requests ($SRV.PING/INFO/STATS) about itself
    sub: { allow: [INBOX, `${CALLS_SUBJECT_ROOT}.>`, SERVICE_DISCOVERY, ...sub], deny: [] },
  };
}

function executorPub(domains: readonly string[]): string[] {
  return domains.flatMap((d) => [
    callEvent(d, "ToolCallStarted"),
    // the outcome slot: a result, an outcome-unknown, or a refusal (a grant that does not hold)
    callEvent(d, OUTCOME_SLOT),
    callEvent(d, "ToolCallLateResult"),
    // the record of the checks of a result (outputSchema, verify), before its outcome
    callEvent(d, "ToolResultValidated"),
    `warden.registry.register.${d}`,
    `warden.registry.status.${d}`,
    // its heartbeat: the key of its own domain only
    `$KV.${BUCKET_EXECUTORS}.${d}`,
  ]);
}

function executorDurables(domains: readonly string[]): string[] {
  return domains.flatMap((d) => EXECUTOR_STAGES.map((stage) => consumerName(stage, d)));
}

const ARTIFACTS = [`$O.${OBJECT_STORE_ARTIFACTS}.>`];

/**
 * A client's replies arrive in the clients account, shared by every agent and person: with
 * `_INBOX.>` any of them would receive the answers to everyone's call reads, pending lists and
 * decisions. Each subscribes under its own prefix only (connectBus sets it from the credentials).
 */
function ownInbox(name: string): string {
  return `${inboxPrefixOf(name)}.>`;
}

/** What a caller may do: ask for calls as itself, cancel them, read its own calls, see its own ToolView. */
function callerPub(principal: string): string[] {
  return [
    `${CALLS_SUBJECT_ROOT}.*.*.ToolCallRequested.${principal}`,
    `${SUBJECT_CANCEL_ROOT}.${principal}.*`,
    `warden.calls.${principal}.*.*`,
    `warden.registry.view.${principal}`,
  ];
}

export function permissionsOf(spec: IdentitySpec): UserPermissions {
  switch (spec.kind) {
    case "agent":
      return { account: ACCOUNT_CLIENTS, pub: { allow: callerPub(spec.name), deny: [] }, sub: { allow: [ownInbox(spec.name), SUBJECT_REGISTRY_CHANGED], deny: [] } };
    case "human":
      return {
        account: ACCOUNT_CLIENTS,
        pub: {
          allow: [
            ...callerPub(spec.name),
            `${SUBJECT_DECIDE_ROOT}.${spec.name}.*`,
            `warden.approver.pending.${spec.name}`,
            `warden.approver.deliver.${spec.name}.*`,
            // their own calls listed and traced (the web inbox's Calls page); never another's
            ownCallsSubject(spec.name),
          ],
          deny: [],
        },
        sub: { allow: [ownInbox(spec.name), approverNotifyFilter(spec.name), SUBJECT_REGISTRY_CHANGED], deny: [] },
      };
    case "service":
      return serviceRole(spec.role);
    case "executor": {
      const durables = executorDurables(spec.domains);
      // answers the approver's dry-run requests for its own domains
      const p = service([...executorPub(spec.domains), ...ARTIFACTS, ...spec.buckets.flatMap(ownBucket)], spec.domains.map(executorPreviewSubject), durables);
      return p;
    }
    case "subagent": {
      const durables = executorDurables(spec.domains);
      return service(
        [
          ...executorPub(spec.domains),
          ...ARTIFACTS,
          ...spec.principals.flatMap(callerPub),
          `${CALLS_SUBJECT_ROOT}.*.*.ToolViewCompiled.*`,
        ],
        [],
        durables,
      );
    }
    case "auditor":
      // `warden status`: which services answer discovery (read-only); `warden audit export` asks the notary to seal the file
      return service([NOTARY_EXPORT_SEAL_SUBJECT, "$SRV.PING", "$SRV.INFO", "$SRV.STATS", "$SRV.PING.>", "$SRV.INFO.>", "$SRV.STATS.>", `${JS}.CONSUMER.LIST.*`, `${JS}.CONSUMER.NAMES.*`], [], []);
    case "policy-author":
      // the document only (not approver keys or anything else in the bucket), and its own change records
      return service([`$KV.${BUCKET_POLICY}.${POLICY_DOCUMENT_KEY}`, policyChangedSubject(spec.name)], [], []);
    case "admin":
      return { account: ACCOUNT_WARDEN, pub: { allow: [">"], deny: [] }, sub: { allow: [">"], deny: [] } };
  }
}

/** A bucket an executor keeps for its own domain state: it may create it and write it. */
function ownBucket(bucket: string): string[] {
  return [kvWrite(bucket), `${JS}.STREAM.CREATE.KV_${bucket}`];
}

function serviceRole(role: ServiceRole): UserPermissions {
  switch (role) {
    case "registry":
      return service(
        [callEvent("*", "ToolArgsValidated"), callEvent("*", "ToolCallRejected"), kvWrite(BUCKET_TOOLS), SUBJECT_REGISTRY_CHANGED],
        ["warden.registry.>", CALL_READ_SUBJECTS],
        [DURABLE_REGISTRY],
      );
    case "policy":
      return service(
        [callEvent("*", "ToolPolicyChecked"), callEvent("*", "ToolCallRejected"), kvWrite(BUCKET_BUDGETS)],
        [],
        [DURABLE_POLICY, ...Object.values(DURABLES_POLICY_SETTLE)],
      );
    case "approver":
      return service(
        [
          callEvent("*", "ApprovalRequested"),
          callEvent("*", "ApprovalGranted"),
          callEvent("*", "ApprovalDenied"),
          callEvent("*", "ApprovalExpired"),
          // a call refused for the approval quota (stage approver); it never meets a policy refusal,
          // which is only written on a deny, nor an outcome, which needs a grant
          callEvent("*", "ToolCallRejected"),
          // a ToolCallCancelled, in the claim slot an executor's ToolCallStarted would take
          callEvent("*", CLAIM_SLOT),
          // the revoke of a session grant, on the subjects of the call it was granted on
          callEvent("*", "SessionGrantRevoked"),
          // asks a domain's executors for a tool's dry run, for the approval card
          EXECUTOR_PREVIEW_SUBJECTS,
          kvWrite(BUCKET_APPROVAL_LOCKS),
          // where each person's durable deliveries stand (people never write it: they ask the approver)
          kvWrite(BUCKET_APPROVER_CURSORS),
          // tells each person who may decide a new request of it
          APPROVER_NOTIFY_SUBJECTS,
        ],
        [DECIDE_SUBJECTS, APPROVER_PENDING_SUBJECTS, APPROVER_DELIVER_SUBJECTS, CANCEL_SUBJECTS],
        [DURABLE_APPROVER],
      );
    case "projector":
      return service(
        // of warden_budgets, only its counters: the policy's ledgers, buckets and delegation counts decide, the projector may not refill them
        [kvWrite(BUCKET_CALLS), kvWrite(BUCKET_APPROVALS), ...PROJECTED_BUDGET_PREFIXES.map((p) => `$KV.${BUCKET_BUDGETS}.${p}.>`), kvWrite(BUCKET_PROJECTOR)],
        [],
        [DURABLE_PROJECTOR],
      );
    case "notary":
      // reads the call stream by direct gets; writes nothing but checkpoints, and answers exporters' seal requests
      return service([NOTARY_CHECKPOINT_SUBJECT], [NOTARY_EXPORT_SEAL_SUBJECT], []);
  }
}
