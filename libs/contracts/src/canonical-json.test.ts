import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { argsHash, canonicalJson } from "./canonical-json.js";
import { lintDescriptor, ToolDescriptorSchema } from "./descriptor.js";

// RFC 8785's reference implementation (a CommonJS module whose typings NodeNext reads as a namespace)
const canonicalize = createRequire(import.meta.url)("canonicalize") as (value: unknown) => string | undefined;

describe("canonical JSON and argsHash", () => {
  it("hashes the same args the same whatever the key order", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}');
    expect(argsHash({ a: 1, b: 2 })).toBe(argsHash({ b: 2, a: 1 }));
    expect(argsHash({ a: 1 })).not.toBe(argsHash({ a: 2 }));
    expect(argsHash({ a: 1 })).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe("descriptor lint", () => {
  const base = {
    name: "kb.search",
    version: "1.0.0",
    title: "Search",
    description: "Use when the customer asks a question the knowledge base may answer.",
    inputSchema: { type: "object" },
  };

  it("rejects a read tool marked destructive", () => {
    const d = ToolDescriptorSchema.parse({ ...base, grade: "read", destructive: true });
    expect(lintDescriptor(d).map((i) => i.rule)).toEqual(["read-not-destructive"]);
  });

  it("rejects a destructive, open-world write that should be graded send", () => {
    const d = ToolDescriptorSchema.parse({ ...base, grade: "write", destructive: true, openWorld: true });
    expect(lintDescriptor(d).map((i) => i.rule)).toContain("destructive-open-world-is-send");
  });

  it("accepts a consistent descriptor", () => {
    expect(lintDescriptor(ToolDescriptorSchema.parse({ ...base, grade: "read" }))).toEqual([]);
  });
});

describe("canonical JSON written directly", () => {
  // RFC 8785's reference implementation, on the JSON the value is written as (it writes a function member as `undefined`)
  const reference = (value: unknown) => canonicalize(JSON.parse(JSON.stringify(value) ?? "null"));

  it("writes what the JCS reference writes, index-like keys, odd members and escapes included", () => {
    const odd = JSON.parse('{"__proto__":{"x":1},"constructor":"c"}') as unknown;
    const values: unknown[] = [
      { b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } },
      { "10": "ten", "9": "nine", b: 2, "01": "zero-one", "-1": "minus", "4294967295": "max", "4294967294": "below", a: 1 },
      { s: 'quote " backslash \\ newline \n tab \t unicode é 𝄞 \u2028 lone \ud800', n: [0, -0, 1.5, -2e-7, 1e21, 123456789012345680000] },
      { u: undefined, f: () => 1, sym: Symbol("s"), arr: [undefined, () => 1, Symbol("t"), null, true, false], at: new Date(0) },
      // a hole is written as null
      [, 1, [], {}, [[]], { z: { y: { x: {} } } }],
      odd,
      { nested: { toJSON: () => ({ b: 2, a: 1 }) }, gone: { toJSON: () => undefined } },
      "text",
      42,
      null,
      true,
    ];
    for (const v of values) expect(canonicalJson(v)).toBe(reference(v));
    for (let seed = 1; seed <= 200; seed++) {
      const v = randomJson(seed, 4);
      expect(canonicalJson(v)).toBe(reference(v));
    }
  });

  it("still refuses non-finite numbers and BigInt anywhere", () => {
    expect(() => canonicalJson({ a: [1, Number.NaN] })).toThrow(TypeError);
    expect(() => canonicalJson(Number.POSITIVE_INFINITY)).toThrow(TypeError);
    expect(() => canonicalJson({ a: 1n })).toThrow(TypeError);
  });
});

/** A pseudo-random JSON value (deterministic per seed), with keys that sort differently as strings and as numbers. */
function randomJson(seed: number, depth: number): unknown {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const keys = ["a", "b", "B", "_", "0", "1", "2", "10", "9", "é", "aa", "", "01"];
  const make = (d: number): unknown => {
    const r = next();
    if (d === 0 || r < 0.3) return [null, true, 1, -3.25, "x", "é\n"][Math.floor(next() * 6)];
    if (r < 0.6) return Array.from({ length: Math.floor(next() * 4) }, () => make(d - 1));
    const o: Record<string, unknown> = {};
    for (let i = Math.floor(next() * 5); i > 0; i--) o[keys[Math.floor(next() * keys.length)]!] = make(d - 1);
    return o;
  };
  return make(depth);
}
