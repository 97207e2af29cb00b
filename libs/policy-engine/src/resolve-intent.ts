import { levelOf, PERMISSION_LEVELS, type ToolCandidate, type ToolDescriptor, type ToolIntent } from "@warden/contracts/descriptor";

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
/** A tool that declares the action type asked for: worth more than any one word it matches. */
const ACTION_TYPE_WEIGHT = 4;

/** A term matches a word of the tool when one starts with the other ("refund" ~ "refunds", "invoice" ~ "invoice_lookup"). */
function matches(term: string, words: readonly string[]): boolean {
  return words.some((w) => w.startsWith(term) || (term.startsWith(w) && w.length >= 4));
}

/**
 * Scores a tool for an intent, deterministically and in words: each intent term found in the
 * tool's name, title or description adds that part's weight once, and a declared action type equal
 * to the intent's adds {@link ACTION_TYPE_WEIGHT}. `domain`, `grade` and `maxLevel` narrow (a tool
 * outside them is no candidate at all). Undefined: not a candidate.
 */
export function scoreTool(d: ToolDescriptor, intent: ToolIntent, terms: readonly string[]): ToolCandidate | undefined {
  const domain = d.name.split(".")[0]!;
  if (intent.domain !== undefined && intent.domain !== domain) return undefined;
  if (intent.grade !== undefined && intent.grade !== d.grade) return undefined;
  const level = levelOf(d);
  if (intent.maxLevel !== undefined && PERMISSION_LEVELS.indexOf(level) > PERMISSION_LEVELS.indexOf(intent.maxLevel)) return undefined;
  const parts = { name: intentTerms(d.name.replace(/[._-]/g, " ")), title: intentTerms(d.title), description: intentTerms(d.description) };
  let score = 0;
  const reasons: string[] = [];
  for (const part of ["name", "title", "description"] as const) {
    const hit = terms.filter((t) => matches(t, parts[part]));
    if (hit.length === 0) continue;
    score += WEIGHTS[part] * hit.length;
    reasons.push(`${part} matches ${hit.join(", ")}`);
  }
  const actionMatch = intent.actionType !== undefined && d.actionType === intent.actionType;
  if (actionMatch) {
    score += ACTION_TYPE_WEIGHT;
    reasons.push(`action type ${d.actionType} as asked`);
  }
  if (intent.domain !== undefined) reasons.push(`domain ${domain} as asked`);
  if (intent.grade !== undefined) reasons.push(`grade ${d.grade} as asked`);
  if (intent.maxLevel !== undefined) reasons.push(`level ${level} within ${intent.maxLevel}`);
  // with no words to match, what narrowing left is the answer; with words, a tool must match one
  // of them or be of the action type asked for
  if (terms.length > 0 && score === 0) return undefined;
  return { name: d.name, version: d.version, grade: d.grade, level, ...(d.actionType === undefined ? {} : { actionType: d.actionType }), score, reasons };
}

/** The intent's words: goal, task, target and expected effect. */
export function termsOf(intent: ToolIntent): string[] {
  return intentTerms([intent.goal, intent.task, intent.target, intent.expectedEffect].filter((x) => x !== undefined).join(" "));
}

/**
 * Best first: the tools that declare the action type asked for before the rest, then by score;
 * equal scores by name, so the same intent and tools always rank the same.
 */
export function rankCandidates(candidates: ToolCandidate[], actionType?: ToolIntent["actionType"]): ToolCandidate[] {
  const declares = (c: ToolCandidate) => (actionType !== undefined && c.actionType === actionType ? 0 : 1);
  return candidates.sort((a, b) => declares(a) - declares(b) || b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
