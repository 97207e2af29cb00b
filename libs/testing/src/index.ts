export { approverKey, unpinnedKey, type ApproverKey } from "./approver-key.js";
export {
  append,
  approvalRequested,
  argsValidated,
  grantFor,
  policyChecked,
  type CallableTool,
  type CallOptions,
} from "./authorised-calls.js";
export { CRAFTED_POLICY, CRAFTED_VIOLATIONS } from "./crafted-violations.js";
export { APPROVED_CALL_EVENT_TYPES, callEvents, deadLetters, eventTypes, waitForAck, waitForEvent } from "./events.js";
export { eventually } from "./eventually.js";
export { serveFakeRegistry } from "./fake-registry.js";
export { pendingSend, pendingSendRequest } from "./pending-send.js";
export { startTestNats, type TestNats } from "./nats.js";
export { writeSkillFolder, type SkillFolderSpec } from "./skill-folder.js";
export { useConnections } from "./use-connections.js";
export { useStarted } from "./use-started.js";
export { useTestNats, type TestNatsFixture } from "./use-test-nats.js";
export { startScriptedOpenAi, type RecordedRequest, type ScriptedOpenAi, type ScriptedToolCall, type ScriptedTurn } from "./scripted-openai.js";
export { SYNTHETIC_APPROVER_KEY, SYNTHETIC_OUTCOMES, syntheticCall, type SyntheticCallOptions, type SyntheticOutcome } from "./synthetic-calls.js";
export { requestedCall, type RequestedCallOverrides } from "./requested-call.js";
export { kbSearchDescriptor, putToolRecord, toolRecordOf } from "./tool-records.js";
