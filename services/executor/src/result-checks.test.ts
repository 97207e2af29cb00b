import { describe, expect, it } from "vitest";
import { z } from "zod";
import { silentLogger } from "@warden/bus";
import { defineTool, type ExecutableTool, type PreparedCall } from "./define-tool.js";
import { Redactor } from "./domain/redactor.js";
import { shapeAndCheck } from "./result-checks.js";
import { SecretStore } from "./secret-store.js";
import type { ToolContext } from "./tool-context.js";
import { EffectsLog } from "./tool-effects.js";
import { CallSecrets } from "./tool-secrets.js";

const base = { version: "1.0.0", title: "Count", description: "Use when a test needs a tool that counts.", grade: "read" as const };
const outputSchema = { type: "object", properties: { count: { type: "integer" } }, required: ["count"] };
const ctx: ToolContext = { signal: new AbortController().signal, callId: "c1", principal: "alice", onBehalfOf: "alice", mode: "plan", correlationId: "r1", attempt: 1, log: silentLogger(), secrets: new CallSecrets(SecretStore.none(), "alice"), effects: new EffectsLog() };
const none = () => Redactor.none();

function prepared(tool: ExecutableTool, args: unknown = { n: 2 }): Extract<PreparedCall, { ok: true }> {
  const p = tool.prepare(args);
  if (!p.ok) throw new Error(p.message);
  return p;
}

describe("shapeAndCheck", () => {
  it("records nothing for a tool with no check", async () => {
    const tool = defineTool({ ...base, name: "kb.count", input: z.object({ n: z.int() }), handler: ({ n }) => ({ count: n }) });
    expect(await shapeAndCheck(tool, prepared(tool), { count: 2 }, ctx, none)).toEqual({ shaped: { kind: "inline", output: { count: 2 }, bytes: 11 } });
  });

  it("checks the outputSchema, then verify with the parsed args, and records both passing", async () => {
    const seen: unknown[] = [];
    const tool = defineTool({
      ...base,
      name: "kb.count",
      outputSchema,
      input: z.object({ n: z.int().default(5) }),
      handler: ({ n }) => ({ count: n }),
      verify: (output, args) => {
        seen.push([output, args]);
        return output.count === args.n ? undefined : `counted ${output.count}, asked for ${args.n}`;
      },
    });
    expect(tool.descriptor.verify).toBe(true);
    const r = await shapeAndCheck(tool, prepared(tool, {}), { count: 5 }, ctx, none);
    expect(r.validation).toEqual({ ok: true, checks: [{ check: "outputSchema", ok: true }, { check: "verify", ok: true }] });
    expect(seen).toEqual([[{ count: 5 }, { n: 5 }]]);
  });

  it("fails VERIFY_FAILED with verify's reason, retryable only for an idempotent tool", async () => {
    const tool = (idempotent: boolean) =>
      defineTool({ ...base, name: "kb.count", idempotent, input: z.object({ n: z.int() }), handler: ({ n }) => ({ count: n }), verify: (o, a) => (o.count === a.n ? undefined : `counted ${o.count}, asked for ${a.n}`) });
    const r = await shapeAndCheck(tool(false), prepared(tool(false)), { count: 3 }, ctx, none);
    expect(r.shaped).toMatchObject({ kind: "error", error: { code: "VERIFY_FAILED", retryable: false, message: "the tool ran, but its verify check refused the result: counted 3, asked for 2" } });
    expect(r.validation).toMatchObject({ ok: false, checks: [{ check: "verify", ok: false, message: "counted 3, asked for 2" }], error: { code: "VERIFY_FAILED" } });
    expect((await shapeAndCheck(tool(true), prepared(tool(true)), { count: 3 }, ctx, none)).shaped).toMatchObject({ error: { retryable: true } });
  });

  it("never runs verify on an output the outputSchema refused, and records the schema's failure", async () => {
    let ran = false;
    const tool = defineTool({ ...base, name: "kb.count", outputSchema, input: z.object({ n: z.int() }), handler: () => ({}), verify: () => void (ran = true) });
    const r = await shapeAndCheck(tool, prepared(tool), { count: "two" }, ctx, none);
    expect(r.shaped).toMatchObject({ kind: "error", error: { code: "OUTPUT_INVALID" } });
    expect(r.validation).toMatchObject({ ok: false, checks: [{ check: "outputSchema", ok: false, message: expect.stringContaining("/count") }], error: { code: "OUTPUT_INVALID" } });
    expect(ran).toBe(false);
  });

  it("refuses a result whose verify throws, hangs past its time, or returns false, and redacts the reason", async () => {
    const make = (verify: () => unknown) => defineTool({ ...base, name: "kb.count", input: z.object({ n: z.int() }), handler: () => ({}), verify: verify as () => undefined });
    const run = async (verify: () => unknown, ms?: number, redactor = none) => {
      const t = make(verify);
      return (await shapeAndCheck(t, prepared(t), { count: 1 }, ctx, redactor, ms)).validation?.checks[0];
    };
    expect(await run(() => { throw new Error("the ledger is down"); })).toMatchObject({ ok: false, message: expect.stringContaining("HANDLER_ERROR: the ledger is down") });
    expect(await run(() => new Promise(() => undefined), 20)).toMatchObject({ ok: false, message: expect.stringContaining("TIMEOUT") });
    expect(await run(() => false)).toEqual({ check: "verify", ok: false, message: "verify refused it without a reason" });
    const secret = "sk_live_0123456789abcdef";
    expect(await run(() => `the key ${secret} was refused`, undefined, () => new Redactor([["stripe_key", secret]]))).toMatchObject({ message: expect.not.stringContaining(secret) });
  });
});
