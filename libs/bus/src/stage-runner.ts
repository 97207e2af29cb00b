import type { ConsumerMessages } from "@nats-io/jetstream";
import { type EventType } from "@warden/contracts/events";
import { STREAM_CALLS } from "@warden/contracts/subjects";
import { runBoundedPullLoop } from "./bounded-pull-loop.js";
import { busObserver } from "./bus-observer.js";
import { consumeOptions } from "./pull-options.js";
import { ensureStageConsumer } from "./stage-consumer.js";
import { watchStalledPull } from "./stalled-pull.js";
import { ReplayWatch } from "./replay-watch.js";
import { processStageMessage } from "./stage-message.js";
import { StageSettler } from "./stage-settler.js";
import { STAGE_ACK_WAIT_MS, type StageRunner, type StageSpec } from "./stage-spec.js";

/**
 * Runs a durable pull consumer over one event type: parse and validate each message, hand it to
 * the handler with bounded concurrency, and turn the outcome into ack / nak / term + DLQ. The
 * one place in Warden where messages are acked. A message that is not the event its subject
 * names is dead-lettered with its code (`TOO_LARGE`, `NOT_UTF8`, `TOO_DEEP`, `MALFORMED_JSON`,
 * `SCHEMA_INVALID`, `SUBJECT_MISMATCH`) after `onUndecodable`, if given, had its say.
 *
 * @throws when the durable cannot be created or read (no permission for it, no stream), or
 *   exists with another filter subject.
 * @example
 * ```ts
 * const stage = await runStage({
 *   bus,
 *   log,
 *   durable: consumerName("policy"),
 *   eventType: "ToolArgsValidated",
 *   filterSubject: stageFilterSubject("ToolArgsValidated"),
 *   handle: async (event, ctx) => {
 *     const r = await appendEvent(bus, decide(event));
 *     ctx.log.debug({ status: r.status }, "decision appended");
 *     return ACK;
 *   },
 * });
 * // on shutdown: await stage.stop();
 * ```
 */
export async function runStage<T extends EventType>(spec: StageSpec<T>): Promise<StageRunner> {
  const concurrency = spec.concurrency ?? 64;
  const maxDeliver = spec.maxDeliver ?? 5;
  const ackWaitMs = spec.ackWaitMs ?? STAGE_ACK_WAIT_MS;
  const { bus, log } = spec;
  const ensureDurable = () => ensureStageConsumer(bus, spec.durable, spec.filterSubject, { maxDeliver, ackWaitMs, maxAckPending: Math.max(concurrency * 4, 256) });
  await ensureDurable();
  const consumer = await bus.js.consumers.get(STREAM_CALLS, spec.durable);
  busObserver().stageStarted?.(spec.durable);
  const replays = new ReplayWatch(Date.parse((await consumer.info(true)).created), async () => Date.parse((await consumer.info()).created), log);
  // at most `concurrency` messages requested at once: with as many in flight, that is all it holds
  const messages: ConsumerMessages = await consumer.consume(consumeOptions(concurrency, spec.pull));
  watchStalledPull(messages, log, { bus, durable: spec.durable, ensure: ensureDurable });
  const abort = new AbortController();
  const settler = new StageSettler(spec, ackWaitMs, spec.backoffMs ?? [250, 1_000, 5_000, 15_000]);
  const deps = {
    log,
    decoding: { eventTypes: typeof spec.eventType === "string" ? [spec.eventType] : spec.eventType, accept: spec.accept, limits: { ...(spec.maxBytes === undefined ? {} : { maxBytes: spec.maxBytes }), ...(spec.maxDepth === undefined ? {} : { maxDepth: spec.maxDepth }) } },
    settler,
    maxDeliver,
    replays,
    signal: abort.signal,
  };
  const loop = runBoundedPullLoop({ messages, concurrency, process: (m) => processStageMessage(m, deps), onFailure: (m, err) => settler.failed(m, err) });

  let stopping: Promise<void> | undefined;
  return {
    done: loop.done,
    stop() {
      stopping ??= (async () => {
        await loop.stop();
        abort.abort();
      })();
      return stopping;
    },
  };
}
