import { ensureStageConsumer, type Bus, type CallStreamTap, type Logger } from "@warden/bus";
import { newId } from "@warden/contracts/events";
import { CALLS_SUBJECTS, consumerName } from "@warden/contracts/subjects";
import { READ_MODELS } from "@warden/projections";
import { announceService } from "@warden/service-kit";
import type { BatchDeps } from "./apply-batch.js";
import { consume, type Consuming } from "./consume-loop.js";
import { openCursor } from "./cursor.js";
import { runLease } from "./lease.js";
import { ModelStore } from "./model-store.js";
import { PoisonLetters } from "./poison-letters.js";

export const PROJECTOR_STAGE = "projector";
export { PULL_EXPIRES_MS, PULL_HEARTBEAT_MS } from "./consume-loop.js";

export interface ProjectorServiceDeps {
  readonly bus: Bus;
  readonly log: Logger;
  readonly batchSize?: number;
  readonly ackWaitMs?: number;
  /** Model writes in flight at once within a batch. */
  readonly concurrency?: number;
  /**
   * Take turns with the other copies through the `lease` key (default). False projects at once
   * and touches no lease: for a process known to be the only copy. Copies that overlap stay
   * correct (compare-and-set on every model and the cursor); they only do the work twice.
   */
  readonly lease?: boolean;
  readonly leaseTtlMs?: number;
  /** Each applied run is offered here (the notary in the same process reads it instead of the stream). */
  readonly tap?: CallStreamTap;
}

export interface ProjectorService {
  /** The highest sequence this copy has applied (every model holds everything up to it). */
  appliedTo(): number;
  /** Whether this copy projects now (the others stand by). */
  holdsLease(): boolean;
  stop(): Promise<void>;
}

const RESTART_MS = 1_000;

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
  const cursor = await openCursor(bus);
  // a projector may never drop an event: deliveries are unbounded, retries happen in-process.
  // Runs are applied in stream order, so one ack settles each (a durable made anew starts after
  // the cursor: what every model holds already)
  const ensureDurable = () => ensureStageConsumer(bus, durable, CALLS_SUBJECTS, { maxDeliver: -1, ackWaitMs, maxAckPending: batchSize, inOrderAfter: () => cursor.read() });
  await ensureDurable();
  const stores = await Promise.all(READ_MODELS.map(async (spec) => new ModelStore(await bus.kvm.open(spec.bucket), spec)));
  const poison = new PoisonLetters(bus, log, durable);
  const batchDeps: BatchDeps = {
    stores,
    cursor,
    log,
    concurrency: deps.concurrency ?? 128,
    onPoison: (m, reason) => poison.record(m, reason),
  };

  let current: Consuming | undefined;
  let appliedTo = 0;
  let closing = false;
  const restartLater = () =>
    setTimeout(() => {
      if (!closing && current === undefined && (lease?.holds() ?? true)) void startConsuming().catch((err: unknown) => {
        log.error({ err }, "projector consumer restart failed; trying again");
        restartLater();
      });
    }, RESTART_MS);
  const startConsuming = async () => {
    // its durable again, should the server have come back on a new store without it
    await ensureDurable();
    const c = await consume({
      ensureDurable,
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
      ...(deps.tap === undefined ? {} : { tap: deps.tap }),
      onCursorBack: (_from, to) => {
        deps.tap?.reset();
        appliedTo = to;
        poison.forgetAll();
        for (const s of stores) s.forget();
      },
      // the pull ended by itself (the consumer was deleted, say): start again while we may project
      onEnded: () => {
        if (closing || current !== c) return;
        log.error("projector consumer ended unexpectedly, starting it again");
        current = undefined;
        restartLater();
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
    deps.lease === false
      ? undefined
      : await runLease({ bus, log, holder: `projector-${newId()}`, ttlMs: deps.leaseTtlMs ?? 5_000, onAcquired: startConsuming, onLost: stopConsuming });
  if (lease === undefined) await startConsuming();

  let stopping: Promise<void> | undefined;
  const discovery = announceService(bus, log, { name: "warden-projector", description: "read models: calls, approvals, budgets" });
  return {
    appliedTo: () => appliedTo,
    holdsLease: () => lease?.holds() ?? true,
    stop() {
      stopping ??= (async () => {
        await discovery.stop();
        closing = true;
        if (lease !== undefined) await lease.stop();
        await stopConsuming();
      })();
      return stopping;
    },
  };
}
