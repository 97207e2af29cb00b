/** A delivered message the projector holds until it is applied (the few fields it uses). */
export interface Delivery {
  readonly seq: number;
  ack(): void;
  nak(millis?: number): void;
  working(): void;
}

/**
 * Deliveries held by one projector copy, by stream sequence. A copy applies only the run that
 * follows the global cursor; what lies beyond a gap waits until another copy (or a redelivery)
 * fills it. A sequence delivered twice is held once and every delivery is acked: each one on its
 * own, or, on a durable that acks all up to a sequence (`ackAll`), the highest one settled alone.
 */
export class HeldMessages<M extends Delivery> {
  private readonly bySeq = new Map<number, M[]>();

  constructor(private readonly ackAll = false) {}

  get size(): number {
    return this.bySeq.size;
  }

  add(m: M): void {
    const list = this.bySeq.get(m.seq);
    if (list === undefined) this.bySeq.set(m.seq, [m]);
    else list.push(m);
  }

  /** Acks and forgets everything at or below `cursor`: it is in every model already. */
  settle(cursor: number): void {
    let highest: M | undefined;
    for (const [seq, list] of this.bySeq) {
      if (seq > cursor) continue;
      if (!this.ackAll) for (const m of list) m.ack();
      else if (highest === undefined || seq > highest.seq) highest = list.at(-1);
      this.bySeq.delete(seq);
    }
    highest?.ack();
  }

  /** The consecutive run starting at `from`, at most `max` long (one delivery each). */
  runFrom(from: number, max: number): M[] {
    const run: M[] = [];
    for (let seq = from; run.length < max; seq++) {
      const list = this.bySeq.get(seq);
      if (list === undefined) break;
      run.push(list[0]!);
    }
    return run;
  }

  /** The sequences held. */
  seqs(): ReadonlySet<number> {
    return new Set(this.bySeq.keys());
  }

  /** Keeps every held delivery ours past the ack wait. */
  touch(): void {
    for (const list of this.bySeq.values()) for (const m of list) m.working();
  }

  /** Hands everything back to the server (on stop). */
  release(): void {
    for (const list of this.bySeq.values()) for (const m of list) m.nak();
    this.bySeq.clear();
  }
}
