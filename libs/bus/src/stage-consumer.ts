import { AckPolicy, DeliverPolicy, type ConsumerConfig } from "@nats-io/jetstream";
import { STREAM_CALLS } from "@warden/contracts/subjects";
import type { Bus } from "./bus.js";
import { unlessNotFound } from "./nats-errors.js";

const MS_NS = 1_000_000;

export interface StageConsumerOptions {
  readonly maxDeliver: number;
  readonly ackWaitMs: number;
  readonly maxAckPending: number;
  /**
   * For a consumer whose messages are applied strictly in stream order (the projector): made with
   * AckPolicy.All, so one ack settles a whole run, starting after the sequence this returns (what
   * is applied already). The server takes each explicit ack as a message of its own (about 15 µs
   * of its CPU each on this box, docs/performance.md).
   */
  readonly inOrderAfter?: () => Promise<number>;
}

/** Whether a durable acks all up to the sequence acked (AckPolicy.All) rather than each message. */
export function acksAll(config: Partial<Pick<ConsumerConfig, "ack_policy">>): boolean {
  return config.ack_policy === AckPolicy.All;
}

/** Creates a stage's durable, or brings its delivery limits up to date; every copy calls it. */
export async function ensureStageConsumer(bus: Bus, durable: string, filterSubject: string, opts: StageConsumerOptions): Promise<void> {
  const config: Partial<ConsumerConfig> & { durable_name: string } = {
    durable_name: durable,
    filter_subject: filterSubject,
    ack_policy: opts.inOrderAfter === undefined ? AckPolicy.Explicit : AckPolicy.All,
    deliver_policy: DeliverPolicy.All,
    max_deliver: opts.maxDeliver,
    ack_wait: opts.ackWaitMs * MS_NS,
    max_ack_pending: opts.maxAckPending,
  };
  const existing = await unlessNotFound(bus.jsm.consumers.info(STREAM_CALLS, durable));
  if (existing === undefined) {
    const after = (await opts.inOrderAfter?.()) ?? 0;
    const start = after > 0 ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: after + 1 } : {};
    await putDurable(bus, { ...config, ...start }).catch(async (err: unknown) => {
      // another replica created it first: fine when it is there now
      if ((await unlessNotFound(bus.jsm.consumers.info(STREAM_CALLS, durable))) === undefined) throw err;
    });
    return;
  }
  if (existing.config.filter_subject !== filterSubject) {
    throw new Error(`consumer ${durable} exists with filter ${existing.config.filter_subject ?? "(none)"}, not ${filterSubject}`);
  }
  if (existing.config.max_deliver !== opts.maxDeliver || existing.config.ack_wait !== config.ack_wait) {
    // where it starts and how it acks are fixed once it exists
    const { ack_policy, deliver_policy, opt_start_seq } = existing.config;
    await putDurable(bus, { ...config, ack_policy, deliver_policy, ...(opt_start_seq === undefined ? {} : { opt_start_seq }) });
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
