import { DeliverPolicy } from "@nats-io/jetstream";
import { CALLS_SUBJECT_ROOT, isSafeToken, STREAM_CALLS, validateEventJson, type WardenEvent } from "@warden/contracts";
import type { Bus } from "./bus.js";

const READ_TIMEOUT_MS = 5_000;
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
  const filter = `${CALLS_SUBJECT_ROOT}.*.${callId}.>`;
  // a call with no messages is answered without a consumer: closing one that delivered nothing
  // would wait forever for an iteration that never comes
  if ((await bus.jsm.direct.getMessage(STREAM_CALLS, { last_by_subj: filter })) === null) return [];
  // an ordered push consumer: reading needs no pull rights on the call stream (only a stage's
  // owner may pull from its durable), and it is gone on its own once the read ends
  const consumer = await bus.js.consumers.getPushConsumer(STREAM_CALLS, {
    filter_subjects: filter,
    deliver_policy: DeliverPolicy.All,
  });
  const messages = await consumer.consume();
  // the consumer's info as created: how many messages the call had then
  const total = (await consumer.info(true)).num_pending;
  const out: HistoryEntry[] = [];
  // closing ends the iteration below; a close that nobody iterates past would never settle
  // close() resolves (with the error, if any) and never rejects
  const stop = () => void messages.close();
  const deadline = setTimeout(stop, READ_TIMEOUT_MS);
  if (total === 0) stop();
  try {
    for await (const m of messages) {
      const d = decodeJson(m.data);
      const parsed = d.ok ? validateEventJson(d.value) : undefined;
      out.push({ seq: m.seq, subject: m.subject, event: parsed?.ok ? parsed.value : undefined });
      if (out.length >= total) break;
    }
  } finally {
    clearTimeout(deadline);
    stop();
  }
  return out;
}
