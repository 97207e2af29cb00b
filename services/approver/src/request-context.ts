import { readEvent, type Bus } from "@warden/bus";
import { type DelegationLink, type ToolPolicyChecked } from "@warden/contracts/events";
import { type Intent } from "@warden/contracts/descriptor";
import { AGENT_DOMAIN, MAX_DELEGATION_DEPTH } from "@warden/contracts/policy";

/** What the card takes from the stream above the decision: the request's intent and its delegation chain. */
export interface RequestContext {
  readonly intent?: Intent;
  /** The delegating calls, top first. */
  readonly chain: readonly DelegationLink[];
}

/**
 * Reads the call's own request (its intent) and walks `parentCallId` up through the delegating
 * agent calls, as recorded: a link is only what the stream holds, never what a payload claims.
 * A parent that cannot be read ends the walk (the policy stage refused broken chains already).
 */
export async function readRequestContext(bus: Bus, checked: ToolPolicyChecked): Promise<RequestContext> {
  const request = await readEvent(bus, checked.domain, checked.callId, "ToolCallRequested");
  const chain: DelegationLink[] = [];
  let parentCallId = checked.parentCallId;
  while (parentCallId !== undefined && chain.length <= MAX_DELEGATION_DEPTH) {
    const parent = await readEvent(bus, AGENT_DOMAIN, parentCallId, "ToolCallRequested");
    if (parent === undefined) break;
    chain.unshift({ callId: parent.callId, principal: parent.principal, mode: parent.mode, tool: parent.tool });
    parentCallId = parent.parentCallId;
  }
  return { ...(request?.data.intent === undefined ? {} : { intent: request.data.intent }), chain };
}
