import { describe, expect, it } from "vitest";
import { MODEL_TEXT_LIMIT, toModelMessage } from "./results.js";

describe("toModelMessage", () => {
  it("gives a long result as valid JSON that fits, and says it was cut", () => {
    const rows = Array.from({ length: 500 }, (_, i) => ({ id: i, title: `Refund policy section ${i}`, body: "x".repeat(40) }));
    const text = toModelMessage({ callId: "c1", ok: true, status: "succeeded", data: { rows, note: "end" } });
    expect(text.length).toBeLessThanOrEqual(MODEL_TEXT_LIMIT);
    const [json, note] = text.split(" (cut for the model: ");
    const preview = JSON.parse(json!) as { rows: { id: number }[] };
    expect(preview.rows.length).toBeGreaterThan(10);
    expect(preview.rows.length).toBeLessThan(rows.length);
    expect(preview.rows[0]).toEqual(rows[0]);
    expect(note).toContain("valid JSON preview");
    // control: the former fixed-length cut left half a value
    const body = JSON.stringify({ rows, note: "end" });
    expect(() => JSON.parse(body.slice(0, MODEL_TEXT_LIMIT))).toThrow();
  });

  it("cuts one long string inside the string, keeping the JSON whole", () => {
    const text = toModelMessage({ callId: "c1", ok: true, status: "succeeded", data: { page: "é".repeat(10_000) } });
    const preview = JSON.parse(text.split(" (cut for the model: ")[0]!) as { page: string };
    expect(preview.page.endsWith("…")).toBe(true);
    expect(text.length).toBeLessThanOrEqual(MODEL_TEXT_LIMIT);
  });

  it("leaves a short result as it is", () => {
    expect(toModelMessage({ callId: "c1", ok: true, status: "succeeded", data: { a: 1 } })).toBe('{"a":1}');
  });
});
