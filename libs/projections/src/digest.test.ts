import { describe, expect, it } from "vitest";
import { digestModel, digestModels } from "./digest.js";

describe("digests", () => {
  it("do not depend on the order of keys in a model or of entries in a map", () => {
    expect(digestModel({ a: 1, b: [1, { c: 2, d: 3 }] })).toBe(digestModel({ b: [1, { d: 3, c: 2 }], a: 1 }));
    expect(digestModels([["x", { a: 1 }], ["y", { b: 2 }]])).toBe(digestModels([["y", { b: 2 }], ["x", { a: 1 }]]));
  });

  it("differ when a value or a key differs", () => {
    expect(digestModel({ a: 1 })).not.toBe(digestModel({ a: 2 }));
    expect(digestModels([["x", { a: 1 }]])).not.toBe(digestModels([["y", { a: 1 }]]));
    expect(digestModel({ a: 1 })).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
