import { encodeJson, isRevisionConflict, kvGetJson, type Bus } from "@warden/bus";
import { BUCKET_PROJECTOR, PROJECTOR_CURSOR_KEY } from "@warden/contracts/subjects";
import { ProjectorCursorSchema } from "@warden/contracts/read-models";
import type { KV } from "@warden/bus";

const MAX_CAS_ATTEMPTS = 50;

/** The last stream sequence every read model reflects; it only moves forward. */
export interface CursorStore {
  read(): Promise<number>;
  /** Moves the cursor to `seq` unless it is already there or beyond (another copy moved it). */
  advance(seq: number): Promise<void>;
  /** Calls `cb` whenever the cursor is written (by any copy); returns a stop function. */
  watch(cb: () => void): Promise<() => void>;
}

export async function openCursor(bus: Bus): Promise<CursorStore> {
  const kv: KV = await bus.kvm.open(BUCKET_PROJECTOR);
  // what this store last read or wrote: the cursor only moves forward, so a later value is never
  // lower, and a write at this revision fails if anyone wrote since
  let known: { seq: number; revision: number } | undefined;
  const get = async () => {
    const current = await kvGetJson(kv, PROJECTOR_CURSOR_KEY, ProjectorCursorSchema);
    // a cursor gone or behind what this store knew: its bucket was made again (a server back on a
    // lost store) or the key reset; what it knew names a store that is no more
    known = current === undefined ? undefined : { seq: current.value.seq, revision: current.revision };
    return current;
  };
  /** The write at `revision` (0: the key must not exist); false when someone else wrote first. */
  const write = async (seq: number, revision: number): Promise<boolean> => {
    try {
      const data = encodeJson({ seq });
      known = { seq, revision: revision === 0 ? await kv.create(PROJECTOR_CURSOR_KEY, data) : await kv.update(PROJECTOR_CURSOR_KEY, data, revision) };
      return true;
    } catch (err) {
      if (isRevisionConflict(err)) return false;
      throw err;
    }
  };
  return {
    async read() {
      return (await get())?.value.seq ?? 0;
    },
    async advance(seq) {
      // the projector reads the cursor before each run and advances it after: the value it read
      // (or wrote) is most often still the current one, so the write goes first, without a read
      if (known !== undefined) {
        if (known.seq >= seq) return;
        if (await write(seq, known.revision)) return;
      }
      for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
        const current = await get();
        if (current !== undefined && current.value.seq >= seq) return;
        if (await write(seq, current?.revision ?? 0)) return;
      }
      throw new Error(`projector cursor is contended after ${MAX_CAS_ATTEMPTS} attempts`);
    },
    async watch(cb) {
      const iter = await kv.watch({ key: PROJECTOR_CURSOR_KEY });
      void (async () => {
        for await (const _ of iter) cb();
      })();
      return () => iter.stop();
    },
  };
}
