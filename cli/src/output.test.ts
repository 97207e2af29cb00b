import { describe, expect, it } from "vitest";
import { cut, renderTable } from "./output.js";

describe("renderTable", () => {
  it("aligns columns under their titles and cuts long values", () => {
    const text = renderTable(
      [
        { name: "kb.search", reason: "read tools are open" },
        { name: "ticket.fill", reason: "x".repeat(50) },
      ],
      [
        { title: "NAME", value: (r) => r.name },
        { title: "WHY", value: (r) => r.reason, max: 10 },
      ],
    );
    expect(text.split("\n")).toEqual(["NAME         WHY", "kb.search    read tool…", `ticket.fill  ${"x".repeat(9)}…`]);
  });

  it("keeps each row on one line", () => {
    expect(renderTable([{ a: "two\nlines" }], [{ title: "A", value: (r) => r.a }])).toBe("A\ntwo lines");
  });
});

describe("cut", () => {
  it("leaves short text alone", () => {
    expect(cut("abc", 3)).toBe("abc");
    expect(cut("abcd", 3)).toBe("ab…");
  });
});
