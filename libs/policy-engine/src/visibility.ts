import type { CallMode, HiddenTool, ToolDescriptor } from "@warden/contracts/descriptor";
import type { PolicyDocument } from "@warden/contracts/policy";
import { GATE_RULES, evaluatePolicy, type PolicyEvaluation } from "./evaluate.js";
import { anyGlob } from "./glob.js";

export type Visibility =
  | { readonly visible: true; readonly evaluation: PolicyEvaluation }
  | { readonly visible: false; readonly reason: HiddenTool["reason"]; readonly detail: string; readonly ruleIds: readonly string[] };

const GATE_REASONS: Record<string, HiddenTool["reason"]> = {
  [GATE_RULES.featureFlag]: "feature_flag_off",
  [GATE_RULES.scope]: "out_of_scope",
  [GATE_RULES.principalScope]: "missing_principal_scope",
  [GATE_RULES.externalReadScope]: "missing_principal_scope",
  [GATE_RULES.humanModeNeedsPerson]: "policy_denied",
};

/**
 * Why a model's view never lists a send (the invariant: a model never even sees it). A model that
 * asks for one anyway is not refused: its call waits for a person (`default.send.llm`, evaluateCall).
 */
export const SEND_NEVER_LISTED_RULE = "invariant.send_never_llm";

const SEND_NEVER_LISTED_DETAIL = "send tools are never listed for a model; a model that asks for one anyway waits for a person to confirm it (default.send.llm)";

/**
 * Whether a caller sees a tool: an `llm` caller never sees `send`, sees `write` only where the
 * document opts in, and nobody sees a tool whose call would be denied.
 */
export function toolVisibility(
  doc: PolicyDocument,
  tool: ToolDescriptor,
  q: { principal: string; mode: CallMode; flags: Readonly<Record<string, boolean>>; scope: string | null },
): Visibility {
  if (q.mode === "llm" && tool.grade === "send") {
    return { visible: false, reason: "send_never_listed_for_llm", detail: SEND_NEVER_LISTED_DETAIL, ruleIds: [SEND_NEVER_LISTED_RULE] };
  }
  if (q.mode === "llm" && tool.grade === "write" && !anyGlob(doc.llm.showWrite, tool.name)) {
    return { visible: false, reason: "write_not_opted_in_for_llm", detail: "the policy document does not list this write tool in llm.showWrite", ruleIds: ["llm.show_write"] };
  }
  const evaluation = evaluatePolicy(doc, { tool, ...q });
  if (evaluation.decision === "deny") {
    return {
      visible: false,
      reason: (evaluation.gate && GATE_REASONS[evaluation.gate]) ?? "policy_denied",
      detail: evaluation.reason,
      ruleIds: evaluation.ruleIds,
    };
  }
  return { visible: true, evaluation };
}
