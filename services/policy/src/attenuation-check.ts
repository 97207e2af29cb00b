import type { Bus } from "@warden/bus";
import type { ToolArgsValidated } from "@warden/contracts/events";
import type { ToolDescriptor } from "@warden/contracts/descriptor";
import type { PolicyDocument } from "@warden/contracts/policy";
import { openDelegationCounter } from "./delegation-counter.js";
import { readDelegationChain } from "./delegation-chain.js";
import type { DescriptorCache } from "@warden/service-kit";
import { checkChain, checkCounts } from "./domain/attenuation.js";
import type { Verdict } from "./domain/verdict.js";

export interface Attenuation {
  /** Tightens (or denies) the verdict of a call that has a parentCallId, from the recorded chain. */
  check(doc: PolicyDocument, tool: ToolDescriptor, call: ToolArgsValidated, verdict: Verdict): Promise<Verdict>;
}

export async function openAttenuation(bus: Bus, descriptors: DescriptorCache): Promise<Attenuation> {
  const counter = await openDelegationCounter(bus);
  return {
    async check(doc, tool, call, verdict) {
      if (call.parentCallId === undefined) return verdict;
      const chain = await readDelegationChain(bus, descriptors, call.parentCallId);
      const checked = checkChain({ doc, call, tool, verdict, chain, nowMs: Date.now() });
      if (checked.kind === "deny") return checked.verdict;
      // counted only once everything else passed; a redelivery finds its own count
      const counts = await Promise.all(checked.agents.map((a) => counter.count(a.callId, call.callId, a.budget.maxToolCalls)));
      return checkCounts(checked.agents, counts, checked.childBudget, call.tool) ?? checked.verdict;
    },
  };
}
