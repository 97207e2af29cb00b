import type { CallMode, Grade, PolicyDocument } from "@warden/contracts";
import { anyGlob } from "./glob.js";
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

/** Distinct approvers an approval of this tool and grade needs: the first `approvalQuorum` entry that matches, else 1. */
export function quorumOf(doc: PolicyDocument, tool: string, grade: Grade): number {
  const q = doc.approvalQuorum?.find((e) => anyGlob(e.tool, tool) && (e.grade === undefined || e.grade.includes(grade)));
  return q?.approvers ?? 1;
}
