import { ensureStageConsumer, type Bus, type Logger } from "@warden/bus";
import { CALLS_SUBJECTS, consumerName, newId, STREAM_CALLS } from "@warden/contracts";
import { READ_MODELS } from "@warden/projections";
import { applyRun, type BatchDeps } from "./apply-batch.js";
import { openCursor } from "./cursor.js";
import { HeldMessages } from "./held-messages.js";
import { runLease } from "./lease.js";
import type { JsMsg } from "@warden/bus";
import { ModelStore } from "./model-store.js";
import { PoisonLetters } from "./poison-letters.js";

export const PROJECTOR_STAGE = "projector";

export interface ProjectorServiceDeps {
  readonly bus: Bus;
  readonly log: Logger;
  readonly batchSize?: number;
  readonly ackWaitMs?: number;
  /** Model writes in flight at once within a batch. */
  readonly concurrency?: number;
  /** Test hook: called after each model write; throwing simulates a crash mid-batch. */
  readonly afterWrite?: () => void;
  /** Project only while holding the lease (default); false lets copies overlap (tests). */
  readonly exclusive?: boolean;
  readonly leaseTtlMs?: number;
}

export interface ProjectorService {
  /** The highest sequence this copy has applied (every model holds everything up to it). */
  appliedTo(): number;
  /** Whether this copy projects now (the others stand by). */
  holdsLease(): boolean;
  stop(): Promise<void>;
}

const RETRY_MS = [100, 250, 1_000, 5_000];
/** How often a copy holding events beyond a gap looks whether the cursor reached them. */
const GAP_POLL_MS = 25;
const AGE_CHECK_MS = 1_000;
const RESTART_MS = 1_000;
/**
 * A pull request lives this long, with server heartbeats this often: a pull lost with a stream
 * leader is replaced after two missed heartbeats or at expiry, within seconds instead of the
 * client's default 30 s.
 */
export const PULL_EXPIRES_MS = 5_000;
export const PULL_HEARTBEAT_MS = 1_000;

/**
 * Keeps the read models (`warden_calls`, `warden_approvals`, `warden_budgets`) from one durable
 * consumer over every call event. Events are applied strictly in stream order behind a shared
 * cursor: a copy applies the run of sequences that follows the cursor and holds anything beyond a
 * gap until another copy (or a redelivery) fills it. The consumer lets at most one batch be
 * un-acked across all copies, so copies take turns instead of racing.
 */
export async function startProjectorService(deps: ProjectorServiceDeps): Promise<ProjectorService> {
  const { bus } = deps;
  const log = deps.log.child({ stage: PROJECTOR_STAGE });
  const batchSize = deps.batchSize ?? 256;
  const ackWaitMs = deps.ackWaitMs ?? 10_000;
  const durable = consumerName(PROJECTOR_STAGE);
  // a projector may never drop an event: deliveries are unbounded, retries happen in-process
  await ensureStageConsumer(bus, durable, CALLS_SUBJECTS, { maxDeliver: -1, ackWaitMs, maxAckPending: batchSize });
  const stores = await Promise.all(READ_MODELS.map(async (spec) => new ModelStore(await bus.kvm.open(spec.bucket), spec)));
  const poison = new PoisonLetters(bus, log, durable);
  const batchDeps: BatchDeps = {
    stores,
    cursor: await openCursor(bus),
    log,
    concurrency: deps.concurrency ?? 128,
    onPoison: (m, reason) => poison.record(m, reason),
    ...(deps.afterWrite === undefined ? {} : { afterWrite: deps.afterWrite }),
  };

  let current: Consuming | undefined;
  let appliedTo = 0;
  let closing = false;
  const startConsuming = async () => {
    const c = await consume({
      bus,
      log,
      durable,
      batchSize,
      ackWaitMs,
      batchDeps,
      onApplied: (seq) => {
        appliedTo = Math.max(appliedTo, seq);
        poison.forgetThrough(seq);
      },
      // the pull ended by itself (the consumer was deleted, say): start again while we may project
      onEnded: () => {
        if (closing || current !== c) return;
        log.error("projector consumer ended unexpectedly, starting it again");
        current = undefined;
        setTimeout(() => {
          if (!closing && current === undefined && (lease?.holds() ?? true)) void startConsuming().catch((err: unknown) => log.error({ err }, "projector consumer restart failed"));
        }, RESTART_MS);
      },
    });
    current = c;
  };
  const stopConsuming = async () => {
    const c = current;
    current = undefined;
    await c?.stop();
  };
  const lease =
    deps.exclusive === false
      ? undefined
      : await runLease({ bus, log, holder: `projector-${newId()}`, ttlMs: deps.leaseTtlMs ?? 5_000, onAcquired: startConsuming, onLost: stopConsuming });
  if (lease === undefined) await startConsuming();

  let stopping: Promise<void> | undefined;
  return {
    appliedTo: () => appliedTo,
    holdsLease: () => lease?.holds() ?? true,
    stop() {
      stopping ??= (async () => {
        closing = true;
        if (lease !== undefined) await lease.stop();
        await stopConsuming();
      })();
      return stopping;
    },
  };
}

interface ConsumeOptions {
  readonly bus: Bus;
  readonly log: Logger;
  readonly durable: string;
  readonly batchSize: number;
  readonly ackWaitMs: number;
  readonly batchDeps: BatchDeps;
  readonly onApplied: (seq: number) => void;
  readonly onEnded: () => void;
}

interface Consuming {
  stop(): Promise<void>;
}

/** Pulls from the durable and applies runs behind the cursor until stopped. */
async function consume(o: ConsumeOptions): Promise<Consuming> {
  const { bus, log, durable, batchSize, ackWaitMs, batchDeps } = o;
  const cursor = batchDeps.cursor;
  const consumer = await bus.js.consumers.get(STREAM_CALLS, durable);
  // at most one batch is asked for (and, by the consumer's max_ack_pending, un-acked) at a time:
  // draining a backlog never holds more than that
  const messages = await consumer.consume({ max_messages: batchSize, expires: PULL_EXPIRES_MS, idle_heartbeat: PULL_HEARTBEAT_MS });
  let stopped = false;

  // the iterator fills a queue; the loop takes whatever has queued up while the last run applied
  const queue: JsMsg[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  const receiving = (async () => {
    try {
      for await (const m of messages) {
        queue.push(m);
        wake?.();
      }
    } finally {
      ended = true;
      wake?.();
    }
  })();
  const waitForMessages = (ms?: number) =>
    new Promise<void>((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
    });

  // another copy moving the cursor may be what a held run waits for
  const unwatch = await cursor.watch(() => wake?.());
  const held = new HeldMessages<JsMsg>();
  const done = (async () => {
    let failures = 0;
    let lastTouch = Date.now();
    let lastAgeCheck = 0;
    while (!stopped) {
      for (const m of queue.splice(0)) held.add(m);
      if (held.size === 0) {
        if (ended) break;
        await waitForMessages();
        continue;
      }
      try {
        const at = await cursor.read();
        held.settle(at);
        const run = held.runFrom(at + 1, batchSize);
        if (run.length > 0) {
          const t0 = performance.now();
          await applyRun(batchDeps, run);
          const appliedTo = run.at(-1)!.seq;
          o.onApplied(appliedTo);
          held.settle(appliedTo);
          failures = 0;
          log.debug({ from: run[0]!.seq, to: appliedTo, ms: Math.round(performance.now() - t0) }, "events applied");
          continue;
        }
        // the next event is held elsewhere: another copy, a redelivery, or gone with retention
        const now = Date.now();
        const low = held.lowest();
        if (low !== undefined && now - lastAgeCheck >= AGE_CHECK_MS) {
          lastAgeCheck = now;
          const first = (await bus.jsm.streams.info(STREAM_CALLS)).state.first_seq;
          if (first > at + 1 && low <= first) {
            log.warn({ cursor: at, firstStreamSeq: first }, "events aged out of the stream before they were projected");
            await cursor.advance(low - 1);
            continue;
          }
        }
        if (now - lastTouch >= ackWaitMs / 3) {
          held.touch();
          lastTouch = now;
        }
        await waitForMessages(GAP_POLL_MS);
      } catch (err) {
        const delay = RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]!;
        log.error({ err, delayMs: delay }, "events not applied, retrying");
        held.touch();
        await new Promise((r) => setTimeout(r, delay));
      }
    }
    unwatch();
    held.release();
    for (const m of queue.splice(0)) m.nak();
    await receiving;
    if (!stopped) o.onEnded();
  })();

  let stopping: Promise<void> | undefined;
  return {
    stop() {
      stopping ??= (async () => {
        stopped = true;
        wake?.();
        await messages.close();
        await done.catch((err: unknown) => log.error({ err }, "projector loop failed"));
      })();
      return stopping;
    },
  };
}
