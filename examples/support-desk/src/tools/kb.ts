import { z } from "zod";
import { defineTool } from "@warden/executor";
import { ARTICLES } from "../data/articles.js";
import { buildIndex, search } from "../domain/search.js";

let index = buildIndex(ARTICLES);

/** What kb.search answers, as callers see it and as the executor checks each result (ToolResultValidated). */
const KB_SEARCH_OUTPUT = {
  type: "object",
  properties: {
    articles: {
      type: "array",
      items: {
        type: "object",
        properties: { id: { type: "string" }, title: { type: "string" }, snippet: { type: "string" }, score: { type: "number" } },
        required: ["id", "title", "snippet", "score"],
        additionalProperties: false,
      },
    },
  },
  required: ["articles"],
  additionalProperties: false,
};

export const kbSearch = defineTool({
  name: "kb.search",
  // 1.1.0: action type search, and an output schema every result is checked against
  version: "1.1.0",
  title: "Search the support knowledge base",
  description:
    "Use when you need the company's own answer to a customer's problem (refunds, passwords, delivery, billing, the app): returns the best matching support articles with a short snippet each.",
  grade: "read",
  actionType: "search",
  idempotent: true,
  outputSchema: KB_SEARCH_OUTPUT,
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
  // no action type on purpose: `compute` would make it L1 (local compute), and a model's call of an
  // L1 tool that runs outside a sandbox waits for a person; it is a read at L0, derived from its grade
  input: z.strictObject({}),
  handler: () => {
    index = buildIndex(ARTICLES);
    return { articles: index.articles.size, terms: index.terms.size, reindexedAt: new Date().toISOString() };
  },
});
