import { describe, expect, it } from "vitest";
import type { ToolViewEntry } from "@warden/contracts";
import { vetToolCall } from "./vet-tool-call.js";

const entry: ToolViewEntry = {
  name: "kb.search",
  wireName: "kb__search",
  version: "1.0.0",
  title: "Search",
  description: "Search the knowledge base.",
  grade: "read",
  level: "L0",
  inputSchema: { type: "object" },
  decision: "allow",
  reason: "read",
  ruleIds: ["default.read.llm"],
};
const call = (name: string, args: string) => ({ id: "c1", name, arguments: args });

describe("vetToolCall", () => {
  it("runs a call that names a tool of the view by wire name with a JSON object", () => {
    expect(vetToolCall(call("kb__search", '{"query":"x"}'), [entry], 1, 3)).toEqual({ kind: "run", entry, args: { query: "x" } });
    expect(vetToolCall(call("kb__search", ""), [entry], 1, 3)).toMatchObject({ kind: "run", args: {} });
  });

  it("refuses a name outside the view, listing what the model can call", () => {
    for (const name of ["customer__message", "web_search", "kb__reindex"]) {
      const v = vetToolCall(call(name, "{}"), [entry], 1, 3);
      expect(v).toMatchObject({ kind: "refuse", error: { code: "UNKNOWN_TOOL" } });
      expect(v.kind === "refuse" && v.error.message).toMatch(/the tools you can call are: kb__search$/);
    }
  });

  it("refuses arguments that are not a JSON object", () => {
    for (const args of ['{"query":', "[1]", "null", '"x"']) {
      expect(vetToolCall(call("kb__search", args), [entry], 1, 3)).toMatchObject({ kind: "refuse", error: { code: "INVALID_ARGS" } });
    }
  });

  it("refuses any call once the tool-call budget is spent", () => {
    expect(vetToolCall(call("kb__search", "{}"), [entry], 0, 3)).toMatchObject({
      kind: "refuse",
      error: { code: "BUDGET_EXCEEDED", message: expect.stringMatching(/budget of 3 tool calls is spent/) },
    });
  });
});
