import type { PolicyDocument, Principal } from "@warden/contracts";

/** A principal the document does not name is an agent with no scopes and no approval rights. */
export const UNKNOWN_PRINCIPAL: Principal = { kind: "agent", scopes: [], approves: [] };

export function principalOf(doc: PolicyDocument, name: string): Principal {
  return Object.hasOwn(doc.principals, name) ? doc.principals[name]! : UNKNOWN_PRINCIPAL;
}
