import { describe, expect, it } from "vitest";
import { parsePolicyDocument } from "./document.js";

describe("parsePolicyDocument", () => {
  it("parses YAML and fills defaults", () => {
    const r = parsePolicyDocument(
      ["version: v7", "rules:", "  - id: no-kb", "    effect: deny", "    reason: closed", "    match: { domain: kb }", "budgets:", "  maxCallsPerRun: 3"].join("\n"),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.version).toBe("v7");
    expect(r.value.rules[0]?.match.domain).toEqual(["kb"]);
    expect(r.value.budgets.maxCallsPerRun).toBe(3);
    expect(r.value.approvalTtlSeconds).toEqual({ write: 3600, send: 900 });
  });

  it("parses JSON", () => {
    const r = parsePolicyDocument(JSON.stringify({ version: "j1", principals: { alice: { kind: "human", approves: ["send"] } } }));
    expect(r.ok && r.value.principals["alice"]?.approves).toEqual(["send"]);
  });

  it("parses a YAML flow mapping that is not JSON", () => {
    const r = parsePolicyDocument("{version: flow1}");
    expect(r.ok && r.value.version).toBe("flow1");
  });

  it("refuses text that is neither JSON nor YAML", () => {
    const r = parsePolicyDocument("version: [unclosed");
    expect(r).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST" } });
  });

  it("refuses a document that fails the schema, naming the path", () => {
    const r = parsePolicyDocument("version: v1\nrules:\n  - id: a\n    effect: maybe\n    reason: x\n");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/rules\.0\.effect/);
  });

  it("refuses duplicate rule ids", () => {
    const rule = { id: "same", effect: "deny", reason: "x" };
    const r = parsePolicyDocument(JSON.stringify({ version: "v1", rules: [rule, rule] }));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/duplicate rule id same/);
  });
});
