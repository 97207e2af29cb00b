import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CheckDef as Check, Schema as Node } from "./compiled-check.js";
import { compiledEventCheck, validateEventJsonWithZod } from "./event-hash.js";
import { WardenEventSchema } from "./events.js";

/**
 * The compiled event check against zod, its reference: for every event schema, generated valid
 * events and mutations of them (members removed, added, replaced by wrong types, out-of-range
 * numbers, oversized strings), each through JSON as a stored event is. The check may only ever
 * be a faster zod, so on each value both must answer alike: accepted as it is, or not.
 */

/** How deep generated JSON values (args, outputs, details) nest before only leaves are made. */
const GEN_DEPTH = 4;

const checksOf = (s: Node): Check[] => [...(s._zod.traits.has("$ZodCheck") ? [s._zod.def as unknown as Check] : []), ...(s._zod.def.checks ?? []).map((c) => c._zod.def)];
const lazyInner = (s: Node): Node => (s._zod as { readonly innerType?: Node }).innerType ?? s._zod.def.getter!();
const resolved = (s: Node): Node => (s._zod.def.type === "lazy" ? resolved(lazyInner(s)) : s);
const isLeaf = (s: Node): boolean => !["array", "object", "record", "union", "lazy"].includes(resolved(s)._zod.def.type);

/** Values `s` accepts unchanged. */
function valid(s: Node, depth: number): fc.Arbitrary<unknown> {
  const def = s._zod.def;
  switch (def.type) {
    case "string":
      return validString(s);
    case "number":
      return validNumber(s);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "literal":
    case "enum":
      return fc.constantFrom(...s._zod.values!);
    case "nullable":
      return fc.oneof(fc.constant(null), valid(def.innerType!, depth));
    case "optional":
      return valid(def.innerType!, depth);
    case "lazy":
      return valid(lazyInner(s), depth);
    case "array": {
      let min = 0;
      let max = 3;
      for (const c of checksOf(s)) {
        if (c.check === "min_length") min = c.minimum!;
        if (c.check === "max_length") max = Math.min(max, c.maximum!);
      }
      return fc.array(valid(def.element!, depth + 1), { minLength: min, maxLength: depth >= GEN_DEPTH ? min : Math.max(min, max) });
    }
    case "object": {
      const shape = def.shape ?? {};
      const model = Object.fromEntries(Object.entries(shape).map(([k, f]) => [k, valid(f, depth + 1)]));
      const requiredKeys = Object.entries(shape).filter(([, f]) => f._zod.def.type !== "optional").map(([k]) => k);
      return fc.record(model, { requiredKeys });
    }
    case "record":
      return fc.dictionary(fc.string({ maxLength: 8 }), valid(def.valueType!, depth + 1), { maxKeys: depth >= GEN_DEPTH ? 0 : 3 });
    case "union": {
      const options = depth >= GEN_DEPTH ? def.options!.filter(isLeaf) : def.options!;
      return fc.oneof(...options.map((o) => valid(o, depth)));
    }
    default:
      throw new Error(`the generator does not know a ${def.type} schema: teach it (and the compiled check)`);
  }
}

function validString(s: Node): fc.Arbitrary<string> {
  let min = 0;
  let max = Infinity;
  let pattern: RegExp | undefined;
  let datetime = false;
  for (const c of checksOf(s)) {
    if (c.check === "min_length") min = c.minimum!;
    else if (c.check === "max_length") max = c.maximum!;
    else if (c.check === "string_format" && c.format === "datetime") datetime = true;
    else if (c.check === "string_format" && c.pattern !== undefined) pattern = c.pattern;
    else throw new Error(`the generator does not know string check ${c.check}`);
  }
  const codePoints = (v: string) => [...v].length;
  if (datetime) return fc.date({ min: new Date("1970-01-01T00:00:00.000Z"), max: new Date("9999-12-31T23:59:59.999Z"), noInvalidDate: true }).map((d) => d.toISOString());
  if (pattern !== undefined) return matching(pattern).filter((v) => codePoints(v) >= min && codePoints(v) <= max);
  // code points (astral ones are two UTF-16 units), up to the limit itself
  const short = fc.string({ unit: "binary", minLength: min, maxLength: Math.min(max, Math.max(min, 40)) });
  return max === Infinity ? short : fc.oneof(short, fc.string({ unit: "binary", minLength: max, maxLength: max }));
}

/** Strings a pattern matches; fast-check knows no lookahead, so one is dropped and then checked (traceparent's `(?!0{32})`). */
function matching(pattern: RegExp): fc.Arbitrary<string> {
  const lookahead = /\(\?[!=][^)]*\)/g;
  if (!lookahead.test(pattern.source)) return fc.stringMatching(pattern);
  return fc.stringMatching(new RegExp(pattern.source.replace(lookahead, ""), pattern.flags)).filter((v) => pattern.test(v));
}

function validNumber(s: Node): fc.Arbitrary<number> {
  let integer = false;
  let min = -Number.MAX_VALUE;
  let max = Number.MAX_VALUE;
  let minExcluded = false;
  let maxExcluded = false;
  for (const c of checksOf(s)) {
    if (c.check === "number_format" && c.format === "safeint") integer = true;
    else if (c.check === "greater_than") [min, minExcluded] = [c.value as number, !c.inclusive];
    else if (c.check === "less_than") [max, maxExcluded] = [c.value as number, !c.inclusive];
    else throw new Error(`the generator does not know number check ${c.check}`);
  }
  if (integer) {
    const lo = Math.max(Number.MIN_SAFE_INTEGER, minExcluded ? Math.floor(min) + 1 : Math.ceil(min));
    const hi = Math.min(Number.MAX_SAFE_INTEGER, maxExcluded ? Math.ceil(max) - 1 : Math.floor(max));
    return fc.oneof(fc.integer({ min: Math.max(lo, -1000), max: Math.min(hi, 1000) }), fc.bigInt({ min: BigInt(lo), max: BigInt(hi) }).map(Number), fc.constantFrom(lo, hi));
  }
  return fc.double({ min, max, minExcluded, maxExcluded, noNaN: true, noDefaultInfinity: true });
}

/** Every path to a member or element of a JSON value (the root is []). */
function paths(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (v === null || typeof v !== "object") return [at];
  const inner = Array.isArray(v) ? v.flatMap((x, i) => paths(x, [...at, i])) : Object.entries(v).flatMap(([k, x]) => paths(x, [...at, k]));
  return [at, ...inner];
}

/** Values of the wrong type or out of range for some member: boundaries of the schemas' numbers and lengths. */
const wrong: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -0, -1, 0.5, -0.5, 1e308, -1e308, 2 ** 53, -(2 ** 53), Number.MAX_SAFE_INTEGER, "", "x", [], {}, [null], { a: 1 }),
  fc.constantFrom<unknown>("2030-01-01T00:00:00.000Z", "2030-01-01T00:00:00Z", "2030-13-01T00:00:00.000Z", "2030-01-01 00:00:00", "sha256:" + "a".repeat(64), "sha256:" + "A".repeat(64), "sha256:" + "a".repeat(63), "a-b_c", "a.b", "kb.search", "1.0.0", "L3", "read", "send", "llm"),
  // oversized strings, in UTF-16 units and in code points, across the limits the schemas set
  fc.integer({ min: 0, max: 5000 }).map((n) => "x".repeat(n)),
  fc.constantFrom(63, 64, 65, 127, 128, 129, 199, 200, 201, 255, 256, 257, 1024, 1025, 4096, 4097).chain((n) => fc.constantFrom("a".repeat(n), "🙂".repeat(n), "🙂".repeat(Math.ceil(n / 2)))),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.integer(),
  fc.double(),
  fc.json().map((t) => JSON.parse(t) as unknown),
);

type Mutation = { readonly kind: "remove" } | { readonly kind: "replace"; readonly value: unknown } | { readonly kind: "add"; readonly key: string; readonly value: unknown } | { readonly kind: "copy"; readonly from: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constant({ kind: "remove" as const }),
  wrong.map((value) => ({ kind: "replace" as const, value })),
  fc.record({ kind: fc.constant("add" as const), key: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom("__proto__", "constructor", "toString", "v", "type", "data", "stray")), value: wrong }),
  // a value valid elsewhere in the same event (a token where a hash goes, a grade where a mode goes)
  fc.nat().map((from) => ({ kind: "copy" as const, from })),
);

/** `event` with one mutation at its `at`-th path; members are own properties, as JSON.parse makes them (`__proto__` too). */
function mutate(event: unknown, at: number, m: Mutation): unknown {
  const all = paths(event);
  const path = all[at % all.length]!;
  const copy = structuredClone(event) as Record<string | number, unknown>;
  const set = (o: Record<string | number, unknown>, k: string | number, value: unknown) => Object.defineProperty(o, k, { value, enumerable: true, writable: true, configurable: true });
  const target = path.reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], copy);
  if (m.kind === "add") {
    if (target !== null && typeof target === "object" && !Array.isArray(target)) set(target as Record<string, unknown>, m.key, m.value);
    else if (Array.isArray(target)) target.push(m.value);
    return copy;
  }
  if (path.length === 0) return m.kind === "replace" ? m.value : copy;
  const parent = path.slice(0, -1).reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], copy) as Record<string | number, unknown>;
  const key = path.at(-1)!;
  if (m.kind === "remove") {
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
  } else if (m.kind === "replace") set(parent, key, m.value);
  else set(parent, key, structuredClone(all[m.from % all.length]!.reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], event)));
  return copy;
}

/** The value as a reader gets it from stored bytes. */
const throughJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

const options = (WardenEventSchema as unknown as Node)._zod.def.options!;
const typeOf = (o: Node) => [...o._zod.def.shape!["type"]!._zod.values!][0] as string;
const check = compiledEventCheck();
const compiled = (v: unknown) => check!(v, 1, Number.MAX_SAFE_INTEGER);

describe("the compiled event check agrees with zod", () => {
  it("compiles the event schema", () => {
    expect(check).not.toBeNull();
    expect(options.map(typeOf).sort()).toEqual([...new Set(options.map(typeOf))].sort());
  });

  describe.each(options.map((o) => [typeOf(o), o] as const))("%s", (_type, option) => {
    const events = valid(option as unknown as Node, 0).map(throughJson);

    it("accepts every valid event, as zod does", () => {
      fc.assert(
        fc.property(events, (e) => {
          const byZod = validateEventJsonWithZod(e);
          expect(byZod.ok ? true : byZod.reason).toBe(true);
          expect(compiled(e)).toBe(true);
        }),
        { numRuns: 150 },
      );
    });

    it("answers as zod on mutated events: wrong types, missing, extra and copied members, out-of-range numbers, oversized strings", () => {
      let refused = 0;
      fc.assert(
        fc.property(events, fc.nat(), mutation, (e, at, m) => {
          const v = throughJson(mutate(e, at, m));
          const where = paths(e)[at % paths(e).length]!.join(".");
          const byZod = validateEventJsonWithZod(v);
          if (!byZod.ok) refused++;
          expect({ compiled: compiled(v), zod: byZod.ok ? true : byZod.reason, where, m: JSON.stringify(m).slice(0, 100) }).toEqual({ compiled: byZod.ok, zod: byZod.ok ? true : byZod.reason, where, m: JSON.stringify(m).slice(0, 100) });
        }),
        { numRuns: 600 },
      );
      // the mutations mostly break the event: the agreement is tested on refusals too
      expect(refused).toBeGreaterThan(200);
    });
  });
});
