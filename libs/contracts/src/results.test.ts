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

  it("tells the model a call that waits for a person has not run, that only a person confirms it, and not to ask again", () => {
    const waiting = { callId: "c1", ok: false, requiresConfirm: true, approvalId: "ap1" } as const;
    for (const status of ["awaiting_approval", "pending"] as const) {
      const text = toModelMessage({ ...waiting, status });
      expect(text).toMatch(/^PENDING: this call needs a person's approval \(approvalId ap1\); it has not run yet\./);
      expect(text).toMatch(/Only a person can confirm it: do not call it again/);
    }
    // a wait that ran out with no approval involved is still an error with its code
    expect(toModelMessage({ callId: "c1", ok: false, status: "pending", error: { code: "WAIT_TIMEOUT", message: "no outcome", retryable: false } })).toMatch(/^ERROR WAIT_TIMEOUT/);
  });

  it("gives the model the person's reason when they deny, and tells it not to retry unchanged", () => {
    const text = toModelMessage({ callId: "c1", ok: false, status: "denied", approvalId: "ap1", error: { code: "APPROVAL_DENIED", message: "denied by alice: wrong customer", retryable: false } });
    expect(text).toBe("ERROR APPROVAL_DENIED: denied by alice: wrong customer. Do not retry the same call unchanged.");
  });
});
