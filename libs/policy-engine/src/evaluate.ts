import { parseToolName } from "@warden/contracts/subjects";
import { EXTERNAL_READ_SCOPE, levelOf, runsSandboxed, type CallMode, type Grade, type ToolDescriptor } from "@warden/contracts/descriptor";
import {
  decisionRank,
  type Decision,
  type HistoryFinding,
  type PolicyDocument,
  type PolicyRule,
  type RunLabelSource,
} from "@warden/contracts/policy";
import { effectiveFlags, flagGranted } from "./effective-flags.js";
import { anyGlob } from "./glob.js";
import { isNamedHuman, notAPersonReason, principalOf } from "./principals.js";
import { guardedByUntrusted, UNTRUSTED, UNTRUSTED_RULE } from "./run-labels.js";

/**
 * The default table (DESIGN.md §4): grade x mode. One deliberate change from DESIGN's table: a
 * model's send (`default.send.llm`) waits for a person instead of being refused. It is still never
 * listed for a model (toolVisibility) and never runs on the model's word: a person grants it, and no
 * rule lifts it to allow (docs/architecture.md, Policy).
 */
export const DEFAULT_TABLE: Readonly<Record<Grade, Readonly<Record<CallMode, Decision>>>> = {
  read: { human: "allow", plan: "allow", llm: "allow" },
  write: { human: "allow", plan: "allow", llm: "require_approval" },
  send: { human: "require_approval", plan: "require_approval", llm: "require_approval" },
};

export const GATE_RULES = {
  featureFlag: "gate.feature_flag",
  scope: "gate.scope",
  principalScope: "gate.principal_scope",
  externalReadScope: "gate.level.L3.scope",
  humanModeNeedsPerson: "gate.human_mode_needs_person",
} as const;

export type GateRuleId = (typeof GATE_RULES)[keyof typeof GATE_RULES];

export interface CallFacts {
  readonly tool: ToolDescriptor;
  readonly principal: string;
  readonly mode: CallMode;
  /**
   * The flags the request asks for. They only narrow: a flag is on when the policy document
   * grants it to the principal and these do not turn it off (see effectiveFlags).
   */
  readonly flags: Readonly<Record<string, boolean>>;
  /** Where the caller is (a page, a screen), matched against the tool's scopes. */
  readonly scope: string | null;
  /**
   * The history conditions evaluated for this call, by rule id (the policy stage reads them from
   * its index; `decideRequest` from a history file). A rule with a history condition matches only
   * when its finding holds: without findings (a ToolView, a decision with no history) it never does.
   */
  readonly history?: ReadonlyMap<string, HistoryFinding>;
  /**
   * The labels the call's run (and its delegation tree) has read, each with the earlier result that
   * brought it (docs/policy.md, Data labels). Undefined where no run is known (a ToolView, an offline
   * decision without labels): a rule on `runLabels` then never matches, and the built-in rule is off.
   */
  readonly runLabels?: ReadonlyMap<string, RunLabelSource>;
}

export interface PolicyEvaluation {
  readonly decision: Decision;
  /** Every rule that made the decision; the first is the one that settled it. */
  readonly ruleIds: readonly string[];
  readonly reason: string;
  /** Set when a gate refused the call before the table and the rules were consulted. */
  readonly gate?: GateRuleId;
}

function gate(id: GateRuleId, reason: string): PolicyEvaluation {
  return { decision: "deny", ruleIds: [id], reason, gate: id };
}

/**
 * The gates, in order: who may claim mode human, the feature flag (granted by the document,
 * narrowed by the request), the caller's context scope, the principal's permission scopes, and
 * an external read by a model without a scope. Identity, flags and permission scopes come from the
 * document, never from the request. A model's send passes the gates: the table makes it wait for a
 * person (`default.send.llm`).
 */
export function checkGates(doc: PolicyDocument, f: CallFacts): PolicyEvaluation | undefined {
  const t = f.tool;
  if (f.mode === "human" && !isNamedHuman(doc, f.principal)) {
    // mode is what the caller claims: only a principal the document names as a person may say a
    // person pressed the button (and so skip "model proposes, person confirms")
    return gate(GATE_RULES.humanModeNeedsPerson, `mode human needs a person: ${notAPersonReason(doc, f.principal)}`);
  }
  if (t.featureFlag !== undefined && effectiveFlags(doc, f.principal, f.flags)[t.featureFlag] !== true) {
    const why = flagGranted(doc, f.principal, t.featureFlag)
      ? "the call turns it off"
      : `the policy document does not grant it to ${f.principal}`;
    return gate(GATE_RULES.featureFlag, `feature flag ${t.featureFlag} is off for this call: ${why}`);
  }
  if (t.scopes.length > 0 && (f.scope === null || !t.scopes.includes(f.scope))) {
    return gate(GATE_RULES.scope, `${t.name} applies only in ${t.scopes.join("/")}, the call is in ${f.scope ?? "no scope"}`);
  }
  const held = principalOf(doc, f.principal).scopes;
  const missing = t.requiredScopes.filter((s) => !held.includes(s));
  if (missing.length > 0) {
    return gate(GATE_RULES.principalScope, `${f.principal} lacks scope ${missing.join(", ")}`);
  }
  if (f.mode === "llm" && t.requiredScopes.length === 0 && levelOf(t) === "L3" && !held.includes(EXTERNAL_READ_SCOPE)) {
    // data from outside reaches a model only by a grant: the tool's own scopes, else this one
    return gate(
      GATE_RULES.externalReadScope,
      `an external read (L3) by a model needs a scope: ${t.name} requires none of its own, and ${f.principal} lacks ${EXTERNAL_READ_SCOPE}`,
    );
  }
  return undefined;
}

export function ruleMatches(rule: PolicyRule, f: CallFacts): boolean {
  const m = rule.match;
  const domain = parseToolName(f.tool.name)?.domain ?? "";
  return (
    anyGlob(m.tool, f.tool.name) &&
    anyGlob(m.domain, domain) &&
    (m.grade === undefined || m.grade.includes(f.tool.grade)) &&
    (m.mode === undefined || m.mode.includes(f.mode)) &&
    anyGlob(m.principal, f.principal) &&
    (m.actionType === undefined || (f.tool.actionType !== undefined && m.actionType.includes(f.tool.actionType))) &&
    (m.level === undefined || m.level.includes(levelOf(f.tool))) &&
    (m.destructive === undefined || m.destructive === f.tool.destructive) &&
    (m.openWorld === undefined || m.openWorld === f.tool.openWorld)
  );
}

/** Whether a rule's `when` holds for the call: none given, or its history finding holds and the run carries every label it names. */
export function whenHolds(rule: PolicyRule, f: Pick<CallFacts, "history" | "runLabels">): boolean {
  const w = rule.when;
  if (w === undefined) return true;
  if (w.history !== undefined && f.history?.get(rule.id)?.holds !== true) return false;
  return w.runLabels === undefined || (f.runLabels !== undefined && w.runLabels.every((l) => f.runLabels!.has(l)));
}

/** The levels that raise an allowed call to a person's confirmation, whoever asks. */
const CONFIRMED_LEVELS = new Set(["L4", "L5"]);

/**
 * Whether the tool's level makes an allowed call wait for a person: L4 and L5 always; L1 (local
 * compute) when a model asks and the tool does not run inside a sandbox.
 */
function raisesToConfirm(level: string, f: CallFacts): boolean {
  if (CONFIRMED_LEVELS.has(level)) return true;
  return level === "L1" && f.mode === "llm" && !runsSandboxed(f.tool);
}

/**
 * Decides a call: gates first, then the default table, then the document's rules (those in mode
 * `shadow` left out). Deny wins; require_approval tightens an allow; an explicit allow rule may
 * lift a write's approval, never a send's. The level raises the table: an L4 call (external write)
 * waits for a person in every mode unless an allow rule lifts it; an L5 one (destructive or admin)
 * waits whatever the rules say; an L1 one (local compute) a model asks for runs without asking only
 * inside a sandbox, else waits unless an allow rule lifts it.
 */
export function evaluatePolicy(doc: PolicyDocument, f: CallFacts): PolicyEvaluation {
  return raisedByLabels(evaluateRules(doc, f), f);
}

/**
 * The built-in data-label rule: a send or an L4+ write in a run that has read untrusted content
 * waits for a person, whatever the rules allow, and its reason names the result that made it so.
 * A deny stays a deny.
 */
function raisedByLabels(e: PolicyEvaluation, f: CallFacts): PolicyEvaluation {
  const source = f.runLabels?.get(UNTRUSTED);
  if (source === undefined || e.decision === "deny" || !guardedByUntrusted(f.tool)) return e;
  const why = `the run read untrusted content (result of call ${source.callId}, ${source.tool}): a send or an external write built from it waits for a person`;
  if (e.decision === "allow") return { decision: "require_approval", ruleIds: [UNTRUSTED_RULE], reason: why };
  return { ...e, ruleIds: [...e.ruleIds, UNTRUSTED_RULE], reason: `${e.reason}; ${why}` };
}

function evaluateRules(doc: PolicyDocument, f: CallFacts): PolicyEvaluation {
  const gated = checkGates(doc, f);
  if (gated) return gated;
  const table = DEFAULT_TABLE[f.tool.grade][f.mode];
  const level = levelOf(f.tool);
  const l5 = level === "L5";
  const raisedByLevel = table === "allow" && raisesToConfirm(level, f);
  const defaultId = raisedByLevel ? `default.level.${level}.${f.mode}` : `default.${f.tool.grade}.${f.mode}`;
  const base: Decision = raisedByLevel ? "require_approval" : table;
  // shadow rules are evaluated apart (evaluateCall's `shadow`) and never decide
  const matched = doc.rules.filter((r) => r.mode !== "shadow" && ruleMatches(r, f) && whenHolds(r, f));
  const denies = matched.filter((r) => r.effect === "deny");
  if (denies.length > 0) return fromRules("deny", denies);
  const approvals = matched.filter((r) => r.effect === "require_approval");
  if (approvals.length > 0 && decisionRank(base) < decisionRank("require_approval")) {
    return fromRules("require_approval", approvals);
  }
  const allows = matched.filter((r) => r.effect === "allow");
  if (base === "require_approval" && approvals.length === 0 && allows.length > 0 && f.tool.grade !== "send" && !l5) {
    return fromRules("allow", allows);
  }
  const reasons: Record<Decision, string> = {
    allow: `${f.tool.grade} in ${f.mode} mode is allowed by default`,
    require_approval: raisedByLevel
      ? l5
        ? "destructive or admin (L5): a person confirms it, whoever asks"
        : level === "L1"
          ? "local compute (L1) outside a sandbox: a person confirms a model's call, unless the policy document allows it"
          : "external write (L4): a person confirms it, unless the policy document allows it"
      : f.tool.grade === "send"
        ? f.mode === "llm"
          ? "a model asked for a send, which is never listed for it and never runs on its word: a person must confirm it"
          : "send cannot be undone or is seen at once: a person must confirm it"
        : "a model proposes a write, a person confirms it",
    deny: `${f.tool.grade} in ${f.mode} mode is denied by default`,
  };
  const supporting = approvals.filter(() => base === "require_approval").map((r) => r.id);
  return { decision: base, ruleIds: [defaultId, ...supporting], reason: reasons[base] };
}

function fromRules(decision: Decision, rules: readonly PolicyRule[]): PolicyEvaluation {
  return { decision, ruleIds: rules.map((r) => r.id), reason: rules.map((r) => r.reason).join("; ") };
}
