import { kvCreateJson, kvGetJson, kvUpdateJson, type Bus } from "@warden/bus";
import { BUCKET_PROJECTOR, PROJECTOR_CURSOR_KEY, ProjectorCursorSchema } from "@warden/contracts";
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
  return {
    async read() {
      return (await kvGetJson(kv, PROJECTOR_CURSOR_KEY, ProjectorCursorSchema))?.value.seq ?? 0;
    },
    async advance(seq) {
      for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
        const current = await kvGetJson(kv, PROJECTOR_CURSOR_KEY, ProjectorCursorSchema);
        if (current !== undefined && current.value.seq >= seq) return;
        const written =
          current === undefined ? await kvCreateJson(kv, PROJECTOR_CURSOR_KEY, { seq }) : await kvUpdateJson(kv, PROJECTOR_CURSOR_KEY, { seq }, current.revision);
        if (written) return;
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
