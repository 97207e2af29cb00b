import type { EventType } from "@warden/contracts/events";

/** Pauses before a woken event the stream did not show yet is read again, by attempt; the last repeats. */
export const RECHECK_MS: readonly number[] = [1, 2, 5, 10, 25, 50, 100, 250];

/**
 * The wakes of a waiting call read. A wake is the core copy of a publish on one of the call's
 * subjects, and counts once the stream holds the event. The core copy can reach the registry before
 * the stream has stored the message (a busy server; a replica behind its leader), so an event
 * woken but not found is read again after a short pause, then longer ones, until it is found or the
 * read ends. Waiting for the next wake instead lost it: the read sat out its whole timeout with the
 * outcome already stored (a 2.5 s approval round trip in the bench). A publish the stream refused
 * is never found: it costs those reads again, never a wrong answer.
 */
export class ReadWakes {
  private readonly woken = new Set<EventType>();
  private readonly unconfirmed = new Set<EventType>();
  private rechecks = 0;

  /** The core copy of an event of `type` arrived. */
  woke(type: EventType): void {
    this.woken.add(type);
  }

  /** How long to wait before reading again: none after a wake, a recheck's pause while a wake is unconfirmed, else `left`. */
  pauseMs(left: number): number {
    if (this.woken.size > 0) return 0;
    if (this.unconfirmed.size === 0) return left;
    return Math.min(left, RECHECK_MS[Math.min(this.rechecks - 1, RECHECK_MS.length - 1)]!);
  }

  /** The types to read now: every woken and every still unconfirmed one. */
  take(): EventType[] {
    const types = new Set([...this.unconfirmed, ...this.woken]);
    this.woken.clear();
    this.unconfirmed.clear();
    return [...types];
  }

  /** After reading `types` (from `take`): those not `found` stay unconfirmed and are read again. */
  confirm(types: readonly EventType[], found: (type: EventType) => boolean): void {
    for (const t of types) if (!found(t)) this.unconfirmed.add(t);
    this.rechecks = this.unconfirmed.size === 0 ? 0 : this.rechecks + 1;
  }
}
