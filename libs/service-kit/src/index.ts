export { acceptDecision } from "./accept-decision.js";
export { startDescriptorCache, type DescriptorCache } from "./descriptor-cache.js";
export { followPolicyDocument, type PolicyDocumentFollower, type RejectedPolicyDocument } from "./policy-document-follower.js";
export { runServiceProcess, type OperatorErrorClass, type ProcessIo, type ServiceProcessSpec, type StoppableService } from "./run-service-process.js";
