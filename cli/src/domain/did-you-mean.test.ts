import { describe, expect, it } from "vitest";
import { closestNames } from "@warden/policy-engine";
import { didYouMean } from "./did-you-mean.js";

describe("closestNames", () => {
  const known = ["kb.search", "kb.reindex", "customer.message", "ticket.fill", "ticket.close"];

  it("finds the tool a typo meant, best first", () => {
    expect(closestNames("kb.serch", known)).toEqual(["kb.search"]);
    expect(closestNames("ticket.fil", known)).toEqual(["ticket.fill"]);
    expect(closestNames("kb.saerch", known)).toEqual(["kb.search"]);
    expect(closestNames("Customer.Mesage", known)).toEqual(["customer.message"]);
  });

  it("suggests nothing for a name unlike every tool, and never the name itself", () => {
    expect(closestNames("kb.searchEverything", known)).toEqual([]);
    expect(closestNames("payments.refund", known)).toEqual([]);
    expect(closestNames("kb.search", known)).toEqual([]);
  });

  it("words one or several suggestions", () => {
    expect(didYouMean([])).toBe("");
    expect(didYouMean(["kb.search"])).toBe("; did you mean kb.search?");
    expect(didYouMean(["a", "b", "c"])).toBe("; did you mean a, b or c?");
  });
});
