import { describe, expect, it } from "vitest";
import { takeToken, type TokenBucketState } from "./token-bucket.js";

const limit = { ratePerSecond: 2, burst: 3 };

describe("takeToken", () => {
  it("starts full, gives a burst, then refuses with the time until the next token", () => {
    let state: TokenBucketState | undefined;
    for (let i = 0; i < 3; i++) {
      const t = takeToken(state, limit, 1_000);
      expect(t.ok).toBe(true);
      if (t.ok) state = t.next;
    }
    expect(takeToken(state, limit, 1_000)).toEqual({ ok: false, retryAfterMs: 500 });
  });

  it("refills at the rate, never above the burst", () => {
    const empty = { tokens: 0, atMs: 1_000 };
    expect(takeToken(empty, limit, 1_250)).toEqual({ ok: false, retryAfterMs: 250 });
    expect(takeToken(empty, limit, 1_500)).toEqual({ ok: true, next: { tokens: 0, atMs: 1_500 } });
    expect(takeToken(empty, limit, 60_000)).toEqual({ ok: true, next: { tokens: 2, atMs: 60_000 } });
  });

  it("counts no negative time when another copy's clock ran ahead", () => {
    expect(takeToken({ tokens: 0.5, atMs: 2_000 }, limit, 1_000)).toEqual({ ok: false, retryAfterMs: 250 });
    expect(takeToken({ tokens: 1.5, atMs: 2_000 }, limit, 1_000)).toEqual({ ok: true, next: { tokens: 0.5, atMs: 2_000 } });
  });
});
