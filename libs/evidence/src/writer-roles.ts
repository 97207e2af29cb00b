import { type EventType, type WardenEvent } from "@warden/contracts/events";
import { parseCallSubject } from "@warden/contracts/subjects";
import { permissionsOf, type IdentitySpec } from "@warden/contracts/permissions";
import { subjectMatches } from "./subject-match.js";

/** Kinds of identity that write call events; the admin is left out on purpose (see whoMayWrite). */
export type WriterRole = "caller" | "registry" | "policy" | "approver" | "executor" | "subagent";

/**
 * Which role writes which event: the design's ownership of each step, independent of what the
 * permission matrix happens to allow. A refusal is written by the stage it names.
 */
const WRITERS: Readonly<Record<EventType, readonly WriterRole[]>> = {
  ToolCallRequested: ["caller", "subagent"],
  ToolArgsValidated: ["registry"],
  ToolCallRejected: [],
  ToolPolicyChecked: ["policy"],
  ApprovalRequested: ["approver"],
  ApprovalGranted: ["approver"],
  ApprovalDenied: ["approver"],
  ApprovalExpired: ["approver"],
  ToolCallStarted: ["executor", "subagent"],
  ToolCallFinished: ["executor", "subagent"],
  ToolCallOutcomeUnknown: ["executor", "subagent"],
  ToolViewCompiled: ["subagent"],
  ToolCallLateResult: ["executor", "subagent"],
  ToolResultValidated: ["executor", "subagent"],
  // the approver serves cancel requests; it shares the claim slot with ToolCallStarted
  ToolCallCancelled: ["approver"],
  SessionGrantRevoked: ["approver"],
};

const REJECTERS: Readonly<Record<"registry" | "policy" | "approver" | "executor", readonly WriterRole[]>> = {
  registry: ["registry"],
  policy: ["policy"],
  approver: ["approver"],
  executor: ["executor", "subagent"],
};

export function writersOf(event: WardenEvent): readonly WriterRole[] {
  return event.type === "ToolCallRejected" ? REJECTERS[event.data.stage] : WRITERS[event.type];
}

/**
 * The identities that the permission matrix lets publish on a call subject, as roles: for a
 * subject naming a domain and a principal, an executor of that domain, a caller of that name, and
 * so on. The admin may publish anywhere and is never a writer of call events: an event only the
 * admin could have written is a finding.
 */
export function whoMayWrite(subject: string): readonly WriterRole[] {
  const parsed = parseCallSubject(subject);
  if (parsed === undefined) return [];
  // the rows pin domain and principal to the subject's own, so the answer depends only on the slot
  const slot = subject.split(".")[4] ?? "";
  const known = bySlot.get(slot);
  if (known !== undefined) return known;
  const name = parsed.principal ?? "auditor-probe";
  const candidates: [WriterRole, IdentitySpec][] = [
    ["caller", { kind: "agent", name }],
    ["caller", { kind: "human", name }],
    ["registry", { kind: "service", name: "registry", role: "registry" }],
    ["policy", { kind: "service", name: "policy", role: "policy" }],
    ["approver", { kind: "service", name: "approver", role: "approver" }],
    ["executor", { kind: "executor", name: "executor", domains: [parsed.domain], buckets: [] }],
    ["subagent", { kind: "subagent", name: "subagent", domains: [parsed.domain], principals: [name] }],
  ];
  const roles = new Set<WriterRole>();
  for (const [role, spec] of candidates) {
    const { pub } = permissionsOf(spec);
    const allowed = pub.allow.some((p) => subjectMatches(p, subject)) && !pub.deny.some((p) => subjectMatches(p, subject));
    if (allowed) roles.add(role);
  }
  const out = [...roles];
  bySlot.set(slot, out);
  return out;
}

const bySlot = new Map<string, readonly WriterRole[]>();

/** Undefined when a role that may publish on the event's subject is one that writes such an event. */
export function writerProblem(subject: string, event: WardenEvent): string | undefined {
  const writers = writersOf(event);
  const may = whoMayWrite(subject);
  if (writers.some((w) => may.includes(w))) return undefined;
  const what = event.type === "ToolCallRejected" ? `a ${event.data.stage}-stage ToolCallRejected` : `a ${event.type}`;
  return `${what} is written by ${writers.join(" or ")}, but only ${may.length === 0 ? "the admin" : may.join(", ")} may publish on ${subject}`;
}
