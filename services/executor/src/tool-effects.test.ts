import { describe, expect, it } from "vitest";
import { EFFECTS_MAX_TARGET_CHARS, EFFECTS_MAX_TARGETS } from "@warden/contracts/events";
import { Redactor } from "./domain/redactor.js";
import { EffectsLog } from "./tool-effects.js";

describe("EffectsLog", () => {
  it("reports nothing when the run reported nothing", () => {
    expect(new EffectsLog().observed(Redactor.none())).toBeUndefined();
  });

  it("keeps each kind's targets once, in order, redacted of the call's secrets", () => {
    const log = new EffectsLog();
    log.read("invoices/INV-1");
    log.read("invoices/INV-1");
    log.wrote("refunds/R-7");
    log.called("POST https://pay.example/v1/refunds/sk-live-0123456789abcdef");
    expect(log.observed(new Redactor(new Map([["stripe_key", "sk-live-0123456789abcdef"]])))).toEqual({
      reads: ["invoices/INV-1"],
      writes: ["refunds/R-7"],
      external: ["POST https://pay.example/v1/refunds/[REDACTED:stripe_key]"],
    });
  });

  it("bounds what it keeps: each target cut to its length, past the count only counted, and blank targets ignored", () => {
    const log = new EffectsLog();
    for (let i = 0; i < EFFECTS_MAX_TARGETS + 3; i++) log.wrote(`rows/${i}`);
    log.read("x".repeat(EFFECTS_MAX_TARGET_CHARS + 10));
    log.called("  ");
    const observed = log.observed(Redactor.none());
    expect(observed?.writes).toHaveLength(EFFECTS_MAX_TARGETS);
    expect(observed?.dropped).toBe(3);
    expect(observed?.reads[0]).toHaveLength(EFFECTS_MAX_TARGET_CHARS);
    expect(observed?.external).toEqual([]);
  });
});
