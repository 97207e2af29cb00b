import { describe, expect, it } from "vitest";
import { fromWireName, WIRE_NAME_PATTERN } from "@warden/contracts/subjects";
import { ToolViewQuerySchema, type ToolRecord } from "@warden/contracts/descriptor";
import { PolicyDocumentSchema } from "@warden/contracts/policy";
import { compileToolView } from "@warden/policy-engine";
import { record } from "../../test-support/fixtures.js";
import { formatToolView, toAnthropicTools, toMcpToolList, toOpenAiResponsesTools, toOpenAiTools, toToolTable } from "./format-tool-view.js";

const sideEffects = "Use when the change is wanted; it changes what others see later.";
const registry: ToolRecord[] = [
  record(),
  record({ name: "session.fetch", title: "Fetch a session", inputSchema: { type: "object", properties: { id: { type: "integer" } } } }),
  record({ name: "ticket.submit", title: "Submit a ticket", grade: "write", description: sideEffects, inputSchema: { type: "object" } }),
  record({ name: "customer.message", title: "Message", grade: "send", openWorld: true, destructive: true, idempotent: false, description: sideEffects, inputSchema: { type: "object" } }),
];
const descriptorOf = (name: string, version: string) =>
  registry.find((r) => r.descriptor.name === name && r.descriptor.version === version)?.descriptor;
// only a principal the document names as a person may claim mode human
const doc = PolicyDocumentSchema.parse({ version: "fmt-1", principals: { p1: { kind: "human" } } });
const view = (mode: "llm" | "human", explain = false) =>
  compileToolView(registry, doc, ToolViewQuerySchema.parse({ principal: "p1", mode }), { explain });

describe("ToolView formatters", () => {
  it("gives OpenAI function tools named by wire names that round-trip to the tool names", () => {
    const v = view("human");
    const tools = toOpenAiTools(v);
    expect(tools[0]).toEqual({
      type: "function",
      function: { name: "customer__message", description: registry[3]!.descriptor.description, parameters: { type: "object" } },
    });
    for (const t of tools) {
      expect(t.function.name).toMatch(WIRE_NAME_PATTERN);
      expect(v.tools.some((e) => e.name === fromWireName(t.function.name))).toBe(true);
    }
  });

  it("gives Responses API function tools, flat and not strict", () => {
    expect(toOpenAiResponsesTools(view("llm"))[0]).toEqual({
      type: "function",
      name: "kb__search",
      description: registry[0]!.descriptor.description,
      parameters: registry[0]!.descriptor.inputSchema,
      strict: false,
    });
  });

  it("gives Anthropic tools with input_schema", () => {
    const tools = toAnthropicTools(view("llm"));
    expect(tools.map((t) => t.name)).toEqual(["kb__search", "session__fetch"]);
    expect(tools[1]).toMatchObject({ input_schema: { type: "object", properties: { id: { type: "integer" } } } });
  });

  it("gives an MCP tool list with annotations from the descriptor's flags", () => {
    const list = toMcpToolList(view("human"), descriptorOf);
    expect(list.tools.find((t) => t.name === "customer__message")).toMatchObject({
      title: "Message",
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    });
    expect(list.tools.find((t) => t.name === "kb__search")?.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it("gives an MCP tool the descriptor's outputSchema only when it describes an object", () => {
    const withOutput = [
      record({ name: "kb.search", outputSchema: { type: "object", properties: { hits: { type: "array" } } } }),
      record({ name: "session.fetch", outputSchema: { type: "array" } }),
    ];
    const of = (name: string, version: string) => withOutput.find((r) => r.descriptor.name === name && r.descriptor.version === version)?.descriptor;
    const list = toMcpToolList(compileToolView(withOutput, doc, ToolViewQuerySchema.parse({ principal: "p1", mode: "llm" })), of);
    expect(list.tools.find((t) => t.name === "kb__search")?.outputSchema).toEqual({ type: "object", properties: { hits: { type: "array" } } });
    expect(list.tools.find((t) => t.name === "session__fetch")).not.toHaveProperty("outputSchema");
  });

  it("never puts a send tool in any format of an llm view", () => {
    const v = view("llm");
    for (const format of ["openai", "openai-responses", "anthropic", "mcp", "table"] as const) {
      expect(JSON.stringify(formatToolView(v, format, descriptorOf))).not.toMatch(/customer(__|\.)message/);
    }
  });

  it("gives table rows, hidden tools last with their reasons when explained", () => {
    expect(toToolTable(view("llm")).map((r) => r.name)).toEqual(["kb.search", "session.fetch"]);
    const rows = toToolTable(view("llm", true));
    expect(rows.map((r) => [r.name, r.decision])).toEqual([
      ["kb.search", "allow"],
      ["session.fetch", "allow"],
      ["customer.message", "hidden"],
      ["ticket.submit", "hidden"],
    ]);
    expect(rows[2]?.reason).toMatch(/^send_never_listed_for_llm: /);
  });
});
