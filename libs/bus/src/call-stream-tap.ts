/** A call stream message as a reader in order received it. */
export interface TappedMessage {
  readonly seq: number;
  readonly subject: string;
  readonly data: Uint8Array;
}

/** Default bound: at 600 bytes a message, about 30 MB, a minute of a busy box's events. */
const MAX_HELD = 50_000;

/**
 * The call stream's messages that one reader in this process was delivered in stream order (the
 * projector, as it applies them), handed to another that reads the whole stream in order (the
 * notary), so the server does not send them twice. It holds one consecutive run: a message that
 * does not follow it (another copy applied what lies between) starts a new run, and past its bound
 * the older half is dropped. A reader takes only from exactly the sequence it asks for; what the tap
 * does not hold, the reader reads from the stream itself, as it would without one.
 */
export class CallStreamTap {
  private held: TappedMessage[] = [];

  constructor(private readonly max = MAX_HELD) {}

  /** Messages in stream order, each copied: a delivery's bytes may be a view of a larger buffer. */
  offer(messages: readonly TappedMessage[]): void {
    for (const m of messages) {
      const last = this.held.at(-1);
      if (last !== undefined && m.seq <= last.seq) continue;
      if (last !== undefined && m.seq !== last.seq + 1) this.held = [];
      this.held.push({ seq: m.seq, subject: m.subject, data: m.data.slice() });
    }
    // half at a time, so a reader that stopped taking costs a copy per `max / 2` messages, not per offer
    if (this.held.length > this.max) this.held = this.held.slice(this.held.length - Math.floor(this.max / 2));
  }

  /** Everything held from `fromSeq` on, handed over; empty unless `fromSeq` is held. */
  take(fromSeq: number): TappedMessage[] {
    const first = this.held[0];
    if (first === undefined || fromSeq < first.seq || fromSeq > this.held.at(-1)!.seq) {
      // what lies before fromSeq is of no use to the reader any more
      if (first !== undefined && fromSeq > this.held.at(-1)!.seq) this.held = [];
      return [];
    }
    const out = this.held.slice(fromSeq - first.seq);
    this.held = [];
    return out;
  }

  /** Forgets everything: the stream was made again, and its sequences name other messages now. */
  reset(): void {
    this.held = [];
  }
}
