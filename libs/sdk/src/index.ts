export { toModelMessage, type ToolResult } from "@warden/contracts/events";
export {
  createAgentClient,
  DEFAULT_CALL_TIMEOUT_MS,
  type AgentClient,
  type AgentClientOptions,
  type AgentToolViewQuery,
  type AwaitCallOptions,
  type ResultOptions,
  type CallOptions,
  type ToolViewResult,
} from "./agent-client.js";
export {
  createApproverClient,
  type ApprovalWatch,
  type ApproveOptions,
  type ApproverClient,
  type ApproverClientOptions,
  type DecisionOutcome,
  type WatchApprovalsOptions,
} from "./approver-client.js";
export { cancelCall, revokeSessionGrant, type CancelOutcome } from "./cancel-call.js";
export type { PatienceOptions } from "./patient-request.js";
export { viewFingerprint, type ToolViewWatch, type ToolViewWatchOptions } from "./tool-view-watch.js";
export { createRegistryClient, type RegistryClient, type RegistryClientOptions } from "./registry-client.js";
export { buildCallRequest, type CallRequestInput } from "./domain/call-request.js";
export { pendingResult, resultFromEvent } from "./domain/event-result.js";
export { domainOfTool, isAcceptableToolName, UNRESOLVED_DOMAIN } from "./domain/tool-domain.js";
export {
  runPlan,
  type Plan,
  type PlanClient,
  type PlanContext,
  type PlanResult,
  type PlanStep,
  type PlanStepReport,
  type PlanStepStatus,
  type PlanStopReason,
  type RunPlanOptions,
} from "./run-plan.js";
export {
  DEFAULT_WEBHOOK_DURABLE,
  startWebhookNotifier,
  webhookTarget,
  type WebhookCard,
  type WebhookNotifier,
  type WebhookNotifierOptions,
} from "./webhook-notifier.js";
