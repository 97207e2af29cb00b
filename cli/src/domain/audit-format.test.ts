import { describe, expect, it } from "vitest";
import { applyCallEvent, auditRow, type AuditRow, type CallModel } from "@warden/projections";
import { syntheticCall, type SyntheticCallOptions } from "@warden/testing";
import { auditCsv, auditTable, AUDIT_CSV_COLUMNS } from "./audit-format.js";
import { csvField, csvRecord } from "./csv.js";

function row(o: SyntheticCallOptions): AuditRow {
  let m: CallModel | undefined;
  syntheticCall(o).forEach((e, i) => (m = applyCallEvent(m, e, i + 1)));
  return auditRow(m!);
}

const ids = ["01k8jo3rus00015qAjW3J1cPs6", "01k8jo3su200005rtcT0zTnlU0", "01k8jo42hh0001QwSZCxH16pWT", "01k8jo439s0000oWYs7bM0Q7k3"];
const rows: AuditRow[] = [
  row({ callId: ids[0]!, outcome: "succeeded", principal: "support-bot" }),
  row({ callId: ids[1]!, outcome: "approved", tool: "customer.message", principal: "support-bot", approver: "alice-the-approver" }),
  row({ callId: ids[2]!, outcome: "failed", principal: "a-principal-with-a-long-name" }),
  { ...row({ callId: ids[3]!, outcome: "policy_denied", tool: "customer.message" }), goal: "close the refund ticket, as the customer asked twice", violations: ["send_without_grant"], shadow: { decision: "allow", shadowRuleIds: ["shadow.one"], disagrees: true } },
];

describe("audit table", () => {
  it("fits 100 columns by default, with short times and call ids, the decision under each call", () => {
    const lines = auditTable(rows).split("\n");
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(100);
    expect(lines[0]).toMatch(/^REQUESTED +CALL +PRINCIPAL +MODE +TOOL +STATUS +MS$/);
    expect(lines[1]).toMatch(/^01-01 00:00:00 {2}…W3J1cPs6 {2}support-bot +llm +kb\.search +succeeded +12$/);
    expect(lines[2]).toBe(`${" ".repeat(16)}decision=allow rules=default.read.llm`);
    expect(lines[4]).toBe(`${" ".repeat(16)}decision=require_approval rules=default.send.plan approver=alice-the-approver`);
    expect(lines[7]).toMatch(/customer\.message +rejected POLICY_DENIED +9$/);
    // wrapped where the next pair would pass 100 columns
    expect(lines.slice(8, 10)).toEqual([
      `${" ".repeat(16)}VIOLATIONS=send_without_grant decision=deny rules=gate.scope shadow=!allow`,
      `${" ".repeat(16)}shadowRules=shadow.one goal="close the refund ticket, as the customer asked twice"`,
    ]);
    expect(lines.at(-1)).toContain("--wide");
  });

  it("cuts what does not fit and keeps every line within the width", () => {
    const long = { ...rows[0]!, principal: "p".repeat(60), tool: `kb.${"t".repeat(60)}`, goal: "g ".repeat(80) };
    for (const l of auditTable([long]).split("\n")) expect(l.length, l).toBeLessThanOrEqual(100);
  });

  it("prints every value whole with --wide", () => {
    const text = auditTable(rows, { wide: true });
    for (const id of ids) expect(text).toContain(id);
    expect(text).toContain("2030-01-01T00:00:00.000Z");
    expect(text).toContain(rows[0]!.argsHash);
    expect(text).toContain("close the refund ticket, as the customer asked twice");
    expect(text.split("\n")[0]).toMatch(/^REQUESTED +CALL +PRINCIPAL +MODE +TOOL +STATUS +DECISION +APPROVER +MS +ARGS HASH +VIOLATIONS +GOAL +SHADOW$/);
  });
});

describe("audit CSV", () => {
  it("has a header row and one record per call, lists space-separated", () => {
    const [header, ...records] = auditCsv(rows);
    expect(header).toBe(AUDIT_CSV_COLUMNS.join(","));
    expect(records).toHaveLength(4);
    expect(records[3]).toContain(',"close the refund ticket, as the customer asked twice",');
    expect(records[3]).toContain(",deny,gate.scope,");
    expect(records[3]).toContain(",allow,shadow.one,true");
  });

  it("adds each call's finding kinds with --verify", () => {
    const [header, first] = auditCsv(rows.slice(0, 1), [
      { kind: "grant_args_mismatch", callId: ids[0]!, detail: "x" },
      { kind: "send_without_grant", callId: ids[0]!, detail: "y" },
    ]);
    expect(header!.endsWith(",findings")).toBe(true);
    expect(first!.endsWith(",grant_args_mismatch send_without_grant")).toBe(true);
  });

  it("quotes commas, quotes, line breaks and edge spaces, and keeps formulas from running", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField('say "hi", then go')).toBe('"say ""hi"", then go"');
    expect(csvField("two\nlines")).toBe('"two\nlines"');
    expect(csvField(" padded")).toBe('" padded"');
    expect(csvField("=HYPERLINK(\"http://x\")")).toBe("\"'=HYPERLINK(\"\"http://x\"\")\"");
    expect(csvField("+1")).toBe("'+1");
    expect(csvField("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvField(-3)).toBe("-3");
    expect(csvRecord(["a", 1, ""])).toBe("a,1,");
  });
});
