/** Retries an assertion until it passes or the timeout runs out; never a bare sleep. */
export async function eventually<T>(fn: () => T | Promise<T>, timeoutMs = 10_000, intervalMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > deadline) throw lastErr;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
