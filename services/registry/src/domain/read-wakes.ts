import type { EventType } from "@warden/contracts/events";

/** Pauses before a woken event the stream does not show yet is read again; after the last, the wake is dropped. */
export const RECHECK_MS: readonly number[] = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1_000];

/**
 * The wakes of a waiting call read. A wake is the core copy of a publish on one of the call's
 * subjects, and counts once the stream holds the event. The core copy can reach the registry before
 * the stream has stored the message (a busy server; a replica behind its leader), so an event
 * woken but not found is read again after a short pause, then longer ones (`RECHECK_MS`), until it
 * is found. Waiting for the next wake instead lost it: the read sat out its whole timeout with the
 * outcome already stored (a 2.5 s approval round trip in the bench). A publish the stream refused
 * is never found: it costs those reads (about 2 s of them), never a wrong answer.
 */
export class ReadWakes {
  private readonly woken = new Set<EventType>();
  /** Each woken event not found yet, and the index into `RECHECK_MS` of its pause before the next read. */
  private readonly unconfirmed = new Map<EventType, number>();
  private readonly fresh = new Set<EventType>();

  /** The core copy of an event of `type` arrived. */
  woke(type: EventType): void {
    this.woken.add(type);
  }

  /** How long to wait before reading again: none after a wake, the shortest due recheck's pause, else `left`. */
  pauseMs(left: number): number {
    if (this.woken.size > 0) return 0;
    let pause = left;
    for (const next of this.unconfirmed.values()) pause = Math.min(pause, RECHECK_MS[next] ?? left);
    return Math.max(0, pause);
  }

  /** The types to read now: every woken and every still unconfirmed one. */
  take(): EventType[] {
    const types = new Set([...this.unconfirmed.keys(), ...this.woken]);
    for (const t of this.woken) this.fresh.add(t);
    this.woken.clear();
    return [...types];
  }

  /** After reading `types` (from `take`): those the stream does not `hold` yet are read again after their next pause. */
  confirm(types: readonly EventType[], holds: (type: EventType) => boolean): void {
    for (const t of types) {
      const next = this.fresh.has(t) ? 0 : (this.unconfirmed.get(t) ?? RECHECK_MS.length) + 1;
      if (holds(t) || next >= RECHECK_MS.length) this.unconfirmed.delete(t);
      else this.unconfirmed.set(t, next);
    }
    this.fresh.clear();
  }
}
