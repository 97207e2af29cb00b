import { describe, expect, it } from "vitest";
import { parseMcpToolList, toListedTool } from "./mcp-tools.js";

const hints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

describe("the registry's MCP rendering of a view, as tools/list answers it", () => {
  it("keeps wire names, schemas and hints, titles the hints, and lets a client ask for a task", () => {
    const parsed = parseMcpToolList({ tools: [{ name: "kb__search", title: "Search", description: "Use when…", inputSchema: { properties: {} }, annotations: hints }] });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value.map(toListedTool)).toEqual([
      { name: "kb__search", title: "Search", description: "Use when…", inputSchema: { type: "object", properties: {} }, annotations: { title: "Search", ...hints }, execution: { taskSupport: "optional" } },
    ]);
  });

  it("refuses a rendering it cannot read instead of listing half of it", () => {
    expect(parseMcpToolList([{ type: "function" }])).toMatchObject({ ok: false, error: { code: "INTERNAL" } });
  });
});
