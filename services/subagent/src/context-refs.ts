import { readCallHistory, type Bus } from "@warden/bus";
import { mayUseCallId, toModelMessage } from "@warden/contracts/events";
import { resultFromEvent } from "@warden/sdk";
import type { RefText } from "./domain/prompt.js";

/**
 * The results of earlier calls the caller pointed at. Only calls of the same run are read: a
 * subagent never sees another run's data because a caller named its call id.
 */
export async function readRefs(bus: Bus, refs: readonly string[], runId: string): Promise<RefText[]> {
  const out: RefText[] = [];
  for (const callId of refs) {
    const events = (await readCallHistory(bus, callId)).flatMap((h) => (h.event ? [h.event] : []));
    // the call's request is the one the registry answered, never another principal's stored under the id
    const answer = events.find((e) => e.type === "ToolArgsValidated" || e.type === "ToolCallRejected");
    const request = events.find(
      (e) => e.type === "ToolCallRequested" && (answer === undefined ? mayUseCallId(e.principal, callId) : e.principal === answer.principal && e.domain === answer.domain),
    );
    if (request === undefined) {
      out.push({ callId, text: "no such call" });
      continue;
    }
    if (request.correlationId !== runId) {
      out.push({ callId, text: "not part of this run; not read" });
      continue;
    }
    const ended = events.map((e) => resultFromEvent(e, true)).find((r) => r !== undefined);
    out.push({ callId, text: `${request.tool}: ${ended === undefined ? "no result yet" : toModelMessage(ended)}` });
  }
  return out;
}
