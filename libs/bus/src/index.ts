export { appendEvent, isAlreadyWrittenError, type AppendResult, type ReadBack } from "./append.js";
export { busObserver, observeBus, type BusObserver, type StageSettlement } from "./bus-observer.js";
export { callAttributes, WARDEN_TRACER, withinSpan } from "./stage-span.js";
export { readCallHistory, type HistoryEntry } from "./call-history.js";
export {
  followCallStream,
  readCallStream,
  type CallStreamFollower,
  type CallStreamFollowOptions,
  type StreamRange,
  type StreamReadSummary,
  type StreamRecord,
} from "./call-stream-reads.js";
export { busFromConnection, connectBus, identityOfCreds, type Bus } from "./bus.js";
export { decodeJson, encodeJson } from "./codec.js";
export { BusConfigSchema, ConfigError, loadBusConfig, LOG_LEVELS, parseEnv, type BusConfig } from "./config.js";
export { copyToDlq, DLQ_INLINE_LIMIT, type DeadLetter, type DeadLetterReference, type DlqCopy } from "./dlq.js";
export { entryToJson, kvCreateJson, kvGetJson, kvPutJson, kvUpdateJson, watchJsonMap, type JsonEntry } from "./kv-json.js";
export { createLogger, silentLogger, type Logger } from "./logger.js";
export { lazyChild } from "./lazy-logger.js";
export { isNoAnswer, isNotFound, isPermissionViolation, isRevisionConflict, isStreamCreateUnsettled, isSubjectFull, unlessNotFound } from "./nats-errors.js";
export type { JsMsg, KV, KvEntry, Msg, NatsConnection, ObjectStore, Subscription } from "./nats-types.js";
export { consumeOptions, DEFAULT_IDLE_HEARTBEAT_MS, DEFAULT_PULL_EXPIRES_MS, type PullTuning } from "./pull-options.js";
export { readClaim, readEvent, readEventOnSubject, readOutcome, readRequestOf, type StoredEvent } from "./read-event.js";
export { requestRpc, serveRpc, type RpcHandler } from "./rpc.js";
export { CallStreamTap, type TappedMessage } from "./call-stream-tap.js";
export { acksAll, ensureStageConsumer, type StageConsumerOptions } from "./stage-consumer.js";
export { runStage } from "./stage-runner.js";
export { watchStalledPull, type PulledDurable } from "./stalled-pull.js";
export {
  ACK,
  type StageContext,
  type StageOutcome,
  type StageRunner,
  type StageSpec,
  type UndecodableCode,
  type UndecodableMessage,
} from "./stage-spec.js";
export { stopOnSignals } from "./stop-on-signals.js";
export { getNewestMessage, getStoredMessage } from "./stored-message.js";
export { callsStreamConfig, callsStreamProblems, ensureTopology, TopologyError } from "./topology.js";
