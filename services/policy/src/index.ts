export { loadConfig, PolicyConfigSchema, type PolicyConfig } from "./config.js";
export { openBudgetGuard, type BudgetGuard, type Counted } from "./budget-guard.js";
export { callsUsed, type ProjectedRun } from "./domain/budget.js";
export { BUDGET_RULE, DESCRIPTOR_BOUND_RULE } from "./domain/verdict.js";
export {
  authorOf,
  getPolicyDocument,
  getStoredPolicyDocument,
  putPolicyDocument,
  type PutPolicyOptions,
  type StoredPolicyDocument,
} from "./policy-document.js";
export { POLICY_STAGE, startPolicyService, type PolicyService, type PolicyServiceDeps } from "./service.js";
