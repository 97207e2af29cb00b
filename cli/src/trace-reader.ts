import type { Bus } from "@warden/bus";
import { type WardenEvent } from "@warden/contracts/events";
import { BUCKET_APPROVALS, BUCKET_CALLS } from "@warden/contracts/subjects";
import { ApprovalInboxRecordSchema } from "@warden/contracts/read-models";
import { buildTrace, CallModelSchema, type CallTrace } from "@warden/projections";
import { getStoredModel, readCallEvents, type UnreadableMessage } from "@warden/projector";

export { readCallEvents, type CallEvents } from "@warden/projector";

/** Child calls are followed this deep (a subagent's subagent's ...). */
export const MAX_TRACE_DEPTH = 4;

/** A call's trace with its raw events, and its children's; `unreadable`: its messages that are not valid events. */
export type CallTraceDoc = CallTrace & {
  readonly events: readonly WardenEvent[];
  readonly children: readonly CallTraceDoc[];
  readonly unreadable: readonly UnreadableMessage[];
};

/** A call whose messages are all unreadable: nothing to trace, but they are named. */
export interface UnreadableCall {
  readonly callId: string;
  readonly unreadable: readonly UnreadableMessage[];
}

/**
 * A call's timeline and, for a subagent, its child calls' (from the projected call model, which
 * lists them: a child's subjects do not name its parent), as a tree.
 */
export async function readCallTrace(bus: Bus, callId: string, depth = MAX_TRACE_DEPTH): Promise<CallTraceDoc | UnreadableCall | undefined> {
  const found = await readCallEvents(bus, callId);
  if (found === undefined) return undefined;
  if (found.entries.length === 0) return found.unreadable.length === 0 ? undefined : { callId, unreadable: found.unreadable };
  const childIds = depth > 0 ? await childrenOf(bus, callId) : [];
  const children = (await Promise.all(childIds.map((id) => readCallTrace(bus, id, depth - 1)))).filter((c): c is CallTraceDoc => c !== undefined && "steps" in c);
  const trace = buildTrace(found.entries, children)!;
  return { ...trace, children, events: found.entries.map((e) => e.event), unreadable: found.unreadable };
}

async function childrenOf(bus: Bus, callId: string): Promise<string[]> {
  const model = await getStoredModel(await bus.kvm.open(BUCKET_CALLS), callId, CallModelSchema);
  return model?.value.children ?? [];
}

/** The call an approval id belongs to, from the projected approvals (undefined: no such approval, or not projected yet). */
export async function callOfApproval(bus: Bus, approvalId: string): Promise<string | undefined> {
  const record = await getStoredModel(await bus.kvm.open(BUCKET_APPROVALS), approvalId, ApprovalInboxRecordSchema);
  return record?.value.callId;
}
