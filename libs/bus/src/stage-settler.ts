import { tracingEnabled, type EventOfType, type EventType } from "@warden/contracts/events";
import { busObserver, type StageSettlement } from "./bus-observer.js";
import { copyToDlq } from "./dlq.js";
import type { Logger } from "./logger.js";
import type { JsMsg } from "./nats-types.js";
import { inStageSpan } from "./stage-span.js";
import type { StageContext, StageOutcome, StageSpec, UndecodableMessage } from "./stage-spec.js";

/**
 * Turns what a stage decided about a message into its ack, nak with backoff, or term + DLQ
 * letter; runs handlers so that a throw is a retry and a long one keeps the message.
 */
export class StageSettler<T extends EventType> {
  constructor(
    private readonly spec: StageSpec<T>,
    private readonly ackWaitMs: number,
    private readonly backoffMs: readonly number[],
  ) {}

  /**
   * Runs the handler and settles the message by its outcome; when tracing is on, inside the
   * stage's span (a child of the span the event's `traceparent` names).
   */
  async handle(m: JsMsg, event: EventOfType<T>, ctx: StageContext): Promise<void> {
    if (!tracingEnabled()) {
      await this.settle(m, event, ctx);
      return;
    }
    await inStageSpan(this.spec.durable, event, () => this.settle(m, event, ctx));
  }

  private async settle(m: JsMsg, event: EventOfType<T>, ctx: StageContext): Promise<{ settled: StageSettlement; reason?: string }> {
    // timed only when a process observes its stages (metrics on)
    const observer = busObserver();
    const t0 = observer.stageHandled === undefined ? 0 : performance.now();
    const outcome = await this.guarded(m, ctx, () => this.spec.handle(event, ctx));
    const settled = outcome.kind === "ack" || outcome.kind === "poison" ? outcome.kind : ctx.lastAttempt ? "exhausted" : "retry";
    observer.stageHandled?.({ stage: this.spec.durable, eventType: event.type, tool: event.tool, outcome: settled, seconds: (performance.now() - t0) / 1000 });
    if (outcome.kind === "ack") {
      m.ack();
    } else if (outcome.kind === "poison") {
      await this.deadLetter(m, outcome.reason, ctx.log);
    } else if (ctx.lastAttempt) {
      const reason = `retries exhausted after ${ctx.deliveryCount} deliveries: ${outcome.reason}`;
      try {
        await this.spec.onExhausted?.(event, reason, ctx);
      } catch (err) {
        ctx.log.error({ err }, "exhausted handler failed");
      }
      await this.deadLetter(m, reason, ctx.log);
    } else {
      this.retryLater(m, outcome.reason, ctx);
    }
    return outcome.kind === "ack" ? { settled } : { settled, reason: outcome.reason };
  }

  /** A message that is not the event its subject names: the stage may answer it, then it is dead-lettered. */
  async undecodable(m: JsMsg, problem: UndecodableMessage, ctx: StageContext): Promise<void> {
    // the code first, as the projector writes its letters, so letters can be counted by code
    const why = `${problem.code}: ${problem.reason}`;
    const onUndecodable = this.spec.onUndecodable;
    if (onUndecodable === undefined) return this.deadLetter(m, why, ctx.log);
    const outcome = await this.guarded(m, ctx, () => onUndecodable(problem, ctx));
    if (outcome.kind === "ack") return this.deadLetter(m, `${why} (answered by the stage)`, ctx.log);
    if (outcome.kind === "poison") return this.deadLetter(m, `${why}; ${outcome.reason}`, ctx.log);
    if (ctx.lastAttempt) return this.deadLetter(m, `${why}; not answered after ${ctx.deliveryCount} deliveries: ${outcome.reason}`, ctx.log);
    this.retryLater(m, outcome.reason, ctx);
  }

  /** The one place a message is terminated: recorded in the DLQ once, then never redelivered. */
  async deadLetter(m: JsMsg, reason: string, log: Logger): Promise<void> {
    log.warn({ reason }, "message terminated to dlq");
    busObserver().deadLettered?.({ stage: this.spec.durable, reason });
    try {
      await copyToDlq(this.spec.bus, { stage: this.spec.durable, reason, subject: m.subject, streamSeq: m.seq, data: m.data });
    } catch (err) {
      log.error({ err }, "dlq copy failed");
    }
    // no reason on the term: servers before 2.10 ignore "+TERM <reason>" and would redeliver
    m.term();
  }

  /** A bug on the way to the handler: retry later rather than leave the message parked. */
  failed(m: JsMsg, err: unknown): void {
    this.spec.log.error({ err, seq: m.seq }, "stage message failed");
    m.nak(this.backoffMs[0] ?? 1_000);
  }

  private retryLater(m: JsMsg, reason: string, ctx: StageContext): void {
    const delay = this.backoffMs[Math.min(ctx.deliveryCount - 1, this.backoffMs.length - 1)] ?? 1_000;
    ctx.log.warn({ reason, delayMs: delay }, "message will be retried");
    m.nak(delay);
  }

  /** Runs a handler while keeping the message ours; a throw is a transient fault. */
  private async guarded(m: JsMsg, ctx: StageContext, run: () => Promise<StageOutcome>): Promise<StageOutcome> {
    const heartbeat = setInterval(() => m.working(), Math.max(1_000, Math.floor(this.ackWaitMs / 3)));
    try {
      return await run();
    } catch (err) {
      ctx.log.error({ err }, "stage handler failed");
      return { kind: "retry", reason: `handler error: ${(err as Error).message}` };
    } finally {
      clearInterval(heartbeat);
    }
  }
}
