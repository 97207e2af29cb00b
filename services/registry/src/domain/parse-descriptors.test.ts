import { describe, expect, it } from "vitest";
import { descriptor, record } from "../../test-support/fixtures.js";
import { ArgsValidators } from "./args-validator.js";
import { parseDescriptors } from "./parse-descriptors.js";
import { checkSameContent, withStatus } from "./registration.js";

const check = (s: Parameters<ArgsValidators["checkSchema"]>[0]) => new ArgsValidators().checkSchema(s);

describe("parseDescriptors", () => {
  it("parses valid descriptors with their defaults and hash", () => {
    const r = parseDescriptors([descriptor()], check);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value[0]?.descriptor).toMatchObject({ name: "kb.search", destructive: false, timeoutMs: 10_000 });
    expect(r.value[0]?.descriptorHash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("names the field path of a schema error", () => {
    const r = parseDescriptors([descriptor(), descriptor({ name: "kb search", inputSchema: { type: "string" } })], check);
    expect(r).toMatchObject({ ok: false, error: { code: "DESCRIPTOR_INVALID" } });
    if (r.ok) return;
    expect(r.error.message).toContain("descriptors[1]");
    expect(r.error.message).toContain("name:");
    expect(r.error.message).toContain("inputSchema:");
  });

  it("names the lint rule a contradiction breaks", () => {
    const r = parseDescriptors([descriptor({ grade: "read", destructive: true })], check);
    expect(r).toMatchObject({ ok: false, error: { code: "DESCRIPTOR_INVALID" } });
    if (r.ok) return;
    expect(r.error.message).toContain("lint rule read-not-destructive");
    expect(r.error.details?.["issues"]).toEqual([expect.objectContaining({ rule: "read-not-destructive" })]);
  });

  it("refuses an inputSchema ajv cannot compile", () => {
    const r = parseDescriptors([descriptor({ inputSchema: { type: "object", properties: { a: { type: "nope" } } } })], check);
    expect(r).toMatchObject({ ok: false, error: { code: "DESCRIPTOR_INVALID" } });
  });

  it("refuses one batch holding two contents for one version, and folds exact repeats", () => {
    const twice = parseDescriptors([descriptor(), descriptor()], check);
    expect(twice.ok && twice.value.length).toBe(1);
    const clash = parseDescriptors([descriptor(), descriptor({ title: "Another title" })], check);
    expect(clash).toMatchObject({ ok: false, error: { code: "DESCRIPTOR_INVALID" } });
  });
});

describe("registration rules", () => {
  it("accepts the same content again and refuses other content for the same version", () => {
    const existing = record();
    const parsed = parseDescriptors([descriptor()], check);
    const changed = parseDescriptors([descriptor({ title: "Search articles" })], check);
    if (!parsed.ok || !changed.ok) throw new Error("fixtures must parse");
    expect(checkSameContent(existing, parsed.value[0]!).ok).toBe(true);
    expect(checkSameContent(existing, changed.value[0]!)).toMatchObject({ ok: false, error: { code: "REGISTRATION_CONFLICT" } });
  });

  it("changes a status only when it differs", () => {
    const now = new Date("2025-02-02T00:00:00.000Z");
    expect(withStatus(record(), "enabled", now)).toBeUndefined();
    expect(withStatus(record(), "disabled", now)).toMatchObject({ status: "disabled", statusChangedAt: now.toISOString() });
  });
});
