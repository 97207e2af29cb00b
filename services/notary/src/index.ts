export { startNotaryService, type NotaryService, type NotaryServiceDeps } from "./service.js";
export { lastCheckpoint, readCheckpoints, type StoredCheckpoint } from "./last-checkpoint.js";
export { loadConfig, NotaryConfigSchema, type NotaryConfig } from "./config.js";
