export { mayDecide, type ApprovalFacts } from "./approval-authority.js";
export { parsePolicyDocument } from "./document.js";
export {
  checkGates,
  declaredNotHuman,
  DEFAULT_TABLE,
  evaluatePolicy,
  GATE_RULES,
  ruleMatches,
  type CallFacts,
  type GateRuleId,
  type PolicyEvaluation,
} from "./evaluate.js";
export { anyGlob, globMatch } from "./glob.js";
export { principalOf, UNKNOWN_PRINCIPAL } from "./principals.js";
export { toolVisibility, type Visibility } from "./visibility.js";
