export { startNotaryService, type NotaryService, type NotaryServiceDeps } from "./service.js";
export { lastCheckpoint, readCheckpoints, type StoredCheckpoint } from "./last-checkpoint.js";
export { loadConfig, NotaryConfigSchema, type NotaryConfig } from "./config.js";
export { HEAD_LOG_FILE } from "./head-log.js";
