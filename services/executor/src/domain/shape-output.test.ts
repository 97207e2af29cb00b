import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, MAX_OUTPUT_DEPTH } from "@warden/contracts/subjects";
import { sha256Hex } from "@warden/contracts/json";
import { shapeOutput } from "./shape-output.js";

describe("shapeOutput", () => {
  it("keeps a small output inline as the JSON it serialises to", () => {
    const r = shapeOutput({ a: 1, skip: undefined, at: new Date(0) }, 1000, 100);
    expect(r).toEqual({ kind: "inline", output: { a: 1, at: "1970-01-01T00:00:00.000Z" }, bytes: 39 });
  });

  it("records a handler that returns nothing as null", () => {
    expect(shapeOutput(undefined, 1000, 100)).toEqual({ kind: "inline", output: null, bytes: 4 });
  });

  it("turns a cyclic or bigint output into OUTPUT_INVALID", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    expect(shapeOutput(cyclic, 1000, 100)).toMatchObject({ kind: "error", error: { code: "OUTPUT_INVALID" } });
    expect(shapeOutput({ n: 1n }, 1000, 100)).toMatchObject({ kind: "error", error: { code: "OUTPUT_INVALID" } });
    expect(shapeOutput(() => 1, 1000, 100)).toMatchObject({ kind: "error", error: { code: "OUTPUT_INVALID" } });
  });

  it("refuses output nested deeper than readers accept as OUTPUT_INVALID (regression: its ToolCallFinished was dropped as TOO_DEEP and the caller timed out)", () => {
    const nested = (levels: number) => JSON.parse(`${"[".repeat(levels)}${"]".repeat(levels)}`) as unknown;
    // inline and artifact alike: 600 levels serialise fine but put the event past MAX_JSON_DEPTH
    for (const previewBytes of [100_000, 100]) {
      const r = shapeOutput(nested(600), 100_000, previewBytes);
      expect(r).toMatchObject({ kind: "error", error: { code: "OUTPUT_INVALID", retryable: false, details: { maxDepth: MAX_OUTPUT_DEPTH } } });
      expect(r.kind === "error" && r.error.message).toMatch(/nested deeper than/);
    }
    // too deep for JSON.stringify itself: still said as depth
    let deep: unknown = 1;
    for (let i = 0; i < 50_000; i++) deep = [deep];
    expect(shapeOutput(deep, 100_000, 100)).toMatchObject({ kind: "error", error: { code: "OUTPUT_INVALID", message: expect.stringMatching(/nested deeper than/) } });
    // the event (output at level 3) stays within what readers accept
    expect(MAX_OUTPUT_DEPTH + 2).toBeLessThan(MAX_JSON_DEPTH);
    expect(shapeOutput(nested(MAX_OUTPUT_DEPTH), 100_000, 100_000)).toMatchObject({ kind: "inline" });
  });

  it("refuses output over the tool's cap with OUTPUT_TOO_LARGE and its size", () => {
    const r = shapeOutput("x".repeat(2000), 1000, 100);
    expect(r).toMatchObject({ kind: "error", bytes: 2002, error: { code: "OUTPUT_TOO_LARGE", retryable: false } });
  });

  it("sends output over the preview limit to an artifact with a preview that is valid JSON within the limit", () => {
    const value = Array.from({ length: 200 }, (_, i) => ({ i, text: "é".repeat(20) }));
    const r = shapeOutput(value, 100_000, 512);
    expect(r.kind).toBe("artifact");
    if (r.kind !== "artifact") return;
    expect(r.bytes).toBe(Buffer.byteLength(JSON.stringify(value)));
    expect(r.sha256).toBe(sha256Hex(JSON.stringify(value)));
    const previewText = JSON.stringify(r.preview);
    expect(Buffer.byteLength(previewText)).toBeLessThanOrEqual(512);
    const kept = JSON.parse(previewText) as unknown[];
    expect(kept.length).toBeGreaterThan(1);
    // whole items first; only the last one may be cut short
    expect(kept.slice(0, -1)).toEqual(value.slice(0, kept.length - 1));
  });
});
