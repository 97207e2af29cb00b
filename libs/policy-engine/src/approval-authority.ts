import type { ActionType, CallMode, Grade, PermissionLevel } from "@warden/contracts/descriptor";
import type { ApprovalQuorum, PolicyDocument } from "@warden/contracts/policy";
import type { JsonValue } from "@warden/contracts/json";
import { anyGlob } from "./glob.js";
import { checkCondition, conditionText } from "./quorum-condition.js";
import { isNamed, isNamedHuman, principalOf } from "./principals.js";

export interface ApprovalFacts {
  readonly grade: Grade;
  readonly mode: CallMode;
  readonly requester: string;
  readonly requesterMayConfirm: boolean;
  /** The principals of the delegating calls above the requester: none of them may approve. */
  readonly chain?: readonly string[];
}

/** Who may decide an approval: the requester in human mode, else a human allowed for the grade. */
export function mayDecide(doc: PolicyDocument, approver: string, a: ApprovalFacts): { ok: true } | { ok: false; reason: string } {
  // the requester confirms their own call in human mode, only if the document names them a person
  if (a.requesterMayConfirm && approver === a.requester && isNamedHuman(doc, approver)) return { ok: true };
  const p = principalOf(doc, approver);
  if (p.kind !== "human") {
    const who = isNamed(doc, approver) ? `${p.kind}` : "not named in the policy document, so an agent";
    return { ok: false, reason: `${approver} is not a person (${who}); only a person may approve` };
  }
  // the requester confirms only where requesterMayConfirm says so (their own button, mode human)
  if (approver === a.requester) return { ok: false, reason: `${approver} requested this call and may not approve it` };
  // separation of duties: whoever delegated the task that asks may not approve what it asks
  if (a.chain?.includes(approver)) return { ok: false, reason: `${approver} delegated the task that made this call and may not approve it` };
  if (!p.approves.includes(a.grade)) return { ok: false, reason: `${approver} may not approve ${a.grade} calls` };
  return { ok: true };
}

/** What decides how many people an approval needs: the call's tool, grade, level, action type and args. */
export interface QuorumFacts {
  readonly tool: string;
  readonly grade: Grade;
  /** The tool's level (declared or derived); undefined when the tool's descriptor is not known. */
  readonly level?: PermissionLevel | undefined;
  readonly actionType?: ActionType | undefined;
  /** The args that would run (for entries with `when`); an entry with `when` never matches without them. */
  readonly args?: JsonValue | undefined;
}

/** How many distinct people must grant, and the entry (or default) that says so, with why. */
export interface Quorum {
  readonly approvers: number;
  /** An entry's `id`, `approvalQuorum[<index>]`, or `default.quorum` / `default.quorum.L5`. */
  readonly ruleId: string;
  readonly reason: string;
}

/** The quorum of an L5 call when no entry that names L5 says otherwise: two distinct people. */
export const L5_QUORUM = 2;
export const QUORUM_RULES = { default: "default.quorum", l5: "default.quorum.L5" } as const;

/**
 * Distinct approvers an approval needs: the first `approvalQuorum` entry that matches, else 1. An
 * L5 call (destructive or admin) needs at least 2 (`default.quorum.L5`): an entry may ask more,
 * and only one that names `level: L5` itself (with the id and reason the document then requires)
 * may ask fewer, so a broad `grade: send, approvers: 1` never loosens it by accident.
 */
export function quorumOf(doc: PolicyDocument, f: QuorumFacts): Quorum {
  const entries = doc.approvalQuorum ?? [];
  let found: Quorum | undefined;
  let entry: ApprovalQuorum | undefined;
  for (const [index, e] of entries.entries()) {
    if (!quorumMatches(e, f)) continue;
    // a condition on the args reads aloud with the value it met, so the card says why
    const met = e.when === undefined ? "" : ` (${checkCondition(e.when, f.args).text})`;
    found = { approvers: e.approvers, ruleId: e.id ?? `approvalQuorum[${index}]`, reason: `${e.reason ?? matchText(e)}${met}` };
    entry = e;
    break;
  }
  if (f.level !== "L5") return found ?? { approvers: 1, ruleId: QUORUM_RULES.default, reason: "one person decides (no approvalQuorum entry matches)" };
  if (found !== undefined && (found.approvers >= L5_QUORUM || entry?.level?.includes("L5") === true)) return found;
  const ignored = found === undefined ? "" : ` (${found.ruleId} asks ${found.approvers}, but only an entry that names level L5 may ask fewer for it)`;
  return { approvers: L5_QUORUM, ruleId: QUORUM_RULES.l5, reason: `destructive or admin (L5): two distinct people confirm it${ignored}` };
}

function quorumMatches(e: ApprovalQuorum, f: QuorumFacts): boolean {
  return (
    anyGlob(e.tool, f.tool) &&
    (e.grade === undefined || e.grade.includes(f.grade)) &&
    (e.level === undefined || (f.level !== undefined && e.level.includes(f.level))) &&
    (e.actionType === undefined || (f.actionType !== undefined && e.actionType.includes(f.actionType))) &&
    (e.when === undefined || checkCondition(e.when, f.args).holds)
  );
}

/** An entry without a reason explained by what it matched. */
function matchText(e: ApprovalQuorum): string {
  const parts = [
    ...(e.tool === undefined ? [] : [`tool ${e.tool.join("/")}`]),
    ...(e.grade === undefined ? [] : [`grade ${e.grade.join("/")}`]),
    ...(e.level === undefined ? [] : [`level ${e.level.join("/")}`]),
    ...(e.actionType === undefined ? [] : [`action ${e.actionType.join("/")}`]),
    ...(e.when === undefined ? [] : [`when ${conditionText(e.when)}`]),
  ];
  return `${e.approvers} distinct approver${e.approvers === 1 ? "" : "s"} for ${parts.length === 0 ? "every call" : parts.join(", ")}`;
}
