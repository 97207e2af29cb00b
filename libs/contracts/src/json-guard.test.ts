import { describe, expect, it } from "vitest";
import { z } from "zod";
import { jsonDepthExceeds, parseJsonGuarded, safeParseGuarded, validateJson, valueDepthExceeds } from "./json-guard.js";
import { MAX_JSON_DEPTH } from "./limits.js";

const enc = (t: string) => new TextEncoder().encode(t);
const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("jsonDepthExceeds", () => {
  it("counts objects and arrays alike", () => {
    expect(jsonDepthExceeds(enc(nested(3)), 3)).toBe(false);
    expect(jsonDepthExceeds(enc(nested(4)), 3)).toBe(true);
    expect(jsonDepthExceeds(enc('{"a":[{"b":[1]}]}'), 4)).toBe(false);
    expect(jsonDepthExceeds(enc('{"a":[{"b":[1]}]}'), 3)).toBe(true);
  });

  it("does not count brackets inside strings, escaped quotes included", () => {
    expect(jsonDepthExceeds(enc(`{"a":[{"b":"[[[[[[\\"[[["}]}`), 3)).toBe(false);
    const text = JSON.stringify({ a: "[[[[{{{{", b: 'say \\"[[[[" and \\\\', c: ["]]]]"] });
    expect(jsonDepthExceeds(enc(text), 2)).toBe(false);
    expect(jsonDepthExceeds(enc(text), 1)).toBe(true);
  });
});

describe("parseJsonGuarded", () => {
  it("refuses bytes that are not UTF-8 instead of replacing them with U+FFFD (regression: args silently changed)", () => {
    expect(parseJsonGuarded(new Uint8Array([...enc('{"text":"caf'), 0xe9, ...enc('"}')]))).toMatchObject({ ok: false, code: "NOT_UTF8" });
    // a lone continuation byte, a truncated sequence and a bad continuation are refused too
    expect(parseJsonGuarded(new Uint8Array([0x22, 0x80, 0x22]))).toMatchObject({ ok: false, code: "NOT_UTF8" });
    expect(parseJsonGuarded(new Uint8Array([0x22, 0xe2, 0x82, 0x22]))).toMatchObject({ ok: false, code: "NOT_UTF8" });
    expect(parseJsonGuarded(new Uint8Array([0x22, 0xc3, 0x28, 0x22]))).toMatchObject({ ok: false, code: "NOT_UTF8" });
  });

  it("keeps valid multi-byte text as it is", () => {
    expect(parseJsonGuarded(enc(JSON.stringify({ text: "café ✓ 𝄞" })))).toEqual({ ok: true, value: { text: "café ✓ 𝄞" } });
  });

  it("refuses JSON nested 50,000 levels as TOO_DEEP without throwing (regression: stack overflow in validators)", () => {
    const r = parseJsonGuarded(enc(`{"args":${nested(50_000)}}`));
    expect(r).toMatchObject({ ok: false, code: "TOO_DEEP" });
    expect(!r.ok && r.reason).toMatch(/nested too deeply/);
  });

  it("accepts exactly the depth limit and refuses one level more", () => {
    expect(parseJsonGuarded(enc(nested(MAX_JSON_DEPTH))).ok).toBe(true);
    expect(parseJsonGuarded(enc(nested(MAX_JSON_DEPTH + 1)))).toMatchObject({ ok: false, code: "TOO_DEEP" });
    expect(parseJsonGuarded(enc(nested(4)), { maxDepth: 3 })).toMatchObject({ ok: false, code: "TOO_DEEP" });
  });

  it("says MALFORMED_JSON for text that is not JSON", () => {
    const r = parseJsonGuarded(enc("{not json"));
    expect(r).toMatchObject({ ok: false, code: "MALFORMED_JSON" });
    expect(!r.ok && r.reason).toMatch(/^malformed JSON/);
  });

  it("refuses more bytes than maxBytes as TOO_LARGE before reading them", () => {
    expect(parseJsonGuarded(enc(`"${"x".repeat(100)}"`), { maxBytes: 50 })).toMatchObject({ ok: false, code: "TOO_LARGE" });
    expect(parseJsonGuarded(enc('"ok"'), { maxBytes: 50 })).toEqual({ ok: true, value: "ok" });
  });
});

describe("safeParseGuarded", () => {
  const deep = JSON.parse(nested(50_000)) as unknown;

  it("measures the depth of a parsed value without recursion", () => {
    expect(valueDepthExceeds(deep, 256)).toBe(true);
    expect(valueDepthExceeds({ a: [{ b: 1 }] }, 3)).toBe(false);
    expect(valueDepthExceeds({ a: [{ b: {} }] }, 3)).toBe(true);
  });

  it("refuses a value zod would overflow the stack on, and reports schema errors with their path", () => {
    expect(() => z.json().safeParse(deep)).toThrow(RangeError);
    expect(safeParseGuarded(z.json(), deep)).toMatchObject({ ok: false, code: "TOO_DEEP" });
    expect(validateJson(z.json(), deep)).toMatchObject({ ok: false, code: "TOO_DEEP" });
    expect(safeParseGuarded(z.object({ n: z.number() }), { n: "x" })).toMatchObject({ ok: false, code: "SCHEMA_INVALID", reason: expect.stringMatching(/^n /) });
    expect(safeParseGuarded(z.object({ n: z.number() }), { n: 1 })).toEqual({ ok: true, value: { n: 1 } });
  });
});
