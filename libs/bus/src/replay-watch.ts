import type { Logger } from "./logger.js";
import type { JsMsg } from "./nats-types.js";

/**
 * Tells a stage whether a delivery may be one it (or a copy of it) answered before: a
 * redelivery, or a message the stream stored before the durable was created — which a durable
 * made again (deleted by an operator, lost with a server) delivers once more from the start.
 * Nothing else is: a first delivery of a message newer than the durable is new however old its
 * event (a backlog), so handlers read the call's history only when it can hold an answer.
 *
 * A durable made again under a running stage shows as its delivery sequence starting over; until
 * its new creation time is known every delivery counts as a possible replay.
 */
export class ReplayWatch {
  private lastDeliverySeq = 0;
  private learning = false;

  constructor(
    private createdMs: number,
    private readonly readCreatedMs: () => Promise<number>,
    private readonly log: Logger,
  ) {}

  possibleReplay(m: Pick<JsMsg, "info">): boolean {
    const { deliverySequence, deliveryCount, timestampNanos } = m.info;
    if (deliverySequence <= this.lastDeliverySeq) this.durableRemade();
    this.lastDeliverySeq = deliverySequence;
    if (deliveryCount > 1 || this.learning) return true;
    return Number(timestampNanos) / 1e6 < this.createdMs;
  }

  private durableRemade(attempt = 0): void {
    if (this.learning && attempt === 0) return;
    this.learning = true;
    this.readCreatedMs().then(
      (ms) => {
        this.createdMs = ms;
        this.learning = false;
      },
      (err: unknown) => {
        if (attempt === 0) this.log.warn({ err }, "the stage durable was made again; reading its creation time");
        setTimeout(() => this.durableRemade(attempt + 1), 1_000).unref();
      },
    );
  }
}
