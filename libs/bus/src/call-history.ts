import { validateEventJson, type WardenEvent } from "@warden/contracts/events";
import { CALLS_SUBJECT_ROOT, isSafeToken } from "@warden/contracts/subjects";
import type { Bus } from "./bus.js";
import { readCallStream } from "./call-stream-reads.js";
import { decodeJson } from "./codec.js";

export interface HistoryEntry {
  readonly seq: number;
  readonly subject: string;
  /** Undefined when the stored message is not a valid event (it is still listed). */
  readonly event: WardenEvent | undefined;
}

/**
 * Every message of one call in stream order. Reads only that call's subjects
 * (`warden.call.*.<callId>.>`), by direct gets, never the whole stream.
 */
export async function readCallHistory(bus: Bus, callId: string): Promise<HistoryEntry[]> {
  if (!isSafeToken(callId)) return [];
  const out: HistoryEntry[] = [];
  // a call is short: read to its last message, with no stream info first
  await readCallStream(bus, { filter: `${CALLS_SUBJECT_ROOT}.*.${callId}.>`, toSeq: Number.MAX_SAFE_INTEGER }, (m) => {
    const d = decodeJson(m.data);
    const parsed = d.ok ? validateEventJson(d.value) : undefined;
    out.push({ seq: m.seq, subject: m.subject, event: parsed?.ok ? parsed.value : undefined });
  });
  return out;
}
