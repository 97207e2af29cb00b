import { describe, expect, it } from "vitest";
import type { ToolResultValidated } from "@warden/contracts/events";
import { defineTool } from "@warden/executor";
import { callEvents, eventTypes, eventually } from "@warden/testing";
import { z } from "zod";
import { runWarden } from "../support/cli.js";
import { usualPrincipals } from "../support/usual-principals.js";
import { useTestWarden } from "../support/use-test-warden.js";

/**
 * Verification over the real services: a result is checked against the tool's outputSchema and by
 * its own verify before it is recorded; a failed check is an error result (the executor keeps
 * serving), and ToolResultValidated records what the checks found, in the trace.
 */
describe("result verification: outputSchema and verify, recorded as ToolResultValidated", () => {
  const stock = new Map([["sku-1", 3]]);
  const lookup = defineTool({
    name: "shop.lookup",
    version: "1.0.0",
    title: "Look up an item",
    description: "Use when the customer asks what an item costs.",
    grade: "read",
    idempotent: true,
    outputSchema: { type: "object", properties: { sku: { type: "string" }, price: { type: "number" } }, required: ["sku", "price"], additionalProperties: false },
    input: z.strictObject({ sku: z.string() }),
    // sku-broken answers what the schema does not promise: a price as text, and a field too many
    handler: ({ sku }) => (sku === "sku-broken" ? { sku, price: "twelve", currency: "EUR" } : { sku, price: 12 }),
  });
  const reserve = defineTool({
    name: "shop.reserve",
    version: "1.0.0",
    title: "Reserve an item",
    description: "Use when a customer wants an item held for them; others see it as reserved.",
    grade: "write",
    input: z.strictObject({ sku: z.string(), qty: z.int().positive() }),
    handler: ({ sku, qty }) => {
      const held = Math.min(qty, stock.get(sku) ?? 0);
      stock.set(sku, (stock.get(sku) ?? 0) - held);
      return { sku, reserved: held };
    },
    verify: (output, { qty }) => (output.reserved === qty ? undefined : `reserved ${output.reserved} of the ${qty} asked for`),
  });

  const t = useTestWarden({ policy: { version: "e2e-verify", principals: usualPrincipals("planner") } }, async (w) => {
    await w.startExecutor("shop", [lookup, reserve]);
    const planner = await w.agent("planner");
    return { planner };
  });

  const validatedOf = async (callId: string) => (await callEvents(t.w.bus, callId)).find((e): e is ToolResultValidated => e.type === "ToolResultValidated");

  it("ends a call whose output violates the outputSchema with an OUTPUT_INVALID result, records the check, and keeps serving", async () => {
    const bad = await t.planner.call("shop.lookup", { sku: "sku-broken" }, { mode: "plan" });
    expect(bad).toMatchObject({ ok: false, status: "failed", error: { code: "OUTPUT_INVALID" } });
    expect(bad.error?.message).toMatch(/does not match its outputSchema: .*\/currency is not an allowed property.*\/price/);
    const events = await callEvents(t.w.bus, bad.callId);
    // checked after the run, recorded before the outcome; both answer the claim
    expect(eventTypes(events).slice(-3)).toEqual(["ToolCallStarted", "ToolResultValidated", "ToolCallFinished"]);
    expect(await validatedOf(bad.callId)).toMatchObject({
      data: { ok: false, checks: [{ check: "outputSchema", ok: false, message: expect.stringContaining("/price") }], error: { code: "OUTPUT_INVALID" }, attempt: 1 },
    });
    // not a crash: the same executor serves the next call
    expect(await t.planner.call("shop.lookup", { sku: "sku-1" }, { mode: "plan" })).toMatchObject({ ok: true, data: { sku: "sku-1", price: 12 } });

    const trace = await runWarden(t.w.nats.home.dir, "trace", bad.callId);
    expect(trace.code).toBe(0);
    const step = trace.out.slice(trace.out.indexOf("ToolResultValidated"), trace.out.indexOf("ToolCallFinished"));
    expect(step).toMatch(/ok=false/);
    expect(step).toMatch(/error="OUTPUT_INVALID: the tool ran, but its output/);
    expect(step).toMatch(/reason="outputSchema failed: \/currency is not/);
  });

  it("records a passing check, and lets a tool's verify turn a wrong result into VERIFY_FAILED", async () => {
    const good = await t.planner.call("shop.lookup", { sku: "sku-2" }, { mode: "plan" });
    expect(good).toMatchObject({ ok: true });
    expect(await validatedOf(good.callId)).toMatchObject({ data: { ok: true, checks: [{ check: "outputSchema", ok: true }] } });

    const held = await t.planner.call("shop.reserve", { sku: "sku-1", qty: 2 }, { mode: "plan" });
    expect(held).toMatchObject({ ok: true, data: { reserved: 2 } });
    expect(await validatedOf(held.callId)).toMatchObject({ data: { ok: true, checks: [{ check: "verify", ok: true }] } });

    const short = await t.planner.call("shop.reserve", { sku: "sku-1", qty: 5 }, { mode: "plan" });
    expect(short).toMatchObject({ ok: false, status: "failed", error: { code: "VERIFY_FAILED", message: "the tool ran, but its verify check refused the result: reserved 1 of the 5 asked for" } });
    expect(await validatedOf(short.callId)).toMatchObject({ data: { ok: false, checks: [{ check: "verify", ok: false, message: "reserved 1 of the 5 asked for" }] } });
  });

  it("keeps the evidence whole: the check answers the claim and its writer is the domain's executor", async () => {
    const audited = await eventually(async () => {
      const ran = await runWarden(t.w.nats.home.dir, "audit", "--verify", "--json");
      const parsed = JSON.parse(ran.out) as { verified: boolean; evidence: { findings: unknown[] } };
      // sealed every 100 ms: wait for a checkpoint past the last call
      expect(parsed.verified).toBe(true);
      return { ran, parsed };
    });
    expect(audited.parsed.evidence.findings).toEqual([]);
    expect(audited.ran.code).toBe(0);
  });
});
