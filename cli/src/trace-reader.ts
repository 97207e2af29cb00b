import { kvGetJson, type Bus } from "@warden/bus";
import { BUCKET_CALLS, type WardenEvent } from "@warden/contracts";
import { buildTrace, CallModelSchema, type CallTrace } from "@warden/projections";
import { readCallEvents } from "@warden/projector";

export { readCallEvents, type CallEvents } from "@warden/projector";

/** Child calls are followed this deep (a subagent's subagent's ...). */
export const MAX_TRACE_DEPTH = 4;

/** A call's trace with its raw events, and its children's. */
export type CallTraceDoc = CallTrace & { readonly events: readonly WardenEvent[]; readonly children: readonly CallTraceDoc[] };

/**
 * A call's timeline and, for a subagent, its child calls' (from the projected call model, which
 * lists them: a child's subjects do not name its parent), as a tree.
 */
export async function readCallTrace(bus: Bus, callId: string, depth = MAX_TRACE_DEPTH): Promise<CallTraceDoc | undefined> {
  const found = await readCallEvents(bus, callId);
  if (found === undefined || found.entries.length === 0) return undefined;
  const childIds = depth > 0 ? await childrenOf(bus, callId) : [];
  const children = (await Promise.all(childIds.map((id) => readCallTrace(bus, id, depth - 1)))).filter((c) => c !== undefined);
  const trace = buildTrace(found.entries, children)!;
  return { ...trace, children, events: found.entries.map((e) => e.event) };
}

async function childrenOf(bus: Bus, callId: string): Promise<string[]> {
  const model = await kvGetJson(await bus.kvm.open(BUCKET_CALLS), callId, CallModelSchema);
  return model?.value.children ?? [];
}
