import { describe, expect, it } from "vitest";
import type { HiddenTool, ToolViewEntry } from "@warden/contracts/descriptor";
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
const hiddenSend: HiddenTool = { name: "customer.message", version: "1.0.0", grade: "send", reason: "send_never_listed_for_llm", detail: "never listed", ruleIds: ["invariant.send_never_llm"] };
const notAllowed: HiddenTool = { ...hiddenSend, name: "billing.charge", reason: "not_in_allowed_tools" };
const view = { tools: [entry], hidden: [] as HiddenTool[] };

describe("vetToolCall", () => {
  it("runs a call that names a tool of the view by wire name with a JSON object", () => {
    expect(vetToolCall(call("kb__search", '{"query":"x"}'), view, 1, 3)).toEqual({ kind: "run", tool: "kb.search", args: { query: "x" }, unlisted: false });
    expect(vetToolCall(call("kb__search", ""), view, 1, 3)).toMatchObject({ kind: "run", args: {} });
  });

  it("refuses a name outside the view, listing what the model can call", () => {
    for (const name of ["customer__message", "web_search", "kb__reindex"]) {
      const v = vetToolCall(call(name, "{}"), view, 1, 3);
      expect(v).toMatchObject({ kind: "refuse", error: { code: "UNKNOWN_TOOL" } });
      expect(v.kind === "refuse" && v.error.message).toMatch(/the tools you can call are: kb__search$/);
    }
  });

  it("publishes an allowed send the view hides when the model names it (it waits for a person), and no other hidden tool", () => {
    const withHidden = { tools: [entry], hidden: [hiddenSend, notAllowed] };
    for (const name of ["customer__message", "customer.message"]) {
      expect(vetToolCall(call(name, '{"text":"hi"}'), withHidden, 1, 3)).toEqual({ kind: "run", tool: "customer.message", args: { text: "hi" }, unlisted: true });
    }
    // never offered to the model: the list of what it can call names only the view's tools
    const refused = vetToolCall(call("billing__charge", "{}"), withHidden, 1, 3);
    expect(refused).toMatchObject({ kind: "refuse", error: { code: "UNKNOWN_TOOL", message: expect.stringMatching(/the tools you can call are: kb__search$/) } });
    expect(vetToolCall(call("customer__message", "{}"), withHidden, 0, 3)).toMatchObject({ kind: "refuse", error: { code: "BUDGET_EXCEEDED" } });
  });

  it("refuses arguments that are not a JSON object", () => {
    for (const args of ['{"query":', "[1]", "null", '"x"']) {
      expect(vetToolCall(call("kb__search", args), view, 1, 3)).toMatchObject({ kind: "refuse", error: { code: "INVALID_ARGS" } });
    }
  });

  it("refuses any call once the tool-call budget is spent", () => {
    expect(vetToolCall(call("kb__search", "{}"), view, 0, 3)).toMatchObject({
      kind: "refuse",
      error: { code: "BUDGET_EXCEEDED", message: expect.stringMatching(/budget of 3 tool calls is spent/) },
    });
  });
});
