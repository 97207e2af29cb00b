import { readOutcome, type Bus } from "@warden/bus";
import type { WardenEvent } from "@warden/contracts/events";

/** True when the call already has its outcome: a result, an outcome-unknown or the executor's refusal. */
export async function resultRecorded(bus: Bus, call: WardenEvent): Promise<boolean> {
  return (await readOutcome(bus, call.domain, call.callId)) !== undefined;
}
