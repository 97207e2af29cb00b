import { eventHash, type WardenEvent } from "@warden/contracts/events";
import { type PolicyDocumentInput } from "@warden/contracts/policy";
import { type AuditViolationKind, type CallViolationKind } from "@warden/contracts/read-models";
import { syntheticCall } from "./synthetic-calls.js";

/** The policy document the audit-only violations are judged against. */
export const CRAFTED_POLICY: PolicyDocumentInput = {
  version: "crafted-1",
  principals: {
    alice: { kind: "human", approves: ["write", "send"] },
    carol: { kind: "human", approves: ["write"] },
    dave: { kind: "human" },
    bot: { kind: "agent" },
    helper: { kind: "agent", approves: ["send"] },
  },
  budgets: { maxCallsPerRun: 2 },
};

function change<T extends WardenEvent["type"]>(events: WardenEvent[], type: T, edit: (e: Extract<WardenEvent, { type: T }>) => WardenEvent): WardenEvent[] {
  return events.map((e) => (e.type === type ? edit(e as Extract<WardenEvent, { type: T }>) : e));
}

const drop = (events: WardenEvent[], type: WardenEvent["type"]) => events.filter((e) => e.type !== type);

/** `events` and one more, 5 ms after the last, answering the first event of type `cause`: a second outcome, or one after the end. */
function answeredAgain(events: WardenEvent[], cause: WardenEvent["type"], again: Pick<WardenEvent, "type" | "eventId"> & { data: object }): WardenEvent[] {
  const answered = events.find((e) => e.type === cause)!;
  const last = events.at(-1)!;
  return [
    ...events,
    {
      ...last,
      ...again,
      ts: new Date(Date.parse(last.ts) + 5).toISOString(),
      causationId: answered.eventId,
      causeHash: eventHash(answered),
    } as WardenEvent,
  ];
}
const OTHER_HASH = `sha256:${"f".repeat(64)}`;

/**
 * A crafted stream for each violation kind: one or more calls whose events break exactly the
 * invariant named (others may follow from it). The call to look at is the first callId given.
 * Keyed by every kind of @warden/contracts' lists, so a kind added there without a stream here
 * fails to compile.
 */
export const CRAFTED_VIOLATIONS: Record<CallViolationKind | AuditViolationKind, (callId: string, runId: string) => WardenEvent[]> = {
  started_without_authorisation: (callId, runId) => drop(syntheticCall({ callId, runId, outcome: "succeeded" }), "ToolPolicyChecked"),
  send_without_grant: (callId, runId) => syntheticCall({ callId, runId, outcome: "succeeded", tool: "customer.message", grade: "send", mode: "plan" }),
  llm_send_allowed: (callId, runId) => syntheticCall({ callId, runId, outcome: "succeeded", tool: "customer.message", grade: "send", mode: "llm" }),
  grant_args_mismatch: (callId, runId) =>
    change(syntheticCall({ callId, runId, outcome: "approved", tool: "customer.message" }), "ApprovalGranted", (e) => ({ ...e, data: { ...e.data, argsHash: OTHER_HASH } })),
  grant_descriptor_mismatch: (callId, runId) =>
    change(syntheticCall({ callId, runId, outcome: "approved", tool: "customer.message" }), "ApprovalGranted", (e) => ({ ...e, data: { ...e.data, descriptorHash: OTHER_HASH } })),
  grant_without_request: (callId, runId) => drop(syntheticCall({ callId, runId, outcome: "approved", tool: "customer.message" }), "ApprovalRequested"),
  grant_expired_at_start: (callId, runId) =>
    change(syntheticCall({ callId, runId, outcome: "approved", tool: "customer.message" }), "ApprovalGranted", (e) => ({
      ...e,
      data: { ...e.data, expiresAt: new Date(Date.parse(e.data.grantedAt) - 60_000).toISOString() },
    })),
  binding_mismatch: (callId, runId) =>
    change(syntheticCall({ callId, runId, outcome: "succeeded" }), "ToolCallStarted", (e) => ({ ...e, data: { ...e.data, argsHash: OTHER_HASH } })),
  finished_twice: (callId, runId) => {
    const events = syntheticCall({ callId, runId, outcome: "succeeded" });
    const started = events.find((e) => e.type === "ToolCallStarted")!;
    return answeredAgain(events, "ToolCallStarted", {
      type: "ToolCallOutcomeUnknown",
      eventId: `${callId}-again`,
      data: { reason: "a second result", startedEventId: started.eventId, executorId: "ex9" },
    });
  },
  finished_without_start: (callId, runId) => drop(syntheticCall({ callId, runId, outcome: "succeeded" }), "ToolCallStarted"),
  truncated_without_artifact: (callId, runId) =>
    change(syntheticCall({ callId, runId, outcome: "succeeded" }), "ToolCallFinished", (e) => ({ ...e, data: { ...e.data, truncated: true, outputBytes: 1_000_000 } })),
  after_terminal: (callId, runId) => {
    const events = syntheticCall({ callId, runId, outcome: "approval_denied", tool: "customer.message" });
    return answeredAgain(events, "ApprovalRequested", { type: "ApprovalExpired", eventId: `${callId}-late`, data: { approvalId: `${callId}-a`, expiresAt: events.at(-1)!.ts } });
  },
  invalid_transition: (callId, runId) => drop(syntheticCall({ callId, runId, outcome: "succeeded" }), "ToolArgsValidated"),
  identity_mismatch: (callId, runId) => change(syntheticCall({ callId, runId, outcome: "succeeded" }), "ToolCallFinished", (e) => ({ ...e, principal: "mallory" })),
  child_not_llm: (callId, runId) => syntheticCall({ callId, runId, outcome: "succeeded", mode: "plan", parentCallId: `${callId}-parent` }),
  grant_approver_not_human: (callId, runId) => syntheticCall({ callId, runId, outcome: "approved", tool: "customer.message", approver: "helper" }),
  grant_approver_not_allowed: (callId, runId) => syntheticCall({ callId, runId, outcome: "approved", tool: "customer.message", approver: "carol" }),
  grant_by_requester: (callId, runId) => syntheticCall({ callId, runId, outcome: "approved", tool: "customer.message", principal: "alice", approver: "alice" }),
  budget_exceeded: (callId, runId) => [
    ...syntheticCall({ callId: `${callId}-1`, runId, outcome: "succeeded", at: new Date("2030-01-01T00:00:00.000Z") }),
    ...syntheticCall({ callId: `${callId}-2`, runId, outcome: "succeeded", at: new Date("2030-01-01T00:00:01.000Z") }),
    ...syntheticCall({ callId, runId, outcome: "succeeded", at: new Date("2030-01-01T00:00:02.000Z") }),
  ],
};
