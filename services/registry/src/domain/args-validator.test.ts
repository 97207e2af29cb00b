import { describe, expect, it } from "vitest";
import { record } from "../../test-support/fixtures.js";
import { ArgsValidators } from "./args-validator.js";

describe("ArgsValidators", () => {
  it("accepts args that match the inputSchema", () => {
    const v = new ArgsValidators();
    expect(v.validate(record(), { query: "refund", limit: 5 })).toEqual({ kind: "valid" });
  });

  it("reports every failing path, naming missing and extra properties themselves", () => {
    const v = new ArgsValidators();
    const r = v.validate(record(), { limit: 50, colour: "red" });
    expect(r.kind).toBe("invalid");
    if (r.kind !== "invalid") return;
    expect(r.errors).toEqual(
      expect.arrayContaining([
        { path: "/query", message: "is required" },
        { path: "/limit", message: "must be <= 20" },
        { path: "/colour", message: "is not an allowed property" },
      ]),
    );
  });

  it("names the args object itself as / when it has the wrong type", () => {
    const r = new ArgsValidators().validate(record(), "search for refunds");
    expect(r).toMatchObject({ kind: "invalid", errors: [{ path: "/", message: "must be object" }] });
  });

  it("checks formats such as email", () => {
    const rec = record({ inputSchema: { type: "object", properties: { to: { type: "string", format: "email" } } } });
    expect(new ArgsValidators().validate(rec, { to: "not-an-address" })).toMatchObject({ kind: "invalid", errors: [{ path: "/to" }] });
  });

  it("compiles each version once and reuses it", () => {
    const v = new ArgsValidators();
    const rec = record();
    v.validate(rec, { query: "a" });
    v.validate(rec, { query: "b" });
    expect(v.size).toBe(1);
    v.validate(record({ version: "1.1.0" }), { query: "c" });
    expect(v.size).toBe(2);
  });

  it("compiles two versions that share a $id, and 2020-12 schemas", () => {
    const v = new ArgsValidators();
    const a = record({ inputSchema: { $id: "urn:kb:search", type: "object", properties: { q: { type: "string" } } } });
    const b = record({
      version: "2.0.0",
      inputSchema: { $schema: "https://json-schema.org/draft/2020-12/schema", $id: "urn:kb:search", type: "object", properties: { q: { type: "integer" } } },
    });
    expect(v.validate(a, { q: "x" }).kind).toBe("valid");
    expect(v.validate(b, { q: "x" }).kind).toBe("invalid");
  });

  it("refuses a schema that does not compile, as a value", () => {
    const r = new ArgsValidators().checkSchema({ type: "object", properties: { a: { type: "nope" } } });
    expect(r).toMatchObject({ ok: false, error: { code: "DESCRIPTOR_INVALID" } });
  });
});
