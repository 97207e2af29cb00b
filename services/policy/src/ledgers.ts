import { kvGetJson, type Bus, type JsonEntry, type KV } from "@warden/bus";
import { type LedgerExceeded, type LedgerReservation } from "@warden/contracts/events";
import { BUCKET_BUDGETS, ledgerKey } from "@warden/contracts/subjects";
import { createTurns } from "@warden/service-kit";
import { cancelledAmong } from "./cancelled-calls.js";
import { compareAndSet } from "./kv-compare-and-set.js";
import {
  LedgerStateSchema,
  reservationOf,
  reserveIn,
  settleIn,
  type LedgerCharge,
  type LedgerSettlement,
  type LedgerState,
} from "@warden/policy-engine";

const MAX_CAS_ATTEMPTS = 100;

const REREAD = Symbol("reread");
type Change<T> = { readonly next?: LedgerState; readonly result: T } | typeof REREAD;

export type LedgerAdmission =
  | { readonly ok: true; readonly reservations: readonly LedgerReservation[] }
  | { readonly ok: false; readonly exceeded: LedgerExceeded };

export interface Ledgers {
  /**
   * Reserves a call's charges in every ledger it counts against, all or none: the first ledger
   * without room refuses the call, and what was reserved in the others is released again.
   * Reserving again for the same call changes nothing (a redelivery).
   */
  reserve(callId: string, domain: string, charges: readonly LedgerCharge[]): Promise<LedgerAdmission>;
  /** Settles a call's reservations at its result: spent, or released (room again). Settling twice changes nothing. */
  settle(callId: string, reservations: readonly Pick<LedgerReservation, "ledger" | "holder" | "period">[], how: LedgerSettlement): Promise<void>;
}

/**
 * The ledger budgets (`budgets.ledgers`) in `warden_budgets`, keys `ledger.<id>.<holder>`, shared
 * by every policy copy: each reservation and settlement a compare-and-set on the key, so the count
 * is exact however many copies decide at once. Within a copy, work on one key goes one at a time
 * from the entry it last wrote; a conflict (another copy wrote) costs a read. A refusal is never
 * made from that remembered entry: another copy may have released room since, so the key is read
 * again first.
 */
export async function openLedgers(bus: Bus): Promise<Ledgers> {
  const kv: KV = await bus.kvm.open(BUCKET_BUDGETS);
  const last = new Map<string, JsonEntry<LedgerState>>();
  const turns = createTurns();

  /**
   * Applies `change` to the key with compare-and-set until it lands. `change` sees the state and
   * whether it was just read; it returns what to write (nothing: no write) or REREAD when its
   * answer would rest on the remembered entry alone (a refusal, a reservation not found).
   */
  const update = async <T>(key: string, change: (state: LedgerState | undefined, fresh: boolean) => Change<T>): Promise<T> =>
    turns.run(key, async () => {
      let fresh = !last.has(key);
      let current = last.get(key) ?? (await kvGetJson(kv, key, LedgerStateSchema));
      for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
        const r = change(current?.value, fresh);
        if (r !== REREAD) {
          if (r.next === undefined) return r.result;
          const revision = await compareAndSet(kv, key, r.next, current?.revision);
          if (revision !== undefined) {
            last.set(key, { key, value: r.next, revision });
            return r.result;
          }
        }
        last.delete(key);
        current = await kvGetJson(kv, key, LedgerStateSchema);
        fresh = true;
      }
      throw new Error(`ledger ${key} is contended or unreadable after ${MAX_CAS_ATTEMPTS} attempts`);
    });

  const reserveOne = (callId: string, domain: string, charge: LedgerCharge) =>
    update(ledgerKey(charge.ledger, charge.holder), (state, fresh): Change<ReturnType<typeof reserveIn>> => {
      const r = reserveIn(state, charge, callId, domain);
      if (!r.ok) return fresh ? { result: r } : REREAD;
      // held already (a redelivery): the state counts this period and holds the call, nothing to write
      return r.already ? { result: r } : { next: r.next, result: r };
    });

  const settle: Ledgers["settle"] = async (callId, reservations, how) => {
    for (const res of reservations) {
      await update(ledgerKey(res.ledger, res.holder), (state, fresh): Change<undefined> => {
        const next = settleIn(state, res, callId, how);
        if (next !== undefined) return { next, result: undefined };
        // another copy may have made the reservation after this one last wrote the key
        return fresh ? { result: undefined } : REREAD;
      });
    }
  };

  /**
   * A call cancelled before it started never ran, and no result will settle its hold: before a
   * ledger refuses, the claim slots of the calls it holds are read (only then: nothing is read while
   * there is room) and the cancelled ones released. Whether any was.
   */
  const releaseCancelled = async (charge: LedgerCharge): Promise<boolean> => {
    const state = (await kvGetJson(kv, ledgerKey(charge.ledger, charge.holder), LedgerStateSchema))?.value;
    if (state === undefined || state.period !== charge.period) return false;
    const ids = await cancelledAmong(bus, state.holds);
    for (const id of ids) await settle(id, [charge], "released");
    return ids.length > 0;
  };

  return {
    async reserve(callId, domain, charges) {
      const taken: LedgerCharge[] = [];
      for (const charge of charges) {
        let r = await reserveOne(callId, domain, charge);
        if (!r.ok && (await releaseCancelled(charge))) r = await reserveOne(callId, domain, charge);
        if (!r.ok) {
          await settle(callId, taken.map(reservationOf), "released");
          return { ok: false, exceeded: r.exceeded };
        }
        taken.push(charge);
      }
      return { ok: true, reservations: taken.map(reservationOf) };
    },
    settle,
  };
}
