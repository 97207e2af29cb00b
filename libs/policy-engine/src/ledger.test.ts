import { describe, expect, it } from "vitest";
import { PolicyDocumentSchema, type PolicyDocumentInput } from "@warden/contracts/policy";
import { ledgerChargesOf, ledgerExceededReason, periodOf, reserveIn, settleIn, toolCost, type LedgerCharge, type LedgerState } from "./ledger.js";

const AT = Date.parse("2030-01-01T10:20:30Z");
const doc = (budgets: PolicyDocumentInput["budgets"], teams?: PolicyDocumentInput["teams"]) =>
  PolicyDocumentSchema.parse({ version: "l1", ...(teams === undefined ? {} : { teams }), budgets });

const charge = (over: Partial<LedgerCharge> = {}): LedgerCharge => ({
  ledger: "daily",
  holder: "bot",
  period: "2030-01-01",
  resetsAt: "2030-01-02T00:00:00.000Z",
  calls: 1,
  cost: 1,
  limit: { calls: 2 },
  ...over,
});

function reserved(state: LedgerState | undefined, c: LedgerCharge, callId: string): LedgerState {
  const r = reserveIn(state, c, callId);
  if (!r.ok) throw new Error(`refused ${callId}`);
  return r.next;
}

describe("ledger periods", () => {
  it("counts UTC days from midnight and hours from the hour", () => {
    expect(periodOf("day", AT)).toEqual({ id: "2030-01-01", startsAt: "2030-01-01T00:00:00.000Z", resetsAt: "2030-01-02T00:00:00.000Z" });
    expect(periodOf("hour", AT)).toEqual({ id: "2030-01-01T10", startsAt: "2030-01-01T10:00:00.000Z", resetsAt: "2030-01-01T11:00:00.000Z" });
  });
});

describe("which ledgers a call counts against", () => {
  const d = doc(
    {
      ledgers: [
        { id: "each-agent", principal: "agent-*", period: "day", calls: 100 },
        { id: "support", team: "support", period: "hour", cost: 50 },
        { id: "exports", tool: "crm.export*", period: "day", calls: 3 },
      ],
    },
    { support: ["bot", "ann"] },
  );

  it("charges a principal its own ledger, a team member the team's, a tool call the tool's, with the tool's cost", () => {
    expect(ledgerChargesOf(d, { principal: "bot", tool: "crm.export", cost: 7 }, AT)).toEqual([
      { ledger: "support", holder: "support", period: "2030-01-01T10", resetsAt: "2030-01-01T11:00:00.000Z", calls: 1, cost: 7, limit: { cost: 50 } },
      { ledger: "exports", holder: "tool-crm__export", period: "2030-01-01", resetsAt: "2030-01-02T00:00:00.000Z", calls: 1, cost: 7, limit: { calls: 3 } },
    ]);
    expect(ledgerChargesOf(d, { principal: "agent-x", tool: "kb.search", cost: 1 }, AT).map((c) => [c.ledger, c.holder])).toEqual([["each-agent", "agent-x"]]);
    expect(ledgerChargesOf(d, { principal: "carol", tool: "kb.search", cost: 1 }, AT)).toEqual([]);
  });

  it("costs a tool what it declares, 1 when it declares nothing", () => {
    expect(toolCost({ cost: 5 })).toBe(5);
    expect(toolCost({})).toBe(1);
  });

  it("refuses a document whose ledger names no holder or two, counts nothing, or names a team it does not define", () => {
    const bad = (l: object, teams?: Record<string, string[]>) => PolicyDocumentSchema.safeParse({ version: "x", ...(teams ? { teams } : {}), budgets: { ledgers: [l] } }).success;
    expect(bad({ id: "a", period: "day", calls: 1 })).toBe(false);
    expect(bad({ id: "a", principal: "p", tool: "t.x", period: "day", calls: 1 })).toBe(false);
    expect(bad({ id: "a", principal: "p", period: "day" })).toBe(false);
    expect(bad({ id: "a", team: "nobody", period: "day", calls: 1 })).toBe(false);
    expect(bad({ id: "a", team: "ops", period: "day", calls: 1 }, { ops: ["p"] })).toBe(true);
    expect(PolicyDocumentSchema.safeParse({ version: "x", budgets: { ledgers: [{ id: "a", principal: "p", period: "day", calls: 1 }, { id: "a", tool: "t.x", period: "day", calls: 1 }] } }).success).toBe(false);
  });
});

describe("reserving and settling", () => {
  it("admits calls until spent plus held would pass a limit, then says what is left and when it resets", () => {
    let s = reserved(undefined, charge(), "c1");
    s = reserved(s, charge(), "c2");
    const third = reserveIn(s, charge(), "c3");
    expect(third).toEqual({
      ok: false,
      exceeded: { ledger: "daily", holder: "bot", period: "2030-01-01", left: { calls: 0 }, limit: { calls: 2 }, needed: { calls: 1, cost: 1 }, resetsAt: "2030-01-02T00:00:00.000Z" },
    });
    if (!third.ok) expect(ledgerExceededReason(third.exceeded)).toMatch(/budget daily of bot is used up for 2030-01-01 .*0 calls left, resets at 2030-01-02T00:00:00.000Z/);
  });

  it("counts cost units against a cost limit: a call that needs more than is left is refused though calls remain", () => {
    const c = charge({ limit: { calls: 10, cost: 10 }, cost: 4 });
    const s = reserved(reserved(undefined, c, "a"), c, "b");
    const r = reserveIn(s, c, "c");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.exceeded.left).toEqual({ calls: 8, cost: 2 });
    expect(reserveIn(s, { ...c, cost: 2 }, "d").ok).toBe(true);
  });

  it("reserves a call once however often it asks (a redelivery), even when the ledger is full", () => {
    const s = reserved(reserved(undefined, charge(), "c1"), charge(), "c2");
    expect(reserveIn(s, charge(), "c2")).toEqual({ ok: true, next: s, already: true });
  });

  it("makes a released reservation room again, keeps a spent one, and settles each call once", () => {
    const full = reserved(reserved(undefined, charge(), "c1"), charge(), "c2");
    const released = settleIn(full, charge(), "c1", "released")!;
    expect(released.holds.map((h) => h.callId)).toEqual(["c2"]);
    expect(reserveIn(released, charge(), "c3").ok).toBe(true);
    const spent = settleIn(released, charge(), "c2", "spent")!;
    expect(spent).toMatchObject({ spent: { calls: 1, cost: 1 }, holds: [] });
    expect(reserveIn(spent, charge(), "c4").ok).toBe(true);
    expect(reserveIn(reserved(spent, charge(), "c4"), charge(), "c5").ok).toBe(false);
    expect(settleIn(spent, charge(), "c2", "spent")).toBeUndefined();
  });

  it("starts a new period empty, and leaves a reservation of a period that is over as it was", () => {
    const full = reserved(reserved(undefined, charge(), "c1"), charge(), "c2");
    const tomorrow = charge({ period: "2030-01-02", resetsAt: "2030-01-03T00:00:00.000Z" });
    const next = reserved(full, tomorrow, "c3");
    expect(next).toMatchObject({ period: "2030-01-02", spent: { calls: 0, cost: 0 }, holds: [{ callId: "c3" }] });
    expect(settleIn(next, charge(), "c1", "released")).toBeUndefined();
  });

  it("keeps holds in a list, so a call id like __proto__ is a reservation like any other", () => {
    const s = reserved(undefined, charge(), "__proto__");
    expect(JSON.parse(JSON.stringify(s)).holds).toEqual([{ callId: "__proto__", calls: 1, cost: 1 }]);
    expect(settleIn(s, charge(), "__proto__", "released")?.holds).toEqual([]);
  });
});
