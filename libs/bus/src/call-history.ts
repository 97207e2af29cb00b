import { DeliverPolicy } from "@nats-io/jetstream";
import { CALLS_SUBJECT_ROOT, isSafeToken, STREAM_CALLS, WardenEventSchema, type WardenEvent } from "@warden/contracts";
import type { Bus } from "./bus.js";
import { decodeJson } from "./codec.js";

export interface HistoryEntry {
  readonly seq: number;
  readonly subject: string;
  /** Undefined when the stored message is not a valid event (it is still listed). */
  readonly event: WardenEvent | undefined;
}

/**
 * Every message of one call in stream order. Reads only that call's subjects
 * (`warden.call.*.<callId>.>`), never the whole stream.
 */
export async function readCallHistory(bus: Bus, callId: string): Promise<HistoryEntry[]> {
  if (!isSafeToken(callId)) return [];
  const consumer = await bus.js.consumers.get(STREAM_CALLS, {
    filter_subjects: `${CALLS_SUBJECT_ROOT}.*.${callId}.>`,
    deliver_policy: DeliverPolicy.All,
  });
  try {
    const total = (await consumer.info(true)).num_pending;
    const out: HistoryEntry[] = [];
    if (total === 0) return out;
    const iter = await consumer.fetch({ max_messages: total, expires: 5_000 });
    for await (const m of iter) {
      const d = decodeJson(m.data);
      const parsed = d.ok ? WardenEventSchema.safeParse(d.value) : undefined;
      out.push({ seq: m.seq, subject: m.subject, event: parsed?.success ? parsed.data : undefined });
      if (out.length >= total) break;
    }
    return out;
  } finally {
    await consumer.delete().catch(() => undefined);
  }
}
