import type { Bus } from "@warden/bus";
import { STREAM_CALLS } from "@warden/contracts/subjects";
import { openCursor } from "./cursor.js";

/** How long a check waits for a busy projector to reach the stream's end before calling it behind. */
export const PROJECTOR_WAIT_MS = 5_000;
const POLL_MS = 100;

/** Where the projector stands against the stream. */
export interface ProjectorPosition {
  /** The projector's cursor when the check ended. */
  readonly cursor: number;
  /** The sequence it had to reach: the stream's last when the check began (or the one asked for). */
  readonly target: number;
  /** False for a projector that is stuck, lagging more than the wait, or not running. */
  readonly caughtUp: boolean;
  readonly waitedMs: number;
}

/**
 * Waits up to `waitMs` for the projector's cursor to reach `target` (the stream's last sequence
 * now, by default). A healthy projector under load gets there within the wait; one that does not
 * is a finding, whatever the models it has written so far say.
 */
export async function awaitProjector(bus: Bus, opts: { readonly target?: number; readonly waitMs?: number } = {}): Promise<ProjectorPosition> {
  const target = opts.target ?? (await bus.jsm.streams.info(STREAM_CALLS)).state.last_seq;
  const waitMs = opts.waitMs ?? PROJECTOR_WAIT_MS;
  const cursor = await openCursor(bus);
  const t0 = performance.now();
  for (;;) {
    const at = await cursor.read();
    const waitedMs = Math.round(performance.now() - t0);
    if (at >= target) return { cursor: at, target, caughtUp: true, waitedMs };
    if (waitedMs >= waitMs) return { cursor: at, target, caughtUp: false, waitedMs };
    await new Promise((r) => setTimeout(r, Math.min(POLL_MS, waitMs - waitedMs)));
  }
}

/** The finding for a projector that did not reach its target, in one line. */
export function projectorBehindText(p: ProjectorPosition): string {
  return `projector cursor at seq ${p.cursor}, stream at ${p.target} after waiting ${(p.waitedMs / 1000).toFixed(1)}s: the projector is stuck, lagging or not running, so the live read models miss ${p.target - p.cursor} event${p.target - p.cursor === 1 ? "" : "s"}`;
}
