import { describe, expect, it } from "vitest";
import { compensationArgs } from "./compensation.js";
import { lintDescriptor, ToolDescriptorSchema } from "./descriptor.js";

describe("compensation", () => {
  it("builds the undo's args from the original call's args and output, any JSON value, literals as written", () => {
    const c = { tool: "ticket.withdraw", args: { ticketId: "$output.ticketId", customer: "$args.customer.id", tags: ["$args.tags", "undo"], note: "$$args is literal", n: 3 } };
    const r = compensationArgs(c, { args: { customer: { id: "C-1" }, tags: ["a", "b"] }, output: { ticketId: "T-9" } });
    expect(r).toEqual({ ok: true, value: { ticketId: "T-9", customer: "C-1", tags: [["a", "b"], "undo"], note: "$args is literal", n: 3 } });
  });

  it("refuses to guess when a reference finds nothing, naming it", () => {
    const r = compensationArgs({ tool: "ticket.withdraw", args: { ticketId: "$output.ticketId", x: "$args.toString" } }, { args: {}, output: undefined });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe("NOT_UNDOABLE");
      expect(r.error.message).toContain("$output.ticketId, $args.toString");
    }
  });

  it("is refused on a read, and on a tool that would undo itself", () => {
    const base = { version: "1.0.0", title: "T", description: "Use when testing compensation lint rules here.", inputSchema: { type: "object" } };
    const read = ToolDescriptorSchema.parse({ ...base, name: "kb.search", grade: "read", compensation: { tool: "kb.unsearch", args: {} } });
    expect(lintDescriptor(read).map((i) => i.rule)).toEqual(["read-not-compensated"]);
    const self = ToolDescriptorSchema.parse({ ...base, name: "ticket.submit", grade: "write", compensation: { tool: "ticket.submit", args: {} } });
    expect(lintDescriptor(self).map((i) => i.rule)).toEqual(["compensation-not-self"]);
  });
});
