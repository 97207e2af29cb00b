import type { PolicyDocumentInput } from "@warden/contracts/policy";

type PrincipalInput = NonNullable<PolicyDocumentInput["principals"]>[string];

/**
 * The people and agents the cross-service tests usually name, each as it usually is. A test's
 * policy picks the ones it has by name (a name it does not pick is not in its document) and writes
 * out any principal that differs.
 */
const USUAL_PRINCIPALS = {
  /** May grant writes and sends. */
  alice: { kind: "human", approves: ["write", "send"] },
  /** A person who may decide nothing. */
  bob: { kind: "human" },
  /** May cancel anyone's call that has not started. */
  olga: { kind: "human", operator: true },
  planner: { kind: "agent" },
  "support-bot": { kind: "agent" },
} satisfies Record<string, PrincipalInput>;

export type UsualPrincipal = keyof typeof USUAL_PRINCIPALS;

/** The `principals` of a test policy holding exactly the usual principals named (fresh copies: a test may change its own). */
export function usualPrincipals(...names: readonly UsualPrincipal[]): Record<string, PrincipalInput> {
  return Object.fromEntries(names.map((n) => [n, structuredClone(USUAL_PRINCIPALS[n])]));
}

/**
 * alice as the support desk's own policy has her: she may grant writes and sends, and holds the
 * `tickets:write` scope its ticket tools ask for (a fresh copy).
 */
export function deskAlice(): PrincipalInput {
  return { ...usualPrincipals("alice")["alice"]!, scopes: ["tickets:write"] };
}
