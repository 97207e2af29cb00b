export { readBucket } from "./bucket-reader.js";
export { readCallEvents, type CallEvents } from "./call-events.js";
export { loadConfig, ProjectorConfigSchema, type ProjectorConfig } from "./config.js";
export { openCursor, type CursorStore } from "./cursor.js";
export { digestsOf, readLiveModels, type LiveModels, type ModelDigests } from "./live-models.js";
export { rebuildReadModels, type RebuildOptions, type RebuildResult } from "./rebuild.js";
export { replayStream, type ReplayOptions, type ReplayProgress, type ReplayResult } from "./replay.js";
export { PROJECTOR_STAGE, startProjector, type Projector, type ProjectorDeps } from "./service.js";
export { readStream, type StreamRange, type StreamReadSummary, type StreamRecord } from "./stream-reader.js";
