import type { Article } from "../data/articles.js";

export interface SearchIndex {
  readonly articles: ReadonlyMap<string, Article>;
  /** term -> article id -> weight */
  readonly terms: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

export interface SearchHit {
  readonly id: string;
  readonly title: string;
  readonly snippet: string;
  readonly score: number;
}

const TITLE_WEIGHT = 3;
const TAG_WEIGHT = 2;
const BODY_WEIGHT = 1;
const SNIPPET_CHARS = 160;

export function tokenize(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu)?.filter((t) => t.length > 1) ?? [];
}

export function buildIndex(articles: readonly Article[]): SearchIndex {
  const terms = new Map<string, Map<string, number>>();
  const add = (term: string, id: string, w: number) => {
    const postings = terms.get(term) ?? new Map<string, number>();
    postings.set(id, (postings.get(id) ?? 0) + w);
    terms.set(term, postings);
  };
  for (const a of articles) {
    for (const t of tokenize(a.title)) add(t, a.id, TITLE_WEIGHT);
    for (const t of a.tags.flatMap(tokenize)) add(t, a.id, TAG_WEIGHT);
    for (const t of tokenize(a.body)) add(t, a.id, BODY_WEIGHT);
  }
  return { articles: new Map(articles.map((a) => [a.id, a])), terms };
}

/** Articles matching any query term, best first (ties by id); a term may match a word's prefix. */
export function search(index: SearchIndex, query: string, limit: number): SearchHit[] {
  const scores = new Map<string, number>();
  for (const q of new Set(tokenize(query))) {
    for (const [term, postings] of index.terms) {
      if (term !== q && !(q.length >= 4 && term.startsWith(q))) continue;
      for (const [id, w] of postings) scores.set(id, (scores.get(id) ?? 0) + w);
    }
  }
  return [...scores.entries()]
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .slice(0, limit)
    .flatMap(([id, score]) => {
      const a = index.articles.get(id);
      if (a === undefined) return [];
      const snippet = a.body.length > SNIPPET_CHARS ? `${a.body.slice(0, SNIPPET_CHARS)}…` : a.body;
      return [{ id, title: a.title, snippet, score }];
    });
}
