import { describe, expect, it } from "vitest";
import { anyGlob, globMatch } from "./glob.js";

describe("globMatch", () => {
  it("matches literally without a star and treats regex characters as text", () => {
    expect(globMatch("kb.search", "kb.search")).toBe(true);
    expect(globMatch("kb.search", "kbXsearch")).toBe(false);
    expect(globMatch("a+b", "aab")).toBe(false);
  });

  it("lets a star match any run of characters, including none", () => {
    expect(globMatch("kb.*", "kb.search")).toBe(true);
    expect(globMatch("kb.*", "kb.")).toBe(true);
    expect(globMatch("kb.*", "crm.search")).toBe(false);
    expect(globMatch("*", "anything")).toBe(true);
  });

  it("treats a missing pattern list as matching everything and an empty one as nothing", () => {
    expect(anyGlob(undefined, "x")).toBe(true);
    expect(anyGlob([], "x")).toBe(false);
    expect(anyGlob(["y", "x*"], "xz")).toBe(true);
  });
});
