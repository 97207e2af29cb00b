import { fromWireName, isSafeToken, parseToolName } from "@warden/contracts/subjects";
import { GRADES, levelOf, runsSandboxed, type Grade, type ToolDescriptor } from "@warden/contracts/descriptor";
import { type PolicyDocument, type PolicyRule } from "@warden/contracts/policy";
import { anyGlob, globMatch } from "./glob.js";
import { closest } from "./closest.js";
import { isCounted } from "./history.js";
import { combosWithEffect, covers, isImpossibleToolName, reachableCombos, structuralMismatch, toolsMatched, type Combo } from "./match-analysis.js";

/** Every warning `lintPolicyDocument` gives, by a stable code. */
export const LINT_CODES = {
  /** A rule no call can reach: its match selects nothing, or only calls a gate refuses before the rules. */
  ruleNeverMatches: "rule.never_matches",
  /** A rule that matches, but whose effect never changes the default table's answer. */
  ruleNoEffect: "rule.no_effect",
  /** A rule every call of which a deny rule also matches: deny wins, so it never decides. */
  ruleShadowed: "rule.shadowed",
  /** A rule names a principal the document does not define. */
  principalUnknown: "principal.unknown",
  /** A principal with no identity in Warden's home: nobody can connect as it. */
  principalNoIdentity: "principal.no_identity",
  /** `approves` on a principal that is not a person: only people approve. */
  approverNotAPerson: "approver.not_a_person",
  /** A person approves a grade no call ever waits for. */
  approverGradeNeverWaits: "approver.grade_never_waits",
  /** Calls of a grade wait for a person, but no person approves that grade. */
  approvalNoApprover: "approval.no_approver",
  /** A tool pattern that cannot be a tool name (a wire name, no domain). */
  toolInvalidName: "tool.invalid_name",
  /** A tool pattern that matches no registered tool. */
  toolUnknown: "tool.unknown",
  /** A domain pattern that matches no registered tool's domain. */
  domainUnknown: "domain.unknown",
  /** llm.showWrite names tools that are not write tools. */
  showWriteNotWrite: "llm.show_write_not_write",
  /** llm.showWrite lets a model propose an L2 write that offers no dry run: its approver sees args, not the diff. */
  showWriteNoPreview: "llm.show_write_no_preview",
  /** A history condition names an argument (`same`, `sum.arg`, `calls.args`) that none of the tools it concerns takes. */
  historyArgUnknown: "history.arg_unknown",
} as const;
export type LintCode = (typeof LINT_CODES)[keyof typeof LINT_CODES];

export type DocumentPath = readonly (string | number)[];

export interface PolicyFinding {
  readonly code: LintCode;
  readonly message: string;
  /** Where in the document: e.g. `["rules", 2, "match", "tool", 0]`. */
  readonly path: DocumentPath;
}

/** What the lint may compare the document with; each part it lacks is skipped (and `checkPolicyText` says so). */
export interface LintContext {
  /** Every registered tool version; undefined when not known (offline). */
  readonly tools?: readonly ToolDescriptor[];
  /** The principals Warden has identities for; undefined when not known. */
  readonly identities?: readonly string[];
}

/**
 * Warnings for a valid policy document: rules that can never match, never change a decision or
 * are shadowed by a deny; principals named but unknown; approvers with no rights and grades with
 * no approver; tools and domains named that do not exist (against `context.tools`).
 */
export function lintPolicyDocument(doc: PolicyDocument, context: LintContext = {}): PolicyFinding[] {
  const out: PolicyFinding[] = [];
  const tools = context.tools;
  const unknownToolRules = lintToolNames(doc, tools, out);
  const dead = lintRules(doc, tools, unknownToolRules, out);
  lintPrincipals(doc, context.identities, out);
  lintApprovers(doc, tools, dead, out);
  if (tools !== undefined) lintHistoryArgs(doc, tools, out);
  return out;
}

/**
 * The args a history condition reads: `calls.args` on the earlier calls, `same` on both calls, a
 * sum's arg on the earlier calls (and on this one when it counts). An arg that no tool concerned
 * declares in its inputSchema never has a value: the condition would compare nothing.
 */
function lintHistoryArgs(doc: PolicyDocument, tools: readonly ToolDescriptor[], out: PolicyFinding[]): void {
  const declares = (t: ToolDescriptor, arg: string) => {
    const props = (t.inputSchema as { properties?: unknown }).properties;
    return typeof props === "object" && props !== null && Object.hasOwn(props, arg);
  };
  doc.rules.forEach((r, i) => {
    const h = r.when?.history;
    if (h === undefined) return;
    const earlier = tools.filter((t) => isCounted(h.calls, { tool: t, args: undefined }) || (h.calls.args !== undefined && anyGlob(h.calls.tool, t.name)));
    const current = tools.filter((t) => anyGlob(r.match.tool, t.name));
    const check = (arg: string, among: readonly ToolDescriptor[], path: DocumentPath, what: string) => {
      if (among.length === 0 || among.some((t) => declares(t, arg))) return;
      const names = [...new Set(among.map((t) => t.name))].sort();
      out.push(finding(LINT_CODES.historyArgUnknown, path, `rule ${r.id}: ${what} ${arg}, which none of ${names.join(", ")} takes`));
    };
    h.calls.args?.forEach((c, k) => check(c.arg, earlier, ["rules", i, "when", "history", "calls", "args", k, "arg"], "calls.args reads"));
    h.same?.forEach((a, k) => {
      check(a, earlier, ["rules", i, "when", "history", "same", k], "same correlates on");
      check(a, current, ["rules", i, "when", "history", "same", k], "same correlates on");
    });
    if (h.sum !== undefined) check(h.sum.arg, earlier, ["rules", i, "when", "history", "sum", "arg"], "sum adds up");
  });
}

function finding(code: LintCode, path: DocumentPath, message: string): PolicyFinding {
  return { code, path, message };
}

/** Tool and domain patterns: impossible names always, unknown ones against the registry. Returns the rules whose every tool pattern was reported. */
function lintToolNames(doc: PolicyDocument, tools: readonly ToolDescriptor[] | undefined, out: PolicyFinding[]): Set<number> {
  const names = tools === undefined ? undefined : [...new Set(tools.map((t) => t.name))].sort();
  const domains = names === undefined ? undefined : [...new Set(names.map((n) => parseToolName(n)?.domain ?? ""))].sort();
  const reported = new Set<number>();
  const checkTool = (pattern: string, path: DocumentPath, where: string): boolean => {
    if (isImpossibleToolName(pattern)) {
      const asName = fromWireName(pattern);
      const hint = asName === undefined ? "a tool name is <domain>.<capability>, e.g. kb.search" : `${pattern} is a wire name; policy matches tool names: ${asName}`;
      out.push(finding(LINT_CODES.toolInvalidName, path, `${where} names ${JSON.stringify(pattern)}, which no tool can be called: ${hint}`));
      return true;
    }
    if (names === undefined || names.some((n) => globMatch(pattern, n))) return false;
    const near = pattern.includes("*") ? undefined : closest(pattern, names);
    const what = pattern.includes("*") ? `pattern ${pattern} matches none of the ${names.length} registered tools` : `no tool ${pattern} is registered`;
    out.push(finding(LINT_CODES.toolUnknown, path, `${where}: ${what}${near === undefined ? "" : ` (did you mean ${near}?)`}`));
    return true;
  };
  doc.rules.forEach((r, i) => {
    const tp = r.match.tool;
    if (tp !== undefined && tp.length > 0) {
      const flags = tp.map((p, k) => checkTool(p, ["rules", i, "match", "tool", k], `rule ${r.id}`));
      if (flags.every(Boolean)) reported.add(i);
    }
    if (domains !== undefined) {
      (r.match.domain ?? []).forEach((d, k) => {
        if (domains.some((x) => globMatch(d, x))) return;
        const near = d.includes("*") ? undefined : closest(d, domains);
        out.push(finding(LINT_CODES.domainUnknown, ["rules", i, "match", "domain", k], `rule ${r.id}: no registered tool is in domain ${d}${near === undefined ? "" : ` (did you mean ${near}?)`}`));
        reported.add(i);
      });
    }
  });
  doc.rules.forEach((r, i) => {
    r.when?.history?.calls.tool?.forEach((p, k) => checkTool(p, ["rules", i, "when", "history", "calls", "tool", k], `rule ${r.id}'s history condition`));
  });
  doc.llm.showWrite.forEach((p, k) => {
    if (checkTool(p, ["llm", "showWrite", k], "llm.showWrite") || tools === undefined) return;
    const hit = tools.filter((t) => globMatch(p, t.name));
    if (hit.length > 0 && !hit.some((t) => t.grade === "write")) {
      const listed = [...new Set(hit.map((t) => `${t.name} (${t.grade})`))].join(", ");
      out.push(finding(LINT_CODES.showWriteNotWrite, ["llm", "showWrite", k], `llm.showWrite ${p} matches only ${listed}: it lists write tools for a model; reads are shown anyway, sends never`));
    }
    // L2's default: a person confirms the key diff of a model's workspace write, which only a dry run shows
    const blind = [...new Set(hit.filter((t) => t.grade === "write" && levelOf(t) === "L2" && t.preview !== true).map((t) => t.name))];
    if (blind.length > 0) {
      out.push(
        finding(
          LINT_CODES.showWriteNoPreview,
          ["llm", "showWrite", k],
          `llm.showWrite ${p} lets a model propose ${blind.join(", ")}: ${blind.length === 1 ? "it offers" : "they offer"} no dry run (preview), so the person approving a workspace write (L2) sees its args, not the diff it makes`,
        ),
      );
    }
  });
  doc.rateLimits.perTool.forEach((t, k) => t.tool.forEach((p, j) => checkTool(p, ["rateLimits", "perTool", k, "tool", j], `rateLimits.perTool[${k}]`)));
  return reported;
}

/** Rules that never match, never change a decision, or are shadowed by a deny; returns them (and those naming only unknown tools). */
function lintRules(doc: PolicyDocument, tools: readonly ToolDescriptor[] | undefined, unknownTools: ReadonlySet<number>, out: PolicyFinding[]): Set<number> {
  const dead = new Set(unknownTools);
  const reach: (Combo[] | undefined)[] = doc.rules.map((r, i) => {
    if (unknownTools.has(i)) return undefined;
    const path = ["rules", i];
    const mismatch = structuralMismatch(r);
    if (mismatch !== undefined) {
      out.push(finding(LINT_CODES.ruleNeverMatches, path, `rule ${r.id} can never match: ${mismatch}`));
      return undefined;
    }
    if (tools !== undefined && r.match.tool?.every(isImpossibleToolName) !== true && toolsMatched(r, tools).filter((t) => anyGrade(r, t.grade)).length === 0) {
      out.push(finding(LINT_CODES.ruleNeverMatches, path, `rule ${r.id} can never match: none of the registered tools has the names, domains and grades it asks for`));
      return undefined;
    }
    const combos = reachableCombos(doc, r, tools);
    if (combos.length === 0) {
      out.push(finding(LINT_CODES.ruleNeverMatches, path, `rule ${r.id} can never match: ${gatedText(r)}`));
      return undefined;
    }
    return combos;
  });
  doc.rules.forEach((r, i) => {
    const combos = reach[i];
    if (combos === undefined) {
      dead.add(i);
      return;
    }
    const path = ["rules", i, "effect"];
    if (combosWithEffect(r, combos, tools).length === 0) {
      out.push(finding(LINT_CODES.ruleNoEffect, path, `rule ${r.id} never changes a decision: ${noEffectText(r)}`));
      dead.add(i);
      return;
    }
    // a shadow deny decides nothing, so it covers only other shadow rules (their would-be decisions)
    const shadow = doc.rules.findIndex(
      (d, j) => j !== i && d.effect === "deny" && d.when === undefined && (d.mode !== "shadow" || r.mode === "shadow") && reach[j] !== undefined && (r.effect !== "deny" || j < i) && covers(d, r, combos),
    );
    if (shadow < 0) return;
    dead.add(i);
    const by = doc.rules[shadow]!;
    out.push(
      finding(
        LINT_CODES.ruleShadowed,
        ["rules", i],
        r.effect === "deny"
          ? `rule ${r.id} adds nothing: every call it matches is already denied by the earlier rule ${by.id} (rules[${shadow}])`
          : `rule ${r.id} never decides: every call it matches is also matched by deny rule ${by.id} (rules[${shadow}]), and deny wins`,
      ),
    );
  });
  return dead;
}

function anyGrade(rule: PolicyRule, grade: Grade): boolean {
  return rule.match.grade === undefined || rule.match.grade.includes(grade);
}

function gatedText(r: PolicyRule): string {
  const why: string[] = [];
  const modes = r.match.mode ?? ["human", "plan", "llm"];
  if (modes.includes("llm") && (r.match.grade ?? GRADES).includes("write")) why.push("a model's write is refused unless llm.showWrite lists the tool (view.not_shown)");
  if (modes.includes("human")) why.push(`mode human is refused first unless the document names the principal a person (gate.human_mode_needs_person)`);
  return `every call it matches is refused by a gate before rules are read${why.length > 0 ? `: ${why.join("; ")}` : ""}`;
}

function noEffectText(r: PolicyRule): string {
  if (r.effect === "allow") {
    return "an allow only lifts the approval the default table asks for a model's write (write in llm mode, listed in llm.showWrite), for an external write (L4) or for a model's local compute outside a sandbox (L1); other reads, plan and human writes are allowed already, and a send (a model's too: default.send.llm) or an L5 call always waits for a person";
  }
  return "every call it can match already waits for a person (a send, a model's send included, or a model's write) or is refused";
}

/** Principals rules name that the document does not define, and principals Warden has no identity for. */
function lintPrincipals(doc: PolicyDocument, identities: readonly string[] | undefined, out: PolicyFinding[]): void {
  const known = identities === undefined ? undefined : new Set(identities);
  const defined = Object.keys(doc.principals);
  doc.rules.forEach((r, i) =>
    (r.match.principal ?? []).forEach((p, k) => {
      if (p.includes("*") || Object.hasOwn(doc.principals, p) || known?.has(p) === true) return;
      const path = ["rules", i, "match", "principal", k];
      if (!isSafeToken(p)) {
        out.push(finding(LINT_CODES.principalUnknown, path, `rule ${r.id} names ${JSON.stringify(p)}, which can never be a principal (letters, digits, '-' and '_')`));
        return;
      }
      const near = closest(p, [...defined, ...(identities ?? [])]);
      const unknownHere = known === undefined ? "" : " and Warden has no identity by that name";
      out.push(
        finding(
          LINT_CODES.principalUnknown,
          path,
          `rule ${r.id} names principal ${p}, which principals does not define${unknownHere} (so it is an agent with no scopes, flags or approval rights)${near === undefined ? "" : `; did you mean ${near}?`}`,
        ),
      );
    }),
  );
  if (known === undefined) return;
  for (const name of defined) {
    if (known.has(name)) continue;
    const near = closest(name, identities ?? []);
    out.push(finding(LINT_CODES.principalNoIdentity, ["principals", name], `principal ${name} has no identity in Warden's home: nobody can act as ${name}${near === undefined ? "" : ` (did you mean ${near}?)`}`));
  }
}

/** Approval rights that grant nothing, and grades whose calls wait for a person nobody may be. */
function lintApprovers(doc: PolicyDocument, tools: readonly ToolDescriptor[] | undefined, dead: ReadonlySet<number>, out: PolicyFinding[]): void {
  const waits = gradesThatWait(doc, tools, dead);
  for (const [name, p] of Object.entries(doc.principals)) {
    if (p.approves.length === 0) continue;
    if (p.kind !== "human") {
      out.push(finding(LINT_CODES.approverNotAPerson, ["principals", name, "approves"], `${name} is ${p.kind === "agent" ? "an" : "a"} ${p.kind}: only a person (kind human) may approve, so approves grants nothing`));
      continue;
    }
    p.approves.forEach((g, k) => {
      if (!waits.has(g)) {
        out.push(finding(LINT_CODES.approverGradeNeverWaits, ["principals", name, "approves", k], `${name} approves ${g}, but no ${g} call ever waits for a person under this document`));
      }
    });
  }
  const approvers = (g: Grade) => Object.values(doc.principals).some((p) => p.kind === "human" && p.approves.includes(g));
  for (const [grade, why] of waits) {
    if (approvers(grade)) continue;
    out.push(finding(LINT_CODES.approvalNoApprover, Object.keys(doc.principals).length > 0 ? ["principals"] : [], `${why}, but no person (kind human) approves ${grade}: those calls wait until they expire`));
  }
}

/**
 * The grades some call waits for another person in, and why: a send in plan and llm mode always
 * (in human mode the requester confirms it), a model's write the document shows it, any grade a
 * require_approval rule reaches where the table allows (unless the lint found it dead). Grades with
 * no registered tool are left out.
 */
function gradesThatWait(doc: PolicyDocument, tools: readonly ToolDescriptor[] | undefined, dead: ReadonlySet<number>): Map<Grade, string> {
  const out = new Map<Grade, string>();
  const registered = (g: Grade) => tools === undefined || tools.some((t) => t.grade === g);
  if (registered("send")) out.set("send", "a send in plan or llm mode waits for a person");
  const shownWrite = tools === undefined ? doc.llm.showWrite.length > 0 : tools.some((t) => t.grade === "write" && anyGlob(doc.llm.showWrite, t.name));
  if (shownWrite) out.set("write", "a model's write (llm.showWrite) waits for a person");
  // an external write (L4) or a destructive or admin call (L5) waits in every mode (an allow may lift L4)
  for (const t of tools ?? []) {
    const level = levelOf(t);
    if ((level === "L4" || level === "L5") && !out.has(t.grade)) out.set(t.grade, `${t.name} is ${level}: its calls wait for a person in every mode`);
    // a model's local compute outside a sandbox waits too (an allow may lift it)
    if (level === "L1" && !runsSandboxed(t) && !out.has(t.grade)) out.set(t.grade, `${t.name} is L1 outside a sandbox: a model's calls wait for a person`);
  }
  for (const [i, r] of doc.rules.entries()) {
    if (r.effect !== "require_approval" || r.mode === "shadow" || dead.has(i)) continue;
    for (const c of combosWithEffect(r, reachableCombos(doc, r, tools), tools)) {
      if (!out.has(c.grade)) out.set(c.grade, `rule ${r.id} makes a ${c.grade} call in ${c.mode} mode wait for a person`);
    }
  }
  return out;
}
