import { createRequire } from "node:module";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json.js";

// RFC 8785's reference implementation (a CommonJS module whose typings NodeNext reads as a namespace)
const canonicalize = createRequire(import.meta.url)("canonicalize") as (value: unknown) => string | undefined;

/**
 * Our canonical JSON is RFC 8785 (JCS) for every JSON value, so an auditor in any language checks
 * an event's hash with a standard JCS library. Ours stays (it is the hot path: every event is
 * hashed) and is held to the reference implementation here.
 */
describe("canonicalJson is RFC 8785 (JCS)", () => {
  it("agrees with the `canonicalize` reference implementation on any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(canonicalize(value));
      }),
      { numRuns: 2_000 },
    );
  });

  it("gives the RFC's own examples", () => {
    // RFC 8785 §3.2.2 (values) and §3.2.3 (sorting by UTF-16 code units)
    const values = JSON.parse('{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}') as unknown;
    expect(canonicalJson(values)).toBe('{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}');
    const sorting = JSON.parse('{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}') as Record<string, string>;
    const names = [...canonicalJson(sorting).matchAll(/:"([^"]+)"/g)].map((m) => m[1]);
    expect(names).toEqual(["Carriage Return", "One", "Control", "Latin Small Letter O With Diaeresis", "Euro Sign", "Emoji: Grinning Face", "Hebrew Letter Dalet With Dagesh"]);
  });

  it("sorts keys that are array indices like any other key (a JavaScript object keeps them first)", () => {
    // control: a sorted copy written by JSON.stringify puts "10" and "9" before "", in numeric order
    expect(JSON.stringify({ "": 1, "10": 2, "9": 3, a: 4 })).toBe('{"9":3,"10":2,"":1,"a":4}');
    expect(canonicalJson({ a: 4, "9": 3, "": 1, "10": 2 })).toBe('{"":1,"10":2,"9":3,"a":4}');
    expect(canonicalJson({ args: { "1": "x", b: [{ "0": null, z: true }] } })).toBe('{"args":{"1":"x","b":[{"0":null,"z":true}]}}');
    expect(canonicalJson({ "4294967295": 1, "4294967294": 2 })).toBe(canonicalize({ "4294967295": 1, "4294967294": 2 }));
  });
});
