const FIRST_DELAY_MS = 50;
const MAX_DELAY_MS = 2_000;

/**
 * Retries `fn` with doubling delays until it succeeds or `untilMs` passes; then the last error is
 * thrown. At least one attempt is always made.
 */
export async function withBackoff<T>(fn: () => Promise<T>, o: { readonly untilMs: number; readonly signal?: AbortSignal; readonly maxDelayMs?: number }): Promise<T> {
  for (let delay = FIRST_DELAY_MS; ; delay = Math.min(delay * 2, o.maxDelayMs ?? MAX_DELAY_MS)) {
    try {
      return await fn();
    } catch (err) {
      const left = o.untilMs - Date.now();
      if (left <= 0 || o.signal?.aborted) throw err;
      await new Promise((r) => setTimeout(r, Math.min(delay, left)));
    }
  }
}
