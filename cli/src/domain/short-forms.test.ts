import { describe, expect, it } from "vitest";
import { fitLines, middleCut, shortHash, shortId, shortTime, wrapTokens } from "./short-forms.js";

describe("short forms", () => {
  it("shortens sha256 hashes, long ids and ISO times, and leaves anything else alone", () => {
    expect(shortHash(`sha256:${"ab".repeat(32)}`)).toBe("sha256:abababab…");
    expect(shortHash("ab".repeat(32))).toBe("abababab…");
    expect(shortHash("sha256:short")).toBe("sha256:short");
    expect(shortId("01k8jo3su200005rtcT0zTnlU0")).toBe("…T0zTnlU0");
    expect(shortId("c1")).toBe("c1");
    expect(shortTime("2026-11-29T13:32:37.698Z")).toBe("11-29 13:32:37");
    expect(shortTime("yesterday")).toBe("yesterday");
    expect(middleCut("customer-01k8pq91tn0000wvmjM0B75wdQ", 14)).toBe("custo…M0B75wdQ");
    expect(middleCut("registry", 14)).toBe("registry");
  });

  it("wraps tokens under the first one, gives a token longer than a line lines of its own, and cuts it after three", () => {
    expect(wrapTokens("ab  ", ["one", "two", "three"], 12, "", 0)).toEqual(["ab  one two", "    three"]);
    expect(wrapTokens("ab  ", ["x", "y".repeat(20), "z"], 12, "", 0)).toEqual(["ab  x", `    ${"y".repeat(8)}`, `    ${"y".repeat(8)}`, `    ${"y".repeat(4)}`, "    z"]);
    const cutOff = wrapTokens("", ["w".repeat(50)], 10, "", 0);
    expect(cutOff).toEqual(["w".repeat(10), "w".repeat(10), `${"w".repeat(9)}…`]);
    // a long token breaks after a space or comma when one is near the end of the line
    expect(wrapTokens("", ['reason="a person must confirm it"'], 20, "", 0)).toEqual(['reason="a person', 'must confirm it"']);
    expect(wrapTokens("", ['args={"a":"one","b":"two"}'], 18, "", 0)).toEqual(['args={"a":"one",', '"b":"two"}']);
    // too little room after the prefix: the tokens start on the next line
    expect(wrapTokens("a-long-prefix  ", ["one"], 20, "  ")).toEqual(["a-long-prefix", "  one"]);
  });
});

describe("fitLines", () => {
  it("wraps long lines at their spaces under their own indent and leaves short ones alone", () => {
    expect(fitLines("short\n  one two three four", 12)).toBe("short\n  one two\n      three\n      four");
  });
});
