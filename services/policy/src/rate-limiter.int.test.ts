import { describe, expect, it } from "vitest";
import { newId } from "@warden/contracts/events";
import { RATE_RULES, type RateBucket } from "@warden/policy-engine";
import { useTestNats } from "@warden/testing";
import { openRateLimiter } from "./rate-limiter.js";

const perPrincipal = (burst: number): RateBucket => ({ rule: RATE_RULES.principal, limit: { ratePerSecond: 0.001, burst } });

describe("the rate limiter", () => {
  const t = useTestNats();

  it("gives two policy copies one bucket per principal: together they admit the burst, not twice it", async () => {
    // two copies, each connected as the policy service
    const copies = await Promise.all(
      ["policy-1", "policy-2"].map(async (name) => openRateLimiter(await t.nats.connectAs({ kind: "service", name, role: "policy" }))),
    );
    const principal = `bot-${newId()}`;
    const takes = await Promise.all(Array.from({ length: 20 }, (_, i) => copies[i % 2]!.take(principal, [perPrincipal(7)])));
    expect(takes.filter((r) => r === undefined)).toHaveLength(7);
    expect(takes.filter((r) => r !== undefined)).toHaveLength(13);
    expect(takes.find((r) => r !== undefined)).toMatchObject({ bucket: { rule: "rate.principal" }, retryAfterMs: expect.any(Number) });
    // another principal's bucket is its own
    expect(await copies[1]!.take(`carol-${newId()}`, [perPrincipal(7)])).toBeUndefined();
  });

  it("refills with time and says when the next token comes", async () => {
    let now = 1_000_000;
    const limiter = await openRateLimiter(await t.nats.connectAs({ kind: "service", name: "policy-3", role: "policy" }), () => now);
    const principal = `bot-${newId()}`;
    const bucket: RateBucket = { rule: RATE_RULES.principal, limit: { ratePerSecond: 4, burst: 1 } };
    expect(await limiter.take(principal, [bucket])).toBeUndefined();
    expect(await limiter.take(principal, [bucket])).toMatchObject({ retryAfterMs: 250 });
    now += 250;
    expect(await limiter.take(principal, [bucket])).toBeUndefined();
  });
});
