import { readEvent, readOutcome, type Bus } from "@warden/bus";
import { type HiddenTool } from "@warden/contracts/descriptor";
import { AGENT_DOMAIN, isAgentTool, MAX_DELEGATION_DEPTH } from "@warden/contracts/policy";
import type { DescriptorCache } from "@warden/service-kit";
import type { Chain, ChainLink } from "./domain/attenuation.js";

/** A subagent records at most one view per turn; no budget allows more turns than this. */
const MAX_TURNS_READ = 50;

/**
 * Every tool a subagent call's model may ask for: the union of its ToolViewCompiled turns, what
 * each listed and the allowed sends each hid only because a model never sees a send (their calls
 * wait for a person: default.send.llm).
 */
async function shownTools(bus: Bus, domain: string, callId: string): Promise<string[]> {
  const shown = new Set<string>();
  for (let turn = 1; turn <= MAX_TURNS_READ; turn++) {
    const view = await readEvent(bus, domain, callId, "ToolViewCompiled", `t${turn}`);
    if (view === undefined) break;
    for (const t of view.data.tools) shown.add(t.name);
    for (const h of view.data.hidden) if (h.reason === SEND_NEVER_LISTED) shown.add(h.name);
  }
  return [...shown];
}

const SEND_NEVER_LISTED: HiddenTool["reason"] = "send_never_listed_for_llm";

/**
 * One delegating call, read from its events. Only subagents make child calls, so a parent is
 * looked up in domain `agent` alone: any other parentCallId is "not on record".
 */
async function readLink(bus: Bus, descriptors: DescriptorCache, callId: string): Promise<ChainLink | undefined> {
  const domain = AGENT_DOMAIN;
  const [validated, started, outcome] = await Promise.all([
    readEvent(bus, domain, callId, "ToolArgsValidated"),
    readEvent(bus, domain, callId, "ToolCallStarted"),
    // a started call ends only with its outcome (a result or outcome unknown)
    readOutcome(bus, domain, callId),
  ]);
  if (validated === undefined) return undefined;
  const [record, shown] = await Promise.all([
    descriptors.read(validated.tool, validated.data.version),
    isAgentTool(validated.tool) ? shownTools(bus, domain, callId) : Promise.resolve([]),
  ]);
  return {
    callId,
    tool: validated.tool,
    principal: validated.principal,
    mode: validated.mode,
    flags: validated.data.flags,
    scope: validated.data.scope,
    args: validated.data.args,
    descriptor: record?.descriptor,
    startedAtMs: started === undefined ? undefined : Date.parse(started.ts),
    ended: outcome !== undefined,
    shownTools: shown,
    parentCallId: validated.parentCallId,
  };
}

/**
 * Walks parentCallId up from a call's parent, reading each delegating call from the stream. Stops
 * one link past the depth cap (a loop of forged parents ends there too).
 */
export async function readDelegationChain(bus: Bus, descriptors: DescriptorCache, parentCallId: string): Promise<Chain> {
  const links: ChainLink[] = [];
  let next: string | undefined = parentCallId;
  while (next !== undefined) {
    if (links.length > MAX_DELEGATION_DEPTH) return { kind: "found", links, tooDeep: true };
    const link = await readLink(bus, descriptors, next);
    if (link === undefined) return { kind: "missing", callId: next };
    links.push(link);
    next = link.parentCallId;
  }
  return { kind: "found", links, tooDeep: false };
}
