import type { Decision } from "@warden/contracts/policy";

/**
 * A stage pre-filter for ToolPolicyChecked: skips (acks unvalidated) events whose decision is
 * plainly another one; anything malformed still goes through validation to the DLQ.
 */
export function acceptDecision(wanted: Decision): (raw: unknown) => boolean {
  return (raw) => {
    if (typeof raw !== "object" || raw === null) return true;
    const data = (raw as { data?: unknown }).data;
    if (typeof data !== "object" || data === null) return true;
    const decision = (data as { decision?: unknown }).decision;
    return typeof decision !== "string" || decision === wanted;
  };
}
