/** @warden/contracts/approval: approvals: pending requests and decisions, the card's summary, delivery to people, grant signatures. */
export {
  CANCEL_REFUSALS,
  CancelReplySchema,
  CancelRequestSchema,
  type CancelReply,
  type CancelRequest,
  DecidedApprovalSchema,
  type DecidedApproval,
  DecisionReplySchema,
  DecisionRequestSchema,
  DECISION_REFUSALS,
  grantSigningPayload,
  PendingApprovalSchema,
  PendingRequestSchema,
  SessionGrantViewSchema,
  type DecisionReply,
  type DecisionRequest,
  type GrantStatement,
  type PendingApproval,
  type PendingRequest,
  type SessionGrantView,
} from "../approval.js";
export {
  DeliveryCursorSchema,
  DeliveryReplySchema,
  DeliveryRequestSchema,
  MAX_DELIVERY_BATCH,
  MAX_DELIVERY_WAIT_MS,
  type DeliveryCursor,
  type DeliveryReply,
  type DeliveryRequest,
  type DeliveryRequestInput,
} from "../approval-delivery.js";
export { APPROVAL_SUMMARY_MAX_CHARS, ApprovalSummaryTemplateSchema, approvalSummaryPlaceholders, renderApprovalSummary } from "../approval-summary.js";
export { ApproverPublicKeySchema, approverKeyId, grantStatementOf, verifyEd25519, verifyGrantSignature } from "../grant-signature.js";
