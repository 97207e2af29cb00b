export { loadAgentsFile } from "./agents-file.js";
export { DEFAULT_MODEL, endpointOf, EvalConfigSchema, loadConfig, loadEvalConfig, SubagentConfigSchema, type EvalConfig, type SubagentConfig } from "./config.js";
export { triageAgent } from "./demo/triage.js";
export {
  CONTEXT_KINDS,
  DEFAULT_BUDGET,
  parseSubagentDescriptor,
  SubagentDefinitionError,
  SubagentDescriptorSchema,
  type ContextKind,
  type SubagentDescriptor,
  type SubagentDescriptorInput,
} from "./descriptor.js";
export { STOP_REASONS, type StopReason, type Usage } from "./domain/budget-meter.js";
export { ChildCallRecordSchema, SubagentOutputSchema, type ChildCallRecord, type SubagentOutput } from "./domain/output.js";
export { ENDPOINT_VARIABLES, endpointConfigured, openAiModelClient, type ModelClient, type ModelEndpoint, type ModelReply, type ModelRequest } from "./model.js";
export { SubagentStartError } from "./resolve-grades.js";
export { startSubagentService, type SubagentService, type SubagentServiceDeps } from "./service.js";
export { SUPPORT_DESK_GOLDEN, type ArgCheck, type GoldenCase, type GoldenSet } from "./eval/golden.js";
export { runEval } from "./eval/run-eval.js";
export { report, reportText, scoreCase, type CaseOutcome, type EvalCall, type EvalReport } from "./eval/score.js";
