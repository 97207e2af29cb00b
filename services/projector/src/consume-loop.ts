import { acksAll, watchStalledPull, type Bus, type CallStreamTap, type JsMsg, type Logger } from "@warden/bus";
import { STREAM_CALLS } from "@warden/contracts/subjects";
import { applyRun, type BatchDeps } from "./apply-batch.js";
import { HeldMessages } from "./held-messages.js";
import { nextProjectionStep, skipPastAgedOut } from "./projection-step.js";
import { PullInbox } from "./pull-inbox.js";

const RETRY_MS = [100, 250, 1_000, 5_000];
/** How often a copy holding events beyond a gap looks whether the cursor reached them. */
const GAP_POLL_MS = 25;
const AGE_CHECK_MS = 1_000;
/**
 * A pull request lives this long, with server heartbeats this often: a pull lost with a stream
 * leader is replaced after two missed heartbeats or at expiry, within seconds instead of the
 * client's default 30 s.
 */
export const PULL_EXPIRES_MS = 5_000;
export const PULL_HEARTBEAT_MS = 1_000;

export interface ConsumeOptions {
  readonly bus: Bus;
  readonly log: Logger;
  readonly durable: string;
  readonly batchSize: number;
  readonly ackWaitMs: number;
  readonly batchDeps: BatchDeps;
  readonly onApplied: (seq: number) => void;
  /** Each run, once applied, is offered here. */
  readonly tap?: CallStreamTap;
  /** Creates the durable (again): a server back on a new store has the stream but not it. */
  readonly ensureDurable: () => Promise<void>;
  /** The pull ended by itself (not by `stop`). */
  readonly onEnded: () => void;
  /**
   * The cursor was found behind where this copy saw it: the buckets and the stream were made
   * again (a server back on a lost store). What this copy remembers of them must be dropped.
   */
  readonly onCursorBack: (from: number, to: number) => void;
}

export interface Consuming {
  stop(): Promise<void>;
}

/** Pulls from the durable and applies runs behind the cursor until stopped. */
export async function consume(o: ConsumeOptions): Promise<Consuming> {
  const consumer = await o.bus.js.consumers.get(STREAM_CALLS, o.durable);
  // one ack per applied run where the durable acks all up to a sequence (as it stands now: the
  // admin may have made it again since the service started)
  const ackAll = acksAll((await consumer.info(true)).config);
  if (!ackAll) o.log.warn({ durable: o.durable }, "the projector's durable acks each event (made before acks per run); `warden topology` as the admin makes it again, from the cursor");
  // at most one batch is asked for (and, by the consumer's max_ack_pending, un-acked) at a time:
  // draining a backlog never holds more than that
  const messages = await consumer.consume({ max_messages: o.batchSize, expires: PULL_EXPIRES_MS, idle_heartbeat: PULL_HEARTBEAT_MS });
  watchStalledPull(messages, o.log, { bus: o.bus, durable: o.durable, ensure: o.ensureDurable });
  const inbox = new PullInbox<JsMsg>(messages);
  // another copy moving the cursor may be what a held run waits for
  const unwatch = await o.batchDeps.cursor.watch(() => inbox.wake());
  const stepper = new ProjectionStepper(o, inbox, ackAll);
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      for (const m of inbox.take()) stepper.held.add(m);
      if (stepper.held.size === 0) {
        if (inbox.ended) break;
        await inbox.wait();
        continue;
      }
      await stepper.run();
    }
  };
  // never rejects: a failed loop or pull is logged and, unless stopping, reported as ended so the
  // projector starts consuming again
  const done = (async () => {
    try {
      await loop();
    } catch (err) {
      o.log.error({ err }, "projector loop failed");
      // end the pull too, or waiting for it below would never end
      await messages.close();
    }
    unwatch();
    stepper.held.release();
    for (const m of inbox.take()) m.nak();
    await inbox.received.catch((err: unknown) => o.log.error({ err }, "projector pull failed"));
    if (!stopped) o.onEnded();
  })();

  let stopping: Promise<void> | undefined;
  return {
    stop() {
      stopping ??= (async () => {
        stopped = true;
        inbox.wake();
        await messages.close();
        await done;
      })();
      return stopping;
    },
  };
}

/** One turn of the loop over what this copy holds: apply a run, or wait for a gap to fill. */
class ProjectionStepper {
  readonly held: HeldMessages<JsMsg>;
  private failures = 0;
  private lastTouch = Date.now();
  private lastAgeCheck = 0;
  /** The highest cursor this copy read or applied; the shared cursor never moves back otherwise. */
  private cursorSeen = 0;

  constructor(
    private readonly o: ConsumeOptions,
    private readonly inbox: PullInbox<JsMsg>,
    ackAll: boolean,
  ) {
    this.held = new HeldMessages<JsMsg>(ackAll);
  }

  async run(): Promise<void> {
    try {
      const at = await this.o.batchDeps.cursor.read();
      if (at < this.cursorSeen) this.cursorWentBack(at);
      this.cursorSeen = at;
      this.held.settle(at);
      const step = nextProjectionStep(at, this.held.seqs(), this.o.batchSize);
      if (step.kind === "apply") return await this.apply(step.from, step.to);
      // the next event is held elsewhere: another copy, a redelivery, or gone with retention
      if (step.kind === "wait" && (await this.skippedAgedOut(at, step.lowestHeld))) return;
      this.keepHeld();
      await this.inbox.wait(GAP_POLL_MS);
    } catch (err) {
      const delay = RETRY_MS[Math.min(this.failures++, RETRY_MS.length - 1)]!;
      this.o.log.error({ err, delayMs: delay }, "events not applied, retrying");
      this.held.touch();
      await new Promise((r) => setTimeout(r, delay));
    }
  }

  private async apply(from: number, to: number): Promise<void> {
    const t0 = performance.now();
    const run = this.held.runFrom(from, to - from + 1);
    await applyRun(this.o.batchDeps, run);
    this.o.tap?.offer(run);
    this.o.onApplied(to);
    this.cursorSeen = Math.max(this.cursorSeen, to);
    this.held.settle(to);
    this.failures = 0;
    this.o.log.debug({ from, to, ms: Math.round(performance.now() - t0) }, "events applied");
  }

  /**
   * Deliveries held from before are of a stream that is gone (their sequences will be reused by
   * new events): handed back, never applied; the models' caches are dropped by the service.
   */
  private cursorWentBack(at: number): void {
    this.o.log.warn({ was: this.cursorSeen, now: at }, "projector cursor went back (its bucket was made again: a server on a lost store?); projecting the stream again from it");
    this.held.release();
    this.o.onCursorBack(this.cursorSeen, at);
  }

  /** At most every AGE_CHECK_MS: whether the gap aged out of the stream, and if so, the cursor moved past it. */
  private async skippedAgedOut(cursor: number, lowestHeld: number): Promise<boolean> {
    const now = Date.now();
    if (now - this.lastAgeCheck < AGE_CHECK_MS) return false;
    this.lastAgeCheck = now;
    const first = (await this.o.bus.jsm.streams.info(STREAM_CALLS)).state.first_seq;
    const skipTo = skipPastAgedOut(cursor, lowestHeld, first);
    if (skipTo === undefined) return false;
    this.o.log.warn({ cursor, firstStreamSeq: first }, "events aged out of the stream before they were projected");
    await this.o.batchDeps.cursor.advance(skipTo);
    return true;
  }

  /** Keeps held deliveries ours past the ack wait while they wait for the gap. */
  private keepHeld(): void {
    const now = Date.now();
    if (now - this.lastTouch < this.o.ackWaitMs / 3) return;
    this.held.touch();
    this.lastTouch = now;
  }
}
