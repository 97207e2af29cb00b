import type { WardenEvent } from "@warden/contracts/events";
import type { PolicyDocument } from "@warden/contracts/policy";
import { mayDecide } from "@warden/policy-engine";
import { authorityFacts } from "./who-may-decide.js";

/**
 * Whether `person` may read a call's timeline through the approver: they granted it (alone, in a
 * quorum, or by a session grant they made), denied it, or the document lets them decide its
 * approval while it is still open. Anyone else is told there is no such call, so asking says nothing about calls that
 * are not theirs to see.
 */
export function mayReadTrace(doc: PolicyDocument, person: string, events: readonly WardenEvent[]): boolean {
  // may decide counts while the approval is open: once another person decided it, what came of the call is theirs to see
  const settled = events.some((e) => e.type === "ApprovalGranted" || e.type === "ApprovalDenied" || e.type === "ApprovalExpired");
  return events.some((e) => {
    switch (e.type) {
      case "ApprovalGranted":
        return e.data.approver === person || (e.data.coApprovers ?? []).some((c) => c.approver === person);
      case "ApprovalDenied":
        return e.data.approver === person;
      case "ApprovalRequested":
        return !settled && mayDecide(doc, person, authorityFacts(e)).ok;
      default:
        return false;
    }
  });
}
