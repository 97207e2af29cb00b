import type { PolicyDocument, Principal } from "@warden/contracts/policy";

/** A principal the document does not name is an agent with no scopes, flags or approval rights. */
export const UNKNOWN_PRINCIPAL: Principal = { kind: "agent", scopes: [], approves: [] };

export function principalOf(doc: PolicyDocument, name: string): Principal {
  return Object.hasOwn(doc.principals, name) ? doc.principals[name]! : UNKNOWN_PRINCIPAL;
}

/** Whether the document names this principal, whatever its kind. */
export function isNamed(doc: PolicyDocument, name: string): boolean {
  return Object.hasOwn(doc.principals, name);
}

/**
 * Whether the principal may act as a person (claim mode `human`, confirm its own call): only a
 * principal the document names with kind `human`. Mode is what the caller claims; an unnamed
 * principal is an agent, so it may not claim that a person pressed the button.
 */
export function isNamedHuman(doc: PolicyDocument, name: string): boolean {
  return isNamed(doc, name) && doc.principals[name]!.kind === "human";
}

/** Why a principal may not act as a person, for a decision's reason. */
export function notAPersonReason(doc: PolicyDocument, name: string): string {
  return isNamed(doc, name)
    ? `${name} is a ${doc.principals[name]!.kind} in the policy document`
    : `${name} is not named in the policy document, so it is treated as an agent`;
}
