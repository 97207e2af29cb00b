/** A request (envelope + args) larger than this is refused before it is published. */
export const MAX_REQUEST_BYTES = 256 * 1024;
/** Outputs whose JSON exceeds this go to the object store; the event keeps a preview. */
export const OUTPUT_PREVIEW_BYTES = 8 * 1024;
/** Args shown to an approver are cut to this many characters. */
export const ARGS_PREVIEW_CHARS = 2_000;
