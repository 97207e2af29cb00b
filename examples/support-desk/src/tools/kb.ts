import { z } from "zod";
import { defineTool } from "@warden/executor";
import { ARTICLES } from "../data/articles.js";
import { buildIndex, search } from "../domain/search.js";

let index = buildIndex(ARTICLES);

export const kbSearch = defineTool({
  name: "kb.search",
  version: "1.0.0",
  title: "Search the support knowledge base",
  description:
    "Use when you need the company's own answer to a customer's problem (refunds, passwords, delivery, billing, the app): returns the best matching support articles with a short snippet each.",
  grade: "read",
  idempotent: true,
  input: z.strictObject({
    query: z.string().min(1).describe("words from the customer's question"),
    limit: z.int().min(1).max(20).optional().describe("how many articles at most (default 5)"),
  }),
  handler: ({ query, limit }) => ({ articles: search(index, query, limit ?? 5) }),
});

export const kbReindex = defineTool({
  name: "kb.reindex",
  version: "1.0.0",
  title: "Rebuild the knowledge base index",
  description: "Use when articles were edited and searches return stale results; only for knowledge-base admins (feature flag kbAdmin).",
  grade: "read",
  idempotent: true,
  featureFlag: "kbAdmin",
  input: z.strictObject({}),
  handler: () => {
    index = buildIndex(ARTICLES);
    return { articles: index.articles.size, terms: index.terms.size, reindexedAt: new Date().toISOString() };
  },
});
