import { describe, expect, it } from "vitest";
import { z } from "zod";
import { nestingExceeds, parseJsonGuarded, safeParseGuarded, valueDepthExceeds } from "./json-guard.js";

const enc = (t: string) => new TextEncoder().encode(t);
const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("parseJsonGuarded", () => {
  it("counts nesting on the bytes, outside strings only", () => {
    expect(nestingExceeds(enc(nested(3)), 3)).toBe(false);
    expect(nestingExceeds(enc(nested(4)), 3)).toBe(true);
    expect(nestingExceeds(enc(`{"a":[{"b":"[[[[[[\\"[[["}]}`), 3)).toBe(false);
    expect(nestingExceeds(enc(`[[{"a":{}}]]`), 3)).toBe(true);
  });

  it("returns each failure as a value with its code", () => {
    expect(parseJsonGuarded(enc(nested(1000)), { maxBytes: 10_000, maxDepth: 64 })).toMatchObject({ ok: false, code: "TOO_DEEP" });
    expect(parseJsonGuarded(enc("[1,2]"), { maxBytes: 4, maxDepth: 64 })).toMatchObject({ ok: false, code: "TOO_LARGE" });
    expect(parseJsonGuarded(new Uint8Array([0x22, 0xc3, 0x28, 0x22]))).toMatchObject({ ok: false, code: "NOT_UTF8" });
    expect(parseJsonGuarded(enc("[1,"))).toMatchObject({ ok: false, code: "MALFORMED_JSON" });
    expect(parseJsonGuarded(enc('{"a":["é"]}'))).toEqual({ ok: true, value: { a: ["é"] } });
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
    expect(safeParseGuarded(z.object({ n: z.number() }), { n: "x" })).toMatchObject({ ok: false, code: "SCHEMA_INVALID", reason: expect.stringMatching(/^n /) });
    expect(safeParseGuarded(z.object({ n: z.number() }), { n: 1 })).toEqual({ ok: true, value: { n: 1 } });
  });
});
