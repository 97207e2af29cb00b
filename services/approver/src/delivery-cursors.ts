import { kvGetJson, kvUpdateJson, kvCreateJson, type Bus, type KV } from "@warden/bus";
import { approverCursorKey, BUCKET_APPROVER_CURSORS } from "@warden/contracts/subjects";
import { DeliveryCursorSchema } from "@warden/contracts/approval";

/**
 * Where each person's durable deliveries stand, in `warden_approver_cursors`: the stream sequence
 * of the last approval request the app acknowledged. Kept here, not by the app, so a restarted app
 * (or a new device under the same durable name) resumes without storing anything itself.
 */
export interface DeliveryCursors {
  /** Moves the durable's position up to `ack` (never back) and returns where it stands. */
  advance(approver: string, durable: string, ack: number | undefined): Promise<number>;
}

const ATTEMPTS = 5;

export async function openDeliveryCursors(bus: Bus): Promise<DeliveryCursors> {
  const kv: KV = await bus.kvm.open(BUCKET_APPROVER_CURSORS);
  return {
    async advance(approver, durable, ack) {
      const key = approverCursorKey(approver, durable);
      // compare-and-set, so two copies of the app acknowledging at once never move it back
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const current = await kvGetJson(kv, key, DeliveryCursorSchema);
        const seq = current?.value.seq ?? 0;
        if (ack === undefined || ack <= seq) return seq;
        const next = { seq: ack, at: new Date().toISOString() };
        const stored = current === undefined ? await kvCreateJson(kv, key, next) : await kvUpdateJson(kv, key, next, current.revision);
        if (stored) return ack;
      }
      throw new Error(`delivery cursor ${key} kept changing under ${ATTEMPTS} attempts`);
    },
  };
}
