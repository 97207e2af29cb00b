import { parseToolName } from "@warden/contracts/subjects";
import { CALL_MODES, GRADES, levelOf, runsSandboxed, type CallMode, type Grade, type ToolDescriptor } from "@warden/contracts/descriptor";
import { type PolicyDocument, type PolicyRule } from "@warden/contracts/policy";
import { DEFAULT_TABLE } from "./evaluate.js";
import { anyGlob, globMatch } from "./glob.js";
import { isNamedHuman } from "./principals.js";

/**
 * What a rule's match can reach, worked out from the document alone (and the registered tools
 * when known): the lint of `checkPolicyText` is built on it. Everything here over-approximates
 * what a rule matches, so "cannot" is always true and "covers" never claims more than it knows.
 */

/** A grade and a mode a rule may be evaluated for. */
export interface Combo {
  readonly grade: Grade;
  readonly mode: CallMode;
}

/** Whether every value `p` matches is matched by `q` too (sound, not complete: `*` in p is taken literally). */
export function globSubset(p: string, q: string): boolean {
  return globMatch(q, p);
}

/**
 * A glob over the domains of the tools a tool pattern can match. A valid tool name has exactly
 * one dot, so a `*` before the pattern's dot matches no dot; a pattern without a dot needs a `*`
 * to cover it, and then only the text before that `*` is sure to be the domain's.
 */
export function domainGlobOf(toolPattern: string): string {
  const dot = toolPattern.indexOf(".");
  if (dot >= 0) return toolPattern.slice(0, dot);
  const star = toolPattern.indexOf("*");
  return star < 0 ? toolPattern : `${toolPattern.slice(0, star)}*`;
}

/** A literal tool pattern that no tool can be named (names are `<domain>.<capability>`). */
export function isImpossibleToolName(pattern: string): boolean {
  return !pattern.includes("*") && parseToolName(pattern) === undefined;
}

/** The registered tools a rule's tool and domain patterns match (every version). */
export function toolsMatched(rule: PolicyRule, tools: readonly ToolDescriptor[]): ToolDescriptor[] {
  return tools.filter((t) => anyGlob(rule.match.tool, t.name) && anyGlob(rule.match.domain, parseToolName(t.name)?.domain ?? ""));
}

/** Whether some tool name could match both a tool pattern and a domain pattern. */
function toolFitsDomain(toolPattern: string, domainPattern: string): boolean {
  const d = domainGlobOf(toolPattern);
  if (!d.includes("*")) return globMatch(domainPattern, d);
  // a glob on both sides: assume they meet unless their literal starts disagree
  const a = d.slice(0, d.indexOf("*"));
  const b = domainPattern.includes("*") ? domainPattern.slice(0, domainPattern.indexOf("*")) : domainPattern;
  return a.startsWith(b) || b.startsWith(a);
}

/** Why a rule's match can select no call at all (empty lists, impossible names, tool and domain that disagree). */
export function structuralMismatch(rule: PolicyRule): string | undefined {
  const m = rule.match;
  for (const key of ["tool", "domain", "grade", "mode", "principal"] as const) {
    if (m[key]?.length === 0) return `match.${key} is an empty list, which matches nothing`;
  }
  if (m.tool !== undefined && m.tool.every(isImpossibleToolName)) return undefined; // each name is reported on its own
  if (m.tool !== undefined && m.domain !== undefined) {
    const fits = m.tool.some((t) => !isImpossibleToolName(t) && m.domain!.some((d) => toolFitsDomain(t, d)));
    if (!fits) return `match.tool (${m.tool.join(", ")}) names no tool in match.domain (${m.domain.join(", ")})`;
  }
  return undefined;
}

/**
 * The grades and modes a rule is evaluated for: its own lists (grades narrowed to the registered
 * tools it matches, when known), less what a gate refuses before any rule is read: mode human
 * for principals the document does not name as people (gate.human_mode_needs_person), and a
 * model's write not listed in llm.showWrite (view.not_shown). A model's send is reachable: it waits
 * for a person (default.send.llm), and a deny rule may refuse it.
 */
export function reachableCombos(doc: PolicyDocument, rule: PolicyRule, tools?: readonly ToolDescriptor[]): Combo[] {
  const m = rule.match;
  const matched = tools === undefined ? undefined : toolsMatched(rule, tools);
  const grades = (m.grade ?? GRADES).filter((g) => matched === undefined || matched.some((t) => t.grade === g));
  const modes = (m.mode ?? CALL_MODES).filter((mode) => mode !== "human" || mayBeHuman(doc, rule));
  const out: Combo[] = [];
  for (const grade of grades) {
    for (const mode of modes) {
      if (grade === "write" && mode === "llm" && !mayBeShownWrite(doc, rule, matched)) continue;
      out.push({ grade, mode });
    }
  }
  return out;
}

/** Whether a principal the rule matches may claim mode human: only one the document names as a person. */
function mayBeHuman(doc: PolicyDocument, rule: PolicyRule): boolean {
  const ps = rule.match.principal;
  if (ps === undefined) return Object.values(doc.principals).some((p) => p.kind === "human");
  return ps.some((p) => (p.includes("*") ? Object.keys(doc.principals).some((n) => globMatch(p, n) && isNamedHuman(doc, n)) : isNamedHuman(doc, p)));
}

/** Whether a write tool the rule matches may be shown to a model (llm.showWrite). */
function mayBeShownWrite(doc: PolicyDocument, rule: PolicyRule, matched: readonly ToolDescriptor[] | undefined): boolean {
  const show = doc.llm.showWrite;
  if (show.length === 0) return false;
  if (matched !== undefined) return matched.some((t) => t.grade === "write" && anyGlob(show, t.name));
  const tools = rule.match.tool;
  if (tools === undefined || tools.some((t) => t.includes("*"))) return true;
  return tools.some((t) => anyGlob(show, t));
}

/**
 * The combos where an effect changes the default table's answer (a deny always does). An allow
 * lifts what the table asks a person for, never for a send: a model's write, an L4 call (an
 * external write) in any mode, and a model's L1 call (local compute) outside a sandbox. With the
 * registered tools known, only where a matched tool of that grade is raised so; without, any write
 * may be L4 and any read a model asks for an L1 tool outside a sandbox.
 */
export function combosWithEffect(rule: PolicyRule, combos: readonly Combo[], tools?: readonly ToolDescriptor[]): Combo[] {
  if (rule.effect === "deny") return [...combos];
  if (rule.effect === "require_approval") return combos.filter((c) => DEFAULT_TABLE[c.grade][c.mode] === "allow");
  const matched = tools === undefined ? undefined : toolsMatched(rule, tools);
  const raisedByLevel = (c: Combo) => {
    const l1 = (t: ToolDescriptor) => c.mode === "llm" && levelOf(t) === "L1" && !runsSandboxed(t);
    if (matched === undefined) return c.grade === "write" || (c.grade === "read" && c.mode === "llm");
    return matched.some((t) => t.grade === c.grade && (levelOf(t) === "L4" || l1(t)));
  };
  return combos.filter((c) => c.grade !== "send" && (DEFAULT_TABLE[c.grade][c.mode] === "require_approval" || raisedByLevel(c)));
}

/** Whether every call `inner` matches (within its reachable combos) is matched by `outer` too. */
export function covers(outer: PolicyRule, inner: PolicyRule, innerCombos: readonly Combo[]): boolean {
  const o = outer.match;
  const i = inner.match;
  if (!innerCombos.every((c) => (o.grade === undefined || o.grade.includes(c.grade)) && (o.mode === undefined || o.mode.includes(c.mode)))) return false;
  if (o.principal !== undefined && (i.principal === undefined || !i.principal.every((p) => o.principal!.some((q) => globSubset(p, q))))) return false;
  if (o.tool !== undefined) {
    const innerTools = i.tool ?? (i.domain === undefined ? ["*"] : i.domain.map((d) => `${d}.*`));
    if (!innerTools.every((p) => isImpossibleToolName(p) || o.tool!.some((q) => globSubset(p, q)))) return false;
  }
  if (o.domain !== undefined) {
    const innerDomains = i.domain ?? (i.tool === undefined ? ["*"] : i.tool.filter((t) => !isImpossibleToolName(t)).map(domainGlobOf));
    if (!innerDomains.every((d) => o.domain!.some((q) => globSubset(d, q)))) return false;
  }
  return true;
}
