export { ApproverConfigSchema, loadConfig, type ApproverConfig } from "./config.js";
export { APPROVAL_STATUSES, ApprovalRecordSchema, type ApprovalRecord } from "./domain/approval-record.js";
export { GRANT_LIFETIME_MS } from "./domain/decision.js";
export { APPROVER_STAGE, startApproverService, type ApproverService, type ApproverServiceDeps } from "./service.js";
export {
  generateSigningKeyPair as generateApproverKeyPair,
  loadSigningKey,
  publicKeyOf as approverPublicKeyOf,
  type SigningKey,
  type SigningKeyPair as ApproverKeyPair,
} from "@warden/service-kit";
