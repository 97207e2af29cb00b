import { describe, expect, it } from "vitest";
import { PolicyDocumentSchema } from "@warden/contracts/policy";
import { ledgerRows, ledgersText } from "./budgets-format.js";

const AT = Date.parse("2030-01-01T10:20:30Z");
const doc = PolicyDocumentSchema.parse({
  version: "b1",
  teams: { ops: ["ann"] },
  budgets: {
    ledgers: [
      { id: "ops-daily", team: "ops", period: "day", calls: 10, cost: 100 },
      { id: "bots", principal: "bot-*", period: "hour", calls: 5 },
      { id: "exports", tool: "crm.export", period: "day", calls: 2 },
    ],
  },
});

describe("warden budgets", () => {
  it("shows what settled calls spent, what open calls hold and what is left, for the period in progress", () => {
    const rows = ledgerRows(
      doc,
      [
        { ledger: "ops-daily", holder: "ops", state: { period: "2030-01-01", resetsAt: "2030-01-02T00:00:00.000Z", spent: { calls: 6, cost: 60 }, holds: [{ callId: "c1", calls: 1, cost: 30 }] } },
        // a period that is over counts as nothing this hour
        { ledger: "bots", holder: "bot-1", state: { period: "2030-01-01T09", resetsAt: "2030-01-01T10:00:00.000Z", spent: { calls: 5, cost: 5 }, holds: [] } },
        { ledger: "gone", holder: "x", state: { period: "2030-01-01", resetsAt: "2030-01-02T00:00:00.000Z", spent: { calls: 1, cost: 1 }, holds: [] } },
      ],
      AT,
    );
    expect(rows).toEqual([
      { ledger: "bots", holder: "bot-1", period: "2030-01-01T10", resetsAt: "2030-01-01T11:00:00.000Z", limit: { calls: 5 }, spent: { calls: 0, cost: 0 }, held: { calls: 0, cost: 0 }, left: { calls: 5 }, openCalls: [] },
      // a fixed holder with nothing stored yet
      { ledger: "exports", holder: "tool-crm__export", period: "2030-01-01", resetsAt: "2030-01-02T00:00:00.000Z", limit: { calls: 2 }, spent: { calls: 0, cost: 0 }, held: { calls: 0, cost: 0 }, left: { calls: 2 }, openCalls: [] },
      { ledger: "gone", holder: "x", period: "2030-01-01", resetsAt: "2030-01-02T00:00:00.000Z", limit: null, spent: { calls: 1, cost: 1 }, held: { calls: 0, cost: 0 }, left: {}, openCalls: [] },
      { ledger: "ops-daily", holder: "ops", period: "2030-01-01", resetsAt: "2030-01-02T00:00:00.000Z", limit: { calls: 10, cost: 100 }, spent: { calls: 6, cost: 60 }, held: { calls: 1, cost: 30 }, left: { calls: 3, cost: 10 }, openCalls: ["c1"] },
    ]);
    const text = ledgersText("b1", rows);
    expect(text).toContain("ops-daily  ops");
    expect(text).toContain("6 spent + 1 held of 10, 3 left");
    expect(text).toContain("60 spent + 30 held of 100, 10 left");
    expect(text).toContain("not in policy b1 any more (nothing checks them): gone");
  });

  it("says so when there are no ledgers", () => {
    expect(ledgersText("b0", [])).toBe("no ledger budgets: the policy b0 has no budgets.ledgers and none is stored");
  });
});
