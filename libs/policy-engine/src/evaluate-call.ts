import type { ShadowDecision } from "@warden/contracts/events";
import type { PolicyDocument } from "@warden/contracts/policy";
import { checkGates, evaluatePolicy, ruleMatches, whenHolds, type CallFacts, type PolicyEvaluation } from "./evaluate.js";
import { toolVisibility } from "./visibility.js";

/** A model's call to a tool its ToolView does not list. */
export const VIEW_NOT_SHOWN_RULE = "view.not_shown";

/** A call's decision, and what the document's shadow rules would have made of it. */
export interface CallEvaluation extends PolicyEvaluation {
  /** Set when a shadow rule matched a call the gates let through to the rules (docs/policy.md, Shadow rules). */
  readonly shadow?: ShadowDecision;
}

/**
 * Decides a call as it arrives: a model (mode `llm`) may call only what its ToolView lists, so its
 * call is decided by the same `toolVisibility` the registry compiles views with (the two cannot
 * disagree); other modes go straight to `evaluatePolicy`. A hidden tool is denied with
 * `view.not_shown` first, then the rules that hid it. The one exception is a send: never listed for
 * a model, and never refused for that alone: its call is decided by `evaluatePolicy`, which never
 * allows it (`default.send.llm` waits for a person; a gate or a deny rule may still refuse it). Shadow rules never decide: when one matches,
 * the call is decided again with them enforced, and that would-be decision is `shadow`.
 */
export function evaluateCall(doc: PolicyDocument, f: CallFacts): CallEvaluation {
  const decided = decideThrough(doc, f);
  const shadowRuleIds = matchedShadowRules(doc, f);
  if (shadowRuleIds.length === 0) return decided;
  const would = decideThrough(enforcingShadows(doc), f);
  return { ...decided, shadow: { decision: would.decision, ruleIds: [...would.ruleIds], reason: would.reason, shadowRuleIds } };
}

function decideThrough(doc: PolicyDocument, f: CallFacts): PolicyEvaluation {
  // a model's send is never listed, yet asked for it waits for a person rather than being refused
  if (f.mode !== "llm" || f.tool.grade === "send") return evaluatePolicy(doc, f);
  // the view is what the model was shown, whatever came before; history rules then decide the call
  const { history, runLabels, ...shown } = f;
  const v = toolVisibility(doc, f.tool, shown);
  if (v.visible) return history === undefined && runLabels === undefined ? v.evaluation : evaluatePolicy(doc, f);
  return {
    decision: "deny",
    ruleIds: [VIEW_NOT_SHOWN_RULE, ...v.ruleIds],
    reason: `${f.tool.name} is not in this caller's tool view (${v.reason}): ${v.detail}`,
  };
}

/** The shadow rules that match a call the gates let through (a gated call never reaches any rule). */
function matchedShadowRules(doc: PolicyDocument, f: CallFacts): string[] {
  if (!doc.rules.some((r) => r.mode === "shadow")) return [];
  if (checkGates(doc, f) !== undefined) return [];
  return doc.rules.filter((r) => r.mode === "shadow" && ruleMatches(r, f) && whenHolds(r, f)).map((r) => r.id);
}

const enforced = new WeakMap<PolicyDocument, PolicyDocument>();

/** The document with its shadow rules enforced (kept per document: the stage asks for every call). */
function enforcingShadows(doc: PolicyDocument): PolicyDocument {
  let out = enforced.get(doc);
  if (out === undefined) {
    out = { ...doc, rules: doc.rules.map(({ mode: _mode, ...r }) => r) };
    enforced.set(doc, out);
  }
  return out;
}
