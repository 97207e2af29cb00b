import { DiscardPolicy, StorageType } from "@nats-io/jetstream";
import type { Bus } from "@warden/bus";

/**
 * Raw JetStream append throughput on this box: the same stream settings and the same
 * expected-last-subject-sequence publish Warden uses, one unique subject per message.
 */
export async function rawPublishRate(bus: Bus, opts: { messages: number; window: number; payloadBytes: number }): Promise<number> {
  const name = "BENCH_RAW";
  await bus.jsm.streams.delete(name).catch(() => undefined);
  await bus.jsm.streams.add({
    name,
    subjects: ["benchraw.>"],
    storage: StorageType.File,
    max_msgs_per_subject: 1,
    discard: DiscardPolicy.New,
    discard_new_per_subject: true,
    allow_direct: true,
  });
  const payload = new TextEncoder().encode(JSON.stringify({ pad: "x".repeat(Math.max(0, opts.payloadBytes - 10)) }));
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < opts.messages) {
      const i = next++;
      await bus.js.publish(`benchraw.d.c${i}.E`, payload, { msgID: `m${i}-${started}`, expect: { lastSubjectSequence: 0 } });
    }
  };
  await Promise.all(Array.from({ length: opts.window }, worker));
  const rate = opts.messages / ((performance.now() - started) / 1000);
  await bus.jsm.streams.delete(name);
  return rate;
}
