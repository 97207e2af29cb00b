import { AckPolicy, DeliverPolicy, type ConsumerConfig } from "@nats-io/jetstream";
import { STREAM_CALLS } from "@warden/contracts/subjects";
import type { Bus } from "./bus.js";
import { unlessNotFound } from "./nats-errors.js";

const MS_NS = 1_000_000;

/** Creates a stage's durable, or brings its delivery limits up to date; every copy calls it. */
export async function ensureStageConsumer(bus: Bus, durable: string, filterSubject: string, opts: { maxDeliver: number; ackWaitMs: number; maxAckPending: number }): Promise<void> {
  const config = {
    durable_name: durable,
    filter_subject: filterSubject,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    max_deliver: opts.maxDeliver,
    ack_wait: opts.ackWaitMs * MS_NS,
    max_ack_pending: opts.maxAckPending,
  };
  const existing = await unlessNotFound(bus.jsm.consumers.info(STREAM_CALLS, durable));
  if (existing === undefined) {
    await putDurable(bus, config).catch(async (err: unknown) => {
      // another replica created it first: fine when it is there now
      if ((await unlessNotFound(bus.jsm.consumers.info(STREAM_CALLS, durable))) === undefined) throw err;
    });
  } else if (existing.config.filter_subject !== filterSubject) {
    throw new Error(`consumer ${durable} exists with filter ${existing.config.filter_subject ?? "(none)"}, not ${filterSubject}`);
  } else if (existing.config.max_deliver !== opts.maxDeliver || existing.config.ack_wait !== config.ack_wait) {
    await putDurable(bus, { ...config, deliver_policy: existing.config.deliver_policy });
  }
}

/**
 * Creates or updates a durable through the subject that names it
 * (`$JS.API.CONSUMER.DURABLE.CREATE.<stream>.<durable>`): NATS permissions let each service use
 * that subject for its own durables only, and refuse everyone the forms whose name is in the body.
 */
async function putDurable(bus: Bus, config: Partial<ConsumerConfig> & { durable_name: string }): Promise<void> {
  const subject = `$JS.API.CONSUMER.DURABLE.CREATE.${STREAM_CALLS}.${config.durable_name}`;
  const reply = await bus.nc.request(subject, new TextEncoder().encode(JSON.stringify({ stream_name: STREAM_CALLS, config })), { timeout: 5_000 });
  const answer = JSON.parse(new TextDecoder().decode(reply.data)) as { error?: { code?: number; description?: string } };
  if (answer.error) throw new Error(`could not create consumer ${config.durable_name}: ${answer.error.description ?? "error"} (${answer.error.code ?? "?"})`);
}
