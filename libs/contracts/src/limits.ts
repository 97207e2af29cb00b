/** A request (envelope + args) larger than this is refused before it is published. */
export const MAX_REQUEST_BYTES = 256 * 1024;
/** Outputs whose JSON exceeds this go to the object store; the event keeps a preview. */
export const OUTPUT_PREVIEW_BYTES = 8 * 1024;
/** Args shown to an approver are cut to this many characters. */
export const ARGS_PREVIEW_CHARS = 2_000;

/**
 * How deep any JSON Warden decodes may nest (arrays and objects, the outermost value counting as
 * level 1): far below where recursive code overflows its stack (zod's validation at ~1,500
 * levels, canonical JSON at ~3,000), with room above any event for the replies and read models
 * that wrap it. Every reader (stages, projector, replay, audit, SDK) refuses deeper input.
 */
export const MAX_JSON_DEPTH = 512;

/**
 * How deep a ToolCallRequested may nest (its args sit two levels down). The registry refuses
 * deeper requests, so every event derived from one stays far inside MAX_JSON_DEPTH; a client may
 * refuse deeper args before sending.
 */
export const MAX_REQUEST_DEPTH = 64;

/**
 * How deep a tool's output may nest. It sits at level 3 of its ToolCallFinished (event, data,
 * output), and call reads and read models wrap that event again; the margin keeps all of them
 * within MAX_JSON_DEPTH, so every reader can read the call's outcome.
 */
export const MAX_OUTPUT_DEPTH = MAX_JSON_DEPTH - 8;

/**
 * A stream message larger than this is not an event Warden wrote: the largest carries a
 * request's args (at most MAX_REQUEST_BYTES) once, and nats-server's default payload limit is
 * 1 MiB. Requests the registry refuses as too large still fit, so their rejection is folded with
 * them.
 */
export const MAX_EVENT_BYTES = 1024 * 1024;
