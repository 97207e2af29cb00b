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
  return (await topOfChain(bus, call)).callId;
}

/**
 * The run whose labels a call reads and adds to (docs/policy.md, Data labels): the run of the top
 * call of its parentCallId chain, so a subagent's child run and the run that delegated to it share
 * one set of labels; the call's own run when it has no parent.
 */
export async function labelRunOf(bus: Bus, call: Pick<ToolArgsValidated, "correlationId" | "parentCallId">): Promise<string> {
  return (await topOfChain(bus, call)).correlationId;
}

/** The top call of `call`'s parentCallId chain, as far as the stream holds it and at most MAX_DELEGATION_DEPTH up; `call` itself when it has no parent. */
async function topOfChain<C extends Pick<ToolArgsValidated, "parentCallId">>(bus: Bus, call: C): Promise<C | ToolArgsValidated> {
  let top: C | ToolArgsValidated = call;
  for (let depth = 0; top.parentCallId !== undefined && depth <= MAX_DELEGATION_DEPTH; depth++) {
    const parent: ToolArgsValidated | undefined = await readEvent(bus, AGENT_DOMAIN, top.parentCallId, "ToolArgsValidated");
    if (parent === undefined) return top;
    top = parent;
  }
  return top;
}
