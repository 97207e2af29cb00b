import { describe, expect, it } from "vitest";
import { ArgsConstraintsRequestSchema, describeConstraints, unmetConstraint } from "./session-grant.js";

describe("unmetConstraint", () => {
  it("accepts args that meet every constraint, whatever the arguments not named", () => {
    const c = { customerId: { equals: "C-1" }, channel: { oneOf: ["mail", "sms"] }, path: { prefix: "/srv/" }, amount: { min: 1, max: 50 }, meta: { equals: { a: [1, 2] } } };
    expect(unmetConstraint(c, { customerId: "C-1", channel: "sms", path: "/srv/x", amount: 50, meta: { a: [1, 2] }, other: true })).toBeUndefined();
    expect(unmetConstraint({}, { anything: 1 })).toBeUndefined();
  });

  it("names the first argument that breaks one: missing, unequal, outside a set, a prefix or a bound, or not a number", () => {
    expect(unmetConstraint({ customerId: { equals: "C-1" } }, {})).toBe("customerId is missing");
    expect(unmetConstraint({ customerId: { equals: "C-1" } }, { customerId: "C-2" })).toBe('customerId is not "C-1"');
    expect(unmetConstraint({ channel: { oneOf: ["mail"] } }, { channel: "sms" })).toBe('channel is not one of ["mail"]');
    expect(unmetConstraint({ path: { prefix: "/srv/" } }, { path: "/etc/passwd" })).toBe('path does not start with "/srv/"');
    expect(unmetConstraint({ path: { prefix: "/srv/" } }, { path: 7 })).toBe('path does not start with "/srv/"');
    expect(unmetConstraint({ amount: { max: 50 } }, { amount: 51 })).toBe("amount is above 50");
    expect(unmetConstraint({ amount: { min: 1, max: 50 } }, { amount: 0 })).toBe("amount is below 1");
    expect(unmetConstraint({ amount: { max: 50 } }, { amount: "10" })).toBe("amount is not a number");
    expect(unmetConstraint({ a: { equals: 1 } }, [1] as never)).toBe("a is missing");
    expect(unmetConstraint({ a: { equals: null } }, { a: 0 })).toBe("a is not null");
    expect(unmetConstraint({ path: { prefix: "/srv/", oneOf: ["/srv/a"] } }, { path: "/srv/b" })).toBe('path is not one of ["/srv/a"]');
  });

  it("for a closed session, refuses an argument the approved call did not have", () => {
    expect(unmetConstraint({ id: { equals: 1 } }, { id: 1, note: "x" }, ["id", "note"])).toBeUndefined();
    expect(unmetConstraint({ id: { equals: 1 } }, { id: 1, force: true }, ["id", "note"])).toBe("force is not an argument the approved call had");
    expect(unmetConstraint({}, { anything: 1 }, [])).toBe("anything is not an argument the approved call had");
  });

  it("compares values as canonical JSON, so key order does not matter", () => {
    expect(unmetConstraint({ m: { equals: { b: 1, a: 2 } } }, { m: { a: 2, b: 1 } })).toBeUndefined();
  });
});

describe("ArgsConstraintsRequestSchema", () => {
  it("takes named arguments with at least one known condition each, and refuses anything else", () => {
    expect(ArgsConstraintsRequestSchema.safeParse({ x: { equals: 1 } }).success).toBe(true);
    expect(ArgsConstraintsRequestSchema.safeParse({ x: { equals: null } }).success).toBe(true);
    expect(ArgsConstraintsRequestSchema.safeParse({ x: { min: 1, max: 2 } }).success).toBe(true);
    expect(ArgsConstraintsRequestSchema.safeParse({ x: {} }).success).toBe(false);
    expect(ArgsConstraintsRequestSchema.safeParse({ x: { like: "a%" } }).success).toBe(false);
    expect(ArgsConstraintsRequestSchema.safeParse({ x: { oneOf: [] } }).success).toBe(false);
    expect(ArgsConstraintsRequestSchema.safeParse({ "a b": { equals: 1 } }).success).toBe(false);
  });
});

describe("describeConstraints", () => {
  it("reads the constraints aloud, or says any args", () => {
    expect(describeConstraints({})).toBe("any args");
    expect(describeConstraints({ customerId: { equals: "C-1" }, amount: { min: 1, max: 50 }, n: { max: 3 }, path: { prefix: "/srv" } })).toBe('customerId = "C-1", 1 ≤ amount ≤ 50, n ≤ 3, path starts with "/srv"');
  });
});
