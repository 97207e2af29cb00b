/** @warden/contracts/approval: approvals: pending requests and decisions, the card's summary, delivery to people, grant signatures. */
export {
  CANCEL_REFUSALS,
  type CancelReply,
  CancelReplySchema,
  type CancelRequest,
  CancelRequestSchema,
  type DecidedApproval,
  DecidedApprovalSchema,
  DECISION_REFUSALS,
  type DecisionReply,
  DecisionReplySchema,
  type DecisionRequest,
  DecisionRequestSchema,
  grantSigningPayload,
  type GrantStatement,
  type PendingApproval,
  PendingApprovalSchema,
  type PendingRequest,
  PendingRequestSchema,
  type SessionGrantView,
  SessionGrantViewSchema,
} from "../approval.js";
export {
  type DeliveryCursor,
  DeliveryCursorSchema,
  type DeliveryReply,
  DeliveryReplySchema,
  type DeliveryRequest,
  type DeliveryRequestInput,
  DeliveryRequestSchema,
  MAX_DELIVERY_BATCH,
  MAX_DELIVERY_WAIT_MS,
} from "../approval-delivery.js";
export { APPROVAL_SUMMARY_MAX_CHARS, ApprovalSummaryTemplateSchema, approvalSummaryPlaceholders, renderApprovalSummary } from "../approval-summary.js";
export { ApproverPublicKeySchema, approverKeyId, grantStatementOf, verifyEd25519, verifyGrantSignature } from "../grant-signature.js";
