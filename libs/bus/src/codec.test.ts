import { describe, expect, it } from "vitest";
import { decodeJson, encodeJson, MAX_JSON_DEPTH } from "./codec.js";
import { jsonDepthExceeds } from "./json-depth.js";

const bytes = (s: string) => new TextEncoder().encode(s);
const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;

describe("decodeJson", () => {
  it("refuses bytes that are not UTF-8 instead of replacing them with U+FFFD (regression: args silently changed)", () => {
    const data = new Uint8Array([...bytes('{"text":"caf'), 0xe9, ...bytes('"}')]);
    expect(decodeJson(data)).toMatchObject({ ok: false, code: "invalid_utf8" });
    // a lone continuation byte and a truncated sequence are refused too
    expect(decodeJson(new Uint8Array([0x22, 0x80, 0x22]))).toMatchObject({ ok: false, code: "invalid_utf8" });
    expect(decodeJson(new Uint8Array([0x22, 0xe2, 0x82, 0x22]))).toMatchObject({ ok: false, code: "invalid_utf8" });
  });

  it("keeps valid multi-byte text as it is", () => {
    expect(decodeJson(encodeJson({ text: "café ✓ 𝄞" }))).toEqual({ ok: true, value: { text: "café ✓ 𝄞" } });
  });

  it("refuses JSON nested 50,000 levels as too_deep without throwing (regression: stack overflow in validators)", () => {
    const r = decodeJson(bytes(`{"args":${nested(50_000)}}`));
    expect(r).toMatchObject({ ok: false, code: "too_deep" });
    expect(!r.ok && r.reason).toMatch(/nested too deeply/);
  });

  it("accepts exactly the depth limit and refuses one level more", () => {
    expect(decodeJson(bytes(nested(MAX_JSON_DEPTH))).ok).toBe(true);
    expect(decodeJson(bytes(nested(MAX_JSON_DEPTH + 1)))).toMatchObject({ ok: false, code: "too_deep" });
    expect(decodeJson(bytes(nested(4)), { maxDepth: 3 })).toMatchObject({ ok: false, code: "too_deep" });
  });

  it("says malformed_json for text that is not JSON", () => {
    const r = decodeJson(bytes("{not json"));
    expect(r).toMatchObject({ ok: false, code: "malformed_json" });
    expect(!r.ok && r.reason).toMatch(/^malformed JSON/);
  });

  it("refuses more bytes than maxBytes as too_large before reading them", () => {
    expect(decodeJson(bytes(`"${"x".repeat(100)}"`), { maxBytes: 50 })).toMatchObject({ ok: false, code: "too_large" });
    expect(decodeJson(bytes('"ok"'), { maxBytes: 50 })).toEqual({ ok: true, value: "ok" });
  });
});

describe("jsonDepthExceeds", () => {
  it("does not count brackets inside strings, escaped quotes included", () => {
    const text = JSON.stringify({ a: "[[[[{{{{", b: 'say \\"[[[[" and \\\\', c: ["]]]]"] });
    expect(jsonDepthExceeds(bytes(text), 2)).toBe(false);
    expect(jsonDepthExceeds(bytes(text), 1)).toBe(true);
  });

  it("counts objects and arrays alike", () => {
    expect(jsonDepthExceeds(bytes('{"a":[{"b":[1]}]}'), 4)).toBe(false);
    expect(jsonDepthExceeds(bytes('{"a":[{"b":[1]}]}'), 3)).toBe(true);
  });
});
