import { describe, expect, it } from "vitest";
import { layoutArgs, layoutOfArgs, layoutText, parseLayout } from "./layout.js";

describe("layoutOfArgs", () => {
  it("runs warden up's layout when no layout is given", () => {
    expect(layoutOfArgs([])).toBe("up");
    expect(layoutOfArgs(["--quick", "--compare", "main"])).toBe("up");
  });

  it("reads --layout, and the older --separate and --colocate flags", () => {
    expect(layoutOfArgs(["--quick", "--layout", "compose"])).toBe("compose");
    expect(layoutOfArgs(["--layout", "separate"])).toBe("separate");
    expect(layoutOfArgs(["--layout", "up"])).toBe("up");
    expect(layoutOfArgs(["--separate"])).toBe("separate");
    expect(layoutOfArgs(["--colocate"])).toBe("compose");
    expect(layoutOfArgs(["--layout", "colocated"])).toBe("compose");
  });

  it("accepts the same layout said twice and refuses two different ones", () => {
    expect(layoutOfArgs(["--separate", "--layout", "separate"])).toBe("separate");
    expect(() => layoutOfArgs(["--separate", "--layout", "up"])).toThrow(/given twice/);
  });

  it("refuses a missing or unknown layout name", () => {
    expect(() => layoutOfArgs(["--layout"])).toThrow(/needs a value/);
    expect(() => layoutOfArgs(["--layout", "--quick"])).toThrow(/needs a value/);
    expect(() => layoutOfArgs(["--layout", "kubernetes"])).toThrow(/one of up, compose, separate/);
  });
});

describe("parseLayout", () => {
  it("names the flag it was given in its error", () => {
    expect(() => parseLayout("both", "--b-layout")).toThrow(/^--b-layout is one of/);
  });
});

describe("layoutArgs", () => {
  it("gives flags that read back as the same layout (what a compare's sides are started with)", () => {
    for (const layout of ["up", "compose", "separate"] as const) expect(layoutOfArgs(layoutArgs(layout))).toBe(layout);
  });
});

describe("layoutText", () => {
  it("names the layout first, the services warden up reported, and the driver's own line", () => {
    const up = layoutText("up", ["registry", "policy", "approver", "projector", "notary"]);
    expect(up).toMatch(/^up: `warden up` as one process \(registry, policy, approver, projector, notary,/);
    expect(up).toContain("driver");
    expect(layoutText("compose")).toMatch(/^compose: .*registry\+policy \(one process\)/);
    expect(layoutText("separate")).toMatch(/^separate: .*registry, policy, approver/);
  });
});
