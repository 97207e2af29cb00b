export { acceptDecision } from "./accept-decision.js";
export { startDescriptorCache, type DescriptorCache } from "./descriptor-cache.js";
export { createTurns, type Turns } from "./keyed-turns.js";
export { followPolicyDocument, type PolicyDocumentFollower, type RejectedPolicyDocument } from "./policy-document-follower.js";
export { runServiceProcess, type OperatorErrorClass, type ProcessIo, type ServiceProcessSpec, type StoppableService } from "./run-service-process.js";
export { generateSigningKeyPair, loadSigningKey, publicKeyOf, type SigningKey, type SigningKeyPair } from "./signing-key.js";
export { openExecutorLiveness, type ExecutorLiveness } from "./executor-liveness.js";
