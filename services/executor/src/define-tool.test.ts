import { describe, expect, it } from "vitest";
import { z } from "zod";
import { descriptorHash } from "@warden/contracts/descriptor";
import { defineTool, ToolDefinitionError } from "./define-tool.js";
import type { ToolContext } from "./tool-context.js";

const base = {
  name: "kb.search",
  version: "1.0.0",
  title: "Search the knowledge base",
  description: "Use when you need support articles about a customer's problem.",
  grade: "read" as const,
};

describe("defineTool", () => {
  it("turns a zod input into a JSON Schema descriptor with defaults applied", () => {
    const tool = defineTool({
      ...base,
      input: z.strictObject({ query: z.string(), limit: z.int().min(1).max(20).optional() }),
      handler: ({ query }) => ({ query }),
    });
    expect(tool.domain).toBe("kb");
    expect(tool.descriptor).toMatchObject({ timeoutMs: 10_000, idempotent: false, scopes: [] });
    expect(tool.descriptor.inputSchema).toEqual({
      type: "object",
      properties: { query: { type: "string" }, limit: { type: "integer", minimum: 1, maximum: 20 } },
      required: ["query"],
      additionalProperties: false,
    });
    expect(tool.descriptorHash).toBe(descriptorHash(tool.descriptor));
  });

  it("hands the handler the parsed args and refuses args the zod schema rejects", async () => {
    const tool = defineTool({
      ...base,
      input: z.strictObject({ query: z.string(), limit: z.int().default(5) }),
      handler: (args) => args,
    });
    const prepared = tool.prepare({ query: "vpn" });
    expect(prepared.ok).toBe(true);
    if (prepared.ok) expect(await prepared.run({} as ToolContext)).toEqual({ query: "vpn", limit: 5 });
    const bad = tool.prepare({ query: 3 });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.message).toMatch(/query/);
  });

  it("accepts a JSON Schema input as is", () => {
    const inputSchema = { type: "object", properties: { id: { type: "integer" } }, required: ["id"] };
    const tool = defineTool({ ...base, inputSchema, handler: () => null });
    expect(tool.descriptor.inputSchema).toEqual(inputSchema);
  });

  it("throws at define time for a descriptor that is invalid or contradicts its grade", () => {
    expect(() => defineTool({ ...base, name: "nodomain", inputSchema: { type: "object" }, handler: () => null })).toThrow(ToolDefinitionError);
    expect(() => defineTool({ ...base, destructive: true, inputSchema: { type: "object" }, handler: () => null })).toThrow(/read-not-destructive/);
    expect(() => defineTool({ ...base, inputSchema: { type: "string" }, handler: () => null })).toThrow(ToolDefinitionError);
  });

  it("refuses a network claim: only the adapters' sandbox runs a tool with none, which makes a model's L1 call run unasked", () => {
    const claimed = { ...base, actionType: "compute" as const, network: "none", inputSchema: { type: "object" }, handler: () => null };
    expect(() => defineTool(claimed as Parameters<typeof defineTool>[0])).toThrow(/network is set by the adapters/);
  });
});
