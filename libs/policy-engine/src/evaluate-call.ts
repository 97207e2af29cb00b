import type { PolicyDocument } from "@warden/contracts";
import { evaluatePolicy, type CallFacts, type PolicyEvaluation } from "./evaluate.js";
import { toolVisibility } from "./visibility.js";

/** A model's call to a tool its ToolView does not list. */
export const VIEW_NOT_SHOWN_RULE = "view.not_shown";

/**
 * Decides a call as it arrives: a model (mode `llm`) may call only what its ToolView lists, so its
 * call is decided by the same `toolVisibility` the registry compiles views with (the two cannot
 * disagree); other modes go straight to `evaluatePolicy`. A hidden tool is denied with
 * `view.not_shown` first, then the rules that hid it.
 */
export function evaluateCall(doc: PolicyDocument, f: CallFacts): PolicyEvaluation {
  if (f.mode !== "llm") return evaluatePolicy(doc, f);
  const v = toolVisibility(doc, f.tool, f);
  if (v.visible) return v.evaluation;
  return {
    decision: "deny",
    ruleIds: [VIEW_NOT_SHOWN_RULE, ...v.ruleIds],
    reason: `${f.tool.name} is not in this caller's tool view (${v.reason}): ${v.detail}`,
  };
}
