import { describe, expect, it } from "vitest";
import { ARTICLES } from "../data/articles.js";
import { buildIndex, search, tokenize } from "./search.js";

const index = buildIndex(ARTICLES);

describe("knowledge base search", () => {
  it("finds refund articles first for a refund question", () => {
    const hits = search(index, "How do I get a refund?", 3);
    expect(hits.map((h) => h.id)).toEqual(["KB-001", "KB-002", "KB-009"]);
    expect(hits[0]).toMatchObject({ title: "How to request a refund" });
  });

  it("honours the limit and returns nothing for words it does not know", () => {
    expect(search(index, "billing refund payment", 2)).toHaveLength(2);
    expect(search(index, "zzzz-nothing-matches", 5)).toEqual([]);
  });

  it("matches a word by its prefix", () => {
    expect(search(index, "passw", 1).map((h) => h.id)).toEqual(["KB-003"]);
  });

  it("tokenizes case-insensitively and drops one-letter words", () => {
    expect(tokenize("A Refund, for ORDER 8841!")).toEqual(["refund", "for", "order", "8841"]);
  });
});
