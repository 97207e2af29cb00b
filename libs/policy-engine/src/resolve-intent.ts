import type { ToolCandidate, ToolDescriptor, ToolIntent } from "@warden/contracts";

/** Words that say nothing about which tool is meant. */
const STOP = new Set(
  "the a an and or of to for in on at by with from into about this that these those is are be it its as use when you your their our we they them what which who how why not no do does can will would should may".split(" "),
);

/** Lower-case words of three letters or more (and digits), less the stop words. */
export function intentTerms(text: string): string[] {
  return [...new Set(text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length >= 3 && !STOP.has(w)))];
}

/** Weights of a term found in each part of a descriptor: the name says most, the description least. */
const WEIGHTS = { name: 3, title: 2, description: 1 } as const;

/** A term matches a word of the tool when one starts with the other ("refund" ~ "refunds", "invoice" ~ "invoice_lookup"). */
function matches(term: string, words: readonly string[]): boolean {
  return words.some((w) => w.startsWith(term) || (term.startsWith(w) && w.length >= 4));
}

/**
 * Scores a tool for an intent, deterministically and in words: each intent term found in the
 * tool's name, title or description adds that part's weight once. `domain` and `grade` narrow
 * (a tool outside them is no candidate at all). Undefined: not a candidate.
 */
export function scoreTool(d: ToolDescriptor, intent: ToolIntent, terms: readonly string[]): ToolCandidate | undefined {
  const domain = d.name.split(".")[0]!;
  if (intent.domain !== undefined && intent.domain !== domain) return undefined;
  if (intent.grade !== undefined && intent.grade !== d.grade) return undefined;
  const parts = { name: intentTerms(d.name.replace(/[._-]/g, " ")), title: intentTerms(d.title), description: intentTerms(d.description) };
  let score = 0;
  const reasons: string[] = [];
  for (const part of ["name", "title", "description"] as const) {
    const hit = terms.filter((t) => matches(t, parts[part]));
    if (hit.length === 0) continue;
    score += WEIGHTS[part] * hit.length;
    reasons.push(`${part} matches ${hit.join(", ")}`);
  }
  if (intent.domain !== undefined) reasons.push(`domain ${domain} as asked`);
  if (intent.grade !== undefined) reasons.push(`grade ${d.grade} as asked`);
  // with no words to match, what narrowing left is the answer; with words, a tool must match one
  if (terms.length > 0 && score === 0) return undefined;
  return { name: d.name, version: d.version, grade: d.grade, score, reasons };
}

/** The intent's words: goal, task, target and expected effect. */
export function termsOf(intent: ToolIntent): string[] {
  return intentTerms([intent.goal, intent.task, intent.target, intent.expectedEffect].filter((x) => x !== undefined).join(" "));
}

/** Best first; equal scores by name, so the same intent and tools always rank the same. */
export function rankCandidates(candidates: ToolCandidate[]): ToolCandidate[] {
  return candidates.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
