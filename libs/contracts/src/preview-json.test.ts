import { describe, expect, it } from "vitest";
import { previewJson } from "./preview-json.js";

describe("previewJson", () => {
  it("returns a small value unchanged", () => {
    expect(previewJson({ a: 1 }, 100)).toEqual({ a: 1 });
  });

  it("keeps the first items of a big array and stays valid JSON within the limit", () => {
    const big = Array.from({ length: 10_000 }, (_, i) => ({ id: i, text: "x".repeat(50) }));
    const p = previewJson(big, 4096);
    const text = JSON.stringify(p);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096);
    const items = JSON.parse(text) as unknown[];
    expect(items.slice(0, -1)).toEqual(big.slice(0, items.length - 1));
    expect((p as unknown[]).length).toBeGreaterThan(10);
  });

  it("cuts long strings inside objects without breaking the JSON", () => {
    const p = previewJson({ body: "é".repeat(100_000), n: 1 }, 1000) as { body: string };
    expect(Buffer.byteLength(JSON.stringify(p))).toBeLessThanOrEqual(1000);
    expect(p.body.endsWith("…")).toBe(true);
  });
});
