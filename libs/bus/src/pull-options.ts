import type { ConsumeMessages } from "@nats-io/jetstream";

/**
 * A pull request waits at most this long. After a stream or consumer leader is lost, the request
 * parked on it is gone; a short expiry (and the heartbeats below) bound how long a consumer waits
 * before pulling from the new leader. The client's default of 30 s stalled calls for 35-45 s.
 */
export const DEFAULT_PULL_EXPIRES_MS = 5_000;
/** The server's heartbeat while a pull waits; two missed ones make the client pull again. */
export const DEFAULT_IDLE_HEARTBEAT_MS = 1_000;

export interface PullTuning {
  /** At least 1,000 (the client's floor). */
  readonly expiresMs?: number;
  /** At most half the expiry (the server refuses a larger one). */
  readonly idleHeartbeatMs?: number;
  /**
   * On missed heartbeats, pull again at once (default) rather than first ask for the consumer's
   * info: while a new leader is being elected that request times out, and the client then backs
   * off for up to 1.5x the expiry before asking again.
   */
  readonly repullWithoutInfo?: boolean;
}

/**
 * Consume options for a stage: at most `maxMessages` requested at once, so the client holds no
 * more than that beyond the work in flight (new pulls wait behind what is buffered). Measured on
 * a 3-node nats-server 2.9.10 cluster, killing the consumer's leader under a steady load: calls
 * flowed again after 7-10 s (the election itself takes 4-9 s), against 8-14 s when the client
 * asks for info first, and 41-46 s with the client's defaults.
 */
export function consumeOptions(maxMessages: number, tuning: PullTuning = {}): ConsumeMessages {
  const expires = Math.max(1_000, tuning.expiresMs ?? DEFAULT_PULL_EXPIRES_MS);
  const idle = Math.min(Math.floor(expires / 2), Math.max(500, tuning.idleHeartbeatMs ?? DEFAULT_IDLE_HEARTBEAT_MS));
  return { max_messages: maxMessages, expires, idle_heartbeat: idle, bind: tuning.repullWithoutInfo ?? true };
}
