export { ApproverKeyError } from "./approver-keys.js";
export { outputArtifactId, readArtifact, readArtifactJson } from "./artifacts.js";
export { ApproverKeysConfigSchema, loadApproverKeys, type ApproverKeysConfig } from "./config.js";
export {
  defineTool,
  ToolDefinitionError,
  type ExecutableTool,
  type JsonSchemaToolDefinition,
  type PreparedCall,
  type PreviewContext,
  type Tool,
  type VerifyVerdict,
  type PreCallVerdict,
  type RecordedResult,
  type ZodToolDefinition,
} from "./define-tool.js";
export { Redactor } from "./domain/redactor.js";
export { MIN_SECRET_BYTES } from "./domain/secret-patterns.js";
export type { Registered } from "./register.js";
export { SecretStore, type SecretDeclaration, type SecretStoreOptions } from "./secret-store.js";
export { ExecutorStartError, startExecutor, type Executor, type ExecutorOptions } from "./start-executor.js";
export type { ToolContext } from "./tool-context.js";
export type { ToolEffects } from "./tool-effects.js";
export { ToolError } from "./tool-error.js";
export type { ToolSecrets } from "./tool-secrets.js";
