import type { Logger } from "@warden/bus";
import { decodeCallMessage, decodeFailureText } from "@warden/projections";
import type { CursorStore } from "./cursor.js";
import type { ModelStore, SequencedEvent } from "./model-store.js";

/** A stream message as the projector sees it. */
export interface RawMessage {
  readonly seq: number;
  readonly subject: string;
  readonly data: Uint8Array;
}

export interface BatchDeps {
  readonly stores: readonly ModelStore[];
  readonly cursor: CursorStore;
  readonly log: Logger;
  readonly concurrency: number;
  /** Called for each message that is not a valid event (on every attempt at its run: see PoisonLetters). */
  readonly onPoison?: (m: RawMessage, reason: string) => Promise<void>;
}

/**
 * Applies a run of consecutive stream sequences that follows the cursor: every model touched, by
 * compare-and-set, then the cursor. A crash anywhere leaves models that skip what they already
 * hold when the run comes back, so nothing is lost or counted twice.
 */
export async function applyRun(deps: BatchDeps, run: readonly RawMessage[]): Promise<void> {
  const last = run.at(-1);
  if (last === undefined) return;
  const events: SequencedEvent[] = [];
  for (const m of run) {
    const decoded = decodeCallMessage(m.subject, m.data);
    if (decoded.ok) events.push({ seq: m.seq, event: decoded.event });
    else await deps.onPoison?.(m, decodeFailureText(decoded));
  }
  await writeModels(deps, events);
  await deps.cursor.advance(last.seq);
}

async function writeModels(deps: BatchDeps, run: readonly SequencedEvent[]): Promise<void> {
  const work: { store: ModelStore; key: string; events: SequencedEvent[] }[] = [];
  for (const store of deps.stores) {
    const spec = store.spec;
    const byKey = new Map<string, SequencedEvent[]>();
    for (const se of run) {
      for (const key of spec.keysOf(se.event)) {
        const list = byKey.get(key);
        if (list === undefined) byKey.set(key, [se]);
        else list.push(se);
      }
    }
    for (const [key, events] of byKey) work.push({ store, key, events });
  }
  let next = 0;
  const worker = async () => {
    while (next < work.length) {
      const w = work[next++]!;
      await w.store.update(w.key, w.events);
    }
  };
  await Promise.all(Array.from({ length: Math.min(deps.concurrency, work.length) }, worker));
}
