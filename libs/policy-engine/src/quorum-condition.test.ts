import { describe, expect, it } from "vitest";
import { PolicyDocumentSchema } from "@warden/contracts/policy";
import { checkCondition, conditionText } from "./quorum-condition.js";

describe("checkCondition", () => {
  it("holds a threshold only for a number over it, and says so with the value it met", () => {
    const over = { arg: "amount", gt: 1000 };
    expect(checkCondition(over, { amount: 1500 })).toEqual({ holds: true, text: "amount is 1500: amount > 1000" });
    expect(checkCondition(over, { amount: 1000 })).toEqual({ holds: false, text: "amount is 1000, not amount > 1000" });
    expect(checkCondition(over, { amount: "1500" })).toEqual({ holds: false, text: 'amount is "1500", not amount > 1000' });
    expect(checkCondition(over, { other: 1 })).toEqual({ holds: false, text: "amount is missing, so not amount > 1000" });
    expect(checkCondition(over, null).holds).toBe(false);
  });

  it("needs every comparison of a band, and compares equals as canonical JSON", () => {
    const band = { arg: "amount", gte: 100, lt: 1000 };
    expect(conditionText(band)).toBe("amount ≥ 100 and amount < 1000");
    expect(checkCondition(band, { amount: 100 }).holds).toBe(true);
    expect(checkCondition(band, { amount: 1000 }).holds).toBe(false);
    expect(checkCondition({ arg: "to", equals: { b: 1, a: 2 } }, { to: { a: 2, b: 1 } }).holds).toBe(true);
    expect(checkCondition({ arg: "currency", equals: "EUR" }, { currency: "USD" })).toEqual({ holds: false, text: 'currency is "USD", not currency = "EUR"' });
  });

  it("is refused in a policy document without a comparison, or naming no plain argument", () => {
    expect(PolicyDocumentSchema.safeParse({ version: "c1", approvalQuorum: [{ when: { arg: "amount" }, approvers: 2 }] }).success).toBe(false);
    expect(PolicyDocumentSchema.safeParse({ version: "c2", approvalQuorum: [{ when: { arg: "a.b", gt: 1 }, approvers: 2 }] }).success).toBe(false);
    expect(PolicyDocumentSchema.safeParse({ version: "c3", approvalQuorum: [{ when: { arg: "amount", gt: "1000" }, approvers: 2 }] }).success).toBe(false);
    expect(PolicyDocumentSchema.safeParse({ version: "c4", approvalQuorum: [{ grade: "send", when: { arg: "amount", gt: 1000 }, approvers: 2 }] }).success).toBe(true);
  });
});
