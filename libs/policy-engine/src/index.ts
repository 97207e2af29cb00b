export { mayDecide, type ApprovalFacts } from "./approval-authority.js";
export { parsePolicyDocument } from "./document.js";
export { effectiveFlags, flagGranted } from "./effective-flags.js";
export {
  checkGates,
  DEFAULT_TABLE,
  evaluatePolicy,
  GATE_RULES,
  ruleMatches,
  type CallFacts,
  type GateRuleId,
  type PolicyEvaluation,
} from "./evaluate.js";
export { anyGlob, globMatch } from "./glob.js";
export { isNamed, isNamedHuman, notAPersonReason, principalOf, UNKNOWN_PRINCIPAL } from "./principals.js";
export { toolVisibility, type Visibility } from "./visibility.js";
