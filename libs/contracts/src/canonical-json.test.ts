import { describe, expect, it } from "vitest";
import { argsHash, canonicalJson } from "./canonical-json.js";
import { lintDescriptor, ToolDescriptorSchema } from "./descriptor.js";

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
