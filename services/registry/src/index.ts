export { loadConfig, RegistryConfigSchema, type RegistryConfig } from "./config.js";
export { ArgsValidators, MAX_ARGS_ERRORS, toArgsErrors, type ArgsCheck, type ArgsError } from "./domain/args-validator.js";
export {
  formatToolView,
  toAnthropicTools,
  toMcpToolList,
  toOpenAiTools,
  toToolTable,
  type AnthropicTool,
  type DescriptorOf,
  type McpTool,
  type McpToolAnnotations,
  type OpenAiTool,
  type ToolTableRow,
} from "./domain/format-tool-view.js";
export { parseDescriptors, type ParsedDescriptor } from "./domain/parse-descriptors.js";
export { validateCall, type CallLookup, type ValidatedCall } from "./domain/validate-call.js";
export { startRegistryService, VALIDATE_STAGE, type RegistryService, type RegistryServiceDeps } from "./service.js";
