import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AckPolicy, type ConsumerConfig } from "@nats-io/jetstream";
import { encodeJson, type Bus } from "@warden/bus";
import { newId, type EventType } from "@warden/contracts/events";
import {
  CALLS_SUBJECTS,
  APPROVER_PENDING_SUBJECTS,
  approverKeyKey,
  approverPendingSubject,
  approverCursorKey,
  approverDeliverSubject,
  APPROVER_DELIVER_SUBJECTS,
  approverNotifyFilter,
  approverNotifySubject,
  APPROVER_NOTIFY_SUBJECTS,
  BUCKET_APPROVAL_LOCKS,
  BUCKET_APPROVER_CURSORS,
  BUCKET_EXECUTORS,
  BUCKET_APPROVALS,
  BUCKET_BUDGETS,
  historyIndexKey,
  BUCKET_CALLS,
  BUCKET_POLICY,
  BUCKET_PROJECTOR,
  BUCKET_SKILLS,
  BUCKET_TOOLS,
  CALL_READ_SUBJECTS,
  callEventSubject,
  callReadSubject,
  consumerName,
  cancelSubject,
  decideSubject,
  executorPreviewSubject,
  DECIDE_SUBJECTS,
  inboxPrefixOf,
  OBJECT_STORE_ARTIFACTS,
  PROJECTOR_CURSOR_KEY,
  registryRegisterSubject,
  registryStatusSubject,
  registryViewSubject,
  stageFilterSubject,
  STREAM_CALLS,
  STREAM_DLQ,
  STREAM_NOTARY,
  NOTARY_CHECKPOINT_SUBJECT,
  NOTARY_EXPORT_SEAL_SUBJECT,
  ownCallsSubject,
  SUBJECT_REGISTRY_CHANGED,
  ledgerKey,
  policyChangedSubject,
  principalBudgetKey,
  rateBucketKey,
  runBudgetKey,
  skillKey,
  toolBudgetKey,
  STREAM_POLICY_CHANGES,
  SUBJECT_REGISTRY_LIST,
} from "@warden/contracts/subjects";
import {
  ACCOUNT_CLIENTS,
  ACCOUNT_WARDEN,
  DURABLE_APPROVER,
  DURABLE_POLICY,
  DURABLE_PROJECTOR,
  DURABLE_REGISTRY,
  DURABLES_POLICY_SETTLE,
  EXECUTOR_STAGES,
  IDENTITY_KINDS,
  IdentitySpecSchema,
  permissionsOf,
  SERVICE_ROLES,
  type IdentityKind,
  type IdentitySpecInput,
} from "@warden/contracts/permissions";
import { AGENT_DOMAIN, POLICY_DOCUMENT_KEY } from "@warden/contracts/policy";
import { startTestNats, type TestNats } from "@warden/testing";
import { rawRequest, refusedByServer, subscriptionRefused } from "./refusals.js";

/**
 * docs/security.md's permission matrix, role by role, against the server: every identity kind
 * (and every service role) connects with the credentials provisioning mints for it, tries each
 * operation, and the server must refuse exactly what the matrix forbids it. Only the call stream
 * and its buckets are needed, so no service runs here.
 */

/** The matrix's rows. A kind or service role added to the contracts without a row here fails the first test. */
type Label = "agent" | "human" | "registry" | "policy" | "approver" | "projector" | "notary" | "executor" | "subagent" | "auditor" | "policy-author" | "admin";

interface Role {
  readonly label: Label;
  readonly spec: IdentitySpecInput;
  /** The principal / approver / inbox token this identity is pinned to. */
  readonly self: string;
}

const EXECUTOR_DOMAIN = "kb";
const EXECUTOR_BUCKET = "matrix_kb_state";
const SUBAGENT_PRINCIPAL = "matrix-sub";

function rolesOf(kind: IdentityKind): Role[] {
  switch (kind) {
    case "agent":
      return [{ label: "agent", spec: { kind, name: "matrix-agent" }, self: "matrix-agent" }];
    case "human":
      return [{ label: "human", spec: { kind, name: "matrix-human" }, self: "matrix-human" }];
    case "service":
      return SERVICE_ROLES.map((role) => ({ label: role, spec: { kind, name: `matrix-${role}`, role }, self: `matrix-${role}` }));
    case "executor":
      return [{ label: "executor", spec: { kind, name: "matrix-executor", domains: [EXECUTOR_DOMAIN], buckets: [EXECUTOR_BUCKET] }, self: "matrix-executor" }];
    case "subagent":
      return [{ label: "subagent", spec: { kind, name: "matrix-subagent", domains: [AGENT_DOMAIN], principals: [SUBAGENT_PRINCIPAL] }, self: "matrix-subagent" }];
    case "auditor":
      return [{ label: "auditor", spec: { kind, name: "matrix-auditor" }, self: "matrix-auditor" }];
    case "policy-author":
      return [{ label: "policy-author", spec: { kind, name: "matrix-author" }, self: "matrix-author" }];
    case "admin":
      return [{ label: "admin", spec: { kind, name: "admin" }, self: "admin" }];
    default:
      throw new Error(`the permission matrix has no row for identity kind ${String(kind)}: add one (and to docs/security.md)`);
  }
}

const CLIENTS: readonly Label[] = ["agent", "human"];
const WARDEN_ACCOUNT: readonly Label[] = ["registry", "policy", "approver", "projector", "notary", "executor", "subagent", "auditor", "policy-author", "admin"];

const REQUEST_TIMEOUT_MS = 300;
const fresh = () => newId();

interface Op {
  readonly name: string;
  /** Who the matrix lets do it (the admin may do everything). */
  readonly allowed: readonly Label[];
  /** Changes or removes shared state: the admin's right to it is shown on scratch streams instead. */
  readonly destructive?: boolean;
  /** Resolves true when the server refused it. */
  refused(bus: Bus, role: Role): Promise<boolean>;
}

const publish = (name: string, allowed: readonly Label[], subject: (r: Role) => string, payload: unknown = {}, destructive = false): Op => ({
  name,
  allowed,
  destructive,
  refused: (bus, r) => refusedByServer(rawRequest(bus, subject(r), payload, { timeoutMs: REQUEST_TIMEOUT_MS })),
});

const subscribe = (name: string, allowed: readonly Label[], subject: (r: Role) => string): Op => ({
  name,
  allowed,
  refused: (bus, r) => subscriptionRefused(bus, subject(r)),
});

/** Writing one event type on a fresh call of `domain` (a request adds its principal token). */
const writeEvent = (type: EventType, domain: string, allowed: readonly Label[], suffix?: (r: Role) => string): Op =>
  publish(`write ${type} on warden.call.${domain}.>${suffix ? " (principal token)" : ""}`, allowed, (r) => callEventSubject(domain, fresh(), type, suffix?.(r)), {});

const OWN_DURABLES: Readonly<Record<string, Label>> = {
  [DURABLE_REGISTRY]: "registry",
  [DURABLE_POLICY]: "policy",
  [DURABLE_APPROVER]: "approver",
  [DURABLE_PROJECTOR]: "projector",
  ...Object.fromEntries(Object.values(DURABLES_POLICY_SETTLE).map((d) => [d, "policy"])),
  ...Object.fromEntries(EXECUTOR_STAGES.map((s) => [consumerName(s, EXECUTOR_DOMAIN), "executor"])),
  ...Object.fromEntries(EXECUTOR_STAGES.map((s) => [consumerName(s, AGENT_DOMAIN), "subagent"])),
};
const CORE_DURABLES: readonly string[] = [DURABLE_REGISTRY, DURABLE_POLICY, ...Object.values(DURABLES_POLICY_SETTLE), DURABLE_APPROVER, DURABLE_PROJECTOR];
const EXECUTOR_DURABLES = Object.keys(OWN_DURABLES).filter((d) => !CORE_DURABLES.includes(d));

function durableOps(durable: string, configOf: (d: string) => ConsumerConfig): Op[] {
  const owner = OWN_DURABLES[durable]!;
  return [
    publish(`pull from durable ${durable}`, [owner, "admin"], () => `$JS.API.CONSUMER.MSG.NEXT.${STREAM_CALLS}.${durable}`, { batch: 1, no_wait: true }),
    publish(`ack a message of durable ${durable}`, [owner, "admin"], () => `$JS.ACK.${STREAM_CALLS}.${durable}.1.1.1.1700000000000000000.0`, "+ACK"),
    publish(`delete durable ${durable}`, ["admin"], () => `$JS.API.CONSUMER.DELETE.${STREAM_CALLS}.${durable}`, {}, true),
    // the durable's own config, unchanged: a refusal is the server's, an allowed one changes nothing
    publish(`create or update durable ${durable}`, ["admin"], () => `$JS.API.CONSUMER.CREATE.${STREAM_CALLS}.${durable}`, { stream_name: STREAM_CALLS, config: configOf(durable) }),
    publish(`create or update durable ${durable} through the subject that names it`, [owner, "admin"], () => `$JS.API.CONSUMER.DURABLE.CREATE.${STREAM_CALLS}.${durable}`, {
      stream_name: STREAM_CALLS,
      config: configOf(durable),
    }),
    publish(`create durable ${durable} with its name in the body`, ["admin"], () => `$JS.API.CONSUMER.CREATE.${STREAM_CALLS}`, {
      stream_name: STREAM_CALLS,
      config: { ...configOf(durable), durable_name: undefined, name: durable },
    }),
  ];
}

function operations(configOf: (d: string) => ConsumerConfig): Op[] {
  const eventsOf = (domain: string, writer: readonly Label[]) => [
    // ToolCallFinished stands for the outcome slot that ToolCallOutcomeUnknown and the executor's refusal share
    ...(["ToolCallFinished", "ToolCallLateResult", "ToolResultValidated"] as const).map((t) => writeEvent(t, domain, writer)),
    // the claim slot: the executor's ToolCallStarted, or the approver's ToolCallCancelled that keeps it from starting
    writeEvent("ToolCallStarted", domain, [...writer, "approver"]),
  ];
  return [
    // each event type has exactly one writer role
    writeEvent("ToolCallRequested", "kb", ["agent", "human", "admin"], (r) => r.self),
    writeEvent("ToolCallRequested", "kb", ["admin"], () => "alice"),
    writeEvent("ToolCallRequested", "kb", ["subagent", "admin"], () => SUBAGENT_PRINCIPAL),
    writeEvent("ToolArgsValidated", "kb", ["registry", "admin"]),
    // a stage's refusal; the executor refuses in the outcome slot
    writeEvent("ToolCallRejected", "kb", ["registry", "policy", "approver", "admin"]),
    writeEvent("ToolPolicyChecked", "kb", ["policy", "admin"]),
    ...(["ApprovalRequested", "ApprovalGranted", "ApprovalDenied", "ApprovalExpired", "SessionGrantRevoked"] as const).map((t) => writeEvent(t, "kb", ["approver", "admin"])),
    ...(["ApprovalGranted", "SessionGrantRevoked"] as const).map((t) => writeEvent(t, "customer", ["approver", "admin"])),
    ...eventsOf(EXECUTOR_DOMAIN, ["executor", "admin"]),
    ...eventsOf("customer", ["admin"]),
    ...eventsOf(AGENT_DOMAIN, ["subagent", "admin"]),
    writeEvent("ToolViewCompiled", AGENT_DOMAIN, ["subagent", "admin"], () => "t1"),

    // decisions and the approval inbox: people, as themselves
    publish("decide as itself", ["human", "admin"], (r) => decideSubject(r.self, fresh())),
    publish("decide as alice", ["admin"], () => decideSubject("alice", fresh())),
    publish("list its own pending approvals", ["human", "admin"], (r) => approverPendingSubject(r.self)),
    // cancels: a caller for itself (the approver checks it is the requester or an operator)
    publish("cancel a call as itself", ["agent", "human", "admin"], (r) => cancelSubject(r.self, fresh())),
    publish("cancel a call as alice", ["admin"], () => cancelSubject("alice", fresh())),
    publish("list alice's pending approvals", ["admin"], () => approverPendingSubject("alice")),
    // durable deliveries: a person moves only their own
    publish("ask for its own durable delivery", ["human", "admin"], (r) => approverDeliverSubject(r.self, "phone")),
    publish("ask for alice's durable delivery", ["admin"], () => approverDeliverSubject("alice", "phone")),
    // people hear of new requests only on their own notice subject: the call stream's requests are the Warden account's
    subscribe("watch approval requests", WARDEN_ACCOUNT, () => stageFilterSubject("ApprovalRequested")),
    subscribe("hear of the approvals it may decide", ["human", "admin"], (r) => approverNotifyFilter(r.self)),
    subscribe("hear of the approvals alice may decide", ["admin"], () => approverNotifyFilter("alice")),
    subscribe("hear of everyone's approvals", ["admin"], () => APPROVER_NOTIFY_SUBJECTS),
    publish("tell alice of an approval", ["approver", "admin"], () => approverNotifySubject("alice", fresh())),
    // NATS micro discovery: every Warden process answers for itself; only auditors (warden status) and the admin ask
    subscribe("answer service discovery", WARDEN_ACCOUNT, () => "$SRV.INFO"),
    publish("ask which services run", ["auditor", "admin"], () => "$SRV.INFO"),
    publish("list the call stream's consumers (their lag)", ["auditor", "admin"], () => `$JS.API.CONSUMER.LIST.${STREAM_CALLS}`, {}),
    // a tool's dry run for the approval card: the approver asks, the domain's executors answer
    publish("ask kb's executors for a dry run", ["approver", "admin"], () => executorPreviewSubject(EXECUTOR_DOMAIN)),
    subscribe("answer kb's dry runs", ["executor", "admin"], () => executorPreviewSubject(EXECUTOR_DOMAIN)),
    subscribe("answer customer's dry runs", ["admin"], () => executorPreviewSubject("customer")),

    // tools: the registry's callers
    publish("register kb tools", ["executor", "admin"], () => registryRegisterSubject(EXECUTOR_DOMAIN)),
    publish("register customer tools", ["admin"], () => registryRegisterSubject("customer")),
    publish("change the status of kb tools", ["executor", "admin"], () => registryStatusSubject(EXECUTOR_DOMAIN)),
    publish("change the status of customer tools", ["admin"], () => registryStatusSubject("customer")),
    publish("list every tool", WARDEN_ACCOUNT, () => SUBJECT_REGISTRY_LIST),
    publish("ask for its own ToolView", ["agent", "human", "admin"], (r) => registryViewSubject(r.self)),
    publish("ask for alice's ToolView", ["admin"], () => registryViewSubject("alice")),
    // the registry's cue that views may have changed: only it announces; callers (and the registry) listen
    publish("announce a registry change", ["registry", "admin"], () => SUBJECT_REGISTRY_CHANGED),
    subscribe("watch registry changes", ["agent", "human", "registry", "admin"], () => SUBJECT_REGISTRY_CHANGED),

    // reading calls: one's own only
    publish("read its own call", ["agent", "human", "admin"], (r) => callReadSubject(r.self, "kb", fresh())),
    publish("read alice's call", ["admin"], () => callReadSubject("alice", "kb", fresh())),
    publish("read a subagent principal's call", ["subagent", "admin"], () => callReadSubject(SUBAGENT_PRINCIPAL, "kb", fresh())),
    // a person's own calls listed and traced (the web inbox's Calls page): people only, as themselves
    publish("list and trace its own calls", ["human", "admin"], (r) => ownCallsSubject(r.self), { kind: "list" }),
    publish("list and trace alice's calls", ["admin"], () => ownCallsSubject("alice"), { kind: "list" }),
    subscribe("subscribe to the call stream", WARDEN_ACCOUNT, () => "warden.call.>"),
    subscribe("subscribe to its own inbox", [...CLIENTS, ...WARDEN_ACCOUNT], (r) => `${inboxPrefixOf(r.self)}.>`),
    subscribe("subscribe to every inbox", WARDEN_ACCOUNT, () => "_INBOX.>"),
    subscribe("subscribe to another client's inbox", WARDEN_ACCOUNT, () => `${inboxPrefixOf("alice")}.>`),
    subscribe("serve decisions", ["approver", "admin"], () => DECIDE_SUBJECTS),
    subscribe("serve pending approvals", ["approver", "admin"], () => APPROVER_PENDING_SUBJECTS),
    subscribe("serve durable deliveries", ["approver", "admin"], () => APPROVER_DELIVER_SUBJECTS),
    subscribe("serve call reads", ["registry", "admin"], () => CALL_READ_SUBJECTS),
    subscribe("serve the registry", ["registry", "admin"], () => "warden.registry.>"),

    // streams and buckets: only the admin changes them
    publish("read WARDEN_CALLS' info", WARDEN_ACCOUNT, () => `$JS.API.STREAM.INFO.${STREAM_CALLS}`),
    publish("get a message of WARDEN_CALLS directly", WARDEN_ACCOUNT, () => `$JS.API.DIRECT.GET.${STREAM_CALLS}`, { seq: 1 }),
    publish("update WARDEN_CALLS", ["admin"], () => `$JS.API.STREAM.UPDATE.${STREAM_CALLS}`, { name: STREAM_CALLS, subjects: ["warden.call.>"], max_msgs_per_subject: 5 }, true),
    publish("delete WARDEN_CALLS", ["admin"], () => `$JS.API.STREAM.DELETE.${STREAM_CALLS}`, {}, true),
    publish("purge WARDEN_CALLS", ["admin"], () => `$JS.API.STREAM.PURGE.${STREAM_CALLS}`, {}, true),
    publish("delete a message of WARDEN_CALLS", ["admin"], () => `$JS.API.STREAM.MSG.DELETE.${STREAM_CALLS}`, { seq: 1 }, true),
    // the notary's checkpoints: only the notary writes them, everyone in the Warden account reads them
    publish("write a notary checkpoint", ["notary", "admin"], () => NOTARY_CHECKPOINT_SUBJECT),
    // an export's trailer: the auditor's export asks, only the notary answers
    publish("ask the notary to seal an export", ["auditor", "admin"], () => NOTARY_EXPORT_SEAL_SUBJECT),
    subscribe("answer export seal requests", ["notary", "admin"], () => NOTARY_EXPORT_SEAL_SUBJECT),
    publish("get a checkpoint of WARDEN_NOTARY directly", WARDEN_ACCOUNT, () => `$JS.API.DIRECT.GET.${STREAM_NOTARY}`, { seq: 1 }),
    publish("delete WARDEN_NOTARY", ["admin"], () => `$JS.API.STREAM.DELETE.${STREAM_NOTARY}`, {}, true),
    publish("delete a checkpoint of WARDEN_NOTARY", ["admin"], () => `$JS.API.STREAM.MSG.DELETE.${STREAM_NOTARY}`, { seq: 1 }, true),
    publish("create a stream", ["admin"], () => "$JS.API.STREAM.CREATE.MATRIX_NEW", {}, true),
    publish("delete the DLQ", ["admin"], () => `$JS.API.STREAM.DELETE.${STREAM_DLQ}`, {}, true),
    ...[BUCKET_TOOLS, BUCKET_POLICY, BUCKET_SKILLS, BUCKET_APPROVAL_LOCKS, BUCKET_PROJECTOR, BUCKET_APPROVER_CURSORS].map((b) => publish(`delete bucket ${b}`, ["admin"], () => `$JS.API.STREAM.DELETE.KV_${b}`, {}, true)),
    publish("delete the artifact store", ["admin"], () => `$JS.API.STREAM.DELETE.OBJ_${OBJECT_STORE_ARTIFACTS}`, {}, true),
    // an executor's own bucket: it may create it (an empty body is an API error, not a refusal) and write it
    publish("create its domain's own bucket", ["executor", "admin"], () => `$JS.API.STREAM.CREATE.KV_${EXECUTOR_BUCKET}`, {}),
    publish("delete its domain's own bucket", ["admin"], () => `$JS.API.STREAM.DELETE.KV_${EXECUTOR_BUCKET}`, {}, true),
    publish("write its domain's own bucket", ["executor", "admin"], () => `$KV.${EXECUTOR_BUCKET}.state`),
    // heartbeats: an executor says only that its own domain is live
    publish("write the kb executor heartbeat", ["executor", "admin"], () => `$KV.${BUCKET_EXECUTORS}.${EXECUTOR_DOMAIN}`),
    publish("write the customer executor heartbeat", ["admin"], () => `$KV.${BUCKET_EXECUTORS}.customer`),
    publish("write the subagent domain's heartbeat", ["subagent", "admin"], () => `$KV.${BUCKET_EXECUTORS}.${AGENT_DOMAIN}`),

    // state that decides: the policy document, the approver's locks, the read models, the cursor
    publish("write the policy document", ["policy-author", "admin"], () => `$KV.${BUCKET_POLICY}.${POLICY_DOCUMENT_KEY}`, {}, true),
    // who changed it: each author only under its own name (the admin, the root, under any)
    publish("record a policy change as itself", ["policy-author", "admin"], (r) => policyChangedSubject(r.self)),
    publish("record a policy change as dana", ["admin"], () => policyChangedSubject("dana")),
    publish("get a policy change record directly", WARDEN_ACCOUNT, () => `$JS.API.DIRECT.GET.${STREAM_POLICY_CHANGES}`, { seq: 1 }),
    publish("delete WARDEN_POLICY_CHANGES", ["admin"], () => `$JS.API.STREAM.DELETE.${STREAM_POLICY_CHANGES}`, {}, true),
    publish("purge WARDEN_POLICY_CHANGES", ["admin"], () => `$JS.API.STREAM.PURGE.${STREAM_POLICY_CHANGES}`, {}, true),
    publish("write an approver key into warden_policy", ["admin"], () => `$KV.${BUCKET_POLICY}.${approverKeyKey("matrix")}`),
    publish("write a tool descriptor", ["registry", "admin"], () => `$KV.${BUCKET_TOOLS}.kb.search.9.9.9`),
    // skills: the operator adds them (`warden skills add`); services read them, nobody else writes
    publish("write a skill", ["admin"], () => `$KV.${BUCKET_SKILLS}.${skillKey("matrix", "9.9.9")}`),
    publish("get a skill directly", WARDEN_ACCOUNT, () => `$JS.API.DIRECT.GET.KV_${BUCKET_SKILLS}`, { last_by_subj: `$KV.${BUCKET_SKILLS}.${skillKey("matrix", "9.9.9")}` }),
    publish("write an approval lock", ["approver", "admin"], () => `$KV.${BUCKET_APPROVAL_LOCKS}.${fresh()}`),
    publish("move a person's delivery cursor", ["approver", "admin"], () => `$KV.${BUCKET_APPROVER_CURSORS}.${approverCursorKey("alice", "phone")}`),
    publish("write the projected approval inbox", ["projector", "admin"], () => `$KV.${BUCKET_APPROVALS}.${fresh()}`),
    publish("write the projected calls", ["projector", "admin"], () => `$KV.${BUCKET_CALLS}.${fresh()}`),
    publish("write budgets", ["policy", "admin"], () => `$KV.${BUCKET_BUDGETS}.${fresh()}`),
    // the projector keeps its counters; the ledgers, rate buckets and delegation counts that decide are the policy's
    ...[runBudgetKey(fresh()), toolBudgetKey("kb.search"), principalBudgetKey(fresh())].map((k) => publish(`write the projected budget counter ${k.split(".")[0]!}.*`, ["policy", "projector", "admin"], () => `$KV.${BUCKET_BUDGETS}.${k}`)),
    publish("write a ledger budget", ["policy", "admin"], () => `$KV.${BUCKET_BUDGETS}.${ledgerKey("matrix", fresh())}`),
    publish("write a rate bucket", ["policy", "admin"], () => `$KV.${BUCKET_BUDGETS}.${rateBucketKey(fresh())}`),
    publish("write the history index", ["policy", "admin"], () => `$KV.${BUCKET_BUDGETS}.${historyIndexKey("0123456789abcdef0123456789abcdef")}`),
    publish("move the projector's cursor", ["projector", "admin"], () => `$KV.${BUCKET_PROJECTOR}.${PROJECTOR_CURSOR_KEY}`, {}, true),
    publish("store an artifact", ["executor", "subagent", "admin"], () => `$O.${OBJECT_STORE_ARTIFACTS}.C.${fresh()}`),
    // reading one (`warden artifact get`, an executor's own reads): its metadata, then its chunks through an ordered consumer
    publish("read an artifact's metadata", WARDEN_ACCOUNT, () => `$JS.API.STREAM.MSG.GET.OBJ_${OBJECT_STORE_ARTIFACTS}`, { last_by_subj: `$O.${OBJECT_STORE_ARTIFACTS}.M.${fresh()}` }),
    publish("get an artifact's metadata directly", WARDEN_ACCOUNT, () => `$JS.API.DIRECT.GET.OBJ_${OBJECT_STORE_ARTIFACTS}`, { last_by_subj: `$O.${OBJECT_STORE_ARTIFACTS}.M.${fresh()}` }),
    publish("read an artifact's chunks", WARDEN_ACCOUNT, () => `$JS.API.CONSUMER.CREATE.OBJ_${OBJECT_STORE_ARTIFACTS}.${fresh()}.$O.${OBJECT_STORE_ARTIFACTS}.C.${fresh()}`, {}),

    // a consumer of one's own on the call stream, as ordered reads made them: nobody's but the admin's
    publish("create a consumer on the call stream", ["admin"], () => `$JS.API.CONSUMER.CREATE.${STREAM_CALLS}.matrix-reader.${CALLS_SUBJECTS}`, {
      stream_name: STREAM_CALLS,
      config: { name: "matrix-reader", filter_subject: CALLS_SUBJECTS, deliver_policy: "all", ack_policy: "none", inactive_threshold: 1_000_000_000 },
    }),
    // the stages' durables: only the owner pulls, acks, and (re)creates; only the admin deletes
    ...Object.keys(OWN_DURABLES).flatMap((d) => durableOps(d, configOf)),
  ];
}

const ROLES: Role[] = IDENTITY_KINDS.flatMap(rolesOf);

describe("the permission matrix, role by role, enforced by the server", () => {
  let nats: TestNats;
  let admin: Bus;
  const buses = new Map<Label, Bus>();
  const configs = new Map<string, ConsumerConfig>();
  const configOf = (d: string) => configs.get(d)!;

  beforeAll(async () => {
    nats = await startTestNats();
    admin = await nats.bus("matrix-admin");
    // the stages' durables as the services make them
    const filters: Record<string, string> = {
      [DURABLE_REGISTRY]: stageFilterSubject("ToolCallRequested"),
      [DURABLE_POLICY]: stageFilterSubject("ToolArgsValidated"),
      [DURABLES_POLICY_SETTLE.Outcome]: stageFilterSubject("ToolCallFinished"),
      [DURABLES_POLICY_SETTLE.ToolCallRejected]: stageFilterSubject("ToolCallRejected"),
      [DURABLES_POLICY_SETTLE.ApprovalDenied]: stageFilterSubject("ApprovalDenied"),
      [DURABLES_POLICY_SETTLE.ApprovalExpired]: stageFilterSubject("ApprovalExpired"),
      [DURABLE_APPROVER]: stageFilterSubject("ToolPolicyChecked"),
      [DURABLE_PROJECTOR]: "warden.call.>",
      ...Object.fromEntries(
        [EXECUTOR_DOMAIN, AGENT_DOMAIN].flatMap((d) => [
          [consumerName("executor-allowed", d), stageFilterSubject("ToolPolicyChecked", d)],
          [consumerName("executor-granted", d), stageFilterSubject("ApprovalGranted", d)],
        ]),
      ),
    };
    for (const [durable, filter] of Object.entries(filters)) {
      const info = await admin.jsm.consumers.add(STREAM_CALLS, { durable_name: durable, filter_subject: filter, ack_policy: AckPolicy.Explicit });
      configs.set(durable, info.config);
    }
    for (const role of ROLES) buses.set(role.label, role.label === "admin" ? admin : await nats.connectAs(role.spec));
  });
  afterAll(async () => nats.stop());

  it("has a row for every identity kind and every service role the contracts define", () => {
    expect(ROLES.map((r) => r.label).sort()).toEqual([...IDENTITY_KINDS.filter((k) => k !== "service"), ...SERVICE_ROLES].sort());
    expect(new Set(ROLES.map((r) => r.spec.kind))).toEqual(new Set(IDENTITY_KINDS));
    // and each row lives in the account the matrix puts it in: people and agents only reach Warden through its exports
    for (const role of ROLES) {
      expect(permissionsOf(IdentitySpecSchema.parse(role.spec)).account, role.label).toBe(CLIENTS.includes(role.label) ? ACCOUNT_CLIENTS : ACCOUNT_WARDEN);
    }
  });

  for (const role of ROLES) {
    it(`refuses the ${role.label} every operation the matrix forbids it, and lets through what it allows`, async () => {
      const bus = buses.get(role.label)!;
      const expected: Record<string, string> = {};
      const actual: Record<string, string> = {};
      for (const op of operations(configOf)) {
        if (role.label === "admin" && op.destructive) continue;
        expected[op.name] = role.label === "admin" || op.allowed.includes(role.label) ? "allowed" : "refused";
        actual[op.name] = (await op.refused(bus, role)) ? "refused" : "allowed";
      }
      expect(actual).toEqual(expected);
      expect(Object.values(expected)).toContain("allowed");
    });
  }

  /** One piece of each role's own work, done for real. */
  const WORK: Record<Label, { what: string; run: (bus: Bus, role: Role) => Promise<unknown> }> = {
    agent: { what: "asks for a call as itself", run: (bus, r) => appended(bus, callEventSubject("kb", fresh(), "ToolCallRequested", r.self)) },
    human: { what: "asks for a call as itself", run: (bus, r) => appended(bus, callEventSubject("kb", fresh(), "ToolCallRequested", r.self)) },
    registry: { what: "writes a ToolArgsValidated", run: (bus) => appended(bus, callEventSubject("kb", fresh(), "ToolArgsValidated")) },
    policy: { what: "writes a ToolPolicyChecked", run: (bus) => appended(bus, callEventSubject("kb", fresh(), "ToolPolicyChecked")) },
    approver: { what: "writes an ApprovalGranted", run: (bus) => appended(bus, callEventSubject("kb", fresh(), "ApprovalGranted")) },
    projector: {
      what: "moves its cursor",
      run: async (bus) => expect((await (await bus.kvm.open(BUCKET_PROJECTOR)).put(PROJECTOR_CURSOR_KEY, JSON.stringify({ seq: 1 }))) > 0).toBe(true),
    },
    notary: { what: "appends a checkpoint", run: async (bus) => expect((await bus.js.publish(NOTARY_CHECKPOINT_SUBJECT, encodeJson({ matrix: true }))).stream).toBe(STREAM_NOTARY) },
    executor: { what: "writes a ToolCallFinished in its domain", run: (bus) => appended(bus, callEventSubject(EXECUTOR_DOMAIN, fresh(), "ToolCallFinished")) },
    subagent: { what: "records a ToolViewCompiled", run: (bus) => appended(bus, callEventSubject(AGENT_DOMAIN, fresh(), "ToolViewCompiled", "t1")) },
    auditor: { what: "reads the call stream's state", run: async (bus) => expect((await bus.jsm.streams.info(STREAM_CALLS)).config.name).toBe(STREAM_CALLS) },
    "policy-author": {
      what: "records a policy change under its own name",
      run: async (bus, r) => expect((await bus.js.publish(policyChangedSubject(r.self), encodeJson({ matrix: true }))).stream).toBe(STREAM_POLICY_CHANGES),
    },
    admin: {
      what: "creates, updates and deletes a stream and a bucket",
      run: async (bus) => {
        await bus.jsm.streams.add({ name: "MATRIX_SCRATCH", subjects: ["matrix.scratch.>"] });
        await bus.jsm.streams.update("MATRIX_SCRATCH", { subjects: ["matrix.scratch.>"], max_msgs_per_subject: 5 });
        expect(await bus.jsm.streams.delete("MATRIX_SCRATCH")).toBe(true);
        const kv = await bus.kvm.create("matrix_scratch");
        await kv.put("k", "v");
        await kv.destroy();
      },
    },
  };

  async function appended(bus: Bus, subject: string): Promise<void> {
    const ack = await bus.js.publish(subject, encodeJson({ matrix: true }));
    expect(ack.stream).toBe(STREAM_CALLS);
  }

  for (const role of ROLES) {
    it(`lets the ${role.label} do its own work: it ${WORK[role.label].what}`, async () => {
      await WORK[role.label].run(buses.get(role.label)!, role);
    });
  }

  // issue 25 item 7: the readers of call histories (approver, subagent, auditor, notary, policy
  // authors) read by direct gets, so the forms that name a consumer on the call stream are theirs
  // no more: an executor's durable is its own (this was an expected-fail test until then)
  it("lets no role but the admin create or update another's durable by name, the readers of call histories included", async () => {
    const readers: readonly Label[] = ["approver", "subagent", "auditor", "notary", "policy-author"];
    const cells = ROLES.filter((role) => readers.includes(role.label)).flatMap((role) =>
      EXECUTOR_DURABLES.filter((d) => OWN_DURABLES[d] !== role.label).flatMap((d) => operations(configOf).filter((op) => op.name === `create or update durable ${d}`).map((op) => ({ role, op }))),
    );
    expect(cells.length).toBeGreaterThan(0);
    for (const { role, op } of cells) expect(await op.refused(buses.get(role.label)!, role), `${role.label}: ${op.name}`).toBe(true);
  });
});
