import { describe, expect, it } from "vitest";
import { domainOfTool, isAcceptableToolName, UNRESOLVED_DOMAIN } from "./tool-domain.js";

describe("domainOfTool", () => {
  it("takes the part before the first dot of a tool name", () => {
    expect(domainOfTool("kb.search")).toBe("kb");
    expect(domainOfTool("ticket_desk.fill.extra")).toBe("ticket_desk");
  });

  it("takes the part before the first double underscore of a wire name", () => {
    expect(domainOfTool("kb__search")).toBe("kb");
    expect(domainOfTool("customer_care__message")).toBe("customer_care");
  });

  it("prefers the dot when a name has both separators", () => {
    expect(domainOfTool("a__b.c")).toBe("a__b");
  });

  it("publishes names without a usable domain as unresolved", () => {
    expect(domainOfTool("search")).toBe(UNRESOLVED_DOMAIN);
    expect(domainOfTool(".search")).toBe(UNRESOLVED_DOMAIN);
    expect(domainOfTool("__search")).toBe(UNRESOLVED_DOMAIN);
    expect(domainOfTool("k/b.search")).toBe(UNRESOLVED_DOMAIN);
    expect(domainOfTool(`${"d".repeat(129)}.x`)).toBe(UNRESOLVED_DOMAIN);
  });
});

describe("isAcceptableToolName", () => {
  it("refuses wildcards, whitespace and the empty name", () => {
    for (const bad of ["kb.*", "kb.>", "kb. search", "kb.search\n", "\tkb.search", ""]) {
      expect(isAcceptableToolName(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it("accepts tool names, wire names and hallucinated names the registry will judge", () => {
    for (const good of ["kb.search", "kb__search", "made_up_tool", "kb.search.v2"]) {
      expect(isAcceptableToolName(good)).toBe(true);
    }
  });
});
