import { describe, expect, it } from "vitest";
import { PolicyDocumentSchema } from "@warden/contracts/policy";
import { effectiveFlags, flagGranted } from "./effective-flags.js";

const doc = PolicyDocumentSchema.parse({
  version: "t1",
  principals: {
    alice: { kind: "human", flags: { kbAdmin: true, beta: true, legacy: false } },
    bot: { kind: "agent", flags: { beta: true } },
    bob: { kind: "human" },
  },
});

describe("effectiveFlags", () => {
  it("turns on every flag the document grants the principal when the request says nothing", () => {
    expect(effectiveFlags(doc, "alice", {})).toEqual({ kbAdmin: true, beta: true, legacy: false });
    expect(effectiveFlags(doc, "alice")).toEqual({ kbAdmin: true, beta: true, legacy: false });
  });

  it("lets the request turn a granted flag off", () => {
    expect(effectiveFlags(doc, "alice", { kbAdmin: false })).toEqual({ kbAdmin: false, beta: true, legacy: false });
  });

  it("ignores a request turning on a flag the document does not grant", () => {
    expect(effectiveFlags(doc, "bot", { kbAdmin: true, beta: true, anything: true })).toEqual({ kbAdmin: false, beta: true, anything: false });
  });

  it("does not count a flag the document sets to false as granted", () => {
    expect(effectiveFlags(doc, "alice", { legacy: true })).toMatchObject({ legacy: false });
    expect(flagGranted(doc, "alice", "legacy")).toBe(false);
    expect(flagGranted(doc, "alice", "kbAdmin")).toBe(true);
  });

  it("gives no flags to a named principal without flags or to one the document does not name", () => {
    expect(effectiveFlags(doc, "bob", {})).toEqual({});
    expect(effectiveFlags(doc, "bob", { kbAdmin: true })).toEqual({ kbAdmin: false });
    expect(effectiveFlags(doc, "mallory", { kbAdmin: true, beta: true })).toEqual({ kbAdmin: false, beta: false });
    expect(flagGranted(doc, "mallory", "kbAdmin")).toBe(false);
  });

  it("does not read flags from the object prototype", () => {
    expect(effectiveFlags(doc, "constructor", { toString: true })).toEqual({ toString: false });
    expect(flagGranted(doc, "alice", "toString")).toBe(false);
  });

  it("changes nothing when applied to its own result, so a flag turned off stays off", () => {
    const once = effectiveFlags(doc, "alice", { beta: false, extra: true });
    expect(once).toEqual({ kbAdmin: true, beta: false, legacy: false, extra: false });
    expect(effectiveFlags(doc, "alice", once)).toEqual(once);
  });
});
