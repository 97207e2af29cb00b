import { copyToDlq, type Bus, type Logger } from "@warden/bus";
import type { RawMessage } from "./apply-batch.js";

/**
 * Dead-letters each message the projector leaves out once, not once per attempt at its run: a
 * run is tried again after a failed model write, and its poison is still poison. Sequences are
 * remembered until the cursor passes them. A copy that dies between the letter and the cursor
 * leaves one more letter to whoever takes over; a letter that cannot be written is logged and
 * never blocks the models (the stream still holds the message).
 */
export class PoisonLetters {
  private readonly recorded = new Set<number>();

  constructor(
    private readonly bus: Bus,
    private readonly log: Logger,
    private readonly stage: string,
  ) {}

  async record(m: RawMessage, reason: string): Promise<void> {
    if (this.recorded.has(m.seq)) return;
    this.log.warn({ seq: m.seq, subject: m.subject, reason }, "invalid event left out of the read models");
    try {
      await copyToDlq(this.bus, { stage: this.stage, reason, subject: m.subject, streamSeq: m.seq, data: m.data });
      this.recorded.add(m.seq);
    } catch (err) {
      this.log.error({ err, seq: m.seq }, "dlq copy failed");
    }
  }

  /** The stream was made again: its sequences name other messages now. */
  forgetAll(): void {
    this.recorded.clear();
  }

  /** The cursor is at `seq`: nothing at or below it is tried again. */
  forgetThrough(seq: number): void {
    for (const s of this.recorded) if (s <= seq) this.recorded.delete(s);
  }
}
