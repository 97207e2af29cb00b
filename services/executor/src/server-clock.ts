/**
 * The server's time as this process can tell it: its own clock plus an offset measured on its
 * heartbeat writes (the server stamps each stored message). A claim's deadline is kept on the
 * server's timeline, so the executor that judges it must read the time there too: a judge whose
 * clock ran 5 min behind waited 5 min past a dead claimant's deadline (chaos, libfaketime -5m).
 */
export interface ServerClock {
  nowMs(): number;
  /** One measurement: the server stored a write at `storedAtMs`, sent at `sentAtMs` and acknowledged at `ackedAtMs` (local). */
  observe(storedAtMs: number, sentAtMs: number, ackedAtMs: number): void;
}

export function createServerClock(localNow: () => number = Date.now): ServerClock {
  let offsetMs = 0;
  let bestRoundTripMs = Infinity;
  let measuredAt = -Infinity;
  return {
    nowMs: () => localNow() + offsetMs,
    observe(storedAtMs, sentAtMs, ackedAtMs) {
      const roundTripMs = Math.max(0, ackedAtMs - sentAtMs);
      // the tightest round trip of the last minute is the best estimate; an old one gives way (clocks drift, get set)
      if (roundTripMs > bestRoundTripMs && ackedAtMs - measuredAt < 60_000) return;
      bestRoundTripMs = roundTripMs;
      measuredAt = ackedAtMs;
      offsetMs = storedAtMs - (sentAtMs + roundTripMs / 2);
    },
  };
}
