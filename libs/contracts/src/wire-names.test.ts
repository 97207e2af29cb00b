import { describe, expect, it } from "vitest";
import { checkWireNames, fromWireName, resolveToolName, toWireName } from "./wire-names.js";

describe("wire names", () => {
  it("round-trips every valid tool name through its wire name", () => {
    for (const name of ["kb.search", "ticket.fill", "my-domain.do_thing", "a.b", "x1.y-2_z"]) {
      const wire = toWireName(name);
      expect(wire).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(fromWireName(wire)).toBe(name);
    }
  });

  it("maps a wire name that names no valid tool to nothing", () => {
    for (const wire of ["kb", "kbsearch", "__search", "kb__", "kb___search", "kb__search__x", "kb.search", "k b__x", ""]) {
      expect(fromWireName(wire)).toBeUndefined();
    }
  });

  it("resolves either form to the tool name", () => {
    expect(resolveToolName("kb.search")).toBe("kb.search");
    expect(resolveToolName("kb__search")).toBe("kb.search");
    expect(resolveToolName("kb.search.more")).toBeUndefined();
    expect(resolveToolName("getWeather")).toBeUndefined();
  });

  it("reports names that cannot be offered to a model", () => {
    expect(checkWireNames(["kb.search", "ticket.fill"])).toEqual([]);
    const long = `${"d".repeat(40)}.${"c".repeat(30)}`;
    expect(checkWireNames([long]).map((p) => p.problem)).toContain("invalid_wire_name");
    expect(checkWireNames(["a__b.c"]).map((p) => p.problem)).toContain("not_round_trip");
  });
});
