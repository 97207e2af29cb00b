import { describe, expect, it } from "vitest";
import { z } from "zod";
import { wardenError } from "@warden/contracts/errors";
import { defineTool } from "../define-tool.js";
import { ToolError } from "../tool-error.js";
import { runTool } from "./run-tool.js";

const base = {
  version: "1.0.0",
  title: "A test tool",
  description: "Use when a test needs a tool.",
  grade: "read" as const,
};

describe("runTool", () => {
  it("passes parsed args and the call's context to the handler and returns the output as the event would carry it", async () => {
    const tool = defineTool({
      ...base,
      name: "kb.echo",
      input: z.object({ query: z.string(), limit: z.int().default(3) }),
      handler: (args, ctx) => ({ args, principal: ctx.principal, mode: ctx.mode, at: new Date(0) }),
    });
    const run = await runTool(tool, { query: "refund" }, { principal: "bob", mode: "llm" });
    expect(run).toEqual({
      ok: true,
      output: { args: { query: "refund", limit: 3 }, principal: "bob", mode: "llm", at: "1970-01-01T00:00:00.000Z" },
      outputBytes: expect.any(Number),
      truncated: false,
    });
  });

  it("runs the tool's verify on the output with the parsed args: a reason fails the call VERIFY_FAILED", async () => {
    const stock = new Map([["sku-1", 3]]);
    const reserve = defineTool({
      ...base,
      name: "shop.reserve",
      grade: "write",
      description: "Use when a customer wants an item held for them; others see it as reserved.",
      input: z.object({ sku: z.string(), qty: z.int().positive() }),
      handler: ({ sku, qty }) => ({ sku, reserved: Math.min(qty, stock.get(sku) ?? 0) }),
      verify: (output, { qty }) => (output.reserved === qty ? undefined : `reserved ${output.reserved} of the ${qty} asked for`),
    });
    expect(await runTool(reserve, { sku: "sku-1", qty: 2 })).toMatchObject({ ok: true, output: { reserved: 2 } });
    expect(await runTool(reserve, { sku: "sku-1", qty: 5 })).toMatchObject({
      ok: false,
      error: { code: "VERIFY_FAILED", retryable: false, message: "the tool ran, but its verify check refused the result: reserved 3 of the 5 asked for" },
    });
  });

  it("runs preCall before the handler: a reason refuses the call PRECALL_REFUSED and the handler never runs", async () => {
    const frozen = new Set(["acct-9"]);
    const ran: string[] = [];
    const transfer = defineTool({
      ...base,
      name: "bank.transfer",
      grade: "write",
      description: "Use when a customer moves money between their own accounts.",
      input: z.object({ from: z.string(), amount: z.int() }),
      preCall: ({ from }) => (frozen.has(from) ? `account ${from} is frozen` : undefined),
      handler: ({ from, amount }) => {
        ran.push(from);
        return { from, moved: amount };
      },
    });
    expect(await runTool(transfer, { from: "acct-1", amount: 5 })).toMatchObject({ ok: true, output: { moved: 5 } });
    expect(await runTool(transfer, { from: "acct-9", amount: 5 })).toEqual({
      ok: false,
      error: { code: "PRECALL_REFUSED", retryable: false, message: "the tool's preCall check refused the call, it did not run: account acct-9 is frozen" },
      outputBytes: 0,
    });
    expect(ran).toEqual(["acct-1"]);
  });

  it("refuses the call when preCall throws or outlives the tool's timeout", async () => {
    let ran = false;
    const tool = (preCall: (args: unknown, ctx: { signal: AbortSignal }) => unknown) =>
      defineTool({ ...base, name: "kb.guarded", inputSchema: { type: "object" }, preCall: preCall as never, handler: () => (ran = true) });
    expect(await runTool(tool(() => { throw new Error("lock service down"); }), {})).toMatchObject({
      ok: false,
      error: { code: "PRECALL_REFUSED", message: "the tool's preCall check refused the call, it did not run: preCall did not complete (HANDLER_ERROR: lock service down)" },
    });
    const hang = tool((_a, ctx) => new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason as Error))));
    expect(await runTool(hang, {}, { timeoutMs: 20 })).toMatchObject({ ok: false, error: { code: "PRECALL_REFUSED", message: expect.stringContaining("preCall did not complete (TIMEOUT") } });
    expect(ran).toBe(false);
  });

  it("gives postCall the recorded result and the args, and a failing postCall leaves the result as it was", async () => {
    const seen: unknown[] = [];
    const save = defineTool({
      ...base,
      name: "kb.save",
      grade: "write",
      description: "Use when an article's text changes and readers should see the new text.",
      input: z.object({ id: z.string(), fail: z.boolean().default(false) }),
      handler: ({ id, fail }) => {
        if (fail) throw new Error(`cannot save ${id}`);
        return { id, saved: true };
      },
      postCall: (result, args) => {
        seen.push({ result, args });
        throw new Error("cache is down");
      },
    });
    expect(await runTool(save, { id: "a1" })).toMatchObject({ ok: true, output: { id: "a1", saved: true } });
    expect(await runTool(save, { id: "a2", fail: true })).toMatchObject({ ok: false, error: { code: "HANDLER_ERROR" } });
    expect(seen).toEqual([
      { result: { ok: true, output: { id: "a1", saved: true }, truncated: false }, args: { id: "a1", fail: false } },
      { result: { ok: false, error: { code: "HANDLER_ERROR", message: "cannot save a2", retryable: true } }, args: { id: "a2", fail: true } },
    ]);
  });

  it("returns what the run reported through ctx.effects as effectsObserved, and none when it reported nothing", async () => {
    const refund = defineTool({
      ...base,
      name: "pay.refund",
      grade: "send",
      description: "Use when a customer is owed money back for an invoice they paid.",
      input: z.object({ invoiceId: z.string() }),
      handler: ({ invoiceId }, ctx) => {
        ctx.effects.read(`invoices/${invoiceId}`);
        ctx.effects.wrote(`refunds/${invoiceId}`);
        ctx.effects.called("POST https://pay.example/v1/refunds");
        return { refunded: invoiceId };
      },
    });
    expect(await runTool(refund, { invoiceId: "INV-1" })).toMatchObject({
      ok: true,
      effectsObserved: { reads: ["invoices/INV-1"], writes: ["refunds/INV-1"], external: ["POST https://pay.example/v1/refunds"] },
    });
    const quiet = defineTool({ ...base, name: "kb.quiet", input: z.object({}), handler: () => ({}) });
    expect(await runTool(quiet, {})).not.toHaveProperty("effectsObserved");
  });

  it("checks the output against the tool's outputSchema: a match is recorded, a mismatch is OUTPUT_INVALID naming each path", async () => {
    const outputSchema = { type: "object", properties: { status: { type: "string", enum: ["paid", "open"] }, amount: { type: "number" } }, required: ["status", "amount"], additionalProperties: false };
    const lookup = (output: unknown, idempotent = true) =>
      defineTool({ ...base, name: "billing.lookup", idempotent, outputSchema, input: z.object({}), handler: () => output });
    expect(await runTool(lookup({ status: "paid", amount: 4 }), {})).toMatchObject({ ok: true, output: { status: "paid", amount: 4 } });
    const wrong = await runTool(lookup({ status: "lost", extra: 1 }), {});
    expect(wrong).toMatchObject({ ok: false, error: { code: "OUTPUT_INVALID", retryable: true } });
    expect(wrong.ok ? "" : wrong.error.message).toBe(
      'the tool ran, but its output does not match its outputSchema: /amount is required; /extra is not an allowed property; /status must be one of "paid", "open"',
    );
    // it ran: retrying a non-idempotent tool could do it twice
    expect(await runTool(lookup({ status: "lost" }, false), {})).toMatchObject({ ok: false, error: { code: "OUTPUT_INVALID", retryable: false } });
  });

  it("refuses args the schema rejects with INVALID_ARGS, without running the handler", async () => {
    let ran = false;
    const tool = defineTool({ ...base, name: "kb.strict", input: z.object({ id: z.int() }), handler: () => (ran = true) });
    const run = await runTool(tool, { id: "one" });
    expect(run).toMatchObject({ ok: false, error: { code: "INVALID_ARGS" } });
    expect(ran).toBe(false);
  });

  it("records a throw as HANDLER_ERROR and a ToolError with its own code", async () => {
    const thrower = defineTool({ ...base, name: "kb.fail", input: z.object({}), handler: () => { throw new Error("broken"); } });
    expect(await runTool(thrower, {})).toMatchObject({ ok: false, error: { code: "HANDLER_ERROR", message: "broken" } });
    const chooser = defineTool({
      ...base,
      name: "kb.gone",
      input: z.object({}),
      handler: () => { throw new ToolError(wardenError("NOT_FOUND", "no such article")); },
    });
    expect(await runTool(chooser, {})).toMatchObject({ ok: false, error: { code: "NOT_FOUND", message: "no such article" } });
  });

  it("aborts a handler past its timeout and says a write may still have taken effect", async () => {
    const slow = defineTool({
      ...base,
      name: "ticket.slow",
      grade: "write",
      inputSchema: { type: "object" },
      handler: (_args, ctx) => new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason as Error))),
    });
    const run = await runTool(slow, {}, { timeoutMs: 20 });
    expect(run).toMatchObject({ ok: false, error: { code: "TIMEOUT", retryable: false, message: expect.stringMatching(/may still have taken effect/) } });
  });

  it("keeps a large output whole as the artifact and a preview as the output, and refuses one over the tool's cap", async () => {
    const big = defineTool({ ...base, name: "kb.dump", input: z.object({ n: z.int() }), maxOutputBytes: 200_000, handler: ({ n }) => ({ text: "x".repeat(n) }) });
    const run = await runTool(big, { n: 100_000 });
    if (!run.ok) throw new Error(run.error.message);
    expect(run.truncated).toBe(true);
    expect(run.artifact).toEqual({ text: "x".repeat(100_000) });
    expect(JSON.stringify(run.output).length).toBeLessThan(100_000);
    expect(await runTool(big, { n: 300_000 })).toMatchObject({ ok: false, error: { code: "OUTPUT_TOO_LARGE" } });
  });
});

describe("runTool with secrets", () => {
  const key = "sk-live-0123456789abcdef";

  it("gives ctx.secrets the test's values and redacts them from the output and from a throw", async () => {
    const leaky = defineTool({
      ...base,
      name: "pay.leaky",
      input: z.object({ fail: z.boolean() }),
      handler: async ({ fail }, ctx) => {
        const secret = await ctx.secrets.get("stripe_key");
        if (fail) throw new Error(`stripe said no to ${Buffer.from(secret).toString("hex")}`);
        return { header: `Bearer ${secret}`, url: `https://x.test/?k=${encodeURIComponent(secret)}` };
      },
    });
    expect(await runTool(leaky, { fail: false }, { secrets: { stripe_key: key } })).toMatchObject({
      ok: true,
      output: { header: "Bearer [REDACTED:stripe_key]", url: "https://x.test/?k=[REDACTED:stripe_key]" },
    });
    expect(await runTool(leaky, { fail: true }, { secrets: { stripe_key: key } })).toMatchObject({
      ok: false,
      error: { code: "HANDLER_ERROR", message: "stripe said no to [REDACTED:stripe_key]" },
    });
  });

  it("fails the call when the secret is missing or too short to redact", async () => {
    const reader = defineTool({ ...base, name: "pay.reader", input: z.object({}), handler: async (_a, ctx) => ctx.secrets.get("stripe_key") });
    expect(await runTool(reader, {})).toMatchObject({ ok: false, error: { code: "HANDLER_ERROR", message: "secret stripe_key is not declared" } });
    expect(await runTool(reader, {}, { secrets: { stripe_key: "short" } })).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining("shorter than 8 bytes") },
    });
  });

  it("masks an external read's personal data as the executor does, and counts it", async () => {
    const lookup = defineTool({ ...base, name: "crm.lookup", openWorld: true, input: z.object({}), handler: () => ({ contact: "jane@example.com" }) });
    expect(await runTool(lookup, {})).toMatchObject({ ok: true, output: { contact: "[email]" }, personalDataRedacted: { email: 1 } });
    const kept = defineTool({ ...base, name: "crm.lookup_raw", openWorld: true, personalData: "keep", input: z.object({}), handler: () => ({ contact: "jane@example.com" }) });
    expect(await runTool(kept, {})).toEqual({ ok: true, output: { contact: "jane@example.com" }, outputBytes: expect.any(Number), truncated: false });
  });
});
