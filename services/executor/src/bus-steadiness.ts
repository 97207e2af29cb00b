import type { Bus } from "@warden/bus";

/**
 * How long this process has seen the bus work without a fault: the connection's status changes
 * (disconnect, reconnect, a stale connection) and a failed read of a claim's result each start the
 * count again (not a failed heartbeat: a bucket removed for good would then hold every claim
 * forever). A claimant cut off by the same outage needs the bus back for a while to
 * record its held-up result, so a claim is not given up before that (chaos, nats-server killed 5
 * times in 14 s: the judge wrote "outcome unknown" 1 s before the claimant's result got through).
 */
export interface BusSteadiness {
  /** Milliseconds since the last fault this process saw (its own clock: a duration). */
  steadyForMs(): number;
  noteFault(): void;
}

// not "error": a refused publish is the server answering, not the bus failing
const FAULTS = new Set(["disconnect", "reconnecting", "reconnect", "staleConnection", "forceReconnect", "ldm"]);

export function watchBusSteadiness(bus: Pick<Bus, "nc">, now: () => number = Date.now): BusSteadiness {
  let lastFaultMs = -Infinity;
  const noteFault = () => {
    lastFaultMs = now();
  };
  // ends when the connection closes
  void (async () => {
    for await (const s of bus.nc.status()) if (FAULTS.has(s.type)) noteFault();
  })();
  return { steadyForMs: () => now() - lastFaultMs, noteFault };
}
