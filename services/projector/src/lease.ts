import { type Bus, decodeJson, encodeJson, isRevisionConflict, type Logger } from "@warden/bus";
import { BUCKET_PROJECTOR, PROJECTOR_LEASE_KEY } from "@warden/contracts/subjects";
import { z } from "zod";
import type { KV } from "@warden/bus";

const LeaseSchema = z.object({ holder: z.string(), renewals: z.int().nonnegative() });

export interface LeaseOptions {
  readonly bus: Bus;
  readonly log: Logger;
  readonly holder: string;
  /** A holder that has not renewed for this long (by the watcher's own clock) is taken over. */
  readonly ttlMs: number;
  onAcquired(): Promise<void>;
  onLost(): Promise<void>;
}

export interface LeaseRunner {
  holds(): boolean;
  /** Stops renewing and gives the lease up at once, so a standby takes over without waiting. */
  stop(): Promise<void>;
}

/**
 * One projector copy projects at a time; the others stand by. The lease is a KV key renewed by
 * compare-and-set; a standby takes it over when its revision has not moved for `ttlMs` of the
 * standby's own time, so clocks need not agree. The models do not rely on it: two copies that
 * overlap during a takeover are kept correct by compare-and-set on every model and the cursor.
 */
export async function runLease(o: LeaseOptions): Promise<LeaseRunner> {
  const kv: KV = await o.bus.kvm.open(BUCKET_PROJECTOR);
  let held = false;
  let revision = 0;
  let seenRevision = -1;
  let seenSince = Date.now();
  let stopped = false;
  let busy: Promise<void> = Promise.resolve();

  const become = async (next: boolean) => {
    if (next === held) return;
    held = next;
    o.log.info({ holder: o.holder }, next ? "projector lease acquired" : "projector lease lost");
    try {
      await (next ? o.onAcquired() : o.onLost());
    } catch (err) {
      // not projecting after all (JetStream unavailable as a partition heals, say): the next
      // renewal must start it again, not find the lease held and do nothing for good
      if (next) held = false;
      throw err;
    }
  };

  /** Writes the lease if the key is still at `expected` (0: absent); the new revision, or undefined. */
  const write = async (value: z.infer<typeof LeaseSchema>, expected: number): Promise<number | undefined> => {
    try {
      return expected === 0 ? await kv.create(PROJECTOR_LEASE_KEY, encodeJson(value)) : await kv.update(PROJECTOR_LEASE_KEY, encodeJson(value), expected);
    } catch (err) {
      if (isRevisionConflict(err)) return undefined;
      throw err;
    }
  };

  const take = async (expected: number) => {
    const r = await write({ holder: o.holder, renewals: 0 }, expected);
    if (r !== undefined) revision = r;
    await become(r !== undefined);
  };

  const tick = async () => {
    const entry = await kv.get(PROJECTOR_LEASE_KEY);
    const decoded = entry?.operation === "PUT" ? decodeJson(entry.value) : undefined;
    const parsed = decoded?.ok ? LeaseSchema.safeParse(decoded.value) : undefined;
    if (entry === null || parsed === undefined || !parsed.success) {
      await take(entry?.revision ?? 0);
      return;
    }
    const lease = parsed.data;
    if (lease.holder === o.holder && entry.revision === revision) {
      const r = await write({ holder: o.holder, renewals: lease.renewals + 1 }, entry.revision);
      if (r !== undefined) revision = r;
      await become(r !== undefined);
      return;
    }
    await become(false);
    if (entry.revision !== seenRevision) {
      seenRevision = entry.revision;
      seenSince = Date.now();
      return;
    }
    if (Date.now() - seenSince >= o.ttlMs) {
      o.log.warn({ holder: lease.holder }, "projector lease holder stopped renewing, taking over");
      await take(entry.revision);
    }
  };

  const step = () => {
    busy = busy.then(() => (stopped ? undefined : tick())).catch((err: unknown) => o.log.error({ err }, "projector lease check failed"));
    return busy;
  };
  await step();
  const timer = setInterval(() => void step(), Math.max(50, Math.floor(o.ttlMs / 4)));
  return {
    holds: () => held,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await busy;
      if (held) {
        await become(false);
        // give it up so a standby need not wait out the ttl
        await kv.delete(PROJECTOR_LEASE_KEY, { previousSeq: revision }).catch((err: unknown) => {
          // someone took it after it ran out: theirs now, nothing to give up
          if (!isRevisionConflict(err)) o.log.warn({ err }, "projector lease not released");
        });
      }
    },
  };
}
