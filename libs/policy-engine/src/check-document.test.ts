import { describe, expect, it } from "vitest";
import { checkPolicyText } from "./check-document.js";
import { parsePolicyDocument } from "./document.js";

const at = (r: ReturnType<typeof checkPolicyText>) => [...r.errors, ...r.warnings].map((d) => `${d.line}:${d.column} ${d.code} ${d.path}`);

describe("checkPolicyText", () => {
  it("reports a typo in a YAML document at its line and column, with the field it meant", () => {
    const r = checkPolicyText(["version: v1", "rules:", "  - id: no-crm", "    effct: deny", "    reason: closed"].join("\n"));
    expect(r.ok).toBe(false);
    expect(r.errors).toEqual([
      expect.objectContaining({ line: 3, column: 5, code: "missing_field", path: "rules[0].effect", message: "missing required field effect" }),
      expect.objectContaining({ line: 4, column: 5, code: "unknown_field", path: "rules[0].effct", message: "unknown field effct; did you mean effect?" }),
    ]);
  });

  it("reports a typo in a JSON document at its line and column", () => {
    const text = ['{', '  "version": "v1",', '  "rules": [', '    { "id": "a", "effect": "deny", "reason": "x", "match": { "tool": "kb.search", "principl": "bot" } }', "  ]", "}"].join("\n");
    const r = checkPolicyText(text);
    expect(r.format).toBe("json");
    expect(r.errors).toEqual([expect.objectContaining({ line: 4, column: 83, code: "unknown_field", message: "unknown field principl; did you mean principal?" })]);
  });

  it("points at the value a schema refuses, deep in flow style too", () => {
    const r = checkPolicyText("version: v1\nprincipals:\n  alice: { kind: humn, approves: [send] }\n");
    expect(at(r)).toEqual(["3:18 invalid_value principals.alice.kind"]);
    expect(r.errors[0]?.message).toMatch(/human/);
  });

  it("reports YAML syntax errors and duplicate keys where they are", () => {
    expect(at(checkPolicyText("version: v1\nrules: [\n"))).toEqual(["3:1 syntax "]);
    expect(at(checkPolicyText("version: v1\nversion: v2\n"))).toEqual(["2:1 duplicate_key "]);
  });

  it("lets a JSON duplicate key through with a warning, as policy set stores the last one", () => {
    const r = checkPolicyText('{\n  "version": "v1",\n  "version": "v2"\n}\n');
    expect(r.ok).toBe(true);
    expect(r.document?.version).toBe("v2");
    expect(r.warnings).toContainEqual(expect.objectContaining({ code: "duplicate_key", line: 3, column: 3 }));
  });

  it("refuses exactly what policy set refuses, and stores the same document", () => {
    const texts = [
      "version: v1",
      "{version: flow1}",
      '{"version": "v1", "rules": [{"id": "a", "effect": "deny", "reason": "x",}]}',
      "version: v1\nrules: x",
      "",
      "a: 1\n---\nb: 2\n",
      "version: v1\nrules:\n  - { id: a, effect: deny, reason: x }\n  - { id: a, effect: allow, reason: y }\n",
      '{"version": "v1" "rules": []}',
    ];
    for (const t of texts) {
      const checked = checkPolicyText(t);
      const set = parsePolicyDocument(t);
      expect(checked.ok, t).toBe(set.ok);
      if (set.ok) expect(checked.document, t).toEqual(set.value);
      if (!checked.ok) expect(checked.errors.length, t).toBeGreaterThan(0);
    }
  });

  it("places lint warnings on the rule or value they concern", () => {
    const r = checkPolicyText(
      [
        "version: v1",
        "principals:",
        "  alice: { kind: human, approves: [send] }",
        "rules:",
        "  - id: no-crm",
        "    match: { domain: crm }",
        "    effect: deny",
        "    reason: closed",
        "  - id: crm-export-ok",
        "    match: { tool: crm.export }",
        "    effect: require_approval",
        "    reason: careful",
      ].join("\n"),
    );
    expect(r.ok).toBe(true);
    expect(r.warnings).toEqual([expect.objectContaining({ code: "rule.shadowed", line: 9, column: 5, path: "rules[1]" })]);
  });
});
