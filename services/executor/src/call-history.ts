import { readEvent, type Bus } from "@warden/bus";
import type { WardenEvent } from "@warden/contracts";

/** True when the call already has its result: a ToolCallFinished or a ToolCallOutcomeUnknown. */
export async function resultRecorded(bus: Bus, call: WardenEvent): Promise<boolean> {
  const [finished, unknown] = await Promise.all([
    readEvent(bus, call.domain, call.callId, "ToolCallFinished"),
    readEvent(bus, call.domain, call.callId, "ToolCallOutcomeUnknown"),
  ]);
  return finished !== undefined || unknown !== undefined;
}
