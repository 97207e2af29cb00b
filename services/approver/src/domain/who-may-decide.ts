import type { ApprovalRequested } from "@warden/contracts/events";
import type { PolicyDocument } from "@warden/contracts/policy";
import { mayDecide, type ApprovalFacts } from "@warden/policy-engine";

/** What decides who may decide a request: the same facts for the inbox, durable deliveries and notices. */
export function authorityFacts(r: ApprovalRequested): ApprovalFacts {
  return {
    grade: r.data.grade,
    mode: r.mode,
    requester: r.principal,
    requesterMayConfirm: r.data.approvers.requesterMayConfirm,
    chain: (r.data.chain ?? []).map((l) => l.principal),
  };
}

/**
 * Every person the document lets decide this request, in the document's order. Only a principal
 * the document names as a person may ever decide, so its names are all the candidates there are.
 */
export function whoMayDecide(doc: PolicyDocument, r: ApprovalRequested): string[] {
  const facts = authorityFacts(r);
  return Object.keys(doc.principals).filter((name) => mayDecide(doc, name, facts).ok);
}
