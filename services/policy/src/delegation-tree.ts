import { readEvent, type Bus } from "@warden/bus";
import { type ToolArgsValidated } from "@warden/contracts/events";
import { AGENT_DOMAIN, MAX_DELEGATION_DEPTH } from "@warden/contracts/policy";

/**
 * The tree a call belongs to, for history conditions scoped `tree`: the top call of its
 * parentCallId chain (read from the stream, as the chain check reads it), or the call itself when
 * it has no parent. A chain that breaks or runs too deep ends at the last call found: the chain
 * check denies such a call anyway, before it could be recorded.
 */
export async function treeRootOf(bus: Bus, call: Pick<ToolArgsValidated, "callId" | "parentCallId">): Promise<string> {
  let root = call.callId;
  let next = call.parentCallId;
  for (let depth = 0; next !== undefined && depth <= MAX_DELEGATION_DEPTH; depth++) {
    const parent = await readEvent(bus, AGENT_DOMAIN, next, "ToolArgsValidated");
    if (parent === undefined) return root;
    root = parent.callId;
    next = parent.parentCallId;
  }
  return root;
}

/**
 * The run whose labels a call reads and adds to (docs/policy.md, Data labels): the run of the top
 * call of its parentCallId chain, so a subagent's child run and the run that delegated to it share
 * one set of labels; the call's own run when it has no parent.
 */
export async function labelRunOf(bus: Bus, call: Pick<ToolArgsValidated, "correlationId" | "parentCallId">): Promise<string> {
  let run = call.correlationId;
  let next = call.parentCallId;
  for (let depth = 0; next !== undefined && depth <= MAX_DELEGATION_DEPTH; depth++) {
    const parent = await readEvent(bus, AGENT_DOMAIN, next, "ToolArgsValidated");
    if (parent === undefined) return run;
    run = parent.correlationId;
    next = parent.parentCallId;
  }
  return run;
}
